"""DDP's bucket rule, in one process (no MPI needed): reverse registration order, the first
bucket capped at 1 MiB as torch's, later ones at bucket_cap_mb, one dtype per bucket."""
import labkit
from labkit import nn
from labkit.nn.parallel.distributed import DistributedDataParallel as DDP


def names(buckets, model):
    ids = {id(p): n for n, p in model.named_parameters()}
    return [[ids[id(p)] for p in b.params] for b in buckets]


def test_reverse_order_first_bucket_small_then_cap():
    model = nn.Sequential(nn.Linear(512, 512), nn.Linear(512, 512), nn.Linear(512, 256))
    # float32: weights 1 MiB, 1 MiB, 0.5 MiB; biases 2 KiB, 2 KiB, 1 KiB
    buckets = DDP._make_buckets(list(model.parameters()), cap_mb=2)
    assert names(buckets, model) == [["2.bias", "2.weight", "1.bias"],   # <= 1 MiB
                                     ["1.weight", "0.bias"],             # <= 2 MiB
                                     ["0.weight"]]
    for b in buckets:
        assert b.pending == len(b.params) and b.work is None


def test_a_parameter_larger_than_the_cap_gets_its_own_bucket():
    model = nn.Linear(1024, 1024)                       # 4 MiB weight, cap 1 MB
    assert names(DDP._make_buckets(list(model.parameters()), 1), model) == [["bias"], ["weight"]]


def test_dtypes_never_share_a_bucket():
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))
    model[0].to(labkit.float64)
    assert names(DDP._make_buckets(list(model.parameters()), 25), model) == [
        ["1.bias", "1.weight"], ["0.bias", "0.weight"]]


def test_wrapping_without_a_process_group_names_the_fix():
    import pytest
    with pytest.raises(RuntimeError, match="init_process_group"):
        DDP(nn.Linear(2, 2))
