"""The HTML report as a reader sees it: rendered by headless Chromium, colours read from the browser.

Needs Debian's ``chromium`` at ``/usr/bin/chromium`` and the ``playwright`` package (the ``test``
extra); no browser is ever downloaded. Without either the tests skip with the reason, unless
``GUARD_REQUIRE_CHROMIUM=1`` (set by ``.ci/run``) makes that a failure. The screenshot is kept as
``report-lifts.png`` under ``$GUARD_TEST_ARTIFACTS`` (default: the test's temporary directory).
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmark.metrics import Metrics, compute
from benchmark.report import render_html
from tests.benchmark.report.builders import trials

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# 20 flaky tasks become dependable, 6 flaky tasks break, 4 always pass: the guarded arm raises pass^k and
# the "always" bin, empties "sometimes" (better), and adds to "never" and lowers pass@k (worse).
LIFTS = (
    {f"up{i:02d}": {"baseline": "11100", "guarded": "11111"} for i in range(20)}
    | {f"down{i}": {"baseline": "11100", "guarded": "00000"} for i in range(6)}
    | {f"same{i}": {"baseline": "11111", "guarded": "11111"} for i in range(4)}
)
# not the simulated agent: its notice is drawn in red, and the screenshot's red must be the lifts'
AGENT = "openai:gpt-test"
SAME = {f"t{i}": {"baseline": p, "guarded": p} for i, p in enumerate(("11100", "11111", "10000", "11110"))}

_ROW_COLOURS = """() => {
  const heading = [...document.querySelectorAll('h2')].find((h) => h.textContent === 'All tasks');
  const table = heading.nextElementSibling.querySelector('table');
  return Object.fromEntries([...table.tBodies[0].rows].map((row) => {
    const cell = row.cells[row.cells.length - 1];
    return [row.cells[0].textContent, getComputedStyle(cell.querySelector('span') || cell).color];
  }));
}"""

_MOVE_COLOURS = """() => {
  const heading = [...document.querySelectorAll('h2')].find((h) => h.textContent === 'Bin moves');
  const row = [...heading.nextElementSibling.querySelectorAll('tr')]
    .find((r) => r.cells[0].textContent === 'baseline sometimes');
  return [...row.cells].slice(1).map((cell) => getComputedStyle(cell.querySelector('span') || cell).color);
}"""

# Decodes a PNG in the page: its size, its distinct colours, and how many pixels are near green or red.
_PNG_PIXELS = """async ([data, green, red]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const image = await createImageBitmap(new Blob([bytes], {type: 'image/png'}));
  const canvas = new OffscreenCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height).data;
  const near = (i, c) => Math.abs(pixels[i] - c[0]) + Math.abs(pixels[i + 1] - c[1])
    + Math.abs(pixels[i + 2] - c[2]) < 60;
  const colours = new Set();
  let greens = 0, reds = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
    if (near(i, green)) greens += 1;
    if (near(i, red)) reds += 1;
  }
  return {width: image.width, height: image.height, colours: colours.size, greens, reds};
}"""


def _rgb(css: str) -> tuple[int, int, int]:
    found = re.fullmatch(r"rgba?\((\d+), (\d+), (\d+)(?:, [\d.]+)?\)", css)
    assert found is not None, css
    red, green, blue = (int(v) for v in found.groups())
    return red, green, blue


def _tone(css: str) -> str:
    """``green``, ``red`` or ``plain``: the hue a reader sees, from a computed CSS colour."""
    red, green, blue = _rgb(css)
    if green > red + 60 and green > blue:
        return "green"
    if red > green + 60 and red > blue:
        return "red"
    return "plain"


def _open(browser: Browser, metrics: Metrics, folder: Path, name: str) -> Page:
    page_file = folder / f"{name}.html"
    page_file.write_text(render_html(metrics), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1024, "height": 900})
    page.goto(page_file.as_uri())
    return page


def test_gains_read_green_and_losses_red_in_the_browser(chromium: Browser, artifacts: Path) -> None:
    """Fewer "sometimes", more "always" and higher pass^k read green; more "never", lower pass@k red."""
    page = _open(chromium, compute(trials(LIFTS, agent=AGENT), bootstrap=300), artifacts, "report-lifts")
    try:
        rows = {label: _tone(colour) for label, colour in page.evaluate(_ROW_COLOURS).items()}
        assert rows["bin: sometimes"] == "green"
        assert rows["bin: always"] == "green"
        assert rows["pass^5 unbiased C(c,k)/C(n,k)"] == "green"
        assert rows["observed 5/5"] == "green"
        assert rows["bin: never"] == "red"
        assert rows["pass@5"] == "red"
        # from "sometimes": 6 tasks to never (worse), none stayed, 20 to always (better)
        assert [_tone(c) for c in page.evaluate(_MOVE_COLOURS)] == ["red", "plain", "green"]
        card = page.locator(".card .big").last
        assert card.inner_text().startswith("+66.7")
        assert _tone(card.evaluate("(e) => getComputedStyle(e).color")) == "green"

        shot = artifacts / "report-lifts.png"
        page.screenshot(path=str(shot), full_page=True)
        data = shot.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        green, red = (
            _rgb(page.evaluate("getComputedStyle(document.querySelector('.good')).color")),
            _rgb(page.evaluate("getComputedStyle(document.querySelector('.bad')).color")),
        )
        seen: dict[str, Any] = page.evaluate(_PNG_PIXELS, [base64.b64encode(data).decode(), green, red])
    finally:
        page.close()
    assert seen["width"] == 1024
    assert seen["height"] > 2000  # the whole page, not one screen
    assert seen["colours"] > 200  # text, charts and tables, not a blank or one-colour page
    assert seen["greens"] > 100
    assert seen["reds"] > 20


def test_identical_arms_both_show_in_the_curve_chart(chromium: Browser, artifacts: Path) -> None:
    """Equal arms are drawn apart, each with its own marker shape, and the chart says they are identical."""
    page = _open(chromium, compute(trials(SAME), bootstrap=100), artifacts, "report-identical-arms")
    try:
        chart = page.locator('svg[aria-label="pass^k against k for each arm, both estimators"]')
        assert "arms identical" in chart.evaluate("(svg) => svg.textContent")
        boxes = chart.evaluate(
            """(svg) => [...svg.querySelectorAll('polyline:not([stroke-dasharray])')]
                 .map((line) => { const b = line.getBBox(); return [line.getAttribute('stroke'), b.y]; })"""
        )
        (base_colour, base_y), (guard_colour, guard_y) = boxes
        assert base_colour != guard_colour
        assert abs(base_y - guard_y) >= 4  # a line's width apart: neither hides the other
        shapes = chart.evaluate(
            """(svg) => [...svg.querySelectorAll('title')]
                 .filter((t) => /^(baseline|guarded), pass\\^1 unbiased/.test(t.textContent))
                 .map((t) => t.textContent.split(',')[0] + ':' + t.parentElement.tagName)"""
        )
        assert sorted(set(shapes)) == ["baseline:circle", "guarded:rect"]
        page.screenshot(path=str(artifacts / "report-identical-arms.png"), full_page=True)
    finally:
        page.close()
