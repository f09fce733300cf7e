"""The settlement's ledger lines made from a reading (poker.postings): the engine's nets exactly,
in settlement order, stored and read back unchanged, and the entries they post."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker.errors import ShowdownError
from poker.postings import (
    LedgerLine,
    LineDifference,
    Postings,
    PostingsError,
    PostingsKind,
    first_line_difference,
    settlement_postings,
)
from poker.reading import PotReading, Reading
from tests.poker.reading_cases import JUNK, WORKED, any_hand, corpus, corrupt, decided

CORPUS = corpus(99, pot=330, chinese=70, taiwanese=60)


def _players(hand: dict[str, Any]) -> dict[int, int]:
    """Seat -> a player id (not the seat number, so the two can't be confused)."""
    return {p["seat"]: 7000 + 13 * p["seat"] for p in hand["players"]}


def _postings(hand: dict[str, Any], reading: dict[str, Any]) -> Postings:
    return settlement_postings(Reading.from_json(reading), engine_input=hand, player_of=_players(hand))


def test_the_lines_give_each_seat_the_engines_net() -> None:
    for hand, reading in CORPUS:
        postings = _postings(hand, reading)
        typed = Reading.from_json(reading)
        assert postings.net == typed.net | {s: 0 for s in _players(hand) if s not in typed.net}
        assert list(postings.net) == sorted(postings.net)
        moved: dict[int, int] = dict.fromkeys(_players(hand), 0)
        player_seat = {player: seat for seat, player in _players(hand).items()}
        for line in postings.ledger_lines():
            if line.player is not None:
                moved[player_seat[line.player]] += line.amount
        assert moved == postings.net


def test_pot_games_put_in_then_award_then_return_in_order() -> None:
    for hand, reading in CORPUS:
        postings = _postings(hand, reading)
        typed = Reading.from_json(reading)
        if not isinstance(typed, PotReading):
            assert postings.kind is PostingsKind.PAYMENTS
            assert [(p.from_seat, p.to_seat, p.amount, p.due, p.reason) for p in postings.payments] == [
                (p["from"], p["to"], p["amount"], p["due"], p["reason"]) for p in reading["payments"]
            ]
            assert postings.put_ins == postings.awards == postings.returned == ()
            continue
        assert postings.kind is PostingsKind.POT
        assert [(p.seat, p.amount) for p in postings.put_ins] == [
            (p["seat"], p["put_in"]) for p in hand["players"] if p["put_in"]
        ]
        assert [(a.pot, a.seat, a.amount, str(a.share)) for a in postings.awards] == [
            (i, a["seat"], a["amount"], a["share"])
            for i, pot in enumerate(reading["pots"])
            for a in pot["awards"]
            if a["amount"]
        ]
        assert [(r.seat, r.amount, r.reason) for r in postings.returned] == [
            (r["seat"], r["amount"], r.get("reason")) for r in reading["returned"] if r["amount"]
        ]
        assert postings.payments == ()
        into = sum(cents for _, cents in postings.into_pot())
        assert into == sum(cents for _, cents in postings.out_of_pot())  # the pot ends empty


def test_ledger_lines_pair_every_amount_and_skip_zeros() -> None:
    for hand, reading in CORPUS:
        postings = _postings(hand, reading)
        lines = postings.ledger_lines()
        assert all(line.amount for line in lines)
        assert len(lines) % 2 == 0
        for debit, credit in zip(lines[::2], lines[1::2], strict=True):
            assert debit.amount == -credit.amount < 0
        assert sum(line.amount for line in lines) == 0
        assert postings.moves_chips == bool(lines)
        if postings.kind is PostingsKind.PAYMENTS:
            assert [(a, b, c) for a, b, c in postings.transfers() if c] == [
                (lines[i].player, lines[i + 1].player, lines[i + 1].amount) for i in range(0, len(lines), 2)
            ]


def test_postings_are_stored_and_read_back_unchanged() -> None:
    for hand, reading in CORPUS:
        postings = _postings(hand, reading)
        stored = json.loads(json.dumps(postings.to_json()))
        assert Postings.from_json(stored) == postings
        assert Postings.from_json(stored).to_json() == stored
        assert set(stored) == (
            {"kind", "put_ins", "awards", "returned", "net"}
            if postings.kind is PostingsKind.POT
            else {"kind", "payments", "net"}
        )


def _worked(game: str) -> tuple[dict[str, Any], dict[str, Any]]:
    hand = next(h for h in WORKED if h["game"] == game)
    reading = decided(hand)
    assert reading is not None
    return hand, copy.deepcopy(reading)


def test_the_omaha_example_of_the_contract() -> None:
    hand, reading = _worked("omaha-hi-lo")
    postings = settlement_postings(
        Reading.from_json(reading), engine_input=hand, player_of={1: 11, 2: 12, 3: 13, 5: 15}
    )
    assert postings.to_json() == {
        "kind": "pot",
        "put_ins": [
            {"seat": 1, "player": 11, "amount": 2000},
            {"seat": 2, "player": 12, "amount": 2000},
            {"seat": 3, "player": 13, "amount": 2000},
            {"seat": 5, "player": 15, "amount": 500},
        ],
        "awards": [
            {"seat": 3, "player": 13, "amount": 3300, "pot": 0, "share": "high"},
            {"seat": 1, "player": 11, "amount": 3200, "pot": 0, "share": "low"},
        ],
        "returned": [],
        "net": {"1": 1200, "2": -2000, "3": 1300, "5": -500},
    }
    assert postings.ledger_lines()[:2] == (LedgerLine(11, -2000), LedgerLine(None, 2000))
    assert postings.ledger_lines()[-2:] == (LedgerLine(None, -3200), LedgerLine(11, 3200))


def test_a_seat_not_dealt_in_is_refused() -> None:
    hand, reading = _worked("omaha-hi-lo")
    with pytest.raises(PostingsError, match=r"seat 5 of the reading was not dealt in \(dealt: \[1, 2, 3\]\)"):
        settlement_postings(Reading.from_json(reading), engine_input=hand, player_of={1: 11, 2: 12, 3: 13})


def test_lines_that_dont_give_the_engines_nets_are_refused() -> None:
    hand, reading = _worked("omaha-hi-lo")
    reading["net"]["1"] += 100
    reading["net"]["2"] -= 100
    with pytest.raises(PostingsError, match=r"settlement lines give .*, the engine's nets are"):
        settlement_postings(
            Reading.from_json(reading), engine_input=hand, player_of={1: 11, 2: 12, 3: 13, 5: 15}
        )
    hand, reading = _worked("chinese-poker")
    reading["payments"][0]["amount"] += 100
    with pytest.raises(PostingsError):
        settlement_postings(Reading.from_json(reading), engine_input=hand, player_of=_players(hand))


def test_a_pot_games_input_needs_its_put_ins() -> None:
    hand, reading = _worked("omaha-hi-lo")
    with pytest.raises(ShowdownError, match=r"engine input: players\[0\] needs an integer seat and put_in"):
        settlement_postings(
            Reading.from_json(reading), engine_input={"players": [{"seat": 1}]}, player_of=_players(hand)
        )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.update(kind="cash"), r"postings.kind must be 'pot' or 'payments', got 'cash' \(str\)"),
        (lambda p: p.pop("net"), "postings: missing 'net'"),
        (lambda p: p["put_ins"][0].update(amount="2000"), r"postings.put_ins\[0\].amount must be an integer"),
        (lambda p: p["awards"][0].update(share="half"), r"postings.awards\[0\].share must be one of"),
        (lambda p: p["awards"][0].pop("pot"), r"postings.awards\[0\]: missing 'pot'"),
        (lambda p: p["put_ins"][0].update(note="x"), r"postings.put_ins\[0\]: unknown 'note'"),
        (lambda p: p["net"].update({"x": 1}), "postings.net: 'x' is not a seat number"),
        (
            lambda p: p.update(returned=[{"seat": 1, "player": 11, "amount": 5, "reason": 3}]),
            "reason must be",
        ),
    ],
)
def test_malformed_postings_are_refused(change: Any, message: str) -> None:
    hand, reading = _worked("omaha-hi-lo")
    stored = _postings(hand, reading).to_json()
    change(stored)
    with pytest.raises(ShowdownError, match=message):
        Postings.from_json(stored)


