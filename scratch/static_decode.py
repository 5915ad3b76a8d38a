"""A gpt-fast-style compiled decode loop on the CPU: static buffers, `index_copy_`, a
boolean mask read from an `input_pos` tensor, one SDPA call, compiled with
`torch.compile(mode="reduce-overhead", fullgraph=True)`. Counts graphs and recompiles
with `torch._dynamo` counters over 256 steps after warm-up, then shows what breaks
the graph or recompiles it. Not exported; a pattern for the static cache.

Run: PYTHONPATH=. python scratch/static_decode.py
"""

import time
import warnings

import torch
import torch._dynamo
import torch.nn.functional as F
from torch import nn
from torch._dynamo.utils import counters

warnings.filterwarnings("ignore", message=".*cudagraph.*")
torch.manual_seed(0)
B, D, H, HKV, LAYERS, MAX_T, PREFILL, STEPS = 1, 256, 8, 2, 4, 512, 32, 256
d = D // H


class StaticKV(nn.Module):
    "One layer's keys and values in buffers of a fixed capacity, written in place."

    def __init__(self, B, Hkv, max_T, d, dtype=torch.float32):
        super().__init__()
        shape = (B, Hkv, max_T, d)
        self.register_buffer("k", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("v", torch.zeros(shape, dtype=dtype), persistent=False)

    def update(self, input_pos, k, v):  # input_pos: [T_new] int64, on the device
        self.k.index_copy_(2, input_pos, k)  # no shape change, no host sync
        self.v.index_copy_(2, input_pos, v)
        return self.k, self.v


def rotate(x, cos, sin):  # x [B, h, T, d]; cos, sin [T, d / 2]
    x1, x2 = x.float().unflatten(-1, (-1, 2)).unbind(-1)
    out = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), -1)
    return out.flatten(-2).type_as(x)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, (H + 2 * HKV) * d, bias=False)
        self.out = nn.Linear(D, D, bias=False)
        self.cache = StaticKV(B, HKV, MAX_T, d)

    def forward(self, x, input_pos, mask, cos, sin):
        Bx, T, _ = x.shape
        q, k, v = self.qkv(x).split((H * d, HKV * d, HKV * d), -1)
        q, k, v = (t.unflatten(-1, (-1, d)).transpose(1, 2) for t in (q, k, v))
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        k, v = self.cache.update(input_pos, k, v)
        ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
        return self.out(ctx.transpose(1, 2).flatten(2))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        causal = torch.ones(MAX_T, MAX_T, dtype=torch.bool).tril()
        self.register_buffer("causal", causal, persistent=False)
        inv = 1.0 / 10000 ** (torch.arange(0, d, 2).float() / d)
        angles = torch.outer(torch.arange(MAX_T).float(), inv)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, x, input_pos):
        # made once per model step from the position tensor: a row of the causal
        # table per new token ([1, 1, T_new, MAX_T]: free slots are False), the
        # rotary rows of these positions; every layer reads them
        mask = self.causal[None, None, input_pos]
        cos, sin = self.cos[input_pos], self.sin[input_pos]
        for layer in self.layers:
            x = x + layer(x, input_pos, mask, cos, sin)
        return x


def graphs():
    return counters["stats"]["unique_graphs"], sum(counters["graph_break"].values())


def run(step, model, label, steps=STEPS, pos_as_tensor=True):
    "Prefill eagerly, two warm-up steps, then `steps` compiled steps; count graphs."
    for layer in model.layers:
        layer.cache.k.zero_()
        layer.cache.v.zero_()
    x = torch.randn(B, PREFILL, D)
    with torch.no_grad():
        model(x, torch.arange(PREFILL))
        tok = torch.randn(B, 1, D)
        input_pos = torch.tensor([PREFILL])
        for _ in range(2):  # warm-up: compile (and record the graph on CUDA)
            tok = step(model, tok, input_pos if pos_as_tensor else int(input_pos))
            input_pos += 1  # in place, on the device: no host sync
        before, t0 = graphs(), time.perf_counter()
        for _ in range(steps):
            tok = step(model, tok, input_pos if pos_as_tensor else int(input_pos))
            input_pos += 1
        ms = (time.perf_counter() - t0) * 1e3 / steps
    after = graphs()
    print(
        f"{label}: graphs {before[0]} after warm-up, {after[0]} after {steps} steps "
        f"(+{after[0] - before[0]}), graph breaks {after[1]}, {ms:.2f} ms/step"
    )
    return after[0] - before[0]


def decode_step(model, tok, input_pos):
    return model(tok, input_pos)


def decode_step_int(model, tok, pos: int):  # a Python int position: a new constant
    return model(tok, torch.arange(pos, pos + 1))


def decode_step_item(model, tok, input_pos):  # reads the position on the host
    start = int(input_pos[0].item())
    return model(tok, torch.arange(start, start + 1))


if __name__ == "__main__":
    model = Model().eval()
    torch._dynamo.reset()
    counters.clear()
    eager_out = []
    t0 = time.perf_counter()
    compiled = torch.compile(decode_step, mode="reduce-overhead", fullgraph=True)
    new = run(compiled, model, "tensor input_pos, reduce-overhead, fullgraph")
    print(f"  (compile and run: {time.perf_counter() - t0:.1f} s)")
    assert new == 0, "recompiled after warm-up"
    # the same outputs as eager, step after step, from the same state
    for layer in model.layers:
        layer.cache.k.zero_()
        layer.cache.v.zero_()
    with torch.no_grad():
        model(torch.randn(B, PREFILL, D), torch.arange(PREFILL))
        snapshot = {n: b.clone() for n, b in model.named_buffers()}
        tok, pos = torch.randn(B, 1, D), torch.tensor([PREFILL])
        ours = []
        for _ in range(8):
            ours.append(compiled(model, ours[-1] if ours else tok, pos).clone())
            pos += 1
        for n, b in model.named_buffers():
            b.copy_(snapshot[n])
        pos, ref = torch.tensor([PREFILL]), []
        for _ in range(8):
            ref.append(model(ref[-1] if ref else tok, pos))
            pos += 1
    diff = max((a - b).abs().max().item() for a, b in zip(ours, ref))
    print(f"compiled against eager, 8 steps: largest difference {diff:.1e}")
    torch._dynamo.reset()
    counters.clear()
    run(
        torch.compile(decode_step_int, mode="reduce-overhead"),
        model,
        "python int position",
        steps=16,
        pos_as_tensor=False,
    )
    torch._dynamo.reset()
    counters.clear()
    torch._dynamo.config.capture_scalar_outputs = False
    run(
        torch.compile(decode_step_item, mode="reduce-overhead"),
        model,
        "input_pos.item() on the host",
        steps=16,
    )
