"""labkit.multiprocessing against torch.multiprocessing, each in real processes started with
spawn (tests/mp_hogwild_worker.py): shared weights updated by children are seen by the parent
(Hogwild), mp.spawn re-raises a child's error, a Queue sends tensors by value unless they are
in shared memory."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("mp_hogwild_worker.py")


def _run(lib):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent)])}
    proc = subprocess.run([sys.executable, str(WORKER), lib], capture_output=True, text=True,
                          timeout=300, env=env, cwd=str(WORKER.parent))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="shared memory files need Linux")
def test_multiprocessing_matches_torch():
    pytest.importorskip("torch")
    mine, theirs = _run("labkit"), _run("torch")
    assert mine.keys() == theirs.keys()
    for key in mine:
        if key.startswith("after"):       # float32 sums of the updates
            for m, t in zip(mine[key], theirs[key]):
                np.testing.assert_allclose(m, t, rtol=1e-6, err_msg=key)
        else:
            assert mine[key] == theirs[key], key
    np.testing.assert_allclose(mine["after_spawn"][1], [6.0, 6.0], rtol=1e-6)  # 1+2, twice
