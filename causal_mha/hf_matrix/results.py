"""Run the conformance matrix and write its results."""

__all__ = ['run_cells', 'matrix_table', 'save_results', 'main', 'run_cells', 'matrix_table', 'save_results', 'main']

# %% ../../nbs/16b_hf_matrix.ipynb #e5f6a7b8
#| eval: false
# the module's imports (the page defines these names above)
import argparse, collections, json, sys, time
from datetime import datetime, timezone
import torch
from ..ground import document
from . import AXES, BF16, NEW, PROMPT, SLOTS, ULPS
from . import Cell, Models, cells, pairwise, run_cell

# %% ../../nbs/16b_hf_matrix.ipynb #62cddd4a
def _versions() -> dict:
    "Versions of what a run depends on."
    import platform, transformers
    import causal_mha
    return dict(python=platform.python_version(), torch=torch.__version__,
                transformers=transformers.__version__,
                causal_mha=causal_mha.__version__)

def run_cells(cells:list, # the `Cell`s to run
              backend:str='eager', # torch.compile's backend for mode 'compiled'
              seed:int=0, # the prompts' seed
              progress=None, # called with (done, total, result) after each cell
             ) -> dict: # 'cells', 'totals', 'settings', 'machine', 'versions', 'date'
    """Run `cells` (`run_cell` each, the models built once and reused, on one thread as
    tiny models run fastest) and return their results with the totals (cells, passed,
    failed, errors, not applicable by reason, seconds), the settings, the machine (and
    its load average before and after), the versions and the date.

    Raises:
        ValueError: `cells` holds something that is not a `Cell`; `backend` is no str.
    """
    from causal_mha.bench.load import machine_info, load_average
    bad = [c for c in cells if not isinstance(c, Cell)]
    if bad: raise ValueError(f"cells must hold Cells, got {bad[0]!r}")
    if not isinstance(backend, str):
        raise ValueError(f"backend must be a str, got {backend!r}")
    threads, t0, load = torch.get_num_threads(), time.perf_counter(), load_average()
    torch.set_num_threads(1)
    models, out, machine = Models(), [], machine_info()   # its threads: the run's
    try:
        for n, cell in enumerate(cells):
            out.append(run_cell(cell, models, backend, seed))
            if progress: progress(n + 1, len(cells), out[-1])
    finally: torch.set_num_threads(threads)
    verdicts = collections.Counter(r['verdict'] for r in out)
    why = collections.Counter(r['why'] for r in out if r['verdict'] == 'not applicable')
    totals = dict(cells=len(out), passed=verdicts['pass'], failed=verdicts['fail'],
                  errors=verdicts['error'], not_applicable=dict(why),
                  seconds=round(time.perf_counter() - t0, 1))
    settings = dict(backend=backend, seed=seed, ulps=ULPS, bf16=BF16, prompt=PROMPT,
                    new_tokens=NEW, static_slots=SLOTS)
    return dict(cells=out, totals=totals, settings=settings,
                machine=machine | dict(load=[load, load_average()]),
                versions=_versions(),
                date=datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC'))

# %% ../../nbs/16b_hf_matrix.ipynb #30c6555a
def _worst(rows:list, dtype:str) -> str:
    "The worst difference of results `rows`, as `matrix_table` shows it."
    w = [r['worst'] for r in rows if r['worst']]
    if not w: return '-'
    if dtype == 'float64':
        top = max(w, key=lambda x: x['ulps'])
        return f"{top['ulps']:.3g} ulps ({top['abs']:.1e}, {top['what']})"
    ratios = [x['swapped'] / x['original'] for x in w if x['original']] or [1.0]
    used = max(x['used'] for x in w)
    return f"×{max(ratios):.2f} the original's error; {used:.0%} of the bound"

def _failure(r:dict) -> str:
    "What a failed cell's result says differs."
    w = r['worst']
    if r['why']: return r['why']
    if 'ulps' in w: return f"{w['what']}: {w['abs']:.1e} ({w['ulps']:.3g} ulps)"
    return (f"{w['what']}: error {w['swapped']:.2e}, the original's {w['original']:.2e}"
            f" ({w['used']:.0%} of the bound)")

# %% ../../nbs/16b_hf_matrix.ipynb #000b60fe
def matrix_table(results:dict, # what `run_cells` returned, or the JSON it was saved as
                ) -> str: # markdown
    """Markdown tables of `results`: for each mode and dtype the cells, how many ran,
    passed, failed and were not applicable, the worst difference (float64: in ulps at
    the quantity's scale; bfloat16: the swapped model's error as a multiple of the
    original's, and the most of its bound a cell used) and the time; then each reason a
    cell was not applicable, each failure, and the totals (machine, versions, date).

    Raises:
        ValueError: `results` is not a dict with 'cells' and 'totals'.
    """
    if not isinstance(results, dict) or not {'cells', 'totals'} <= set(results):
        got = sorted(results) if isinstance(results, dict) else type(results).__name__
        raise ValueError(f"results must be what run_cells returns, a dict with 'cells' "
                         f"and 'totals', got {got}")
    out = ['| mode | dtype | cells | ran | passed | failed | not applicable | '
           'worst difference | time (s) |', '|---|---|---|---|---|---|---|---|---|']
    by = collections.defaultdict(list)
    for r in results['cells']: by[r['mode'], r['dtype']].append(r)
    for (mode, dtype), rows in sorted(by.items(), key=lambda kv: (
            AXES['mode'].index(kv[0][0]), AXES['dtype'].index(kv[0][1]))):
        ran = [r for r in rows if r['verdict'] != 'not applicable']
        n = collections.Counter(r['verdict'] for r in rows)
        out.append(f"| {mode} | {dtype} | {len(rows)} | {len(ran)} | {n['pass']} | "
                   f"{n['fail'] + n['error']} | {n['not applicable']} | "
                   f"{_worst(ran, dtype)} | {sum(r['time_s'] for r in rows):.1f} |")
    t = results['totals']
    out += ['', '| not applicable | cells |', '|---|---|']
    out += [f"| {why} | {n} |" for why, n in t['not_applicable'].items()]
    bad = [r for r in results['cells'] if r['verdict'] in ('fail', 'error')]
    if bad: out += ['', '| family | cache | padding | mode | dtype | what differs |',
                    '|---|---|---|---|---|---|']
    out += [f"| {r['family']} | {r['cache']} | {r['padding']} | {r['mode']} | "
            f"{r['dtype']} | {_failure(r)} |" for r in bad]
    m, v = results.get('machine', {}), results.get('versions', {})
    backend = results.get('settings', {}).get('backend')
    skipped = sum(t['not_applicable'].values())
    out += ['', f"{t['cells']} cells: {t['passed']} passed, {t['failed']} failed, "
            f"{t['errors']} errors, {skipped} not applicable; "
            f"{t['seconds']:.0f} s on {m.get('cpu')} ({m.get('cores')} cores); torch "
            f"{v.get('torch')}, transformers {v.get('transformers')}, compiled with "
            f"{backend!r}; {results.get('date')}."]
    return '\n'.join(out)

# %% ../../nbs/16b_hf_matrix.ipynb #1d3e66d6
def _rounded(x):
    "`x` with every float to 4 significant digits (a results file's precision)."
    if isinstance(x, float): return float(f'{x:.4g}')
    if isinstance(x, dict): return {k: _rounded(v) for k, v in x.items()}
    return [_rounded(v) for v in x] if isinstance(x, list) else x

def save_results(results:dict, # what `run_cells` returned
                 path:str, # the JSON file to write
                ):
    """Write `results` to `path` as JSON, one cell a line (a later run's file differs
    where its cells do), numbers to 4 significant digits; `json.load` reads it back."""
    cells = ',\n'.join(json.dumps(_rounded(c)) for c in results['cells'])
    rest = _rounded({k: v for k, v in results.items() if k != 'cells'})
    tail = json.dumps(rest, indent=1)[2:]          # the other keys, after the cells
    with open(path, 'w') as f: f.write('{"cells": [\n' + cells + '\n],\n' + tail + '\n')

def main(argv:list|None=None, # the command's arguments (None: sys.argv[1:])
        ) -> dict: # what `run_cells` returned
    """`python -m causal_mha.hf_matrix [--full] [--out FILE] [--backend B] [--seed N]`:
    run the pairwise sample (every cell with `--full`), print `matrix_table` of the
    results, and write them to FILE as JSON."""
    p = argparse.ArgumentParser(prog='python -m causal_mha.hf_matrix',
                                description="Swapped Hugging Face models against "
                                            "the originals, cell by cell.")
    p.add_argument('--full', action='store_true', help="every cell (else the sample)")
    p.add_argument('--out', help="write the results here (JSON)")
    p.add_argument('--backend', help="torch.compile's backend (default: 'aot_eager' "
                                     "with --full, else 'eager')")
    p.add_argument('--seed', type=int, default=0, help="the sample's and prompts' seed")
    a = p.parse_args(argv)
    import transformers
    transformers.logging.set_verbosity_error()      # its advice on padding, per call
    todo = cells() if a.full else pairwise(a.seed)
    def progress(done, total, r):
        if done % 50 == 0 or done == total or r['verdict'] in ('fail', 'error'):
            print(f"{done}/{total} {r['family']}, {r['cache']}, {r['padding']}, "
                  f"{r['mode']}, {r['dtype']}: {r['verdict']}", file=sys.stderr,
                  flush=True)
    results = run_cells(todo, a.backend or ('aot_eager' if a.full else 'eager'), a.seed,
                        progress)
    results['settings']['sample'] = 'full' if a.full else f"pairwise, seed {a.seed}"
    if a.out: save_results(results, a.out)
    print(matrix_table(results))
    return results

# %% ../../nbs/16b_hf_matrix.ipynb #a1b2c3d4
for _obj in (run_cells, matrix_table, save_results, main):
    document(_obj, _obj)

# %% ../../nbs/16b_hf_matrix.ipynb #e5f6a7b8
#| eval: false
# the module's imports (the page defines these names above)
import argparse, collections, json, sys, time
from datetime import datetime, timezone
import torch
from ..ground import document
from . import AXES, BF16, NEW, PROMPT, SLOTS, ULPS
from . import Cell, Models, cells, pairwise, run_cell

# %% ../../nbs/16b_hf_matrix.ipynb #62cddd4a
def _versions() -> dict:
    "Versions of what a run depends on."
    import platform, transformers
    import causal_mha
    return dict(python=platform.python_version(), torch=torch.__version__,
                transformers=transformers.__version__,
                causal_mha=causal_mha.__version__)

def run_cells(cells:list, # the `Cell`s to run
              backend:str='eager', # torch.compile's backend for mode 'compiled'
              seed:int=0, # the prompts' seed
              progress=None, # called with (done, total, result) after each cell
             ) -> dict: # 'cells', 'totals', 'settings', 'machine', 'versions', 'date'
    """Run `cells` (`run_cell` each, the models built once and reused, on one thread as
    tiny models run fastest) and return their results with the totals (cells, passed,
    failed, errors, not applicable by reason, seconds), the settings, the machine (and
    its load average before and after), the versions and the date.

    Raises:
        ValueError: `cells` holds something that is not a `Cell`; `backend` is no str.
    """
    from causal_mha.bench.load import machine_info, load_average
    bad = [c for c in cells if not isinstance(c, Cell)]
    if bad: raise ValueError(f"cells must hold Cells, got {bad[0]!r}")
    if not isinstance(backend, str):
        raise ValueError(f"backend must be a str, got {backend!r}")
    threads, t0, load = torch.get_num_threads(), time.perf_counter(), load_average()
    torch.set_num_threads(1)
    models, out, machine = Models(), [], machine_info()   # its threads: the run's
    try:
        for n, cell in enumerate(cells):
            out.append(run_cell(cell, models, backend, seed))
            if progress: progress(n + 1, len(cells), out[-1])
    finally: torch.set_num_threads(threads)
    verdicts = collections.Counter(r['verdict'] for r in out)
    why = collections.Counter(r['why'] for r in out if r['verdict'] == 'not applicable')
    totals = dict(cells=len(out), passed=verdicts['pass'], failed=verdicts['fail'],
                  errors=verdicts['error'], not_applicable=dict(why),
                  seconds=round(time.perf_counter() - t0, 1))
    settings = dict(backend=backend, seed=seed, ulps=ULPS, bf16=BF16, prompt=PROMPT,
                    new_tokens=NEW, static_slots=SLOTS)
    return dict(cells=out, totals=totals, settings=settings,
                machine=machine | dict(load=[load, load_average()]),
                versions=_versions(),
                date=datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC'))

# %% ../../nbs/16b_hf_matrix.ipynb #30c6555a
def _worst(rows:list, dtype:str) -> str:
    "The worst difference of results `rows`, as `matrix_table` shows it."
    w = [r['worst'] for r in rows if r['worst']]
    if not w: return '-'
    if dtype == 'float64':
        top = max(w, key=lambda x: x['ulps'])
        return f"{top['ulps']:.3g} ulps ({top['abs']:.1e}, {top['what']})"
    ratios = [x['swapped'] / x['original'] for x in w if x['original']] or [1.0]
    used = max(x['used'] for x in w)
    return f"×{max(ratios):.2f} the original's error; {used:.0%} of the bound"

def _failure(r:dict) -> str:
    "What a failed cell's result says differs."
    w = r['worst']
    if r['why']: return r['why']
    if 'ulps' in w: return f"{w['what']}: {w['abs']:.1e} ({w['ulps']:.3g} ulps)"
    return (f"{w['what']}: error {w['swapped']:.2e}, the original's {w['original']:.2e}"
            f" ({w['used']:.0%} of the bound)")

# %% ../../nbs/16b_hf_matrix.ipynb #000b60fe
def matrix_table(results:dict, # what `run_cells` returned, or the JSON it was saved as
                ) -> str: # markdown
    """Markdown tables of `results`: for each mode and dtype the cells, how many ran,
    passed, failed and were not applicable, the worst difference (float64: in ulps at
    the quantity's scale; bfloat16: the swapped model's error as a multiple of the
    original's, and the most of its bound a cell used) and the time; then each reason a
    cell was not applicable, each failure, and the totals (machine, versions, date).

    Raises:
        ValueError: `results` is not a dict with 'cells' and 'totals'.
    """
    if not isinstance(results, dict) or not {'cells', 'totals'} <= set(results):
        got = sorted(results) if isinstance(results, dict) else type(results).__name__
        raise ValueError(f"results must be what run_cells returns, a dict with 'cells' "
                         f"and 'totals', got {got}")
    out = ['| mode | dtype | cells | ran | passed | failed | not applicable | '
           'worst difference | time (s) |', '|---|---|---|---|---|---|---|---|---|']
    by = collections.defaultdict(list)
    for r in results['cells']: by[r['mode'], r['dtype']].append(r)
    for (mode, dtype), rows in sorted(by.items(), key=lambda kv: (
            AXES['mode'].index(kv[0][0]), AXES['dtype'].index(kv[0][1]))):
        ran = [r for r in rows if r['verdict'] != 'not applicable']
        n = collections.Counter(r['verdict'] for r in rows)
        out.append(f"| {mode} | {dtype} | {len(rows)} | {len(ran)} | {n['pass']} | "
                   f"{n['fail'] + n['error']} | {n['not applicable']} | "
                   f"{_worst(ran, dtype)} | {sum(r['time_s'] for r in rows):.1f} |")
    t = results['totals']
    out += ['', '| not applicable | cells |', '|---|---|']
    out += [f"| {why} | {n} |" for why, n in t['not_applicable'].items()]
    bad = [r for r in results['cells'] if r['verdict'] in ('fail', 'error')]
    if bad: out += ['', '| family | cache | padding | mode | dtype | what differs |',
                    '|---|---|---|---|---|---|']
    out += [f"| {r['family']} | {r['cache']} | {r['padding']} | {r['mode']} | "
            f"{r['dtype']} | {_failure(r)} |" for r in bad]
    m, v = results.get('machine', {}), results.get('versions', {})
    backend = results.get('settings', {}).get('backend')
    skipped = sum(t['not_applicable'].values())
    out += ['', f"{t['cells']} cells: {t['passed']} passed, {t['failed']} failed, "
            f"{t['errors']} errors, {skipped} not applicable; "
            f"{t['seconds']:.0f} s on {m.get('cpu')} ({m.get('cores')} cores); torch "
            f"{v.get('torch')}, transformers {v.get('transformers')}, compiled with "
            f"{backend!r}; {results.get('date')}."]
    return '\n'.join(out)

# %% ../../nbs/16b_hf_matrix.ipynb #1d3e66d6
def _rounded(x):
    "`x` with every float to 4 significant digits (a results file's precision)."
    if isinstance(x, float): return float(f'{x:.4g}')
    if isinstance(x, dict): return {k: _rounded(v) for k, v in x.items()}
    return [_rounded(v) for v in x] if isinstance(x, list) else x

def save_results(results:dict, # what `run_cells` returned
                 path:str, # the JSON file to write
                ):
    """Write `results` to `path` as JSON, one cell a line (a later run's file differs
    where its cells do), numbers to 4 significant digits; `json.load` reads it back."""
    cells = ',\n'.join(json.dumps(_rounded(c)) for c in results['cells'])
    rest = _rounded({k: v for k, v in results.items() if k != 'cells'})
    tail = json.dumps(rest, indent=1)[2:]          # the other keys, after the cells
    with open(path, 'w') as f: f.write('{"cells": [\n' + cells + '\n],\n' + tail + '\n')

def main(argv:list|None=None, # the command's arguments (None: sys.argv[1:])
        ) -> dict: # what `run_cells` returned
    """`python -m causal_mha.hf_matrix [--full] [--out FILE] [--backend B] [--seed N]`:
    run the pairwise sample (every cell with `--full`), print `matrix_table` of the
    results, and write them to FILE as JSON."""
    p = argparse.ArgumentParser(prog='python -m causal_mha.hf_matrix',
                                description="Swapped Hugging Face models against "
                                            "the originals, cell by cell.")
    p.add_argument('--full', action='store_true', help="every cell (else the sample)")
    p.add_argument('--out', help="write the results here (JSON)")
    p.add_argument('--backend', help="torch.compile's backend (default: 'aot_eager' "
                                     "with --full, else 'eager')")
    p.add_argument('--seed', type=int, default=0, help="the sample's and prompts' seed")
    a = p.parse_args(argv)
    import transformers
    transformers.logging.set_verbosity_error()      # its advice on padding, per call
    todo = cells() if a.full else pairwise(a.seed)
    def progress(done, total, r):
        if done % 50 == 0 or done == total or r['verdict'] in ('fail', 'error'):
            print(f"{done}/{total} {r['family']}, {r['cache']}, {r['padding']}, "
                  f"{r['mode']}, {r['dtype']}: {r['verdict']}", file=sys.stderr,
                  flush=True)
    results = run_cells(todo, a.backend or ('aot_eager' if a.full else 'eager'), a.seed,
                        progress)
    results['settings']['sample'] = 'full' if a.full else f"pairwise, seed {a.seed}"
    if a.out: save_results(results, a.out)
    print(matrix_table(results))
    return results

# %% ../../nbs/16b_hf_matrix.ipynb #a1b2c3d4
for _obj in (run_cells, matrix_table, save_results, main):
    document(_obj, _obj)