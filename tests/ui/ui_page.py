"""One notebook open in JupyterLab in the browser, driven the way a student drives it.

Read-only checks go through the page's DOM: JupyterLab 4 classes (`.jp-...`) and ipywidgets 8
sliders (`.widget-slider`, whose handle is a noUiSlider `role=slider` element).
"""
import re
import time

KERNEL_READY_S = 120   # a fresh kernel (imports included) on a slow 2-core machine
RUN_ALL_S = 600        # one lecture, run top to bottom, with the browser rendering it
SLIDER_S = 120         # one slider step: the kernel recomputes and redraws

# Stderr outputs that are errors, not warnings: a traceback, or a line such as
# "SyntaxError: invalid syntax" (ipykernel shows syntax errors without "Traceback").
ERROR_TEXT = re.compile(r"Traceback|^\w*(Error|Exception|Interrupt)\b", re.M)

# What the outputs show, as one hash: images (PNG and SVG), text and HTML, inline SVG; the
# sliders' own readouts are left out, so only what a slider *drives* changes it.
FINGERPRINT_JS = """() => {
  const parts = [];
  for (const area of document.querySelectorAll('.jp-Notebook .jp-OutputArea')) {
    for (const el of area.querySelectorAll(
        'img, svg, .jp-RenderedText, .jp-RenderedHTMLCommon, .jp-RenderedLatex')) {
      if (el.closest('.widget-slider, .widget-play')) continue;
      parts.push(el.tagName === 'IMG' ? el.src
                 : el.tagName.toLowerCase() === 'svg' ? el.outerHTML : el.innerText);
    }
  }
  let h = 2166136261;                      // FNV-1a over the joined parts
  const s = parts.join('\\u0000');
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return `${parts.length}:${s.length}:${h >>> 0}`;
}"""

# Sets window.labkitSawBusy once the kernel has been seen busy (however briefly).
WATCH_BUSY_JS = """() => {
  window.labkitSawBusy = false;
  new MutationObserver((_, observer) => {
    if (document.querySelector('.jp-Notebook-ExecutionIndicator[data-status="busy"]')) {
      window.labkitSawBusy = true;
      observer.disconnect();
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['data-status']});
}"""

IMAGES_JS = """() => [...document.querySelectorAll(
    '.jp-Notebook .jp-RenderedSVG img, .jp-Notebook .jp-RenderedImage img')].map(
    img => ({kind: img.closest('.jp-RenderedSVG') ? 'svg' : 'png', complete: img.complete,
             width: img.naturalWidth}))"""


def wait_for(condition, timeout, what, interval=0.25):
    """Poll until condition() is truthy; return its value, or raise naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout} s")
        time.sleep(interval)


class NotebookPage:
    def __init__(self, page, url):
        self.page = page
        self.url = url

    def open(self):
        """Load JupyterLab with only this notebook open, and wait for its kernel."""
        self.page.goto(self.url + "?reset")   # ?reset: a fresh workspace, no other tabs
        self.page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=KERNEL_READY_S * 1000)
        wait_for(lambda: "| Idle" in self.status_bar() and self.kernel_status() == "idle",
                 KERNEL_READY_S, "the kernel to start and report idle")

    def status_bar(self):
        return self.page.inner_text(".jp-StatusBar-Widget")

    def kernel_status(self):
        return self.page.get_attribute(".jp-Notebook-ExecutionIndicator", "data-status")

    def prompts(self):
        return self.page.eval_on_selector_all(
            ".jp-Notebook .jp-CodeCell .jp-InputPrompt", "els => els.map(e => e.innerText.trim())")

    def hide_file_browser(self):
        """More room for the notebook in screenshots (View > Appearance > left sidebar)."""
        self.page.keyboard.press("ControlOrMeta+b")

    def run_all(self):
        """Run > Run All Cells, as a student would; return once every cell has finished."""
        self.page.evaluate(WATCH_BUSY_JS)
        self.page.get_by_role("menuitem", name="Run", exact=True).click()
        self.page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        wait_for(lambda: self.page.evaluate("window.labkitSawBusy"), 30,
                 "the kernel to start running the cells")
        wait_for(self.idle, RUN_ALL_S, "every cell to finish after Run All Cells")

    def idle(self):
        return self.kernel_status() == "idle" and "[*]:" not in self.prompts()

    def unrun_cells(self):
        """Code cells that Run All left unrun (it stops at the first error)."""
        return sum(p == "[ ]:" for p in self.prompts())

    def errors(self):
        texts = self.page.eval_on_selector_all(
            '.jp-Notebook .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]',
            "els => els.map(e => e.innerText)")
        return [t for t in texts if ERROR_TEXT.search(t)]

    def broken_widgets(self):
        """Widget outputs that show an error, or never left 'Loading widget...'."""
        texts = self.page.eval_on_selector_all(
            ".jp-Notebook .jp-OutputArea-output", "els => els.map(e => e.innerText)")
        return [t[:200] for t in texts
                if "Error displaying widget" in t or "Loading widget..." in t]

    def images(self):
        """The graph images (SVG and PNG), once every one has finished decoding."""
        def all_decoded():
            imgs = self.page.evaluate(IMAGES_JS)
            return all(i["complete"] for i in imgs) and (imgs,)
        return wait_for(all_decoded, 30, "the output images to load")[0]

    def slider_handles(self):
        return self.page.locator(".jp-Notebook .widget-slider .noUi-handle").all()

    def fingerprint(self):
        return self.page.evaluate(FINGERPRINT_JS)

    def move_slider(self, handle):
        """One keyboard step on the handle (up its range, or down from the top end).
        Returns (before, after) slider values; raises if no output changed."""
        before = float(handle.get_attribute("aria-valuenow"))
        at_end = before >= float(handle.get_attribute("aria-valuemax"))
        vertical = handle.get_attribute("aria-orientation") == "vertical"
        up, down = ("ArrowUp", "ArrowDown") if vertical else ("ArrowRight", "ArrowLeft")
        shown = self.fingerprint()
        handle.scroll_into_view_if_needed()
        handle.focus()
        handle.press(down if at_end else up)
        wait_for(lambda: float(handle.get_attribute("aria-valuenow")) != before, 10,
                 "the slider handle to move on a key press")
        wait_for(lambda: self.fingerprint() != shown and self.idle(), SLIDER_S,
                 "an output to change after moving the slider")
        return before, float(handle.get_attribute("aria-valuenow"))

    def scroll_to(self, element):
        """Bring the outputs of the cell holding `element` to the top of the notebook panel."""
        element.evaluate("e => e.closest('.jp-OutputArea').scrollIntoView({block: 'start'})")
        time.sleep(0.5)   # let images in view finish laying out

    def slider_label(self, handle):
        return handle.evaluate(
            "h => h.closest('.widget-slider').querySelector('.widget-label').innerText")
