"""labkit.distributed: torch.distributed's API on MPI (mpi4py and the mpich wheel).

    import labkit.distributed as dist
    dist.init_process_group("mpi")            # rank and world size come from mpiexec
    dist.all_reduce(t, op=dist.ReduceOp.SUM)  # in place, as torch
    work = dist.all_reduce(g, async_op=True)  # MPI_Iallreduce: compute while it runs
    work.wait()

Launch with `python -m labkit.distributed.run --nproc-per-node 2 train.py` (torchrun's flags) or
`mpiexec -n 2 python train.py`; across machines `mpiexec -hosts a,b -n 8 python train.py`.
Importing this package loads no MPI: mpi4py is imported by init_process_group.
"""
from .collectives import (all_gather, all_gather_into_tensor, all_reduce, broadcast,  # noqa: F401
                          gather, reduce, reduce_scatter_tensor, scatter)
from .p2p import P2POp, batch_isend_irecv, irecv, isend, recv, send  # noqa: F401
from .process_group import (ProcessGroup, barrier, destroy_process_group,  # noqa: F401
                            get_backend, get_rank, get_world_size, init_process_group,
                            is_available, is_gloo_available, is_initialized, is_mpi_available,
                            is_nccl_available, is_torchelastic_launched)
from .reduce_op import ReduceOp  # noqa: F401
from .work import Future, Work  # noqa: F401


class group:
    """`group.WORLD`: the default process group (None before init_process_group)."""

    def __class_getitem__(cls, item):
        raise TypeError("labkit.distributed.group is a namespace: use group.WORLD.")


class _World:
    def __get__(self, obj, owner):
        from . import process_group
        return process_group._group


group.WORLD = _World()
GroupMember = group
