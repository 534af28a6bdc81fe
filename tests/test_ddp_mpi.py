"""DistributedDataParallel, DistributedSampler and ZeroRedundancyOptimizer under real mpiexec
(2 and 4 ranks): one launch per world size runs every check in tests/dist_ddp_worker.py."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mpi4py")
MPIEXEC = Path(sys.executable).with_name("mpiexec")
if not MPIEXEC.exists():
    pytest.skip("mpiexec (the mpich wheel) is not installed", allow_module_level=True)
WORKER = Path(__file__).with_name("dist_ddp_worker.py")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", params=[2, 4])
def results(request):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([str(MPIEXEC), "-n", str(request.param), sys.executable, str(WORKER)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("opt", ["sgd", "adam"])
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("cap", ["25", "0.0001"])
def test_ddp_equals_one_process_on_the_concatenated_batch(results, opt, accumulate, cap):
    assert results[f"{opt} accumulate={accumulate} cap={cap}"] <= 1e-12


def test_find_unused_parameters_trains_as_one_process(results):
    assert results["find_unused_parameters"] <= 1e-12


def test_gradients_land_during_backward_not_at_its_end(results):
    assert results["early grads"].startswith("last layer's grad at node")


def test_a_parameter_also_used_before_the_wrapped_forward_averages_both_terms(results):
    assert results["term before forward"] == "averaged with both terms"


def test_zero_equals_unsharded_adam(results):
    assert results["zero"] <= 1e-12


def test_state_dict_is_torchs_module_prefixed(results):
    assert results["state_dict keys"] == ["module.fc1.bias", "module.fc1.weight"]


def test_sampler_covers_the_dataset_once_per_epoch(results):
    assert results["sampler"] == "each index once per epoch"


def test_unused_parameter_error_names_it(results):
    assert "extra.weight, extra.bias" in results["unused error"]


def test_shape_disagreement_names_parameter_and_ranks(results):
    assert "'weight'" in results["shape error"] and "rank 1: [3, 6]" in results["shape error"]


def test_gpipe_over_send_recv_gives_one_process_gradients(results):
    assert results["pipeline grads"] <= 1e-12


def test_a_backward_that_missed_parameters_is_reported_at_the_next_forward(results):
    assert "b.weight, b.bias" in results["unfinished error"]


def test_a_branch_one_rank_skips_is_averaged_with_zeros(results):
    assert results["locally unused"] <= 1e-12


def test_ddp_on_cuda_tensors():
    """A real GPU when there is one, else the numpy-backed fake cupy (the cupy code path)."""
    import labkit
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if os.environ.get("LABKIT_FAKE_CUDA") == "1" or not labkit.cuda.is_available():
        env["LABKIT_FAKE_CUDA"] = "1"
        env["PYTHONPATH"] += os.pathsep + str(ROOT / "tests" / "fake_cupy")
    proc = subprocess.run([str(MPIEXEC), "-n", "2", sys.executable,
                           str(WORKER.with_name("dist_ddp_cuda_worker.py"))],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and "cuda ok" in proc.stdout, proc.stdout + proc.stderr
