"""The typed reading (poker.reading): every kind of engine output reads back to the same object,
the accessors say what the JSON says, and anything else is refused with a ShowdownError."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker._json import seat_ints
from poker.chinese import Status
from poker.errors import ShowdownError
from poker.games import EngineKind
from poker.pots import Share
from poker.reading import ChineseReading, PotReading, Reading, TaiwaneseReading
from poker.showdown import POT_GAMES, VOID_AFTER_DRAW
from tests.poker.reading_cases import JUNK, WORKED, any_hand, corpus, corrupt, decided

CORPUS = corpus(2024, pot=440, chinese=140, taiwanese=120)
SHAPES = {"chinese-poker": ChineseReading, "taiwanese-poker": TaiwaneseReading}
PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _stored(value: dict[str, Any]) -> Any:
    """``value`` as a JSON column gives it back."""
    return json.loads(json.dumps(value))


# --- Round trips -------------------------------------------------------------------------------------


def test_every_engine_output_reads_back_to_itself() -> None:
    for hand, reading in CORPUS:
        typed = Reading.from_json(reading)
        assert type(typed) is SHAPES.get(hand["game"], PotReading)
        assert typed.to_json() == reading
        stored = _stored(reading)
        assert Reading.from_json(stored).to_json() == stored
        assert Reading.from_json(typed.to_json()) == typed


def test_the_corpus_has_every_shape_the_engine_writes() -> None:
    """What the round trip above covers: every pot game and every optional key, every state of a
    Chinese poker hand, every Taiwanese position, capped and zero payments."""
    seen: Counter[str] = Counter()
    for hand, reading in CORPUS:
        typed = Reading.from_json(reading)
        seen[hand["game"]] += 1
        if isinstance(typed, PotReading):
            seen["no showdown"] += not typed.showdown
            seen["voided pot"] += any(p.voided is not None for p in typed.pots)
            seen["returned with a reason"] += any(r.reason == VOID_AFTER_DRAW for r in typed.returned)
            seen["uncalled chips"] += any(r.uncalled for r in typed.returned)
            seen["side pot"] += len(typed.pots) > 1
            seen["hi/lo split"] += any(a.share is Share.LOW for _, a in typed.awards())
            seen["tie"] += any(
                len(p.awards) > 1 and len({a.share for a in p.awards}) == 1 for p in typed.pots
            )
            seen["joker"] += any("JK" in (h.low.card_texts if h.low else ()) for h in typed.hands)
        elif isinstance(typed, ChineseReading):
            seen.update(f"chinese {p.status}" for p in typed.players)
            seen["chinese segments of a foul"] += any(p.fouled and p.segments for p in typed.players)
            seen["sweep pair"] += any(m.sweep for m in typed.matchups)
            seen["capped payment"] += any(p.amount < p.due for p in typed.payments)
            seen["zero payment"] += any(p.amount == 0 for p in typed.payments)
        else:
            assert isinstance(typed, TaiwaneseReading)
            seen[f"{typed.board_count} board(s)"] += 1
            seen.update(f"taiwanese {p.position}" for p in typed.positions)
            seen["tied position"] += any(len(p.winners) > 1 for p in typed.positions)
            seen["capped pay-in"] += any(x.amount < x.due for p in typed.positions for x in p.paid)
    wanted = [
        *POT_GAMES,
        "chinese-poker",
        "taiwanese-poker",
        "no showdown",
        "voided pot",
        "returned with a reason",
        "uncalled chips",
        "side pot",
        "hi/lo split",
        "tie",
        "joker",
        *(f"chinese {s}" for s in Status),
        "chinese segments of a foul",
        "sweep pair",
        "capped payment",
        "zero payment",
        "1 board(s)",
        "2 board(s)",
        "3 board(s)",
        "taiwanese top",
        "taiwanese middle",
        "taiwanese bottom",
        "taiwanese scoop",
        "tied position",
        "capped pay-in",
    ]
    assert [w for w in wanted if not seen[w]] == []


@PROPERTY
@given(st.randoms(use_true_random=False))
def test_random_hands_read_back_to_themselves(rng: random.Random) -> None:
    reading = decided(any_hand(rng))
    if reading is None:
        return
    typed = Reading.from_json(reading)
    assert typed.to_json() == reading
    assert Reading.from_json(_stored(reading)).to_json() == reading


# --- What the accessors say ----------------------------------------------------------------------------


def test_nets_seats_and_payments_are_the_engines() -> None:
    for hand, reading in CORPUS:
        typed = Reading.from_json(reading)
        if "net" in reading:
            nets = {int(seat): cents for seat, cents in reading["net"].items()}
        else:
            nets = {int(seat): p["net"] for seat, p in reading["players"].items()}
        assert typed.net == nets
        assert list(typed.seats) == list(nets)
        assert sum(typed.net.values()) == 0
        assert {p["seat"] for p in hand["players"]} == set(typed.seats)
        assert all(typed.net_of(seat) == cents for seat, cents in nets.items())
        assert typed.net_of(99) is None
        assert [p.to_json() for p in typed.payments] == reading.get("payments", [])
        assert typed.kind is {PotReading: EngineKind.POT, ChineseReading: EngineKind.CHINESE}.get(
            type(typed), EngineKind.TAIWANESE
        )


def test_the_outright_winner_is_the_one_seat_awarded_chips() -> None:
    """As the kill counts it (RULINGS §2): every chip awarded went to one seat; a split is none."""
    for _, reading in CORPUS:
        winners = {a["seat"] for pot in reading.get("pots", []) for a in pot["awards"] if a["amount"] > 0}
        expected = next(iter(winners)) if len(winners) == 1 else None
        assert Reading.from_json(reading).outright_winner == expected


def test_pots_awards_and_winning_hands() -> None:
    for _, reading in CORPUS:
        typed = Reading.from_json(reading)
        if not isinstance(typed, PotReading):
            continue
        assert [(i, a.seat, a.amount, str(a.share)) for i, a in typed.awards()] == [
            (i, a["seat"], a["amount"], a["share"])
            for i, pot in enumerate(reading["pots"])
            for a in pot["awards"]
        ]
        for pot, raw in zip(typed.pots, reading["pots"], strict=True):
            assert pot.built == raw["amount"] + raw.get("voided", 0)
            assert pot.winners == tuple(dict.fromkeys(a["seat"] for a in raw["awards"] if a["amount"]))
        for _, award in typed.awards():
            read = reading["hands"].get(str(award.seat))
            won = typed.winning_hand(award)
            if read is None:
                assert won is None
                continue
            side = {"low": "low", "high": "high"}.get(str(award.share)) or ("high" if read["high"] else "low")
            assert won is not None
            assert (won.name, list(won.card_texts)) == (read[side], read[f"{side}_cards"])


def test_chinese_and_taiwanese_seats() -> None:
    for hand, reading in CORPUS:
        typed = Reading.from_json(reading)
        if isinstance(typed, ChineseReading):
            for seat, raw in reading["players"].items():
                p = typed.player(int(seat))
                assert p is not None
                assert p.fouled == raw["fouled"]
                assert (p.sweep is None) == (raw["sweep"] is None)
            assert [m.seats for m in typed.matchups] == [tuple(m["seats"]) for m in reading["matchups"]]
        elif isinstance(typed, TaiwaneseReading):
            boards = hand.get("boards") or [hand["board"]]
            assert typed.board_count == len(boards)
            first = typed.player(typed.seats[0])
            assert first is not None
            assert [str(pos) for pos, _ in first.boards[0].rows()] == ["top", "middle", "bottom"]


# --- Refusals ------------------------------------------------------------------------------------------


def _worked(game: str) -> dict[str, Any]:
    for hand in WORKED:
        if hand["game"] == game:
            reading = decided(hand)
            assert reading is not None
            return copy.deepcopy(reading)
    raise AssertionError(game)


def _pot() -> dict[str, Any]:
    return _worked("omaha-hi-lo")


def _chinese() -> dict[str, Any]:
    return _worked("chinese-poker")


def _taiwanese() -> dict[str, Any]:
    return _worked("taiwanese-poker")


def _set(value: dict[str, Any], path: str, new: Any) -> dict[str, Any]:
    """``value`` with the item at ``path`` (``pots.0.amount``) set to ``new`` (``...`` deletes it)."""
    *parents, last = path.split(".")
    node: Any = value
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if new is ...:
        del node[key]
    else:
        node[key] = new
    return value


@pytest.mark.parametrize(
    ("make", "path", "new", "message"),
    [
        (_pot, "pots.0.amount", "6500", "reading.pots[0].amount must be an integer, got '6500' (str)"),
        (_pot, "pots.0.amount", True, "reading.pots[0].amount must be an integer, got True (bool)"),
        (
            _pot,
            "pots.0.awards.0.share",
            "middle",
            "reading.pots[0].awards[0].share must be one of high, low, whole",
        ),
        (_pot, "pots.0.awards.0.seat", ..., "reading.pots[0].awards[0]: missing 'seat'"),
        (_pot, "pots.0.colour", "red", "reading.pots[0]: unknown 'colour'"),
        (_pot, "pots.0.seats", "1, 2", "reading.pots[0].seats must be a list"),
        (
            _pot,
            "hands.1.high_cards",
            None,
            "reading.hands.1.high: a hand's name and its cards are given together",
        ),
        (
            _pot,
            "hands.1.low_cards.0",
            "8C",
            "reading.hands.1.low_cards[0]: '8C' is not a card as the engine writes it",
        ),
        (_pot, "net.01", 0, "reading.net: '01' is not a seat number"),
        (_pot, "returned", ..., "reading: missing 'returned'"),
        (
            _pot,
            "returned",
            [{"seat": 1, "amount": 100, "reason": 7}],
            "reading.returned[0].reason must be a string",
        ),
        (
            _chinese,
            "players.2.status",
            "busted",
            "reading.players.2.status must be one of set, fouled, sweep",
        ),
        (_chinese, "players.2.fouled", True, "reading.players.2.fouled is true but the status is set"),
        (
            _chinese,
            "players.1.sweep",
            "rainbow",
            "reading.players.1.sweep: not a clean sweep the engine knows",
        ),
        (
            _chinese,
            "players.2.segments.middle",
            None,
            "reading.players.2.segments: three hands are read or none",
        ),
        (_chinese, "matchups.0.total", 99, "reading.matchups[0].total is 99, the points add up to"),
        (_chinese, "matchups.0.kind", "duel", "reading.matchups[0].kind must be 'sweep' or 'pair'"),
        (_chinese, "matchups.0.seats", [1, 2, 3], "reading.matchups[0].seats: a pair is two seats"),
        (_chinese, "payments.0.reason", None, "reading.payments[0].reason must be a string, got null"),
        (_chinese, "rules", ..., "reading: missing 'rules'"),
        (_taiwanese, "positions.0.points", 42, "reading.positions[0].points is 42, not base"),
        (
            _taiwanese,
            "positions.0.position",
            "left",
            "reading.positions[0].position must be one of top, middle",
        ),
        (
            _taiwanese,
            "players.1.boards.0.top.cards",
            "Qs Ac",
            "reading.players.1.boards[0].top.cards must be a list",
        ),
        (_taiwanese, "players.1.net", 1.5, "reading.players.1.net must be an integer, got 1.5 (float)"),
        (_taiwanese, "game", "blackjack", "reading.game: no reading of game 'blackjack'"),
    ],
)
def test_a_malformed_reading_is_refused_naming_where(make: Any, path: str, new: Any, message: str) -> None:
    with pytest.raises(ShowdownError) as refused:
        Reading.from_json(_set(make(), path, new))
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "reading must be an object, got null"),
        ([], "reading must be an object, got [] (list)"),
        ({}, "neither a pot game's reading (no 'pots') nor another game's (no 'game')"),
        ({"pots": [], "hands": {}, "net": {}, "returned": [], "game": "holdem"}, "reading: unknown 'game'"),
        ({"error": "seat 1: card Zz"}, "neither a pot game's reading"),
    ],
)
def test_what_is_no_reading_at_all(value: Any, message: str) -> None:
    with pytest.raises(ShowdownError) as refused:
        Reading.from_json(value)
    assert message in str(refused.value)


@PROPERTY
@given(st.randoms(use_true_random=False), st.sampled_from(JUNK), st.booleans())
def test_a_corrupted_reading_is_refused_or_reads_back_exactly(
    rng: random.Random, junk: Any, rename: bool
) -> None:
    """Any change to a leaf, a key or a list of a reading: from_json raises ShowdownError (never
    another exception), or what it accepts reads back to exactly the changed object."""
    reading = decided(any_hand(rng))
    if reading is None:
        return
    corrupt(reading, rng, junk, rename=rename)
    try:
        typed = Reading.from_json(reading)
    except ShowdownError:
        return
    assert typed.to_json() == reading


# --- The read's shortcuts (a reading is read back for every hand the replay audit re-decides) -----
#
# A reading the engine wrote is read without a check per value where one check of the whole says
# the same (a seat key looked up, a hand's cards in one pass); anything else still goes through the
# checks, which name what is wrong. None of these is looser than the checks.


class _Text(str):
    """A str subclass: no JSON value is one, and the read refuses it wherever the contract says
    string (as it always did)."""


def _with_key(mapping: dict[Any, Any], old: str, new: object) -> None:
    """Rename ``old`` to ``new`` in place, keeping the other keys' order."""
    items = [(new if key == old else key, value) for key, value in mapping.items()]
    mapping.clear()
    mapping.update(items)


