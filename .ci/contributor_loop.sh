#!/usr/bin/env bash
# The loop under "Extend it" on the home page, on a scratch copy of this clone: add a documented public function to a
# chapter page (an exported cell and a cell that asserts it), export, and run the pages that read the package's names
# (4.9 counts them, Hardening checks that help() documents each, the documentation pages check every signature, and
# Attention, tested measures the code): nothing but the new function changes, and every one of them still passes.
# Run from the repository root, in the dev environment: bash .ci/contributor_loop.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d /tmp/cmha-loop.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
git ls-files -z | xargs -0 -I{} cp --parents {} "$scratch"   # the tracked files, as a contributor's clone has them
cd "$scratch"
export PYTHONPATH="$scratch"   # the scratch copy's package, not the installed one
python - <<'PY'
import json, uuid
from pathlib import Path

page = Path("nbs/chapter/04_causal_mask.ipynb")
nb = json.loads(page.read_text(encoding="utf-8"))
cells = [
    ("markdown", "How many keys each query may see, from a mask:"),
    ("code", "#| export\ndef keys_seen(\n    mask: Tensor,  # [T, K] bool, True = may attend\n"
             ") -> Tensor:  # [T] the keys each query sees\n"
             '    "How many keys each query of `mask` may see."\n    return mask.sum(-1)'),
    ("code", "test_eq(keys_seen(causal_mask(3)), torch.tensor([1, 2, 3]))"),
]
at = next(i for i, c in enumerate(nb["cells"]) if c["source"] and "".join(c["source"]).startswith("## Bad input"))
for kind, src in reversed(cells):
    cell = {"cell_type": kind, "id": uuid.uuid4().hex[:8], "metadata": {}, "source": src}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    nb["cells"].insert(at, cell)
page.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
print(f"added keys_seen to {page}")
PY
nbdev_export
python -c "from causal_mha import keys_seen; import causal_mha.chapter.causal_mask as m; assert 'keys_seen' in m.__all__; print('causal_mha.keys_seen:', keys_seen.__doc__.splitlines()[0])"
for nb in chapter/04_causal_mask chapter/09_exercises 12_hardening 00b_sitedoc layer/14b_attention_tested; do
  nbdev_test --path "nbs/$nb.ipynb"
done
echo "contributor loop: a new public function exported, and the pages that read the package's names pass"
