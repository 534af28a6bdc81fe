"""ReduceOp: how a reduction combines the ranks' values, mapped onto MPI's operations."""
import enum


class ReduceOp(enum.Enum):
    """torch.distributed.ReduceOp: SUM, AVG, PRODUCT, MIN, MAX and the bitwise BAND, BOR, BXOR."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __repr__(self):
        return f"<ReduceOp.{self.name}: {self.value}>"


# torch spells the enum type ReduceOp.RedOpType; ReduceOp.SUM == ReduceOp.RedOpType.SUM there too
ReduceOp.RedOpType = ReduceOp

# bool tensors reduce logically, as torch does (SUM of bools is OR, PRODUCT is AND)
_BOOL = {"SUM": "LOR", "MAX": "LOR", "BOR": "LOR", "PRODUCT": "LAND", "MIN": "LAND",
         "BAND": "LAND", "BXOR": "LXOR"}


_ops = {}     # (ReduceOp, numpy dtype) -> MPI.Op, once checked


def mpi_op(MPI, op, np_dtype, opname):
    """The MPI.Op for `op` on `np_dtype` (AVG is a SUM the caller divides), or a clear error."""
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{opname}: op must be a labkit.distributed.ReduceOp (e.g. ReduceOp.SUM), "
                        f"got {op!r}.")
    found = _ops.get((op, np_dtype))
    if found is None:
        found = _ops[op, np_dtype] = _mpi_op(MPI, op, np_dtype, opname)
    return found


def _mpi_op(MPI, op, np_dtype, opname):
    kind = np_dtype.kind
    if kind == "b":
        if op is ReduceOp.AVG:
            raise RuntimeError(f"{opname}: ReduceOp.AVG is not defined for bool tensors; "
                            "convert to float first (t.float()).")
        return getattr(MPI, _BOOL[op.name])
    if op.name.startswith("B") and kind not in "iu":
        raise RuntimeError(f"{opname}: ReduceOp.{op.name} is bitwise and needs an integer or bool "
                        f"tensor, got {np_dtype}.")
    if op is ReduceOp.AVG and kind != "f" and not np_dtype.name.startswith("bfloat"):
        raise RuntimeError(f"{opname}: ReduceOp.AVG needs a floating-point tensor, got {np_dtype} "
                        "(an integer mean would round). Use ReduceOp.SUM and divide by "
                        "get_world_size(), or convert to float first.")
    name = {"AVG": "SUM", "PRODUCT": "PROD"}.get(op.name, op.name)
    return getattr(MPI, name)
