"""The module path `hf_speed` and `bench_hf` had before the benchmark package held them.

They live in `causal_mha.bench.hf` (the Hugging Face speed page, 16a_hf_bench.ipynb).
This file, written by hand (no notebook exports it), keeps
`from causal_mha.hf_bench import hf_speed` working; the benchmark never imports it.
"""
from .bench.hf import hf_speed, bench_hf

__all__ = ['hf_speed', 'bench_hf']