def test_malformed_payments_are_refused() -> None:
    hand, reading = _worked("chinese-poker")
    stored = _postings(hand, reading).to_json()
    stored["payments"][0]["due"] = None
    with pytest.raises(ShowdownError, match=r"postings.payments\[0\].due must be an integer, got null"):
        Postings.from_json(stored)
    with pytest.raises(ShowdownError, match="postings must be an object"):
        Postings.from_json([stored])


def test_the_first_line_difference() -> None:
    a, b, c = LedgerLine(1, -5), LedgerLine(None, 5), LedgerLine(2, 5)
    assert first_line_difference([a, b], [a, b]) is None
    assert first_line_difference([a, b], [a, c]) == LineDifference(2, b, c)
    assert first_line_difference([a, b], [a]) == LineDifference(2, b, None)
    assert first_line_difference([a], [a, c]) == LineDifference(2, None, c)
    assert first_line_difference([], []) is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from(JUNK), st.booleans())
def test_corrupted_postings_are_refused_or_read_back_exactly(
    rng: random.Random, junk: Any, rename: bool
) -> None:
    hand = any_hand(rng)
    reading = decided(hand)
    if reading is None:
        return
    stored = _postings(hand, reading).to_json()
    corrupt(stored, rng, junk, rename=rename)
    try:
        postings = Postings.from_json(stored)
    except ShowdownError:
        return
    assert postings.to_json() == stored
