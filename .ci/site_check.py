"""Site check for CI: what the notebooks and nbdev's processed pages must hold (the built site is read in a browser by
.ci/site_browser.py).

Run from the repository root after `nbdev_docs` (or `nbdev_proc_nbs`, which makes _proc/ alone):  python .ci/site_check.py
Checks, each over every notebook in nbs/ (found by glob, so new notebooks are covered without editing this file):
  titles      the first markdown cell of every page starts with an H1 (`# Title`): nbdev makes it the page title
  options     every `#|` line of a code cell is an nbdev directive or a Quarto cell option this project knows,
              written the way nbdev reads it (nbdev directives bare, Quarto options `key: value`), and sits in the
              cell's leading comment block (nbdev ignores a `#|` line that comes after code)
  links       every image and link in markdown (the notebooks and README.md) that points inside the repository
              names a file that exists, relative to the notebook's folder; links to pages (`core.html`,
              `../layer/core.html#attention`, `08_core.ipynb`) name an existing notebook
  names       every notebook the markdown names, in prose or code (`08_core.ipynb`, `nbs/chapter/10_labs.ipynb`,
              `../layer/08_core.ipynb`), exists: a bare name anywhere in nbs/, a path from the file's folder,
              nbs/ or the repository's root
  sidebar     nbs/sidebar.yml lists every notebook exactly once and lists nothing that does not exist
  labels      every label nbs/sidebar.yml gives a page (a section that links a page, an entry with `text`)
              is that page's title (its H1); an entry without a label shows the title already
  outputs     no processed page in _proc/ carries an error, a traceback, a warning or a machine path in its outputs
  code        each class and function the chapter builds has its source on its processed page (`#| exports`, or a
              visible cell that defines it): nbdev drops the source of `#| export` cells and shows only a signature
  values      on the chapter pages (notebooks 01-09 in any folder, with their letter pages: 07a, 08a-08g) at
              least 40% of the visible code cells that compute (not definitions only: a cell of functions,
              classes, imports and names has nothing to print) show an output
  refusals    on the chapter pages and the labs, no heading follows a refusal block (a visible code cell with two or
              more `test_fail` calls, or two code cells in a row with one each) except the page's final section on
              bad input and edge cases (`## Bad input and edge cases`) and the headings nested under it
  order       in nbs/sidebar.yml the page after the home page is 4.1 (the "next" links follow the sidebar), the chapter
              pages 01-09 follow in their order (a section's parts, 08a-08g, in letter order before or after its
              own page), and the ground module, Hardening, Console commands and Benchmarks come after them
  chapter     nbs/sidebar.yml lists the chapter (the pages 01-09 with their letter pages, then the labs) in one run,
              in the learner's order: 4.1, ..., 4.7, 4.7a, 4.8, 08a-08g, 4.9, Labs; no other page between them
  bench       the Benchmarks page opens with results: its first code cell with an output shows a table or a plot,
              and no code cell that tests the harness (test_*, assert) comes before its first plot
  times       the table of times on the home page (so in README.md) is what its cell
              renders now from nbs/bench_results/times.json (from .ci/measure_times.py)
Prints what it found; exits 1 when any check fails.
"""

import ast, configparser, json, re, sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
cfg = configparser.ConfigParser(delimiters=["="])
cfg.read(ROOT / "settings.ini", encoding="utf-8")
NBS = ROOT / cfg["DEFAULT"].get("nbs_path", "nbs")
PROC = ROOT / "_proc"

