"""The page script's parser and formatter (``static/money.js``, ``window.Terminal.money``) in
Chromium answer as the kernel's do (``casino.core.money``): every case of
``tests/data/money_cases.json`` (accepted as the same cents; too large and refused alike
refused: ``toCents`` answers null), the same cap, odd text (spaces, digits other than ASCII's)
read the same, and ``toDollars`` writes what ``amount_text`` writes.

The script is loaded alone into a blank page: no server, no database.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from casino.core.money import MAX_DOLLARS, AmountError, amount_text, parse_dollars
from tests.web.browser.browser import BROWSER_MARKS

pytestmark = BROWSER_MARKS

CASES = json.loads((Path(__file__).parents[2] / "data" / "money_cases.json").read_text())
MONEY_JS = Path(settings.BASE_DIR) / "static" / "money.js"
#: The most cents a field takes: $999,999,999,999.99.
LARGEST = MAX_DOLLARS * 100 + 99


@pytest.fixture(scope="module")
def page(chromium: Any) -> Iterator[Any]:
    page = chromium.new_page()
    page.add_script_tag(path=str(MONEY_JS))
    yield page
    page.close()


def to_cents(page: Any, texts: list[str]) -> list[int | None]:
    """``Terminal.money.toCents`` of each text (null: refused)."""
    return list(page.evaluate("texts => texts.map(t => window.Terminal.money.toCents(t))", texts))


def kernel(text: str) -> int | None:
    """The kernel's answer: the cents, or None where it refuses (too large or not an amount)."""
    try:
        return parse_dollars(text)
    except AmountError:
        return None


def test_the_same_cap(page: Any) -> None:
    assert page.evaluate("window.Terminal.money.MAX_DOLLARS") == MAX_DOLLARS == CASES["max_dollars"]


def test_accepted_as_the_same_cents(page: Any) -> None:
    texts = [text for text, _ in CASES["accepted"]]
    assert to_cents(page, texts) == [cents for _, cents in CASES["accepted"]]
    assert to_cents(page, texts) == [kernel(text) for text in texts]


@pytest.mark.parametrize("kind", ["too_large", "refused"])
def test_refused_alike(page: Any, kind: str) -> None:
    texts = CASES[kind]
    assert to_cents(page, texts) == [None] * len(texts)
    assert [kernel(text) for text in texts] == [None] * len(texts)


# Text the two parsers could read apart: what Python's strip() takes off and String.trim()
# doesn't (or the other way round), spaces after "$", digits and spaces other than ASCII's.
ODD = [
    "\x1c12\x1f", "\x8512", "12\x85", "\ufeff12", "12\ufeff", "\u300012\u3000", "\xa012.50\xa0",
    "\u202f7", "$\t5", "$\x0b5", "$\x0c5", "$\xa05", "$\u20035", "\t$1,234.56\r", "\x0b25\x0c",
    "1,,2", ",12", "12,", ",", "$,5", "1,2.5,0", "12.5,", "1\u200b2",
    "\u0660", "12.\u0665", "\u216b", "\U0001d7cf\U0001d7d0",
    "12.0", "12.00", "$$12", "$-5", "0.", "00.00", "0000000000000000000000001.01",
    "999999999999.999", "999,999,999,999.995", "1000000000000.0",
]  # fmt: skip


def test_odd_text_read_alike(page: Any) -> None:
    assert to_cents(page, ODD) == [kernel(text) for text in ODD]


def test_random_text_read_alike(page: Any) -> None:
    """Two thousand short texts of digits, signs, separators and spaces of every kind, and five
    hundred long runs of digits and commas about the cap (seeded: the same each run), get the
    same answer from both parsers. A line feed is left out: the kernel's
    pattern ends in ``$``, which lets a line feed before trailing commas through ("12\\n," reads
    as 1200), and a field's value never holds one."""
    alphabet = "0123456789$.,  \t\x0b\x0c\r\x1c\x85\xa0\u3000\ufeff\xb2\u0663\uff11-+e"
    chance = random.Random(31)
    texts = ["".join(chance.choices(alphabet, k=chance.randint(0, 8))) for _ in range(2_000)]
    texts += ["".join(chance.choices("0123456789,", k=chance.randint(10, 18))) for _ in range(500)]
    assert to_cents(page, texts) == [kernel(text) for text in texts]


@pytest.mark.parametrize(
    "cents",
    [0, 1, 5, 10, 99, 100, 1200, 1205, 1250, 123405, -5, -150, -1200, MAX_DOLLARS * 100, LARGEST],
)
def test_to_dollars_writes_what_amount_text_writes(page: Any, cents: int) -> None:
    shown = page.evaluate("cents => window.Terminal.money.toDollars(cents)", cents)
    assert shown == amount_text(cents)
    if cents >= 0:
        assert to_cents(page, [shown]) == [cents]
