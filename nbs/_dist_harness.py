"""Two-process test harness of the Hardening page (DDP) and the Tensor parallelism page
(tensor parallelism, FSDP2): test scaffolding, not part of the library.

`torch.multiprocessing.spawn` starts fresh interpreters that import the workers by their
module path, so they live in this file next to the notebooks (a notebook puts its folder
on `sys.path`; spawned processes inherit it).
"""

from __future__ import annotations
import copy, os, sys, tempfile
import torch
import torch.nn.functional as F
from torch import nn, Tensor
from causal_mha.ground import check_int
from causal_mha.layer.core import KVCache
from causal_mha.integrations.parallel import join_local_group, qkv_rows, shard_heads


def sgd_step(model: nn.Module, x: Tensor, target: Tensor, lr: float) -> dict:
    "One SGD step on the mean squared error; returns the gradients it used (cloned)."
    loss = F.mse_loss(model(x), target)  # mean over this process's share of the batch
    loss.backward()  # under DDP: gradients all-reduced and averaged
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    return grads


def ddp_worker(
    rank: int,  # this process's rank, 0..world_size-1
    world_size: int,  # number of processes
    init_file: str,  # rendezvous file (FileStore), not yet existing
    module: nn.Module,  # the module to replicate (copied)
    x: Tensor,  # [B, T, D] the FULL batch
    target: Tensor,  # [B, T, D'] regression targets of the full batch
    lr: float,  # SGD learning rate
    out_dir: str,  # folder where `rank{rank}.pt` is written
):
    """One DDP process: a SGD step on its share of the batch (this rank takes its share
    of `x` and `target`); saves the averaged gradients and the new parameters.
    `torch.multiprocessing.spawn` passes `rank` first."""
    from torch.nn.parallel import DistributedDataParallel as DDP
    import torch.distributed as dist

    join_local_group(rank, world_size, init_file, timeout_s=60)
    try:
        model = DDP(copy.deepcopy(module))

        def share(t):
            return t.chunk(world_size)[rank]  # [B, ...] -> [B/world_size, ...]

        grads = sgd_step(model, share(x), share(target), lr)
        params = {n: p.detach().clone() for n, p in model.module.named_parameters()}
        grads = {n.removeprefix("module."): g for n, g in grads.items()}
        torch.save(
            dict(grads=grads, params=params), os.path.join(out_dir, f"rank{rank}.pt")
        )
        # leave together: a rank tearing down gloo while its peer still talks can abort
        # the process
        dist.barrier()
    finally:
        dist.destroy_process_group()


def ddp_matches_single_process(
    module: nn.Module,  # e.g. `Attention(...)`
    x: Tensor,  # [B, T, D] full batch
    target: Tensor,  # [B, T, D'] regression targets
    world_size: int = 2,  # number of processes (CPU, gloo)
    lr: float = 0.1,  # SGD learning rate
) -> float:  # max |difference|
    """Run one DDP step in `world_size` processes and compare it with one full-batch
    step in this process; returns the max |difference| over ranks, gradients and
    updated parameters. Use a float64 `module` for an exact comparison; `B` must be
    divisible by `world_size`."""
    import torch.multiprocessing as mp

    if not torch.distributed.is_available():
        raise RuntimeError("torch.distributed is not available in this torch build")
    if not isinstance(module, nn.Module):
        raise TypeError(
            f"module must be a torch.nn.Module, got {type(module).__name__}"
        )
    check_int("world_size", world_size, 1)
    for name, t in (("x", x), ("target", target)):
        if not isinstance(t, Tensor) or t.ndim < 1:
            raise TypeError(
                f"{name} must be a tensor with a batch axis, got {type(t).__name__}"
            )
    if x.shape[0] != target.shape[0] or x.shape[0] % world_size:
        raise ValueError(
            "x and target must share a batch size divisible by "
            f"world_size={world_size}, "
            f"got {x.shape[0]} and {target.shape[0]}"
        )
    worker = ddp_worker  # spawned processes unpickle it by its module path (this file)
    ref = copy.deepcopy(module)
    ref_grads = sgd_step(ref, x, target, lr)
    with tempfile.TemporaryDirectory() as d:
        args = (world_size, os.path.join(d, "store"), module, x, target, lr, d)
        mp.spawn(worker, args=args, nprocs=world_size, join=True)
        results = [
            torch.load(os.path.join(d, f"rank{r}.pt")) for r in range(world_size)
        ]
    diff = 0.0
    for res in results:
        for n, p in ref.named_parameters():
            diff = max(
                diff,
                (res["grads"][n] - ref_grads[n]).abs().max().item(),
                (res["params"][n] - p.detach()).abs().max().item(),
            )
    return diff