# nbdev 2 directives (bare, no colon): what nbdev_export, nbdev_test and the doc processors read
NBDEV_DIRECTIVES = {
    "default_exp",
    "export",
    "exports",
    "exporti",
    "exec_doc",
    "hide",
    "hide_line",
    "filter_stream",
}
TEST_FLAGS = set(
    cfg["DEFAULT"].get("tst_flags", "").split()
)  # cells nbdev_test skips by default
# Quarto cell options (`key: value`) for Python cells
QUARTO_OPTIONS = {
    "eval",
    "echo",
    "output",
    "include",
    "warning",
    "error",
    "message",
    "label",
    "classes",
    "column",
    "code-fold",
    "code-summary",
    "code-overflow",
    "code-line-numbers",
    "output-location",
    "panel",
    "layout",
    "layout-ncol",
    "layout-nrow",
    "layout-align",
    "layout-valign",
    "cap-location",
}
QUARTO_PREFIXES = ("fig-", "tbl-", "lst-")

MACHINE_PATHS = ["/tmp/", "/root/", "/home/", "/work/", "/Users/", str(ROOT) + "/"]
WARNING_RE = re.compile(r"\b\w*Warning:|\bwarnings\.warn\b")
TRACEBACK_RE = re.compile(r"Traceback \(most recent call last\)")


def notebooks(folder):
    "Every notebook under `folder`, skipping folders nbdev skips (names starting with `_` or `.`)."
    return sorted(
        p
        for p in folder.rglob("*.ipynb")
        if not any(
            part.startswith(("_", ".")) for part in p.relative_to(folder).parts[:-1]
        )
        and not p.name.startswith(("_", "."))
    )


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def src(cell):
    return (
        "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    )


def check_titles(nbs):
    bad = []
    for nb in nbs:
        md = [c for c in cells(nb) if c["cell_type"] == "markdown"]
        first = src(md[0]).lstrip().split("\n")[0] if md else ""
        if not re.match(r"# \S", first):
            bad.append(
                f"{rel(nb)}: first markdown cell does not start with an H1 (found {first[:60]!r})"
            )
    return bad


DIRECTIVE_RE = re.compile(r"^\s*#\s*\|")


def check_options(nbs):
    bad, used = [], {}
    for nb in nbs:
        for i, c in enumerate(cells(nb)):
            if c["cell_type"] != "code":
                continue
            lines, in_head = src(c).splitlines(), True
            for ln in lines:
                if not ln.strip():
                    continue
                if not DIRECTIVE_RE.match(ln):
                    if not re.match(r"^\s*%%\w+", ln):
                        in_head = False
                    continue
                where = f"{rel(nb)} cell {i}: {ln.strip()!r}"
                if not in_head:
                    bad.append(f"{where} comes after code; nbdev ignores it")
                    continue
                body = DIRECTIVE_RE.sub("", ln).strip()
                m = re.match(r"([\w-]+)\s*(:?)\s*(.*)$", body)
                if not m:
                    bad.append(f"{where}: not a directive")
                    continue
                key, colon, rest = m.groups()
                used[key] = used.get(key, 0) + 1
                if key in NBDEV_DIRECTIVES or key in TEST_FLAGS:
                    if colon and rest:
                        bad.append(
                            f"{where}: nbdev directive `{key}` takes no `key: value` form"
                        )
                elif key in QUARTO_OPTIONS or key.startswith(QUARTO_PREFIXES):
                    if not colon:
                        bad.append(
                            f"{where}: Quarto option `{key}` needs a colon (`#| {key}: ...`); without it nbdev and Quarto ignore it"
                        )
                else:
                    bad.append(
                        f"{where}: `{key}` is neither an nbdev directive, a test flag ({' '.join(sorted(TEST_FLAGS))}) nor a Quarto cell option"
                    )
    return bad, used


LINK_RE = re.compile(
    r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)'  # [text](target "title")
    r'|(?:src|href)\s*=\s*["\']([^"\']+)["\']'
)  # <img src=...>, <a href=...>


