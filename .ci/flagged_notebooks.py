"""Print the notebooks (nbs/*.ipynb) with a code cell flagged FLAG in its leading
`#|` lines, one a line, as .ci/run finds the dist notebooks.
Usage: python .ci/flagged_notebooks.py cuda"""

import json
import pathlib
import re
import sys

flag = sys.argv[1]
for p in sorted(pathlib.Path("nbs").rglob("*.ipynb")):
    for c in json.loads(p.read_text(encoding="utf-8"))["cells"]:
        head = re.match(r"(\s*#\s*\|.*\n?)*", "".join(c["source"])).group(0)
        if c["cell_type"] == "code" and re.search(
            rf"^\s*#\s*\|\s*{flag}\b", head, re.M
        ):
            print(p)
            break
