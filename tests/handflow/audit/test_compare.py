"""Comparing one hand (:mod:`handflow.audit.compare`): the ledger lines as the ledger lays them out,
and where two JSON values first differ."""

from __future__ import annotations

import pytest

from handflow import audit
from poker.postings import Postings

pytestmark = pytest.mark.django_db


def test_ledger_lines_follow_the_ledgers_layout() -> None:
    """The audit compares the settlement's entries with the postings' ledger lines, the hand's pot
    as ``POT``."""
    pot = {
        "kind": "pot",
        "put_ins": [{"seat": 1, "player": 7, "amount": 400}, {"seat": 2, "player": 8, "amount": 400}],
        "awards": [{"seat": 2, "player": 8, "amount": 700, "pot": 0, "share": "whole"}],
        "returned": [{"seat": 1, "player": 7, "amount": 100}],
        "net": {"1": -300, "2": 300},
    }
    assert audit.ledger_lines(Postings.from_json(pot)) == [
        (7, -400),
        ("pot", 400),
        (8, -400),
        ("pot", 400),
        ("pot", -700),
        (8, 700),
        ("pot", -100),
        (7, 100),
    ]
    payment = {"from_seat": 1, "to_seat": 2, "due": 0, "reason": "pair 1-2"}
    payments = {
        "kind": "payments",
        "payments": [
            payment | {"from_player": 3, "to_player": 4, "amount": 0},
            payment
            | {"from_seat": 2, "to_seat": 3, "from_player": 4, "to_player": 5, "amount": 250, "due": 250},
        ],
        "net": {"1": 0, "2": -250, "3": 250},
    }
    assert audit.ledger_lines(Postings.from_json(payments)) == [(4, -250), (5, 250)]


def test_first_difference_names_the_path() -> None:
    assert audit.first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) is None
    assert audit.first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "a[1].b: 2, stored 3"
    assert audit.first_difference({"a": [1]}, {"a": [1, 2]}) == "a: 1 items, stored 2"
    assert audit.first_difference({"x": 1}, {}) == "x: 1, not stored"