def strip_code(md):
    "Markdown without fenced code blocks and inline code, whose brackets are not links."
    md = re.sub(r"^(```|~~~).*?^\1", "", md, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", md)


def page_name(nb):
    "nbdev's page for a notebook (relative to nbs/): `08_core.ipynb` -> `core.html`, `07a_text.ipynb` -> `text.html`."
    p = Path(nb)
    return str(
        p.with_name(re.sub(r"^\d+[a-zA-Z0-9]*_", "", p.name.lower())).with_suffix(
            ".html"
        )
    )


def page_names(nbs):
    "Each notebook's path relative to nbs/ and the page nbdev makes of it."
    names = set()
    for nb in nbs:
        r = nb.relative_to(NBS)
        names.add(str(r))
        names.add(page_name(r))
    return names


def markdown_sources(nbs):
    "[(file, [markdown text, ...])]: the markdown cells of every notebook, and README.md."
    sources = [
        (nb, [src(c) for c in cells(nb) if c["cell_type"] == "markdown"]) for nb in nbs
    ]
    readme = ROOT / "README.md"
    if readme.exists():
        sources.append((readme, [readme.read_text(encoding="utf-8")]))
    return sources


def check_links(nbs):
    bad, n = [], 0
    pages = page_names(nbs)
    for f, texts in markdown_sources(nbs):
        for t in texts:
            for m in LINK_RE.finditer(strip_code(t)):
                target = m.group(1) or m.group(2)
                if re.match(r"^([a-z][a-z0-9+.-]*:|#|//)", target, re.I):
                    continue  # http:, mailto:, data:, anchors
                path = target.split("#")[0].split("?")[0]
                if not path:
                    continue
                n += 1
                dest = (f.parent / path).resolve()
                if dest.exists():
                    continue
                if (
                    NBS.resolve() in dest.parents
                    and str(dest.relative_to(NBS.resolve())) in pages
                ):
                    continue  # a page
                bad.append(f"{rel(f)}: link target {target!r} does not exist")
    return bad, n


# a notebook named in prose or code: `08_core.ipynb`, `../layer/08_core.ipynb`, `nbs/chapter/10_labs.ipynb`
NB_NAME_RE = re.compile(r"(?<![\w./-])((?:\.\./|[\w-]+/)*\d+[a-z]?_\w+\.ipynb)")


def names_notebook(token, f, names):
    "Whether `token`, named in file `f`, is a notebook: a bare name anywhere, a path from f's folder, nbs/ or the root."
    if "/" not in token:
        return token in names
    return any((d / token).exists() for d in (f.parent, NBS, ROOT))


def check_names(nbs):
    bad, n = [], 0
    names = {nb.name for nb in nbs}
    for f, texts in markdown_sources(nbs):
        for token in sorted({m[1] for t in texts for m in NB_NAME_RE.finditer(t)}):
            n += 1
            if not names_notebook(token, f, names):
                bad.append(f"{rel(f)}: names {token}, which is no notebook")
    return bad, n


def sidebar_entries(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for o in node:
            yield from sidebar_entries(o)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k in ("contents", "href", "file") or isinstance(v, (list, dict)):
                yield from sidebar_entries(v)


def sidebar_listed():
    "The pages nbs/sidebar.yml lists (notebooks, .qmd and .md files), in its order."
    y = yaml.safe_load((NBS / "sidebar.yml").read_text(encoding="utf-8"))
    return [
        e
        for e in sidebar_entries(y["website"]["sidebar"]["contents"])
        if e.endswith((".ipynb", ".qmd", ".md"))
    ]


def check_sidebar(nbs):
    sb = NBS / "sidebar.yml"
    if not sb.exists():
        return [f"{rel(sb)} is missing"]
    listed = sidebar_listed()
    have = [str(nb.relative_to(NBS)) for nb in nbs]
    bad = [f"{rel(sb)} does not list {e}" for e in have if e not in listed]
    bad += [
        f"{rel(sb)} lists {e}, which does not exist"
        for e in listed
        if not (NBS / e).exists()
    ]
    bad += [
        f"{rel(sb)} lists {e} {listed.count(e)} times"
        for e in sorted(set(listed))
        if listed.count(e) > 1
    ]
    return bad


def title_of(nb):
    "A notebook's title as nbdev gives it to the page: the text of the H1 its first markdown cell opens with."
    md = [c for c in cells(nb) if c["cell_type"] == "markdown"]
    first = src(md[0]).lstrip().split("\n")[0] if md else ""
    m = re.match(r"#\s+(.*)$", first)
    return m[1].strip() if m else None


def sidebar_labels(node):
    "(label, page) of each sidebar entry that names its page with a label of its own (`section` or `text`)."
    if isinstance(node, list):
        for o in node:
            yield from sidebar_labels(o)
    elif isinstance(node, dict):
        label = node.get("section") or node.get("text")
        page = node.get("href") or node.get("file")
        if label and isinstance(page, str):
            yield str(label), page
        yield from sidebar_labels(node.get("contents"))


def check_labels():
    sb = NBS / "sidebar.yml"
    if not sb.exists():
        return [f"{rel(sb)} is missing"], 0
    y = yaml.safe_load(sb.read_text(encoding="utf-8"))
    labelled = list(sidebar_labels(y["website"]["sidebar"]["contents"]))
    bad = []
    for label, page in labelled:
        if not page.endswith(".ipynb") or not (NBS / page).exists():
            continue  # a missing page is the sidebar check's
        title = title_of(NBS / page)
        if label.strip() != title:
            bad.append(
                f"{rel(sb)}: the label {label!r} of {page} is not its page's title {title!r}"
            )
    return bad, len(labelled)


def learner_order(nbs):
    "The chapter's notebooks (relative to nbs/) in the learner's order."
    return sorted((e for e in map(nb_path, nbs) if is_chapter(e)), key=chapter_key)


def between_chapter(listed, got):
    "The pages `listed` puts between the first and the last of the chapter's pages `got`."
    first, last = listed.index(got[0]), listed.index(got[-1])
    return [e for e in listed[first:last] if not is_chapter(e)]


def check_chapter(nbs):
    "The chapter in nbs/sidebar.yml: every page of it, in one run, in the learner's order."
    sb = NBS / "sidebar.yml"
    if not sb.exists():
        return [f"{rel(sb)} is missing"]
    listed = sidebar_listed()
    want = learner_order(nbs)
    got = [e for e in listed if is_chapter(e)]
    bad = []
    if got != want:
        bad.append(
            f"{rel(sb)}: the chapter is listed as {[Path(e).stem for e in got]}, "
            f"not in the learner's order {[Path(e).stem for e in want]}"
        )
    between = between_chapter(listed, got) if got else []
    if between:
        bad.append(
            f"{rel(sb)}: the chapter is not listed in one run: {between} come between its pages"
        )
    return bad


def output_texts(out):
    "Every piece of text in one output: streams, errors, and every text-like mime type (html, plain, svg, markdown)."
    if out.get("output_type") == "error":
        yield (
            "error",
            "\n".join(
                [out.get("ename", ""), out.get("evalue", "")] + out.get("traceback", [])
            ),
        )
    if "text" in out:
        yield out.get("name", "stream"), src({"source": out["text"]})
    for mime, v in (out.get("data") or {}).items():
        if mime.startswith("text/") or mime.endswith(("+xml", "/json", "javascript")):
            yield (
                mime,
                v
                if isinstance(v, str)
                else "".join(v)
                if isinstance(v, list)
                else json.dumps(v),
            )


def check_outputs(nbs):
    bad, n = [], 0
    for nb in nbs:
        p = PROC / nb.relative_to(NBS)
        if not p.exists():
            bad.append(f"{rel(p)} is missing: run nbdev_docs first")
            continue
        for i, c in enumerate(cells(p)):
            for out in c.get("outputs", []):
                n += 1
                for kind, text in output_texts(out):
                    where = f"{rel(p)} cell {i} ({kind})"
                    if kind == "error" or TRACEBACK_RE.search(text):
                        bad.append(f"{where}: an error or traceback")
                        continue
                    if m := WARNING_RE.search(text):
                        bad.append(f"{where}: a warning: {line_of(text, m.start())!r}")
                    for mp in MACHINE_PATHS:
                        if (k := text.find(mp)) >= 0:
                            bad.append(f"{where}: a machine path: {line_of(text, k)!r}")
                            break
    return bad, n


# the classes and functions each chapter page builds, whose source the page must show
# (notebooks relative to nbs/)
CHAPTER_CODE = {
    "chapter/01_weighted_average.ipynb": ["attention"],
    "chapter/02_qkv.ipynb": ["SelfAttention_v1", "SelfAttention_v2", "align_v2_to_v1"],
    "chapter/03_scaling.ipynb": [
        "dot_product_variance",
        "concentration",
        "softmax_jacobian_norm",
    ],
    "chapter/04_causal_mask.ipynb": [
        "future_mask",
        "causal_mask",
        "additive_mask",
        "check_mask",
        "masked_softmax",
        "padding_mask",
        "padded_causal_mask",
    ],
    "chapter/05_causality_check.ipynb": ["verify_causal", "influence"],
    "chapter/06_dropout.ipynb": [
        "effective_p",
        "dropout_row",
        "dropout_masks",
        "enumerate_dropout",
        "dropout_expectation",
    ],
    "chapter/07_multihead.ipynb": [
        "CausalAttention",
        "MultiHeadAttentionWrapper",
        "MultiHeadAttention",
        "wrapper_to_mha",
        "layouts",
        "track_element",
        "MultiHeadAttentionWrapperWithProj",
    ],
    "chapter/07a_text.ipynb": ["SimpleTokenizer", "GPTDatasetV1", "token_batches"],
    "layer/08_core.ipynb": ["Attention"],
    "layer/08a_visibility.ipynb": ["token_positions", "visible"],
    "layer/08b_dispatch.ipynb": ["attend"],
    "layer/08c_rope.ipynb": ["rotate", "Rotary", "RMSNorm"],
    "layer/08e_cache.ipynb": ["KVCache"],
    "chapter/09_exercises.ipynb": ["attention_param_count"],
}
CHAPTER_RE = re.compile(
    r"^0[1-9][a-z]?_"
)  # the chapter's pages, 4.1-4.9, in any folder
LABS_NB = "chapter/10_labs.ipynb"  # the chapter's last page, after 4.9
NUMBER_RE = re.compile(r"^(\d+)([a-z]?)_")  # "07a_text.ipynb" -> ("07", "a")
MIN_SHARE = 0.40  # of visible code cells that compute (not definitions only) with an output, on a chapter page
BAD_SECTION_RE = re.compile(r"bad input|edge case", re.I)
HEADING_RE = re.compile(r"^(#{1,6})\s+(.*)$", re.M)
TEST_RE = re.compile(r"\btest_\w+\(|^\s*assert\b", re.M)


def options_of(cell):
    "The `#| key: value` options of a processed cell, as a dict (values stripped)."
    opts = {}
    for ln in src(cell).splitlines():
        if not DIRECTIVE_RE.match(ln):
            break
        k, _, v = DIRECTIVE_RE.sub("", ln).strip().partition(":")
        opts[k.strip()] = v.strip()
    return opts


def visible_code(cell):
    "A code cell whose source the rendered page shows (not `echo: false`, `include: false` or hidden)."
    if cell["cell_type"] != "code":
        return False
    o = options_of(cell)
    return o.get("echo") != "false" and o.get("include") != "false" and "hide" not in o


def proc_cells(nb):
    p = PROC / nb.relative_to(NBS)
    return cells(p) if p.exists() else None


def nb_path(nb):
    "A notebook's path relative to nbs/, with its folder: `chapter/01_weighted_average.ipynb`."
    return Path(nb).resolve().relative_to(NBS.resolve()).as_posix()


def is_chapter(entry):
    "A chapter page (relative to nbs/): notebooks 01-09 with their letter pages, in any folder, and the labs."
    return bool(CHAPTER_RE.match(Path(entry).name)) or entry == LABS_NB


def chapter_key(entry):
    "Where a chapter page comes in the learner's order: (7, ''), (7, 'a'), (8, ''), (8, 'a'), ..."
    number, letter = NUMBER_RE.match(Path(entry).name).groups()
    return int(number), letter


def check_code(nbs):
    bad = []
    have = {str(nb.relative_to(NBS)): nb for nb in nbs}
    for page, names in CHAPTER_CODE.items():
        if page not in have:
            bad.append(f"nbs/{page} is missing")
            continue
        cs = proc_cells(have[page])
        if cs is None:
            bad.append(f"_proc/{page} is missing: run nbdev_docs first")
            continue
        shown = "\n".join(src(c) for c in cs if visible_code(c))
        for n in names:
            if not re.search(
                rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(n)}\b", shown, re.M
            ):
                bad.append(
                    f"_proc/{page}: the source of `{n}` is not on the page (export it with `#| exports`)"
                )
    return bad


DEFINITIONS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Assign,
    ast.AnnAssign,
)


