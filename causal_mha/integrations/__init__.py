"""Real models' attention swapped for ours: converters, Hugging Face, parallelism."""
