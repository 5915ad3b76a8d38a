"""Site check for CI, standing in for the Quarto render (Quarto is not installed where CI runs).

Run from the repository root after `nbdev_proc_nbs`:  python .ci/site_check.py
Checks, each over every notebook in nbs/ (found by glob, so new notebooks are covered without editing this file):
  titles      the first markdown cell of every page starts with an H1 (`# Title`): nbdev makes it the page title
  options     every `#|` line of a code cell is an nbdev directive or a Quarto cell option this project knows,
              written the way nbdev reads it (nbdev directives bare, Quarto options `key: value`), and sits in the
              cell's leading comment block (nbdev ignores a `#|` line that comes after code)
  links       every image and link in markdown (the notebooks and README.md) that points inside the repository
              names a file that exists; links to pages (`core.html`, `08_core.ipynb`) name an existing notebook
  sidebar     nbs/sidebar.yml lists every notebook exactly once and lists nothing that does not exist
  outputs     no processed page in _proc/ carries an error, a traceback, a warning or a machine path in its outputs
Prints what it found; exits 1 when any check fails.
"""
import configparser, json, re, sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
cfg = configparser.ConfigParser(delimiters=['='])
cfg.read(ROOT / 'settings.ini', encoding='utf-8')
NBS = ROOT / cfg['DEFAULT'].get('nbs_path', 'nbs')
PROC = ROOT / '_proc'

# nbdev 2 directives (bare, no colon): what nbdev_export, nbdev_test and the doc processors read
NBDEV_DIRECTIVES = {'default_exp', 'export', 'exports', 'exporti', 'exec_doc', 'hide', 'hide_line', 'filter_stream'}
TEST_FLAGS = set(cfg['DEFAULT'].get('tst_flags', '').split())          # cells nbdev_test skips by default
# Quarto cell options (`key: value`) for Python cells
QUARTO_OPTIONS = {'eval', 'echo', 'output', 'include', 'warning', 'error', 'message', 'label', 'classes', 'column',
                  'code-fold', 'code-summary', 'code-overflow', 'code-line-numbers', 'output-location', 'panel',
                  'layout', 'layout-ncol', 'layout-nrow', 'layout-align', 'layout-valign', 'cap-location'}
QUARTO_PREFIXES = ('fig-', 'tbl-', 'lst-')

MACHINE_PATHS = ['/tmp/', '/root/', '/home/', str(ROOT) + '/']
WARNING_RE = re.compile(r'\b\w*Warning:|\bwarnings\.warn\b')
TRACEBACK_RE = re.compile(r'Traceback \(most recent call last\)')


def notebooks(folder):
    "Every notebook under `folder`, skipping folders nbdev skips (names starting with `_` or `.`)."
    return sorted(p for p in folder.rglob('*.ipynb')
                  if not any(part.startswith(('_', '.')) for part in p.relative_to(folder).parts[:-1])
                  and not p.name.startswith(('_', '.')))


def cells(path): return json.loads(path.read_text(encoding='utf-8'))['cells']
def src(cell): return ''.join(cell['source']) if isinstance(cell['source'], list) else cell['source']


def check_titles(nbs):
    bad = []
    for nb in nbs:
        md = [c for c in cells(nb) if c['cell_type'] == 'markdown']
        first = src(md[0]).lstrip().split('\n')[0] if md else ''
        if not re.match(r'# \S', first): bad.append(f'{rel(nb)}: first markdown cell does not start with an H1 (found {first[:60]!r})')
    return bad


DIRECTIVE_RE = re.compile(r'^\s*#\s*\|')

def check_options(nbs):
    bad, used = [], {}
    for nb in nbs:
        for i, c in enumerate(cells(nb)):
            if c['cell_type'] != 'code': continue
            lines, in_head = src(c).splitlines(), True
            for ln in lines:
                if not ln.strip(): continue
                if not DIRECTIVE_RE.match(ln):
                    if not re.match(r'^\s*%%\w+', ln): in_head = False
                    continue
                where = f'{rel(nb)} cell {i}: {ln.strip()!r}'
                if not in_head: bad.append(f'{where} comes after code; nbdev ignores it'); continue
                body = DIRECTIVE_RE.sub('', ln).strip()
                m = re.match(r'([\w-]+)\s*(:?)\s*(.*)$', body)
                if not m: bad.append(f'{where}: not a directive'); continue
                key, colon, rest = m.groups()
                used[key] = used.get(key, 0) + 1
                if key in NBDEV_DIRECTIVES or key in TEST_FLAGS:
                    if colon and rest: bad.append(f'{where}: nbdev directive `{key}` takes no `key: value` form')
                elif key in QUARTO_OPTIONS or key.startswith(QUARTO_PREFIXES):
                    if not colon: bad.append(f'{where}: Quarto option `{key}` needs a colon (`#| {key}: ...`); without it nbdev and Quarto ignore it')
                else: bad.append(f'{where}: `{key}` is neither an nbdev directive, a test flag ({" ".join(sorted(TEST_FLAGS))}) nor a Quarto cell option')
    return bad, used


LINK_RE = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)'   # [text](target "title")
                     r'|(?:src|href)\s*=\s*["\']([^"\']+)["\']')                        # <img src=...>, <a href=...>

def strip_code(md):
    "Markdown without fenced code blocks and inline code, whose brackets are not links."
    md = re.sub(r'^(```|~~~).*?^\1', '', md, flags=re.M | re.S)
    return re.sub(r'`[^`\n]*`', '', md)


