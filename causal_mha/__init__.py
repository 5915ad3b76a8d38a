__version__ = "0.1.0"

from .core import Attention, KVCache
from .multihead import CausalAttention, MultiHeadAttentionWrapper, MultiHeadAttention, split_heads, merge_heads
from .masks import causal_mask, future_mask, padding_mask, check_mask
from .checks import check_causal
