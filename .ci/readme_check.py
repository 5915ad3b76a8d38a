"""README.md must stay in step with nbs/index.ipynb (the home page; nbdev_docs would render one from the other).

Run from the repository root:  python .ci/readme_check.py
Compares, as plain text after stripping surrounding whitespace:
  - every code cell of nbs/index.ipynb must appear verbatim in README.md;
  - the last line of every markdown cell of nbs/index.ipynb must appear verbatim in README.md.
Prints the cells that are missing; exits 1 if any is.
"""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    cells = json.loads((ROOT / 'nbs' / 'index.ipynb').read_text(encoding='utf-8'))['cells']
    src = lambda c: ''.join(c['source']) if isinstance(c['source'], list) else c['source']
    code = [c for c in cells if c['cell_type'] == 'code']
    md = [c for c in cells if c['cell_type'] == 'markdown']
    missing = [c for c in code if src(c).strip() not in readme]
    missing += [c for c in md if src(c).strip().split('\n')[-1].strip() not in readme]
    for c in missing: print(f'not in README.md ({c["cell_type"]} cell):', src(c)[:300])
    print(f'README check: {len(code)} code cells and the last lines of {len(md)} markdown cells of nbs/index.ipynb;',
          'all in README.md' if not missing else f'FAILED ({len(missing)} missing)')
    return 1 if missing else 0


if __name__ == '__main__': sys.exit(main())