def page_names(nbs):
    "The pages nbdev makes: `08_core.ipynb` -> `core.html`, `07a_text.ipynb` -> `text.html` (nbdev's rule; relative to nbs/)."
    names = set()
    for nb in nbs:
        r = nb.relative_to(NBS)
        names.add(str(r)); names.add(str(r.with_name(re.sub(r'^\d+[a-zA-Z0-9]*_', '', r.name.lower())).with_suffix('.html')))
    return names


def check_links(nbs):
    bad, n = [], 0
    pages = page_names(nbs)
    sources = [(nb, [src(c) for c in cells(nb) if c['cell_type'] == 'markdown']) for nb in nbs]
    readme = ROOT / 'README.md'
    if readme.exists(): sources.append((readme, [readme.read_text(encoding='utf-8')]))
    for f, texts in sources:
        for t in texts:
            for m in LINK_RE.finditer(strip_code(t)):
                target = m.group(1) or m.group(2)
                if re.match(r'^([a-z][a-z0-9+.-]*:|#|//)', target, re.I): continue   # http:, mailto:, data:, anchors
                path = target.split('#')[0].split('?')[0]
                if not path: continue
                n += 1
                dest = (f.parent / path).resolve()
                if dest.exists(): continue
                if NBS.resolve() in dest.parents and str(dest.relative_to(NBS.resolve())) in pages: continue  # a page
                bad.append(f'{rel(f)}: link target {target!r} does not exist')
    return bad, n


def sidebar_entries(node):
    if isinstance(node, str): yield node
    elif isinstance(node, list):
        for o in node: yield from sidebar_entries(o)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k in ('contents', 'href', 'file') or isinstance(v, (list, dict)): yield from sidebar_entries(v)


def check_sidebar(nbs):
    sb = NBS / 'sidebar.yml'
    if not sb.exists(): return [f'{rel(sb)} is missing']
    y = yaml.safe_load(sb.read_text(encoding='utf-8'))
    listed = [e for e in sidebar_entries(y['website']['sidebar']['contents']) if e.endswith(('.ipynb', '.qmd', '.md'))]
    have = [str(nb.relative_to(NBS)) for nb in nbs]
    bad = [f'{rel(sb)} does not list {e}' for e in have if e not in listed]
    bad += [f'{rel(sb)} lists {e}, which does not exist' for e in listed if not (NBS / e).exists()]
    bad += [f'{rel(sb)} lists {e} {listed.count(e)} times' for e in sorted(set(listed)) if listed.count(e) > 1]
    return bad


def output_texts(out):
    "Every piece of text in one output: streams, errors, and every text-like mime type (html, plain, svg, markdown)."
    if out.get('output_type') == 'error': yield 'error', '\n'.join([out.get('ename', ''), out.get('evalue', '')] + out.get('traceback', []))
    if 'text' in out: yield out.get('name', 'stream'), src({'source': out['text']})
    for mime, v in (out.get('data') or {}).items():
        if mime.startswith('text/') or mime.endswith(('+xml', '/json', 'javascript')):
            yield mime, v if isinstance(v, str) else ''.join(v) if isinstance(v, list) else json.dumps(v)


def check_outputs(nbs):
    bad, n = [], 0
    for nb in nbs:
        p = PROC / nb.relative_to(NBS)
        if not p.exists(): bad.append(f'{rel(p)} is missing: run nbdev_proc_nbs first'); continue
        for i, c in enumerate(cells(p)):
            for out in c.get('outputs', []):
                n += 1
                for kind, text in output_texts(out):
                    where = f'{rel(p)} cell {i} ({kind})'
                    if kind == 'error' or TRACEBACK_RE.search(text): bad.append(f'{where}: an error or traceback'); continue
                    if m := WARNING_RE.search(text): bad.append(f'{where}: a warning: {line_of(text, m.start())!r}')
                    for mp in MACHINE_PATHS:
                        if (k := text.find(mp)) >= 0: bad.append(f'{where}: a machine path: {line_of(text, k)!r}'); break
    return bad, n


def line_of(text, k):
    a, b = text.rfind('\n', 0, k) + 1, text.find('\n', k)
    return text[a: b if b >= 0 else None].strip()[:160]


def rel(p):
    try: return str(Path(p).resolve().relative_to(ROOT))
    except ValueError: return str(p)


def main():
    nbs = notebooks(NBS)
    print(f'{len(nbs)} pages: {" ".join(str(nb.relative_to(NBS)) for nb in nbs)}')
    results = {}
    results['titles'] = check_titles(nbs)
    results['options'], used = check_options(nbs)
    print('cell options in use:', ', '.join(f'{k} ({v})' for k, v in sorted(used.items())))
    results['links'], n_links = check_links(nbs)
    print(f'{n_links} links and images into the repository checked')
    results['sidebar'] = check_sidebar(nbs)
    results['outputs'], n_out = check_outputs(nbs)
    print(f'{n_out} outputs of processed pages in {rel(PROC)}/ checked')
    for name, bad in results.items():
        print(f'{name:8s} {"ok" if not bad else f"{len(bad)} problem(s)"}')
        for b in bad: print('   ', b)
    failed = [k for k, v in results.items() if v]
    print('site check:', 'passed' if not failed else 'FAILED (' + ', '.join(failed) + ')')
    return 1 if failed else 0


if __name__ == '__main__': sys.exit(main())
