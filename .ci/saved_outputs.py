"""A chapter page shows what its cells compute: the saved outputs of nbs/0[1-9]*.ipynb against a fresh run (CI).

Run from the repository root:  python .ci/saved_outputs.py [NOTEBOOK ...]     (default: the chapter pages, 4.1-4.9)
The site shows the outputs saved in a notebook, which nothing re-executes; a cell whose code changed after its last
save shows stale numbers. Each page is run here as nbdev_test runs it (a fresh kernel, in nbs/, the cells flagged with
settings.ini's tst_flags skipped), and every cell that ran is compared with what it saved, output by output:
  - the words, names, punctuation and integers (counts, shapes, sizes) must be the same, in the same order;
  - a decimal number must agree to about its printed precision: within 2 units of its last printed digit plus 1% (a
    last digit that differs across CPUs passes); numbers below 1e-6 in magnitude count as zero (rounding-level
    differences such as 2.2e-16 vs 4.4e-16);
  - a line that reports a time (`12 ms`, `0.4 s`, `1.9x`) is a timing line: its numbers are not compared (its words
    are);
  - a plot must still be a plot; HTML (the labs) and show_doc entries are redrawn by the docs build, so not compared.
A cell that prints nothing in the notebook but prints when run, or the reverse, is reported too. Exits 1 on a
mismatch, naming the notebook, the cell, and the first difference. To refresh a page's outputs, run it top to bottom
in Jupyter and save it, then nbdev_clean.
"""

import copy, os, re, sys, time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_check import (
    ROOT,
    NBS,
    TEST_FLAGS as SKIP_FLAGS,
)  # settings.ini read once, by the site check

CHAPTER_RE = re.compile(r"^0[1-9][a-z]?_.*\.ipynb$")

NUM = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
TOKEN_RE = re.compile(
    rf"(?P<num>{NUM})(?P<unit>\s?(?:ms|µs|us|ns|s|sec|secs|seconds|min)\b|x\b)?|(?P<word>[^\W\d]\w*)|(?P<sym>\S)"
)
HEX_RE = re.compile(r"0x[0-9a-fA-F]+")


def tokens(text):
    "(kind, value, is_timing) tokens of the text, without whitespace and addresses; on a line with a time, all timings."
    out = []
    for line in HEX_RE.sub("0x", text).splitlines():
        ms = list(TOKEN_RE.finditer(line))
        timed = any(m["num"] is not None and m["unit"] is not None for m in ms)
        for m in ms:
            if m["num"] is not None:
                out.append(("num", m["num"], timed))
            else:
                out.append(("word", m["word"] or m["sym"], False))
    return out


def _decimals(s):
    mant = re.split("[eE]", s)[0]
    exp = int(re.split("[eE]", s)[1]) if re.search("[eE]", s) else 0
    return (len(mant.split(".")[1]) if "." in mant else 0) - exp


def same_number(a, b):
    "Two printed numbers agree: integers exactly; decimals to about their printed precision; tiny ones as zero."

    def is_int(s):
        return re.fullmatch(r"[-+]?\d+", s) is not None

    if is_int(a) and is_int(b):
        return int(a) == int(b)
    x, y = float(a), float(b)
    if abs(x) < 1e-6 and abs(y) < 1e-6:
        return True
    ulp = max(10.0 ** -_decimals(a), 10.0 ** -_decimals(b))
    return abs(x - y) <= 2 * ulp + 0.01 * max(abs(x), abs(y))


def compare_text(saved, fresh):
    "None when the two texts agree, else a short description of the first difference."
    ts, tf = tokens(saved), tokens(fresh)
    for k, (s, f) in enumerate(zip(ts, tf)):
        if (
            s[0] != f[0]
            or (s[0] == "word" and s[1] != f[1])
            or (s[0] == "num" and not (s[2] or f[2]) and not same_number(s[1], f[1]))
        ):
            ctx = " ".join(t[1] for t in ts[max(0, k - 6) : k])
            return f'saved "{s[1]}", now "{f[1]}" (after: ...{ctx[-70:]})'
    if len(ts) != len(tf):
        extra = ts[len(tf) :] if len(ts) > len(tf) else tf[len(ts) :]
        return (
            f"{'saved' if len(ts) > len(tf) else 'now'} has more: "
            f'"{" ".join(t[1] for t in extra[:12])[:80]}"'
        )
    return None


def _text(v):
    return "".join(v) if isinstance(v, list) else (v or "")