@pytest.mark.parametrize(
    ("path", "new", "message"),
    [
        (
            "pots.0.awards.0.amount",
            True,
            "reading.pots[0].awards[0].amount must be an integer, got True (bool)",
        ),
        ("pots.0.awards.0.seat", "3", "reading.pots[0].awards[0].seat must be an integer, got '3' (str)"),
        ("pots.0.awards.1.share", _Text("low"), "reading.pots[0].awards[1].share must be one of high, low"),
        ("pots.0.seats", [1, True, 3], "reading.pots[0].seats[1] must be an integer, got True (bool)"),
        ("hands.1.high_cards.4", 9, "reading.hands.1.high_cards[4]: 9 is not a card as the engine writes it"),
        ("hands.1.high_cards.0", ["6c"], "reading.hands.1.high_cards[0]: ['6c'] is not a card"),
        ("hands.1.high_cards.0", "6C", "reading.hands.1.high_cards[0]: '6C' is not a card"),
        ("hands.2.low", _Text("8-6-5-3-A"), "reading.hands.2.low must be a string"),
        ("hands.3.low_cards", [], "reading.hands.3.low: a hand's name and its cards are given together"),
        ("net.2", True, "reading.net.2 must be an integer, got True (bool)"),
        ("net.5", 1.0, "reading.net.5 must be an integer, got 1.0 (float)"),
    ],
)
def test_the_shortcuts_refuse_what_the_checks_refuse(path: str, new: Any, message: str) -> None:
    with pytest.raises(ShowdownError) as refused:
        Reading.from_json(_set(_pot(), path, new))
    assert message in str(refused.value)


