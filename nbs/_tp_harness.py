"""Two-process test harness of the Tensor parallelism page (nbs/17_parallel.ipynb): not part of the library.

`torch.multiprocessing.spawn` starts fresh interpreters that import the worker by its module path, so the worker
lives in this file next to the notebook (the notebook puts its folder on `sys.path`; spawned processes inherit it).
"""
from __future__ import annotations
import copy, os, tempfile
from datetime import timedelta
import torch
import torch.nn.functional as F
from causal_mha.core import KVCache
from causal_mha.parallel import qkv_rows, shard_heads


def gather(t, rows=None) -> torch.Tensor:
    "A plain tensor from a (D)Tensor, all of it; with `rows`, put back in q | k | v order."
    t = (t.full_tensor() if hasattr(t, 'full_tensor') else t).detach().clone()  # clone: a plain tensor, collective done
    if rows is None: return t
    out = torch.empty_like(t); out[rows] = t
    return out


def tp_case(attn, x, n_decode, mesh) -> dict:
    "Shard a copy of `attn` by heads; its outputs, gradients (sum of squares) and cached decoding of the last n_decode tokens."
    m = shard_heads(copy.deepcopy(attn), mesh)
    rows = qkv_rows(attn.n_heads, attn.n_kv_heads, attn.head_dim, mesh.size())
    x = x.detach().clone().requires_grad_(True)
    out = m(x)
    out.pow(2).sum().backward()
    P, cache = x.shape[1] - n_decode, KVCache()
    with torch.no_grad():
        steps = [m(x[:, :P].detach(), cache)] + [m(x[:, t:t + 1].detach(), cache) for t in range(P, x.shape[1])]
    return dict(out=gather(out), x_grad=gather(x.grad), decoded=gather(torch.cat(steps, 1)),
                grads={n: gather(p.grad, rows if n.startswith('qkv') else None) for n, p in m.named_parameters()},
                local=dict(n_heads=m.n_heads, n_kv_heads=m.n_kv_heads, qkv=list(m.qkv.weight.to_local().shape),
                           out_proj=list(m.out_proj.weight.to_local().shape), cache_heads=cache.n_heads))


def fsdp_case(attn, x, target, lr, mesh) -> dict:
    "One SGD step of a `fully_shard` copy of `attn` on this rank's half of the batch; the gathered gradients and parameters."
    from torch.distributed.fsdp import fully_shard
    m = fully_shard(copy.deepcopy(attn), mesh=mesh)
    share = lambda t: t.chunk(mesh.size())[mesh.get_local_rank()]
    F.mse_loss(m(share(x)), share(target)).backward()                  # gradients reduce-scattered, averaged
    grads = {n: gather(p.grad) for n, p in m.named_parameters()}
    with torch.no_grad():
        for p in m.parameters(): p -= lr * p.grad
    return dict(grads=grads, params={n: gather(p) for n, p in m.named_parameters()})


def worker(rank:int, world_size:int, init_file:str, out_dir:str, tp_cases:list, fsdp:tuple|None):
    "One process: a gloo group and a device mesh, then every tensor-parallel case and the FSDP2 step; saves rank{rank}.pt."
    import warnings
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from causal_mha._hardening import _loopback  # the DDP check's gloo setting (loopback interface)
    _loopback(); torch.set_num_threads(1)
    warnings.filterwarnings('ignore', message='.*returned a view tensor')   # FSDP2's note on F.linear's 3-D output
    dist.init_process_group('gloo', init_method=f'file://{init_file}', rank=rank, world_size=world_size,
                            timeout=timedelta(seconds=60))
    try:
        mesh = init_device_mesh('cpu', (world_size,))
        res = dict(tp=[tp_case(*case, mesh) for case in tp_cases])
        if fsdp is not None:
            try: res['fsdp'] = fsdp_case(*fsdp, mesh)
            except Exception as e: res['fsdp_error'] = f"{type(e).__name__}: {e}"
        torch.save(res, os.path.join(out_dir, f'rank{rank}.pt'))
        dist.barrier()  # leave together: a rank tearing down gloo while its peer still talks can abort the process
    finally: dist.destroy_process_group()


def run(tp_cases:list, fsdp:tuple|None=None, world_size:int=2) -> list:
    "Run `worker` in `world_size` spawned processes; each rank's results."
    import torch.multiprocessing as mp
    with tempfile.TemporaryDirectory() as d:
        mp.spawn(worker, args=(world_size, os.path.join(d, 'store'), d, tp_cases, fsdp), nprocs=world_size, join=True)
        return [torch.load(os.path.join(d, f'rank{r}.pt'), weights_only=True) for r in range(world_size)]