def defines_only(cell):
    "A cell of definitions only (functions, classes, imports, names): it computes nothing to print."
    try:
        body = ast.parse(re.sub(r"^\s*#\|.*$", "", src(cell), flags=re.M)).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(node, DEFINITIONS) for node in body)


def check_values(nbs):
    bad, shares = [], {}
    for nb in nbs:
        if not CHAPTER_RE.match(nb.name):
            continue
        cs = proc_cells(nb)
        if cs is None:
            bad.append(f"_proc/{nb_path(nb)} is missing: run nbdev_docs first")
            continue
        vis = [c for c in cs if visible_code(c) and not defines_only(c)]
        n_out = sum(1 for c in vis if c.get("outputs"))
        share = n_out / len(vis) if vis else 1.0
        shares[nb.name] = f"{n_out}/{len(vis)}"
        if share < MIN_SHARE:
            bad.append(
                f"_proc/{nb_path(nb)}: {n_out} of {len(vis)} visible code cells ({share:.0%}) show an output; "
                f"at least {MIN_SHARE:.0%} should print what they compute"
            )
    return bad, shares


def headings(md):
    "The (level, text) of each markdown heading, outside fenced code blocks."
    md = re.sub(r"^(```|~~~).*?^\1", "", md, flags=re.M | re.S)
    return [(len(m.group(1)), m.group(2).strip()) for m in HEADING_RE.finditer(md)]