@pytest.mark.parametrize("section", ["net", "hands"])
@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("02", "'02' is not a seat number"),
        (_Text("2"), "'2' is not a seat number"),
        (2, "2 is not a seat number"),
    ],
)
def test_a_seat_key_is_the_engines_own_spelling(section: str, key: object, message: str) -> None:
    reading = _pot()
    _with_key(reading[section], "2", key)
    with pytest.raises(ShowdownError) as refused:
        Reading.from_json(reading)
    assert f"reading.{section}: {message}" in str(refused.value)


def test_a_seat_past_the_looked_up_ones_is_still_read() -> None:
    # The lookup is a shortcut for the seats a table has, not a limit: a larger seat number the
    # engine would write reads as before.
    reading = _set(_set(_pot(), "net.250", -1), "net.1", 1201)
    typed = Reading.from_json(reading)
    assert typed.net == {1: 1201, 2: -2000, 3: 1300, 5: -500, 250: -1}
    assert typed.to_json() == reading


def test_seat_ints_reads_a_seat_object_in_its_order() -> None:
    assert seat_ints({"3": 10, "1": -10, "120": 0}, "reading.net") == ((3, 10), (1, -10), (120, 0))
    with pytest.raises(ShowdownError, match=r"postings\.net: '01' is not a seat number"):
        seat_ints({"3": 10, "01": -10}, "postings.net")
    with pytest.raises(ShowdownError, match=r"postings\.net\.3 must be an integer, got 10\.0 \(float\)"):
        seat_ints({"3": 10.0, "01": -10}, "postings.net")  # the first wrong item is named
