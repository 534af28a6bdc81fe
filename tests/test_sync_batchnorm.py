"""nn.SyncBatchNorm: alone (no distributed run) it is BatchNorm, compared with torch's; under
mpiexec with 2 and 3 ranks, each rank's slice normalised with the whole batch's statistics
equals torch's BatchNorm on the whole batch (tests/dist_syncbn_worker.py); convert_sync_batchnorm
keeps the same parameter objects."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snippets import check

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[1]
MPIEXEC = Path(sys.executable).with_name("mpiexec")


@pytest.mark.parametrize("shape", ["4, 3", "4, 3, 5", "2, 3, 4, 4", "2, 3, 2, 2, 2"])
@pytest.mark.parametrize("train", [True, False])
def test_alone_it_is_batchnorm(shape, train):
    check(f"L.manual_seed(0); m = L.nn.SyncBatchNorm(3).double(); m.train({train}); "
          f"x = L.randn({shape}, dtype=L.float64).requires_grad_(); leaves = [x, m.weight]; "
          "y = m(x); y2 = m(x * 2); out = (y, y2, m.running_mean, m.running_var, "
          "m.num_batches_tracked)")


def test_convert_sync_batchnorm_keeps_the_parameters():
    check("L.manual_seed(0); net = L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.BatchNorm2d(4), "
          "L.nn.Sequential(L.nn.BatchNorm1d(5, affine=False)), L.nn.ReLU()); net[1].eval(); "
          "w = net[1].weight; rm = net[1].running_mean; "
          "s = L.nn.SyncBatchNorm.convert_sync_batchnorm(net); "
          "out = (s is net, type(s[1]).__name__, type(s[2][0]).__name__, s[1].weight is w, "
          "s[1].running_mean is rm, s[1].training, s[2][0].affine, "
          "type(L.nn.SyncBatchNorm.convert_sync_batchnorm(L.nn.BatchNorm1d(2))).__name__, "
          "repr(s[1]), list(s.state_dict()))")


@pytest.mark.parametrize("code", ["L.nn.SyncBatchNorm(3)(L.randn(3))",
                                  "L.nn.SyncBatchNorm(0)(L.randn(2, 0))"])
def test_errors(code):
    check(f"out = {code}")


@pytest.mark.skipif(not MPIEXEC.exists(), reason="mpiexec (the mpich wheel) is not installed")
@pytest.mark.parametrize("ranks", [2, 3])
def test_synced_across_ranks_equals_batchnorm_on_the_whole_batch(ranks):
    pytest.importorskip("mpi4py")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([str(MPIEXEC), "-n", str(ranks), sys.executable,
                           str(ROOT / "tests" / "dist_syncbn_worker.py")],
                          capture_output=True, text=True, timeout=180, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    for key, value in result.items():
        if key.startswith("syncbn"):
            assert value < 1e-12, (key, value)
        else:
            assert value is True, key
