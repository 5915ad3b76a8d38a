"""Multi-process checks of `causal_mha.integrations.context_parallel` (sequences
split among gloo processes on the loopback interface, compared with one process):
test scaffolding, not part of the library.

`torch.multiprocessing.spawn` starts fresh interpreters that import the workers by their
module path, so they live in this file next to the notebooks (a notebook puts its folder
on `sys.path`; spawned processes inherit it).
"""

from __future__ import annotations
import copy, os, sys, tempfile
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import Tensor
from causal_mha.integrations.context_parallel import (
    SequenceSplit,
    gather_sequence,
    shard_sequence,
)
from causal_mha.integrations.context_parallel import split_sequence
from causal_mha.integrations.parallel import join_local_group


def _summed(t: Tensor) -> Tensor:
    "`t` summed over the ranks (a copy)."
    t = t.detach().clone()
    dist.all_reduce(t)
    return t


def _unwrapped(name: str) -> str:
    "A wrapper's parameter name as the layer's own (`attn.qkv.weight` -> `qkv.weight`)."
    return name.split(".", 1)[1]


def layer_case(case: tuple, group, block_size: int) -> dict:
    """One layer's sequences split: this rank's share of the output and of the loss
    `sum(out * target)`, then the whole output, loss, input gradient and the
    parameters' gradients summed over the ranks."""
    module, x, target, inputs, strategy, head_tail = case
    layer = shard_sequence(
        copy.deepcopy(module),
        group,
        strategy,
        head_tail=head_tail,
        block_size=block_size,
    )
    split = SequenceSplit(group.size(), head_tail)

    def share(t):
        return split.split(t, group.rank())

    x = share(x).requires_grad_(True)
    out = layer(x, **{n: share(t) for n, t in inputs.items()})
    loss = (out * share(target)).sum()
    loss.backward()
    return dict(
        out=gather_sequence(out, group, head_tail=head_tail),
        x_grad=gather_sequence(x.grad, group, head_tail=head_tail),
        loss=_summed(loss),
        grads={_unwrapped(n): _summed(p.grad) for n, p in layer.named_parameters()},
    )


def lm_loss(model, ids: Tensor, pos: Tensor, labels: Tensor, n: Tensor) -> Tensor:
    "Cross-entropy summed over `labels` (-100: none) divided by `n`, all the labels."
    logits = model(input_ids=ids, position_ids=pos, use_cache=False).logits
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction="sum") / n


def shifted(ids: Tensor) -> Tensor:
    "The next token at each position (-100 at the last): a causal LM's labels."
    return F.pad(ids[:, 1:], (0, 1), value=-100)


def sgd(model, lr: float) -> dict:
    "One SGD step with the gradients the parameters hold; the new parameters."
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def llama_case(case: tuple, group, block_size: int) -> dict:
    """One training step of a swapped Hugging Face model on this rank's share of the
    rows (labels shifted before the split): loss, gradients summed over the ranks, and
    the parameters after one SGD step with them."""
    model, ids, pos, strategy, lr = case
    model = shard_sequence(copy.deepcopy(model), group, strategy, block_size=block_size)
    labels = shifted(ids)
    n = (labels != -100).sum()
    share = [split_sequence(t, group) for t in (ids, pos, labels)]
    loss = lm_loss(model, *share, n)
    loss.backward()
    grads = {}
    for name, p in model.named_parameters():
        dist.all_reduce(p.grad)  # the sum over the ranks' tokens
        grads[name] = p.grad.clone()
    return dict(loss=_summed(loss), grads=grads, params=sgd(model, lr))


def worker(rank, world_size, init_file, out_dir, layer_cases, llama_cases, block_size):
    "One process: every case on its share; saves rank{rank}.pt."
    join_local_group(rank, world_size, init_file, timeout_s=120)
    try:
        group = dist.group.WORLD
        res = dict(
            layers=[layer_case(c, group, block_size) for c in layer_cases],
            llama=[llama_case(c, group, block_size) for c in llama_cases],
        )
        torch.save(res, os.path.join(out_dir, f"rank{rank}.pt"))
        dist.barrier()  # leave together
    finally:
        dist.destroy_process_group()


def run(layer_cases: list, llama_cases: list, world_size: int, block_size: int = 4):
    "Run `worker` in `world_size` spawned processes; each rank's results."
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as d:
        args = (
            world_size,
            os.path.join(d, "store"),
            d,
            layer_cases,
            llama_cases,
            block_size,
        )
        mp.spawn(worker, args=args, nprocs=world_size, join=True)
        return [
            torch.load(os.path.join(d, f"rank{r}.pt"), weights_only=True)
            for r in range(world_size)
        ]


def layer_reference(case: tuple) -> dict:
    "The same quantities as `layer_case` from one process on the whole sequences."
    module, x, target, inputs, *_ = case
    module, x = copy.deepcopy(module), x.clone().requires_grad_(True)
    out = module(x, **inputs)
    loss = (out * target).sum()
    loss.backward()
    grads = {n: p.grad for n, p in module.named_parameters()}
    return dict(out=out.detach(), x_grad=x.grad, loss=loss.detach(), grads=grads)


def llama_reference(case: tuple) -> dict:
    "The same training step as `llama_case` in one process."
    model, ids, pos, _, lr = case
    model, labels = copy.deepcopy(model), shifted(ids)
    loss = lm_loss(model, ids, pos, labels, (labels != -100).sum())
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    return dict(loss=loss.detach(), grads=grads, params=sgd(model, lr))


def relative_error(got: dict, want: dict) -> float:
    """The largest |got - want| over every tensor (and dict of tensors) of `want`,
    each divided by that tensor's largest |want| (at least 1)."""
    worst = 0.0
    for key, w in want.items():
        pairs = (
            [(got[key][n], w[n]) for n in w] if isinstance(w, dict) else [(got[key], w)]
        )
        for g, t in pairs:
            scale = max(1.0, t.abs().max().item())
            worst = max(worst, (g - t).abs().max().item() / scale)
    return worst
