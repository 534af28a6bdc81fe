"""`make lab` as a new user meets it: as root, without a display, on a free port."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

if os.environ.get("LABKIT_FAKE_CUDA"):       # make test-fake-cuda: nothing here uses a device
    pytest.skip("runs once, in make test (no device code here)", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
JUPYTER = Path(sys.executable).parent / "jupyter"


def _free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def test_make_lab_runs_the_script():
    recipe = subprocess.run(["make", "-n", "-W", "pyproject.toml", "-o", ".venv/.installed",
                             "lab", "PORT=1234"], cwd=ROOT, capture_output=True, text=True)
    assert "tools/lab.sh" in recipe.stdout and "PORT=1234" in recipe.stdout, recipe.stdout


@pytest.mark.skipif(not JUPYTER.exists(), reason="jupyter is not installed beside this Python")
def test_lab_serves_the_start_page_as_root_without_a_display(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(JUPYTER=str(JUPYTER), PORT=str(port), JUPYTER_RUNTIME_DIR=str(tmp_path),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"), HOME=str(tmp_path))
    proc = subprocess.Popen(["bash", str(ROOT / "tools" / "lab.sh")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    lines = []
    try:
        # the address is printed before the server starts, with its token
        while not any("token=" in line for line in lines):
            line = proc.stdout.readline()
            assert line, "lab.sh ended early:\n" + "".join(lines)
            lines.append(line)
        url = next(re.search(r"http://\S+", l).group(0) for l in lines if "token=" in l)
        assert url.startswith(f"http://localhost:{port}/lab/tree/00_start_here.ipynb?token=")
        token = url.split("token=")[1]
        while not any("Ctrl+C" in line for line in lines):
            lines.append(proc.stdout.readline())
        api = f"http://localhost:{port}/api/contents/00_start_here.ipynb?token={token}"
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(api, timeout=5) as r:
                    page = json.load(r)
                break
            except OSError:
                assert proc.poll() is None, "the server stopped:\n" + "".join(lines) + \
                    proc.stdout.read()
                assert time.monotonic() < deadline, "the server did not answer in 90 s"
                time.sleep(0.5)
        assert page["type"] == "notebook"
        assert page["content"]["cells"][0]["source"].startswith("# Lecture 00 · Start here")
        req = urllib.request.Request(f"http://localhost:{port}/api/shutdown?token={token}",
                                     method="POST")
        urllib.request.urlopen(req, timeout=10).close()
        rest = proc.communicate(timeout=30)[0]
        log = "".join(lines) + rest
        assert proc.returncode == 0, log
        if os.getuid() == 0:       # refused without --allow-root: it ran, so the flag was there
            assert "Running as root is not recommended" not in log
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
