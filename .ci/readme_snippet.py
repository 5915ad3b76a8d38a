"""Run the "Use it in your model" snippet of README.md exactly as written there.

Run from the repository root:  python .ci/readme_snippet.py
Takes the first ```python (or ``` python, as nbdev_readme writes it) block after the heading "## Use it in your model" in README.md, writes it to a temporary
file and runs it with this Python in a temporary folder (so it imports the installed package, not files beside it).
Exits with the snippet's status: 1 if the section or its code block is missing.
"""

import re, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADING = "## Use it in your model"


def snippet(readme: str) -> str | None:
    "The code of the first ```python block of the section under HEADING (up to the next '## '), or None."
    start = readme.find(HEADING)
    if start < 0:
        return None
    section = readme[start + len(HEADING) :]
    end = re.search(r"^## ", section, re.M)
    m = re.search(
        r"^``` ?python\n(.*?)^```", section[: end.start() if end else None], re.M | re.S
    )  # ``` python: gfm
    return m.group(1) if m else None


def main():
    code = snippet((ROOT / "README.md").read_text(encoding="utf-8"))
    if code is None:
        print(f'README snippet: no ```python block under "{HEADING}" in README.md')
        return 1
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "readme_snippet.py"
        path.write_text(code, encoding="utf-8")
        rc = subprocess.run([sys.executable, str(path)], cwd=d).returncode
    print(
        f'README snippet ({len(code.splitlines())} lines under "{HEADING}"):',
        "ran" if rc == 0 else f"FAILED (exit {rc})",
    )
    return rc


if __name__ == "__main__":
    sys.exit(main())