def check_refusals(nbs):
    bad = []
    for nb in nbs:
        if not is_chapter(nb_path(nb)):
            continue
        cs = proc_cells(nb)
        if cs is None:
            bad.append(f"_proc/{nb_path(nb)} is missing: run nbdev_docs first")
            continue
        block_at, prev_fail, section = (
            None,
            False,
            None,
        )  # section: level of the bad-input heading once reached
        for i, c in enumerate(cs):
            if c["cell_type"] == "markdown":
                for level, text in headings(src(c)):
                    if section is not None and level > section:
                        continue  # nested in the final section
                    if BAD_SECTION_RE.search(text) and level >= 2:
                        section = level
                        continue
                    section = None  # a teaching heading
                    if block_at is not None:
                        bad.append(
                            f"_proc/{nb_path(nb)} cell {i}: heading {text!r} follows the refusal block of cell "
                            f'{block_at}; move refusals to the final "Bad input and edge cases" section'
                        )
            elif visible_code(c):
                n = len(re.findall(r"\btest_fail\(", src(c)))
                if n >= 2 or (n == 1 and prev_fail):
                    if block_at is None and section is None:
                        block_at = i
                prev_fail = n > 0
    return bad


FIRST_NB = "chapter/01_weighted_average.ipynb"  # 4.1, the page after the home page
# pages that come after the chapter in the sidebar (relative to nbs/)
AFTER_CHAPTER = (
    "00_ground.ipynb",
    "instruments/11_bench.ipynb",
    "12_hardening.ipynb",
    "instruments/13_cli.ipynb",
)


