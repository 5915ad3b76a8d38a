"""Causal multi-head self-attention in PyTorch, derived step by step from a weighted
average to a fused, cached module.

The package has four floors, each a sub-package, each with its notebooks in the
folder of the same name under `nbs/`; `ground` (argument checks, heads split and
merged) and `sitedoc` (the documentation pages' renderer) sit under them all:

- `chapter`: the book's sections 4.1-4.9, one module each: `weighted_average` (4.1,
  `attention`), `qkv` (4.2, upstream's `SelfAttention_v1`/`_v2`), `scaling` (4.3),
  `causal_mask` (4.4), `causality_check` (4.5, `verify_causal`), `dropout` (4.6),
  `multihead` (4.7, upstream's classes), `text` (the text pipeline), `exercises`
  (4.9) and `labs` (the interactive labs);
- `layer`: the attention layer real models use: `core` (4.8, `Attention`),
  `visibility` (who sees whom), `dispatch` (`attend` and its routes), `rope` and
  `rope_types` (rotary positions), `cache` and `static_cache` (`KVCache`,
  `StaticKVCache`), `kernels` (the GPU's routes), `latent` (`LatentAttention`) and
  `kv_memory` (`kv_cache_bytes`);
- `integrations`: `convert` (weight converters), `hf_layers` and `hf`
  (`swap_attention` for Hugging Face models), `parallel` (`shard_heads`) and
  `context_parallel` (`shard_sequence`);
- `instruments`: `bench` (the benchmarks), `conformance` (`verify_attention`, the
  kit for any causal attention), `hf_matrix` and `hf_matrix_run` (swapped models
  against the originals), `peers` and `cli` (the console commands).

The names of `causal_mha` are the public names of the star-imported modules below:
each one's `__all__` (the public names of its notebook's `#| export` cells) is what
`causal_mha` offers, so a function exported from a notebook reaches `causal_mha.*`
with no edit here. The labs, the GPU kernels, context parallelism and the instruments
are used by their module path (`from causal_mha.instruments.conformance import
verify_attention`). The Exercises page (4.9) counts the names and checks that none
hides another.
"""

__version__ = "0.1.0"

from .ground import *
from .chapter.weighted_average import *
from .chapter.qkv import *
from .chapter.scaling import *
from .chapter.causal_mask import *
from .chapter.causality_check import *
from .chapter.dropout import *
from .chapter.multihead import *
from .chapter.text import *
from .layer.visibility import *
from .layer.dispatch import *
from .layer.rope_types import *
from .layer.rope import *
from .layer.cache import *
from .layer.static_cache import *

from .layer.core import *
from .chapter.exercises import *
from .layer.kv_memory import *
from .integrations.convert import *
from .integrations.hf_layers import *
from .integrations.hf import *
from .integrations.parallel import *
from .layer.latent import *


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