def output_parts(outputs):
    "What is compared of a cell's outputs: its printed text, its plain-text results, and whether it drew a plot."
    text, plots = [], 0
    for o in outputs:
        if o.get("output_type") == "stream":
            text.append(_text(o.get("text")))
        elif o.get("output_type") in ("execute_result", "display_data"):
            d = o.get("data") or {}
            if any(k.startswith("image/") for k in d):
                plots += 1
            elif "text/html" in d or "text/markdown" in d:
                continue  # labs, tables and entries: redrawn
            elif "text/plain" in d:
                text.append(_text(d["text/plain"]))
        elif o.get("output_type") == "error":
            text.append(f"{o.get('ename')}: {o.get('evalue')}")
    return "\n".join(text), plots


def flags(source):
    "The `#|` words at the head of a cell."
    fl = set()
    for line in source.splitlines():
        m = re.match(r"\s*#\s*\|\s*(.*)", line)
        if not m:
            if line.strip():
                break
            continue
        fl |= set(re.split(r"[\s:]+", m.group(1).strip())[:1])
    return fl


def check_notebook(path):
    "Run one notebook as nbdev_test does; return (name, seconds, cells compared, problems)."
    os.environ["IN_TEST"] = "1"
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.path.insert(0, str(ROOT))
    from execnb.nbio import read_nb
    from execnb.shell import CaptureShell
    from fastcore.xtras import working_directory

    nb = read_nb(path)
    saved = [copy.deepcopy(c.get("outputs", [])) for c in nb.cells]
    ran = []

    def skip(cell):
        if cell.cell_type != "code":
            return True
        fl = flags(cell.source)
        if fl & SKIP_FLAGS or re.search(
            r"^\s*#\s*\|\s*eval:\s*false", cell.source, re.M | re.I
        ):
            return True
        ran.append(cell.idx_)
        return False

    t0, problems, main_module = time.time(), [], sys.modules["__main__"]
    k = CaptureShell(
        path
    )  # IPython puts its own module in sys.modules['__main__']: restored below
    try:
        with working_directory(path.parent):
            k.run_all(nb, exc_stop=True, preproc=skip)
    except Exception as e:
        return (
            path.name,
            time.time() - t0,
            0,
            [
                f"{path.name}: the page fails when run: {type(e).__name__}: {str(e)[:200]}"
            ],
        )
    finally:
        sys.modules["__main__"] = main_module
    for i in ran:
        (st, sp), (ft, fp) = (
            output_parts(saved[i]),
            output_parts(nb.cells[i].get("outputs", [])),
        )
        first = (nb.cells[i].source.strip().splitlines() or [""])[-1][:60]
        where = f"{path.name} cell {i} ({first!r})"
        if sp != fp:
            problems.append(f"{where}: {sp} plot(s) saved, {fp} drawn now")
        if not st.strip() and ft.strip():
            problems.append(
                f"{where}: saved without output; it now prints {ft.strip()[:80]!r}"
            )
        elif st.strip() and not ft.strip():
            problems.append(
                f"{where}: saved output {st.strip()[:80]!r}; it now prints nothing"
            )
        elif d := compare_text(st, ft):
            problems.append(f"{where}: {d}")
    return path.name, time.time() - t0, len(ran), problems


def checked(paths):
    """`check_notebook` of each page, two at a time in worker processes; a page whose worker died (a busy machine's
    out-of-memory kill, a broken pool) is checked again in this process, so a result is never lost to the pool."""
    import multiprocessing as mp
    from concurrent.futures.process import BrokenProcessPool

    results, left = {}, list(paths)
    try:
        with ProcessPoolExecutor(
            min(2, len(paths)), mp_context=mp.get_context("fork")
        ) as ex:
            for p, r in zip(paths, ex.map(check_notebook, paths)):
                results[p] = r
    except BrokenProcessPool as e:
        print(
            f"  (a worker died: {e}; the pages it had not finished are checked here, one by one)",
            flush=True,
        )
    for p in left:
        yield results[p] if p in results else check_notebook(p)


def main(args):
    paths = [Path(a).resolve() for a in args] or sorted(
        p for p in NBS.rglob("*.ipynb") if CHAPTER_RE.match(p.name)
    )
    if not paths:
        print("saved outputs: no chapter pages found")
        return 1
    for p in paths:
        if not p.exists():
            print(f"saved outputs: {p} does not exist")
            return 1
    t0, problems, n_cells = time.time(), [], 0
    for name, secs, n, probs in checked(paths):
        print(
            f"  {name:28s} {n:3d} cells compared, {len(probs)} mismatch(es), {secs:4.1f} s",
            flush=True,
        )
        problems += probs
        n_cells += n
    for p in problems:
        print("   ", p)
    print(
        f"saved outputs: {len(paths)} pages, {n_cells} cells, {time.time() - t0:.0f} s:",
        "every saved output matches a fresh run"
        if not problems
        else f"FAILED ({len(problems)} mismatch(es))",
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