def gather(t, rows=None) -> torch.Tensor:
    """A plain tensor from a (D)Tensor, all of it; with `rows`, put back in q | k | v
    order."""
    t = t.full_tensor() if hasattr(t, "full_tensor") else t
    t = t.detach().clone()  # clone: a plain tensor, collective done
    if rows is None:
        return t
    out = torch.empty_like(t)
    out[rows] = t
    return out


def _unsharded(name: str) -> str:
    """A sharded module's parameter name as the module's own (`shard_heads` reads the
    sinks through a parametrization)."""
    return name.replace("parametrizations.", "").replace(".original", "")


def tp_case(attn, x, n_decode, mesh) -> dict:
    """Shard a copy of `attn` by heads; its outputs, gradients (sum of squares) and
    cached decoding of the last n_decode tokens."""
    m = shard_heads(copy.deepcopy(attn), mesh)
    rows = qkv_rows(attn.n_heads, attn.n_kv_heads, attn.head_dim, mesh.size())
    x = x.detach().clone().requires_grad_(True)
    out = m(x)
    out.pow(2).sum().backward()
    P, cache = x.shape[1] - n_decode, KVCache()
    qkv_local = m.qkv.weight.to_local()
    heads = range(qkv_local.shape[0] // attn.head_dim)  # this rank's q, k and v heads
    n_kv = len(heads) * attn.n_kv_heads // (attn.n_heads + 2 * attn.n_kv_heads)
    with torch.no_grad():
        steps = [m(x[:, :P].detach(), cache)]
        steps += [m(x[:, t : t + 1].detach(), cache) for t in range(P, x.shape[1])]
    grads = {
        _unsharded(n): gather(p.grad, rows if n.startswith("qkv") else None)
        for n, p in m.named_parameters()
    }
    local = dict(
        n_heads=len(heads) - 2 * n_kv,
        n_kv_heads=n_kv,
        qkv=list(qkv_local.shape),
        out_proj=list(m.out_proj.weight.to_local().shape),
        cache_heads=cache.keys.shape[1],
    )
    return dict(
        out=gather(out),
        x_grad=gather(x.grad),
        decoded=gather(torch.cat(steps, 1)),
        grads=grads,
        local=local,
    )


def fsdp_case(attn, x, target, lr, mesh) -> dict:
    """One SGD step of a `fully_shard` copy of `attn` on this rank's half of the batch;
    the gathered gradients and parameters."""
    from torch.distributed.fsdp import fully_shard

    m = fully_shard(copy.deepcopy(attn), mesh=mesh)

    def share(t):
        return t.chunk(mesh.size())[mesh.get_local_rank()]

    # gradients reduce-scattered, averaged
    F.mse_loss(m(share(x)), share(target)).backward()
    grads = {n: gather(p.grad) for n, p in m.named_parameters()}
    with torch.no_grad():
        for p in m.parameters():
            p -= lr * p.grad
    return dict(grads=grads, params={n: gather(p) for n, p in m.named_parameters()})


def worker(
    rank: int,
    world_size: int,
    init_file: str,
    out_dir: str,
    tp_cases: list,
    fsdp: tuple | None,
):
    """One process: a gloo group and a device mesh, then every tensor-parallel case and
    the FSDP2 step; saves rank{rank}.pt."""
    import warnings
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh

    # FSDP2's note on F.linear's 3-D output
    warnings.filterwarnings("ignore", message=".*returned a view tensor")
    join_local_group(rank, world_size, init_file, timeout_s=60)
    try:
        mesh = init_device_mesh("cpu", (world_size,))
        res = dict(tp=[tp_case(*case, mesh) for case in tp_cases])
        if fsdp is not None:
            try:
                res["fsdp"] = fsdp_case(*fsdp, mesh)
            except Exception as e:
                res["fsdp_error"] = f"{type(e).__name__}: {e}"
        torch.save(res, os.path.join(out_dir, f"rank{rank}.pt"))
        # leave together: a rank tearing down gloo while its peer still talks can abort
        # the process
        dist.barrier()
    finally:
        dist.destroy_process_group()


def run(tp_cases: list, fsdp: tuple | None = None, world_size: int = 2) -> list:
    "Run `worker` in `world_size` spawned processes; each rank's results."
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as d:
        args = (world_size, os.path.join(d, "store"), d, tp_cases, fsdp)
        mp.spawn(worker, args=args, nprocs=world_size, join=True)
        return [
            torch.load(os.path.join(d, f"rank{r}.pt"), weights_only=True)
            for r in range(world_size)
        ]
