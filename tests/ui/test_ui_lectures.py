"""Every lecture, the way a student meets it: opened in JupyterLab in a real browser, run with
Run > Run All Cells, then checked for errors, drawn graphs and sliders that do something.

Artifacts (for a person to look at) go to render/ui/: a screenshot per lecture, taken at its
first slider after it moved, and a JSON file with what was found.
"""
import json
import os
import time
from pathlib import Path

import pytest

from ui_page import NotebookPage

REPO = Path(__file__).resolve().parents[2]

LECTURES = sorted(name[:-len(".ipynb")]
                  for name in os.listdir(os.path.join(REPO, "course", "lectures"))
                  if name.endswith(".ipynb"))
ARTIFACTS = os.path.join(REPO, "render", "ui")


@pytest.mark.parametrize("lecture", LECTURES)
def test_lecture_in_jupyterlab(lecture, lab, page):
    nb = NotebookPage(page, f"{lab.url}/lab/tree/course/lectures/{lecture}.ipynb")
    nb.open()
    nb.hide_file_browser()
    facts = {"lecture": lecture}
    start = time.monotonic()
    try:
        nb.run_all()
        facts["run_all_s"] = round(time.monotonic() - start, 1)
        facts["errors"] = nb.errors()
        assert not facts["errors"], "error outputs after Run All:\n\n" + "\n\n".join(
            e[-1500:] for e in facts["errors"])
        assert nb.unrun_cells() == 0, f"Run All stopped early: {nb.unrun_cells()} cells unrun"
        assert not nb.broken_widgets(), f"widgets did not render: {nb.broken_widgets()}"

        images = nb.images()
        facts["images"] = {kind: sum(i["kind"] == kind for i in images) for kind in ("svg", "png")}
        broken = [i for i in images if i["width"] == 0]
        assert images, "no graph image (SVG or PNG output) rendered"
        assert not broken, f"{len(broken)} images failed to decode"

        handles = nb.slider_handles()
        assert handles, "no slider rendered"
        facts["sliders"] = []
        for handle in handles:
            before, after = nb.move_slider(handle)
            facts["sliders"].append({"label": nb.slider_label(handle), "from": before,
                                     "to": after, "output_changed": True})
    finally:
        facts["total_s"] = round(time.monotonic() - start, 1)
        save_artifacts(nb, lecture, facts)


def save_artifacts(nb, lecture, facts):
    """The screenshot shows the first slider's cell (else the first image, else the top)."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    for selector in (".widget-slider", ".jp-RenderedSVG img, .jp-RenderedImage img"):
        found = nb.page.locator(f".jp-Notebook {selector}")
        if found.count():
            nb.scroll_to(found.first)
            break
    nb.page.screenshot(path=os.path.join(ARTIFACTS, f"{lecture}.png"))
    with open(os.path.join(ARTIFACTS, f"{lecture}.json"), "w") as f:
        json.dump(facts, f, indent=1)
