"""The one money parser and the formatters (casino.core.money), against the cases the page
script's parser answers too (tests/data/money_cases.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.core.money import (
    MAX_DOLLARS,
    AmountError,
    amount_text,
    decimal_dollars,
    format_cents,
    parse_dollars,
)

CASES = json.loads((Path(__file__).parents[1] / "data" / "money_cases.json").read_text())


def test_the_cases_file_names_the_kernel_s_cap() -> None:
    assert CASES["max_dollars"] == MAX_DOLLARS


@pytest.mark.parametrize(("text", "cents"), CASES["accepted"])
def test_accepted(text: str, cents: int) -> None:
    assert parse_dollars(text) == cents


@pytest.mark.parametrize("text", CASES["too_large"])
def test_too_large_is_named_as_such(text: str) -> None:
    with pytest.raises(AmountError, match=r"more than \$999,999,999,999, the most a form takes"):
        parse_dollars(text, what="The chip")


@pytest.mark.parametrize("text", CASES["refused"])
def test_refused_names_what_was_typed_and_the_field(text: str) -> None:
    with pytest.raises(AmountError, match="is not an amount in dollars") as caught:
        parse_dollars(text, what="Buy-in", field="amount")
    assert str(caught.value).startswith("Buy-in: ")
    assert caught.value.field == "amount"


def test_the_formatters() -> None:
    labels = ["$0", "$4", "$4.50", "$1,234.50", "-$1.50"]
    assert [format_cents(c) for c in (0, 400, 450, 123450, -150)] == labels
    assert [amount_text(c) for c in (0, 1200, 1250, 123405, -5)] == ["0", "12", "12.50", "1234.05", "-0.05"]
    assert [format_cents(c, always_cents=True) for c in (0, 400, -150, 123456)] == [
        "$0.00", "$4.00", "-$1.50", "$1,234.56"
    ]  # fmt: skip
    assert [decimal_dollars(c) for c in (0, 400, -150, 123456)] == ["0.00", "4.00", "-1.50", "1234.56"]


@given(st.integers(min_value=0, max_value=MAX_DOLLARS * 100 + 99))
def test_an_amount_field_reads_back_as_it_was(cents: int) -> None:
    assert parse_dollars(amount_text(cents)) == cents
    assert parse_dollars(format_cents(cents)) == cents
    assert parse_dollars(decimal_dollars(cents)) == cents
