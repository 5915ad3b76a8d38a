#!/usr/bin/env bash
# The GPU check, for a session lent a CUDA machine (one H100, torch 2.11 + CUDA 13, no nbdev there).
# Here, first:   bash ../shared/gpu/prepare-wheels.sh        (wheels into .whl/, carried to the machine)
# Then one call of the device's run, from the repository root, carry [".whl"], timeout_s 330:
#                bash .ci/gpu_check.sh
# Within 5 minutes: installs the wheels into a temporary folder, runs `nbdev_test --flags cuda` on every notebook
# that has a cuda cell, then the kernel routes' benchmark (causal_mha.layer.kernels.bench_kernels) at the issue's sizes,
# then `causal-mha-bench --device cuda` through its CLI function. Everything printed goes to $OUT (gpu_check.txt,
# and one file per step); each step has its own time limit, so one that hangs leaves the others their time.
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
export OUT=${OUT:-$(mktemp -d)}
log="$OUT/gpu_check.txt"
exec > >(tee -a "$log") 2>&1
t0=$(date +%s)
step() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s in)"; }
status=0

step "wheels (.whl) into a temporary folder"
site=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" .whl/*.whl || { echo "no wheels: run bash ../shared/gpu/prepare-wheels.sh here first"; exit 1; }
export PYTHONPATH="$site:$PWD" PATH="$site/bin:$PATH"
python3 -c "import torch, transformers; print('torch', torch.__version__, '| CUDA', torch.version.cuda, '|', torch.cuda.get_device_name(), '| transformers', transformers.__version__)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

step "nbdev_test --flags cuda on the notebooks with cuda cells"
cuda_nbs=$(python3 .ci/flagged_notebooks.py cuda)
echo "$cuda_nbs"
file_re="($(echo $cuda_nbs | xargs -n1 basename | paste -sd'|'))"
timeout 150 nbdev_test --flags cuda --file_re "$file_re" --n_workers 6 --do_print 2>&1 | tee "$OUT/cuda_cells.txt"
rc=${PIPESTATUS[0]}; echo "nbdev_test --flags cuda: exit $rc"; [ "$rc" -eq 0 ] || status=1

step "the kernel routes side by side at the issue's sizes (bfloat16)"
timeout 80 python3 -c "
import torch
from causal_mha.layer.kernels import bench_kernels
bench_kernels('cuda', torch.bfloat16, backward=False)  # forward: every case
bench_kernels('cuda', torch.bfloat16, cases=('window',))  # and the window's backward
" 2>&1 | tee "$OUT/bench_kernels.txt"
rc=${PIPESTATUS[0]}; echo "bench_kernels: exit $rc"; [ "$rc" -eq 0 ] || status=1

step "causal-mha-bench --device cuda (through its CLI function)"
timeout 50 python3 .ci/gpu_bench.py --device cuda --dtype bf16 --quick --json "$OUT/gpu.json" 2>&1 | tee "$OUT/bench.txt"
rc=${PIPESTATUS[0]}; echo "causal-mha-bench: exit $rc"; [ "$rc" -eq 0 ] || status=1

step "done: exit $status (an exit 124 above is a step that ran out of its time)"
exit $status