def check_order():
    sb = NBS / "sidebar.yml"
    if not sb.exists():
        return [f"{rel(sb)} is missing"]
    listed = sidebar_listed()
    bad = []
    home = "index.ipynb"
    if home not in listed:
        return [f"{rel(sb)} does not list {home}"]
    nxt = (
        listed[listed.index(home) + 1] if listed.index(home) + 1 < len(listed) else None
    )
    if nxt != FIRST_NB:
        bad.append(f"{rel(sb)}: the page after {home} is {nxt}, not {FIRST_NB} (4.1)")
    chapter = [e for e in listed if CHAPTER_RE.match(Path(e).name)]

    # by section number; a section's parts (07a, 08a-08g) in letter order, before or after its own page
    def sec(e):
        return Path(e).name[:2]

    parts = [Path(e).name for e in chapter if Path(e).name[2] != "_"]
    if [sec(e) for e in chapter] != sorted(sec(e) for e in chapter) or parts != sorted(
        parts
    ):
        bad.append(f"{rel(sb)}: the chapter pages are listed out of order: {chapter}")
    if chapter:
        last = max(listed.index(e) for e in chapter)
        for e in AFTER_CHAPTER:
            if e not in listed:
                bad.append(f"{rel(sb)} does not list {e}")
            elif listed.index(e) < last:
                bad.append(
                    f"{rel(sb)}: {e} comes before the end of the chapter ({chapter[-1]})"
                )
    return bad


