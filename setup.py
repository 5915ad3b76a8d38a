from configparser import ConfigParser
import setuptools, shlex

# note: all settings are in settings.ini; edit there, not here
config = ConfigParser(delimiters=["="])
config.read("settings.ini", encoding="utf-8")
cfg = config["DEFAULT"]

cfg_keys = "version description keywords author author_email".split()
expected = (
    cfg_keys
    + "lib_name user branch license status min_python audience language".split()
)
for o in expected:
    assert o in cfg, "missing expected setting: {}".format(o)
setup_cfg = {o: cfg[o] for o in cfg_keys}

statuses = [
    "1 - Planning",
    "2 - Pre-Alpha",
    "3 - Alpha",
    "4 - Beta",
    "5 - Production/Stable",
    "6 - Mature",
    "7 - Inactive",
]
py_versions = "3.6 3.7 3.8 3.9 3.10 3.11 3.12".split()

requirements = shlex.split(cfg.get("requirements", ""))
if cfg.get("pip_requirements"):
    requirements += shlex.split(cfg.get("pip_requirements", ""))
min_python = cfg["min_python"]
dev_requirements = (cfg.get("dev_requirements") or "").split()
# extras: `pip install "causal_mha[plots]"`, `pip install -e ".[dev]"`
extras_require = {
    "dev": dev_requirements,
    "plots": (cfg.get("plots_requirements") or "").split(),
}

# The license as an SPDX expression (PEP 639): setuptools >= 77 writes it as License-Expression and deprecates
# `License ::` classifiers, so there are none; older setuptools (a fresh venv's bundled one) gets the same text.
spdx = cfg["license_spdx"]
license_kw = (
    {"license_expression": spdx}
    if int(setuptools.__version__.split(".")[0]) >= 77
    else {"license": spdx}
)

# Package data (the labs' HTML/CSS/JS, the shipped text) lives in folders without an __init__.py, e.g. labs/*.html.
# Each such folder is listed as a package of its own (causal_mha.labs, causal_mha.data), so setuptools ships it
# without warning that an importable-looking folder is absent from `packages`.
lib = cfg["lib_name"]
pkg_data = (cfg.get("package_data") or "").split()
data_pkgs = sorted(
    {lib + "." + ".".join(g.split("/")[:-1]) for g in pkg_data if "/" in g}
)
setup_cfg["package_data"] = {lib: pkg_data} if pkg_data else {}

setuptools.setup(
    name=cfg["lib_name"],
    **license_kw,
    classifiers=[
        "Development Status :: " + statuses[int(cfg["status"])],
        "Intended Audience :: " + cfg["audience"].title(),
        "Natural Language :: " + cfg["language"].title(),
    ]
    + [
        "Programming Language :: Python :: " + o
        for o in py_versions[py_versions.index(min_python) :]
    ],
    url=cfg["git_url"],
    packages=setuptools.find_packages() + data_pkgs,
    include_package_data=True,
    install_requires=requirements,
    extras_require=extras_require,
    dependency_links=cfg.get("dep_links", "").split(),
    python_requires=">=" + cfg["min_python"],
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    zip_safe=False,
    entry_points={
        "console_scripts": cfg.get("console_scripts", "").split(),
        "nbdev": [f"{cfg.get('lib_path')}={cfg.get('lib_path')}._modidx:d"],
    },
    **setup_cfg,
)
