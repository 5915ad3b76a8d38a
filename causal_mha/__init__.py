"""Causal multi-head self-attention in PyTorch, derived step by step from a weighted
average to a fused, cached module.

The names of this package are the public names of its modules: each module below is
star-imported, so its `__all__` (the public names of its notebook's `#| export` cells)
is what `causal_mha` offers, and a function exported from a notebook reaches
`causal_mha.*` with no edit here. In the chapter's order:

- `ground`: `check_finite`, `split_heads`, `merge_heads`, shared by every module;
- `weighted` (4.1): the general `attention(q, k, v, mask, scale)`;
- `selfattn` (4.2): upstream's `SelfAttention_v1`, `SelfAttention_v2`;
- `scaling` (4.3): the measurements behind the 1/sqrt(d_k) scale;
- `masks` (4.4): `causal_mask`, `future_mask`, `additive_mask`, `padding_mask`,
  `padded_causal_mask`, `check_mask`, `masked_softmax`, ...;
- `checks` (4.5): `verify_causal`, a behavioural test of causality for any module, and
  its `CausalityReport`;
- `dropout` (4.6): dropout on one row of weights, enumerated exactly;
- `multihead` (4.7): upstream's `CausalAttention`, `MultiHeadAttentionWrapper`,
  `MultiHeadAttention`;
- `text` (4.7): the shipped text, `SimpleTokenizer`, `GPTDatasetV1`, `token_batches`;
- `dispatch` (after 4.8): `token_positions`, `visible` (who sees whom) and `attend`
  (which kernel computes it);
- `rope_types` (after 4.8): `rope_frequencies`, the frequencies of transformers' rotary
  types, as transformers computes them;
- `rope` (after 4.8): `Rotary`, `rotate` and `RMSNorm`, what queries and keys go through
  before the scores;
- `cache` (after 4.8): `KVCache`, the keys and values of the positions a layer has seen;
- `core` (4.8): `Attention`, the chapter's module built on those three;
- `exercises` (4.9): `attention_param_count`;
- `kv_memory` (beyond the chapter): `kv_cache_bytes`, the key/value memory of MHA, GQA,
  MQA and sliding windows;
- `convert` (drop-in): weight converters `from_*`/`to_*` for upstream,
  `nn.MultiheadAttention`, nanoGPT, HF GPT-2 and Llama/Mistral/Qwen2 attention;
- `hf_layers` (drop-in): `HFAttention` / `HFLatentAttention`, the adapters a swapped
  model runs in its layers (keys and values, or latents, in the model's own cache),
  `register_attention` and `ATTN_IMPLEMENTATION`, the implementation they register;
- `hf` (drop-in): `swap_attention`, which swaps `Attention` into every layer of a HF
  GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 3 or gpt-oss model and `LatentAttention`
  into DeepSeek-V3's, and `restore_attention`, which swaps the originals back;
- `parallel` (drop-in): `shard_heads`, tensor parallelism over heads, and `qkv_rows`,
  the row order it shards;
- `latent` (beyond the chapter): `LatentAttention`, multi-head latent attention
  (DeepSeek-V2/V3), and its `LatentCache`.

Not star-imported, used by their module path: `causal_mha.labs` (the interactive HTML
labs and their Python twins, `from causal_mha.labs import show_lab`), and the tools that
sit on top of the library: `causal_mha.bench` (benchmarks; `causal_mha.bench.hf`: a
swapped model's speed against the original's), `causal_mha.conformance`
(`verify_attention`, the conformance kit for any causal attention),
`causal_mha.hf_matrix` (swapped models against the originals, cell by cell),
`causal_mha.cli` (console commands) and the test suites. Argument checks other than
`check_finite` (`check_int`, `check_heads`, ...) are module-private helpers of `ground`:
`from causal_mha.ground import check_heads`.

That makes 74 top-level names, each something a user imports: what the chapter builds,
the results it returns, and the library (`Attention`, `attend`, `Rotary`, `KVCache`,
`kv_cache_bytes`, the converters, `swap_attention`, `shard_heads`, `LatentAttention`).
The Exercises page (4.9) asserts the surface.
"""

__version__ = "0.1.0"

from .ground import *
from .weighted import *
from .selfattn import *
from .scaling import *
from .masks import *
from .checks import *
from .dropout import *
from .multihead import *
from .text import *
from .visibility import *
from .dispatch import *
from .rope_types import *
from .rope import *
from .cache import *
from .static_cache import *

from .core import *
from .exercises import *
from .kv_memory import *
from .convert import *
from .hf_layers import *
from .hf import *
from .parallel import *
from .latent import *

def _document_all():
    """`help()` of every public name lists its arguments: `document` writes each
    parameter's comment into the docstring."""
    import inspect
    from .sitedoc import document

    for name, obj in list(globals().items()):
        if name.startswith("_"):
            continue
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not getattr(obj, "__module__", "").startswith("causal_mha."):
            continue
        if inspect.isfunction(obj):
            document(obj)
            continue
        # the constructor's comments, or a dataclass's fields'
        document(obj, obj.__init__)
        document(obj, obj)
        for m, f in vars(obj).items():  # and its public methods
            if inspect.isfunction(f) and not m.startswith("_"):
                document(f)

_document_all()