def is_result(out):
    "An output that shows a result: a plot, or a table (HTML or markdown)."
    d = out.get("data") or {}
    if any(k.startswith("image/") for k in d):
        return "plot"
    for k in ("text/html", "text/markdown"):
        t = d.get(k)
        t = "".join(t) if isinstance(t, list) else (t or "")
        if "<table" in t or re.search(r"^\s*\|?\s*:?-{3,}", t, re.M):
            return "table"
    t = out.get("text")
    t = "".join(t) if isinstance(t, list) else (t or "")
    if re.search(r"^\s*\|?\s*:?-{3,}:?\s*\|", t, re.M):
        return "table"
    return None


BENCH_NB = "instruments/11_bench.ipynb"  # the Benchmarks page


def check_bench(nbs):
    nb = NBS / BENCH_NB
    if nb not in nbs:
        return [f"nbs/{BENCH_NB} is missing"]
    cs = proc_cells(nb)
    if cs is None:
        return [f"_proc/{BENCH_NB} is missing: run nbdev_docs first"]
    bad, first_out, tests_before = [], None, []
    for i, c in enumerate(cs):
        if c["cell_type"] != "code" or "show_doc(" in src(c):
            continue
        kinds = {is_result(o) for o in c.get("outputs", [])} - {None}
        if (
            first_out is None
            and c.get("outputs")
            and visible_code(c)
            or first_out is None
            and kinds
        ):
            first_out = (i, kinds)
        if "plot" in kinds:
            break
        if visible_code(c) and TEST_RE.search(src(c)):
            tests_before.append(i)
    else:
        bad.append(f"_proc/{BENCH_NB}: no plot on the page")
    if first_out is None:
        bad.append(f"_proc/{BENCH_NB}: no code cell with an output")
    elif not first_out[1]:
        bad.append(
            f"_proc/{BENCH_NB}: the first code cell with an output (cell {first_out[0]}) shows no table or plot"
        )
    if tests_before:
        bad.append(
            f"_proc/{BENCH_NB}: {len(tests_before)} code cell(s) testing the harness come before the first plot "
            f"(first: cell {tests_before[0]}); results and plots go first"
        )
    return bad


