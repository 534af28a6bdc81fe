"""A throwaway JupyterLab server for the browser tests, and a clean stop for it.

Everything it reads or writes (config, settings, workspaces, runtime files, the kernel spec)
lives in a temporary folder, so a developer's own Jupyter setup neither leaks in nor changes.
The kernel is this Python (the repository's .venv when run through `make test`).
"""
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

# No token nor XSRF check (it listens on 127.0.0.1 only; root allowed, as in CI), no browser,
# nothing fetched from the internet: no news, update check or extension index (so no popup).
SERVER_CONFIG = {
    "ServerApp": {"open_browser": False, "ip": "127.0.0.1", "allow_root": True,
                  "disable_check_xsrf": True,
                  "terminals_enabled": False},
    "IdentityProvider": {"token": ""},
    "LabApp": {"news_url": None, "extension_manager": "readonly",
               "check_for_updates_class": "jupyterlab.handlers.announcements.NeverCheckForUpdate"},
}
# JupyterLab settings: every cell attached to the page (the default windowing leaves cells
# outside the viewport out of the DOM), no notification toasts.
USER_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false",
                                                    "checkForUpdates": False,
                                                    "doNotDisturbMode": True},
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))


def prepare(home):
    """Write the test-only config, settings and kernel spec under `home`; return the env."""
    env = dict(os.environ,
               JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), IPYTHONDIR=str(home / "ipython"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"), JUPYTER_PLATFORM_DIRS="1")
    _write_json(home / "config" / "jupyter_server_config.json", SERVER_CONFIG)
    for plugin, settings in USER_SETTINGS.items():
        _write_json(home / "settings" / f"{plugin}.jupyterlab-settings", settings)
    _write_json(home / "data" / "kernels" / "python3" / "kernel.json", {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)", "language": "python"})
    return env


class Lab:
    """JupyterLab serving `root` on 127.0.0.1; `url` is its base address."""

    def __init__(self, root, home, startup_timeout=90):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = home / "jupyterlab.log"
        env = prepare(home)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "jupyterlab", f"--port={self.port}",
                 "--ServerApp.port_retries=0", f"--ServerApp.root_dir={root}"],
                cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=_die_with_parent)
        self._wait_ready(startup_timeout)

    def log_tail(self, n=40):
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])

    def api(self, path, method="GET"):
        req = urllib.request.Request(self.url + path, method=method)
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
        return json.loads(body) if body else None

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with code {self.proc.returncode}:\n"
                                   + self.log_tail())
            try:
                self.api("/api/status")
                return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"JupyterLab did not answer within {timeout} s:\n" + self.log_tail())

    def shutdown_kernels(self):
        """Stop every kernel (with the processes they started, such as DataLoader workers)."""
        for kernel in self.api("/api/kernels"):
            self.api(f"/api/kernels/{kernel['id']}", method="DELETE")

    def stop(self):
        """Stop the server and every process below it; nothing is left running."""
        family = descendants(self.proc.pid)
        try:
            self.shutdown_kernels()
            self.api("/api/shutdown", method="POST")
            self.proc.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for proc in family:  # stragglers, and anything they started meanwhile
            for p in [proc] + descendants(proc[0]):
                if start_time(p[0]) == p[1]:   # the same process, not a reused pid
                    kill(p[0])


def _die_with_parent():
    """Linux: the server gets SIGTERM if the test process dies without cleaning up."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)   # 1 = PR_SET_PDEATHSIG
    except (AttributeError, OSError):
        pass


def _stat(pid):
    """The fields of /proc/<pid>/stat after the command name, or None (gone, or not Linux)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def start_time(pid):
    stat = _stat(pid)
    return stat and stat[19]


def descendants(pid):
    """(pid, start time) of every process below `pid`, found through parent links in /proc."""
    children = {}
    for entry in Path("/proc").glob("[0-9]*"):
        stat = _stat(entry.name)
        if stat:
            children.setdefault(int(stat[1]), []).append((int(entry.name), stat[19]))
    out, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child[0])
    return out


def kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
