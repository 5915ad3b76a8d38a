"""The chapter's modules, sections 4.1-4.9: what the book derives, step by step."""
