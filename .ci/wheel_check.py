"""Build the wheel the way pip does for a user and check the build and its contents.

Run from the repository root:  python .ci/wheel_check.py
- builds with `pip wheel -v --no-deps --use-pep517 .` (an isolated build with a current setuptools, which is where
  deprecation warnings show) from a copy of the working tree, so no stale build/ folder leaks into the wheel;
- fails on any Python warning in the build log (`SomethingWarning:`), e.g. setuptools' deprecated `License ::`
  classifier or "Package 'causal_mha.chapter.labs' is absent from the `packages` configuration";
- lists the wheel and fails unless it holds every module of the package, every file that settings.ini's
  package_data globs match (the labs' HTML/CSS/JS, the shipped text), the console commands and the license.
Prints what it found; exits 1 on a failure.
"""

import configparser, re, shutil, subprocess, sys, tempfile, zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
cfg = configparser.ConfigParser(delimiters=["="])
cfg.read(ROOT / "settings.ini", encoding="utf-8")
cfg = cfg["DEFAULT"]
LIB = cfg["lib_name"]
SKIP = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    ".ci-venv",
    "_proc",
    "_docs",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".ipynb_checkpoints",
    ".whl",
    ".gl",
)
WARNING_RE = re.compile(r"\b\w*Warning: .*")


def main():
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "wheel"
        shutil.copytree(ROOT, src, ignore=SKIP)
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "-v",
                "--no-deps",
                "--use-pep517",
                "-w",
                str(out),
                ".",
            ],
            cwd=src,
            capture_output=True,
            text=True,
        )
        log = r.stdout + r.stderr
        if r.returncode:
            print(log[-4000:])
            print("wheel check: FAILED (pip wheel exited", r.returncode, ")")
            return 1
        st = re.search(r"Successfully installed (.*)", log)
        print(
            "build backend:",
            " ".join(
                w
                for w in (st.group(1).split() if st else [])
                if w.startswith("setuptools")
            )
            or "?",
        )
        warnings = sorted(set(m.group(0).strip() for m in WARNING_RE.finditer(log)))
        for w in warnings:
            bad.append(f"build warning: {w}")
        print(
            f"build log: {len(log.splitlines())} lines, {len(warnings)} distinct warning(s)"
        )

        whl = next(out.glob("*.whl"))
        names = zipfile.ZipFile(whl).namelist()
        print(f"{whl.name}: {len(names)} files")
        for n in names:
            print("   ", n)

        want = [p.relative_to(ROOT).as_posix() for p in (ROOT / LIB).rglob("*.py")]
        for g in cfg.get("package_data", "").split():
            want += [p.relative_to(ROOT).as_posix() for p in (ROOT / LIB).glob(g)]
        if not any("/labs/" in w and w.endswith(".html") for w in want):
            bad.append("no labs/*.html in the source tree to ship")
        for w in sorted(set(want)):
            if w not in names:
                bad.append(f"{w} is not in the wheel")
        meta = zipfile.ZipFile(whl)
        dist = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        eps = meta.read(f"{dist}/entry_points.txt").decode()
        for script in cfg.get("console_scripts", "").split():
            if script.split("=")[0] not in eps:
                bad.append(
                    f"console command {script.split('=')[0]} is not in entry_points.txt"
                )
        md = meta.read(f"{dist}/METADATA").decode()
        lic = re.findall(
            r"^(License(?:-Expression)?: .*|Classifier: License ::.*)$", md, re.M
        )
        print("license metadata:", "; ".join(lic))
        if not any(
            f.startswith(f"{dist}/licenses/") or f.endswith("/LICENSE") for f in names
        ):
            bad.append("LICENSE is not in the wheel")
        extras = re.findall(r"^Provides-Extra: (.*)$", md, re.M)
        print("extras:", ", ".join(extras))
        for e in ("dev", "plots"):
            if e not in extras:
                bad.append(f"extra [{e}] is missing from the metadata")
    for b in bad:
        print("   ", b)
    print("wheel check:", "passed" if not bad else f"FAILED ({len(bad)} problem(s))")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
