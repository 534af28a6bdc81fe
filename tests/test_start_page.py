"""The start page's map of the lectures: every lecture is on it, and every link opens."""
import json
import re
from pathlib import Path

LECTURES = Path(__file__).resolve().parents[1] / "course" / "lectures"
START = LECTURES / "00_start_here.ipynb"


def links():
    """Relative .ipynb links in the start page's Markdown cells."""
    cells = json.loads(START.read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.findall(r"\]\(([^)\s]+\.ipynb)\)", text)


def test_every_link_opens_a_lecture():
    broken = [link for link in links() if not (LECTURES / link).is_file()]
    assert not broken, f"00_start_here.ipynb links to missing notebooks: {broken}"


def test_every_lecture_is_on_the_map():
    missing = sorted({p.name for p in LECTURES.glob("*.ipynb")} - set(links()) - {START.name})
    assert not missing, (f"add a row for {missing} to the map of lectures (section 4) of "
                         "00_start_here.ipynb")