TIMES_FILE = "bench_results/times.json"  # relative to nbs/, as the home page reads it


def times_cell(cells):
    "Index of the home page's code cell that renders the table of times, or None."
    return next(
        (
            i
            for i, c in enumerate(cells)
            if c["cell_type"] == "code" and TIMES_FILE in src(c)
        ),
        None,
    )


def render_times(cells, i):
    """The markdown the times cell `cells[i]` gives now: its last expression's value,
    run in nbs/ after the import cell right above it (the docs build runs a cell with
    imports; the times cell has none)."""
    import ast, os

    def code(c):
        return "\n".join(l for l in src(c).splitlines() if not DIRECTIVE_RE.match(l))

    above = ast.Module([], [])
    if i and cells[i - 1]["cell_type"] == "code":
        above = ast.parse(code(cells[i - 1]))
        if not all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in above.body):
            above = ast.Module([], [])
    tree = ast.parse(code(cells[i]))
    last = tree.body.pop()
    ns, cwd = {}, os.getcwd()
    try:
        os.chdir(NBS)
        for part in (above, tree):
            exec(compile(part, "times cell", "exec"), ns)
        out = eval(compile(ast.Expression(last.value), "times cell", "eval"), ns)
    finally:
        os.chdir(cwd)
    return out.data if hasattr(out, "data") else str(out)


def check_times():
    nb = NBS / "index.ipynb"
    cs = cells(nb)
    i = times_cell(cs)
    if i is None:
        return [f"{rel(nb)}: no cell renders the times in {TIMES_FILE}"]
    saved = [
        o["data"]["text/markdown"]
        for o in cs[i].get("outputs", [])
        if "text/markdown" in o.get("data", {})
    ]
    saved = "".join(saved[0]) if saved else None
    if saved != render_times(cs, i):
        return [
            f"{rel(nb)} cell {i}: its saved table of times is not what "
            f"nbs/{TIMES_FILE} gives: `python .ci/measure_times.py --readme-only`"
        ]
    return []


def line_of(text, k):
    a, b = text.rfind("\n", 0, k) + 1, text.find("\n", k)
    return text[a : b if b >= 0 else None].strip()[:160]


def rel(p):
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def main():
    nbs = notebooks(NBS)
    print(f"{len(nbs)} pages: {' '.join(str(nb.relative_to(NBS)) for nb in nbs)}")
    results = {}
    results["titles"] = check_titles(nbs)
    results["options"], used = check_options(nbs)
    print(
        "cell options in use:", ", ".join(f"{k} ({v})" for k, v in sorted(used.items()))
    )
    results["links"], n_links = check_links(nbs)
    print(f"{n_links} links and images into the repository checked")
    results["names"], n_names = check_names(nbs)
    print(f"{n_names} names of notebooks in the pages' markdown checked")
    results["sidebar"] = check_sidebar(nbs)
    results["labels"], n_labels = check_labels()
    print(f"{n_labels} sidebar labels of their own checked against page titles")
    results["outputs"], n_out = check_outputs(nbs)
    print(f"{n_out} outputs of processed pages in {rel(PROC)}/ checked")
    results["code"] = check_code(nbs)
    results["values"], shares = check_values(nbs)
    print(
        "visible code cells that compute with an output:",
        ", ".join(f"{k.split('_')[0]} {v}" for k, v in shares.items()),
    )
    results["refusals"] = check_refusals(nbs)
    results["order"] = check_order()
    results["chapter"] = check_chapter(nbs)
    results["bench"] = check_bench(nbs)
    results["times"] = check_times()
    for name, bad in results.items():
        print(f"{name:8s} {'ok' if not bad else f'{len(bad)} problem(s)'}")
        for b in bad:
            print("   ", b)
    failed = [k for k, v in results.items() if v]
    print(
        "site check:", "passed" if not failed else "FAILED (" + ", ".join(failed) + ")"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
