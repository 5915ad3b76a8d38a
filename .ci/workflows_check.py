"""Check the GitHub workflows, which cannot run here: they must parse as YAML and name the project's real commands.

Run from the repository root, in the environment `pip install -e ".[dev]"` made:  python .ci/workflows_check.py
  .github/workflows/test.yaml    runs on push and pull_request; installs the CPU build of torch, then
                                 `pip install -e ".[dev]"`; runs nbdev_clean, nbdev_export and nbdev_test (the README's
                                 test command) and checks both leave no diff
  .github/workflows/deploy.yaml  runs on a push to the branch settings.ini names; same two installs; builds the site
                                 with Quarto (the quarto-dev setup action, then nbdev_docs) and publishes the doc_path
                                 folder of settings.ini to GitHub Pages
Both: the torch pin is the one .ci/run installs and the README tells CPU users to install; no step upgrades nbdev
past the pin in settings.ini (nbdev 3 refuses settings.ini); every nbdev_* command named exists in this environment.
Prints what it found; exits 1 on a failure.
"""

import configparser, re, shutil, sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
WF = ROOT / ".github" / "workflows"
cfg = configparser.ConfigParser(delimiters=["="])
cfg.read(ROOT / "settings.ini", encoding="utf-8")
cfg = cfg["DEFAULT"]

TORCH_PIN = re.search(r"torch==\d[\w.+]*", (ROOT / ".ci" / "run").read_text()).group(
    0
)  # what CI installs
CPU_TORCH = f"pip install {TORCH_PIN} --index-url https://download.pytorch.org/whl/cpu"
DEV_INSTALL = 'pip install -e ".[dev]"'


def load(name):
    wf = yaml.safe_load((WF / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the bare key `on` as True
    triggers = wf.get("on", wf.get(True))
    steps = [s for job in wf["jobs"].values() for s in job.get("steps", [])]
    return wf, triggers, steps


def trigger_names(t):
    return set(
        [t] if isinstance(t, str) else t if isinstance(t, list) else (t or {}).keys()
    )


def run_lines(steps):
    return [
        ln.strip()
        for s in steps
        for ln in str(s.get("run", "")).splitlines()
        if ln.strip()
    ]


def uses(steps):
    return [s.get("uses", "") for s in steps]


def common(name, steps, bad):
    lines = run_lines(steps)
    if CPU_TORCH not in lines:
        bad.append(f"{name}: no step runs `{CPU_TORCH}`")
    if DEV_INSTALL not in lines:
        bad.append(f"{name}: no step runs `{DEV_INSTALL}`")
    elif CPU_TORCH in lines and lines.index(CPU_TORCH) > lines.index(DEV_INSTALL):
        bad.append(
            f"{name}: the CPU torch install must come before `{DEV_INSTALL}` (else pip pulls a CUDA build)"
        )
    for ln in lines:
        if re.search(
            r"pip install .*(-U|--upgrade).*\bnbdev\b|pip install (-\S+ )*nbdev(\s|$)",
            ln,
        ):
            bad.append(
                f"{name}: `{ln}` installs an nbdev other than the one settings.ini pins ({cfg['dev_requirements'].split()[0]})"
            )
    if not any(u.startswith("actions/checkout@") for u in uses(steps)):
        bad.append(f"{name}: no actions/checkout step")
    if not any(u.startswith("actions/setup-python@") for u in uses(steps)):
        bad.append(f"{name}: no actions/setup-python step")
    for cmd in sorted({w for ln in lines for w in re.findall(r"\bnbdev_\w+", ln)}):
        if not shutil.which(cmd):
            bad.append(f"{name}: runs `{cmd}`, which this environment does not have")
    return lines


def check_test(bad):
    name = "test.yaml"
    wf, triggers, steps = load(name)
    missing = {"push", "pull_request"} - trigger_names(triggers)
    if missing:
        bad.append(f"{name}: does not run on {', '.join(sorted(missing))}")
    lines = common(name, steps, bad)
    for cmd in ("nbdev_clean", "nbdev_export", "nbdev_test"):  # with any options
        if not any(ln.split()[:1] == [cmd] for ln in lines):
            bad.append(f"{name}: no step runs `{cmd}`")
    if sum("git status" in ln for ln in lines) < 2:
        bad.append(
            f"{name}: nbdev_clean/nbdev_export are not followed by a git status check"
        )
    return sorted(trigger_names(triggers)), [
        s.get("name") or s.get("uses") for s in steps
    ]


def check_deploy(bad):
    name = "deploy.yaml"
    wf, triggers, steps = load(name)
    push = (triggers or {}).get("push") if isinstance(triggers, dict) else None
    branch = cfg.get("branch", "main")
    if not push or branch not in (push.get("branches") or []):
        bad.append(f"{name}: does not run on a push to {branch}")
    common(name, steps, bad)
    lines = run_lines(steps)
    if not any(u.startswith("quarto-dev/quarto-actions/setup@") for u in uses(steps)):
        bad.append(
            f"{name}: no quarto-dev/quarto-actions/setup step (nbdev_docs needs Quarto)"
        )
    if "nbdev_docs" not in lines:
        bad.append(f"{name}: no step runs `nbdev_docs`")
    pub = [
        s for s in steps if s.get("uses", "").startswith("peaceiris/actions-gh-pages@")
    ]
    doc_path = cfg.get("doc_path", "_docs")
    if not pub:
        bad.append(f"{name}: no peaceiris/actions-gh-pages step publishes the site")
    elif str(pub[0].get("with", {}).get("publish_dir", "")).strip("./") != doc_path:
        bad.append(
            f"{name}: publishes {pub[0].get('with', {}).get('publish_dir')!r}, but nbdev_docs writes {doc_path}/ (settings.ini doc_path)"
        )
    if (wf.get("permissions") or {}).get("contents") != "write":
        bad.append(f"{name}: needs `permissions: contents: write` to push gh-pages")
    return sorted(trigger_names(triggers)), [
        s.get("name") or s.get("uses") for s in steps
    ]


def check_readme(bad):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for cmd in (CPU_TORCH, DEV_INSTALL):
        if cmd not in readme:
            bad.append(
                f"README.md: does not give the command `{cmd}` that CI and the workflows run"
            )


def main():
    bad = []
    for name, check in (("test.yaml", check_test), ("deploy.yaml", check_deploy)):
        try:
            triggers, steps = check(bad)
            print(
                f"{name}: on {', '.join(triggers)}; steps: {' | '.join(map(str, steps))}"
            )
        except Exception as e:
            bad.append(f"{name}: cannot be read as a workflow: {type(e).__name__}: {e}")
    check_readme(bad)
    print(f"torch pin shared by .ci/run, the workflows and README.md: {TORCH_PIN}")
    for b in bad:
        print("   ", b)
    print(
        "workflows check:", "passed" if not bad else f"FAILED ({len(bad)} problem(s))"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
