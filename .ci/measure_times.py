"""Measure the times the README states, quiet and busy: nbs/bench_results/times.json.

Run from the repository root in the dev environment (`pip install -e ".[dev]"`):

    python .ci/measure_times.py          # tests, quick benchmark, docs build, imports
    python .ci/measure_times.py --ci     # and `bash .ci/run` on a fresh clone (long)
    python .ci/measure_times.py --only import test
    python .ci/measure_times.py --readme-only

Each command runs twice, one run after the other:
  quiet   nothing else started by this script (the machine's other work goes on: the
          1-minute load average before each run is recorded beside its time)
  busy    a second process spins on one core for the whole run, as a second job on a
          shared machine would
What is timed (wall clock, from start to exit):
  test    nbdev_test --do_print, the README's test command (every notebook)
  bench   causal-mha-bench --quick (its results file goes to a temporary folder)
  docs    nbdev_docs after rm -rf _proc _docs (processing, Quarto, post-render)
  ci      bash .ci/run in a fresh clone of HEAD in a temporary folder (with --ci)
  import  a fresh `python -c "import causal_mha"` and `python -c "import torch"`:
          the median of 5 of each, alternating
The results file names the machine (CPU model, usable cores, memory, torch, Python) and
keeps an earlier file's times for a command not measured this time (`--only`). A cell of
nbs/index.ipynb renders the README's table of times from it: this script then runs that
cell, saves its output in the notebook and runs `nbdev_readme`, so README.md shows the
new times (`--readme-only` does only that; .ci/site_check.py fails while the saved table
differs from the file). Exits 1 when a command fails (its time is written all the same,
with its exit status).
"""

import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_check import NBS, ROOT, TIMES_FILE, render_times, times_cell  # one renderer

OUT = NBS / TIMES_FILE
IMPORT_RUNS = 5
COMMANDS = {  # name: (the command as the README writes it, what it is)
    "test": ("nbdev_test --do_print", "the tests (every notebook)"),
    "bench": ("causal-mha-bench --quick", "the quick benchmark"),
    "docs": ("nbdev_docs", "the documentation site"),
    "ci": ("bash .ci/run", "CI on a fresh clone"),
    "import": ('python -c "import causal_mha"', "importing the package"),
}


def load_average():
    "The 1-minute load average, or None where the system reports none."
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def machine():
    "What the times were measured on."
    from causal_mha.instruments.bench.load import (
        machine_info,
    )  # CPU model, cores, torch, Python

    info = {
        k: v for k, v in machine_info("cpu").items() if k not in ("threads", "device")
    }
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        mem = None
    info["memory_gib"] = None if mem is None else round(mem / 2**30, 1)
    return info


class Busy:
    "A second process spinning on one core while the block runs (if `on`)."

    def __init__(self, on):
        self.on, self.proc = on, None

    def __enter__(self):
        if self.on:
            self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.proc.kill()
            self.proc.wait()


def timed(cmd, log, cwd=ROOT, env=None):
    "Run `cmd` (a shell line), its output in `log`: {'seconds', 'rc', 'load_before'}."
    load, t0 = load_average(), time.perf_counter()
    with open(log, "w") as f:
        rc = subprocess.run(
            cmd, shell=True, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT
        ).returncode
    return dict(seconds=round(time.perf_counter() - t0, 1), rc=rc, load_before=load)


def measure(name, busy, tmp):
    "One run of `name`, quiet or busy."
    log = tmp / f"{name}-{'busy' if busy else 'quiet'}.log"
    with Busy(busy):
        if name == "test":
            return timed(COMMANDS["test"][0], log)
        if name == "bench":
            return timed(f"{COMMANDS['bench'][0]} --json {tmp / 'quick.json'}", log)
        if name == "docs":
            for d in ("_proc", "_docs"):
                shutil.rmtree(ROOT / d, ignore_errors=True)
            return timed(COMMANDS["docs"][0], log)
        if name == "ci":
            clone = tmp / "clone"
            shutil.rmtree(clone, ignore_errors=True)
            subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
            env = {
                k: v
                for k, v in os.environ.items()
                if k not in ("PYTHONPATH", "VIRTUAL_ENV")
            }
            return timed(COMMANDS["ci"][0], log, cwd=clone, env=env | {"CI": "true"})
        if name == "import":
            return imports()
    raise ValueError(f"no command named {name!r}: {', '.join(COMMANDS)}")


