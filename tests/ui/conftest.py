"""Fixtures for the browser tests: Debian's Chromium driven by playwright, and a JupyterLab
serving a copy of the course (so nothing a test does can save into the working tree).

Without playwright or Chromium the tests skip, saying which is missing; with
LABKIT_UI_REQUIRED=1 (set by .ci/run) they fail instead, so CI cannot pass without them.
"""
import os
import shutil
from pathlib import Path

import pytest

from ui_lab import Lab

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 900}


def chromium_path():
    """LABKIT_CHROMIUM, else Debian's /usr/bin/chromium, else one on PATH; None if none."""
    for path in (os.environ.get("LABKIT_CHROMIUM"), "/usr/bin/chromium",
                 shutil.which("chromium"), shutil.which("chromium-browser")):
        if path and os.access(path, os.X_OK):
            return path
    return None


def missing(reason):
    if os.environ.get("LABKIT_UI_REQUIRED") == "1":
        pytest.fail(f"{reason}; LABKIT_UI_REQUIRED=1 says the browser tests must run",
                    pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("browser tests need playwright: pip install -e '.[ui]'")
    exe = chromium_path()
    if exe is None:
        missing("browser tests need Chromium: apt-get install chromium "
                "(or set LABKIT_CHROMIUM to its path)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def lab(browser, tmp_path_factory):
    home = tmp_path_factory.mktemp("jupyterlab")
    root = home / "root"
    shutil.copytree(Path(__file__).resolve().parents[2] / "course", root / "course",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    server = Lab(root, home)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def page(browser, lab):
    """A fresh browser tab (no stored state); its kernels are stopped afterwards."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    try:
        yield context.new_page()
    finally:
        context.close()
        lab.shutdown_kernels()
