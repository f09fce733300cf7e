"""What the browser tests share (a plain module; the fixtures are in ``conftest.py``): why they
can't run here, the accessibility check, screenshots, and a dealer whose taps are counted.

Playwright drives Debian's Chromium (``/usr/bin/chromium``: ``apt-get install chromium``;
``.ci/run`` installs it) against pytest-django's live server; the ``playwright`` package comes
from requirements.lock and no ``playwright install`` download is used. Without Chromium (or the
package) every browser test is skipped with the reason (``pytest -rs``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from ledger import selectors as ledger_selectors
from tables.models import Player, Table

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def missing_browser(chromium: str = CHROMIUM) -> str | None:
    """Why the browser tests can't run here (Chromium or the playwright package missing), or None."""
    missing = []
    if shutil.which(chromium) is None:
        missing.append(f"Chromium not found at {chromium}: apt-get install chromium (or set CHROMIUM)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        missing.append(f"the playwright package can't be imported ({exc}): make install (requirements.lock)")
    return "; ".join(missing) or None


MISSING = missing_browser()

#: Every browser test module's marks: ``browser``, and skipped (saying why) without Chromium.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(MISSING is not None, reason=MISSING or ""),
]

# Every visible form control has a label; text has at least 4.5:1 contrast on its background.
A11Y_CHECK = """
() => {
  const problems = [];
  for (const el of document.querySelectorAll('input, select, textarea')) {
    if (el.type === 'hidden' || el.offsetParent === null) continue;
    const named = (el.labels && el.labels.length) || el.getAttribute('aria-label')
      || el.getAttribute('aria-labelledby');
    if (!named) problems.push('no label: ' + (el.name || el.id));
  }
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = c => {
    const [r, g, b] = c.slice(0, 3).map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = el => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c;
    }
    return [255, 255, 255];
  };
  for (const el of document.querySelectorAll('body *')) {
    const text = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!text || el.offsetParent === null) continue;
    const fg = lum(rgb(getComputedStyle(el).color)), bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) {
      const what = el.tagName + ' ' + el.textContent.trim().slice(0, 40);
      problems.push('contrast ' + ratio.toFixed(2) + ': ' + what);
    }
  }
  return problems;
}
"""


def accessible(page: Any) -> None:
    problems = page.evaluate(A11Y_CHECK)
    assert problems == [], f"{page.url}: {problems}"


def snapshot(page: Any, name: str, *, full_page: bool = True) -> None:
    """With ``SCREENSHOTS_DIR`` set, save the page there as ``<name>.png`` (docs/screenshots/)."""
    target = os.environ.get("SCREENSHOTS_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        # caret="initial": hiding the caret injects an inline style, which the pages' CSP refuses
        # (the refusal would fail the test that took the picture).
        page.screenshot(path=str(Path(target) / f"{name}.png"), full_page=full_page, caret="initial")


def chips(table: Table, *players: Player) -> list[int]:
    return [ledger_selectors.player_chips(table=table, player=p) for p in players]


def csrf_token(page: Any) -> str:
    return str(page.eval_on_selector("input[name=csrfmiddlewaretoken]", "el => el.value"))


#: The page has finished: htmx has no request in flight and nothing left to swap in, and the
#: terminal's script has no draft or kept write waiting to be sent or in flight.
IDLE = (
    "() => window.htmx !== undefined"
    " && !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
    " && (window.terminalIdle === undefined || window.terminalIdle())"
)


#: The hand's status on the screen reads "settled" (the confirm's answer is drawn).
SETTLED = (
    "() => { const s = document.querySelector('#hand-status');"
    " return !!s && s.textContent.trim() === 'settled'; }"
)


def confirm(page: Any) -> None:
    """Tap "Confirm and pay" and wait until the screen says the hand is settled (up to 10 s), then
    until it is idle. The confirm can wait behind a draft still being sent (one request at a
    time), so the answer is awaited, not looked for at the first idle moment."""
    page.click("#confirm")
    page.wait_for_function(SETTLED, timeout=10_000)
    page.wait_for_function(IDLE)


class Dealer:
    """A dealer at the terminal: each tap (a click on a control) and keystroke (a character typed)
    is counted from :meth:`start` on, and so is every page load of the main frame."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.taps = 0
        self.keys = 0
        self.loads = 0
        self.counting = False
        page.on("framenavigated", self._navigated)

    def _navigated(self, frame: Any) -> None:
        if self.counting and frame == self.page.main_frame:
            self.loads += 1

    def start(self) -> None:
        """Count from here (the tap on "Deal" is the first counted)."""
        self.taps = self.keys = self.loads = 0
        self.counting = True

    def tap(self, selector: str) -> None:
        self.page.click(selector)
        self.taps += self.counting
        self.idle()

    def tap_and_accept(self, selector: str) -> None:
        """A tap that asks "are you sure?": the dialog's OK is a second tap."""
        self.page.once("dialog", lambda dialog: dialog.accept())
        self.tap(selector)
        self.taps += self.counting

    def pick(self, selector: str, value: str) -> None:
        """Choose from a list: a tap to open it, a tap on the choice."""
        self.page.select_option(selector, value)
        self.taps += 2 * self.counting
        self.idle()

    def cards(self, *cards: str) -> None:
        for card in cards:
            self.tap(f"#card-picker button[data-card='{card}']")

    def type(self, selector: str, text: str) -> None:
        """Tap into a field and type ``text`` (replacing what was there)."""
        self.page.click(selector)
        self.page.fill(selector, "")
        self.page.keyboard.type(text)
        self.taps += self.counting
        self.keys += len(text) * self.counting
        self.idle()

    def idle(self) -> None:
        self.page.wait_for_function(IDLE)

    def done(self, what: str, *, taps: int, keys: int = 0) -> None:
        """Print the counts (``pytest -s``) and hold them to their ceilings: at most ``taps`` taps
        and ``keys`` keystrokes, and no page loaded since the deal."""
        print(f"{what}: {self.taps} taps, {self.keys} keystrokes, {self.loads} page loads")
        assert self.taps <= taps, (what, self.taps)
        assert self.keys <= keys, (what, self.keys)
        assert self.loads == 0, (what, self.loads)
