"""`causal-mha-bench` through its CLI function, for the GPU check: the arguments as
given; where the CLI refuses parts on this device (today the parts that measure CPU
processes), once more without them, saying so.
Usage: python .ci/gpu_bench.py --device cuda --dtype bf16 [--quick] [--json FILE]"""

import sys

from causal_mha.instruments.bench.options import CPU_PARTS, PARTS
from causal_mha.instruments.cli import causal_mha_bench

argv = sys.argv[1:]
try:
    sys.exit(causal_mha_bench(argv))
except SystemExit as e:
    if e.code in (0, None) or "--parts" in argv:
        raise
    parts = ",".join(p for p in PARTS if p not in CPU_PARTS)
    print(f"causal-mha-bench refused (exit {e.code}); again with --parts {parts}")
    sys.exit(causal_mha_bench([*argv, "--parts", parts]))