def imports():
    "Median seconds of a fresh `import causal_mha` and of `import torch`, alternating."
    load, t = load_average(), {"causal_mha": [], "torch": []}
    for _ in range(IMPORT_RUNS):
        for mod in t:
            t0 = time.perf_counter()
            cmd = [sys.executable, "-c", f"import {mod}"]
            subprocess.run(cmd, cwd=ROOT, check=True)
            t[mod].append(time.perf_counter() - t0)
    med = {m: round(statistics.median(v), 2) for m, v in t.items()}
    return dict(
        seconds=med["causal_mha"],
        torch_seconds=med["torch"],
        extra_seconds=round(med["causal_mha"] - med["torch"], 2),
        runs=IMPORT_RUNS,
        rc=0,
        load_before=load,
    )


def refresh_readme():
    "Run the home page's times cell, save its output in the notebook, nbdev_readme."
    nb_path = NBS / "index.ipynb"
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    i = times_cell(nb["cells"])
    if i is None:
        raise SystemExit(f"{nb_path}: no cell renders {TIMES_FILE}")
    md = render_times(nb["cells"], i)
    data = {
        "text/markdown": md.splitlines(keepends=True),
        "text/plain": ["<IPython.core.display.Markdown object>"],
    }
    nb["cells"][i]["outputs"] = [
        {
            "data": data,
            "execution_count": None,
            "metadata": {},
            "output_type": "execute_result",
        }
    ]
    text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    nb_path.write_text(text, encoding="utf-8")
    for cmd in (f"nbdev_clean --fname {nb_path}", "nbdev_readme"):
        subprocess.run(cmd, shell=True, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    print(f"the table of times in nbs/index.ipynb and README.md: from {TIMES_FILE}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--only",
        nargs="*",
        choices=list(COMMANDS),
        help="measure only these (the others keep their times)",
    )
    ap.add_argument(
        "--ci",
        action="store_true",
        help="also time `bash .ci/run` on a fresh clone (quiet and busy)",
    )
    ap.add_argument(
        "--readme-only",
        action="store_true",
        help="measure nothing: render the README's table from the file",
    )
    a = ap.parse_args()
    if a.readme_only:
        refresh_readme()
        return 0
    names = a.only or [n for n in COMMANDS if n != "ci" or a.ci]
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    kept = {
        n: v
        for n, v in (old.get("times") or {}).items()
        if n in COMMANDS and n not in names
    }
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["python .ci/measure_times.py"] + sys.argv[1:])
    res = dict(
        schema=1,
        date=date,
        command=command,
        machine=machine(),
        busy="a second process spinning on one core for the whole run",
        times=kept,
    )
    failed = []
    with tempfile.TemporaryDirectory(prefix="cmha-times-") as d:
        tmp = Path(d)
        for n in names:
            runs = {}
            for mode in ("quiet", "busy"):
                print(f"{n} ({mode}): {COMMANDS[n][0]} ...", flush=True)
                r = runs[mode] = measure(n, mode == "busy", tmp)
                extra = f", torch {r['torch_seconds']} s" if n == "import" else ""
                print(
                    f"  {r['seconds']} s{extra} (exit {r['rc']}, "
                    f"load average before {r['load_before']})",
                    flush=True,
                )
                if r["rc"]:
                    failed.append(f"{n} ({mode})")
                    tail = open(tmp / f"{n}-{mode}.log").readlines()[-15:]
                    print("  its last lines:\n" + "".join(tail))
            res["times"][n] = dict(
                command=COMMANDS[n][0], what=COMMANDS[n][1], measured=date, **runs
            )
    res["times"] = {n: res["times"][n] for n in COMMANDS if n in res["times"]}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {OUT}" + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    refresh_readme()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
