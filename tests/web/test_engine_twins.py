"""The engine's reading in words (poker.reading_words) says what the dealer terminal's reading
panel says today (``web.terminal_views.reading_view``, DB-free: the serializer's hand dict and an
unsaved game), word for word, but for the differences the presenter chose (docs of
poker/reading_words.py and the wiring's work order):

* the settlement's lines name every seat one way: ``seat 1 (A) puts in`` (the panel wrote
  ``Seat 1 (A) puts in``), ``uncalled chips back to seat 1 (A)`` (the panel left the name out);
* a hi-lo pot without a qualifying low says so, where the engine awarded it ``whole``; the panel
  never said it there, and said it instead of a pot too small to halve (under two chips: the
  high half is all of it, and the seats may well have had lows);
* a Taiwanese poker seat's hands carry their cards, ``board k:`` only when there are several
  boards (the hand history's way).

And the terminal's game facts (the board fields, the sweeps offered) are the engine's.  These name
today's homes of the terminal's presenters; they go once the terminal reads through the engine's.
"""

from __future__ import annotations

import re
from typing import Any

from casino.core.money import format_cents
from poker.games import MAX_BOARDS, rules_for
from poker.postings import settlement_postings
from poker.reading import ChineseReading, PotReading, Reading
from poker.reading_words import postings_words, reading_words
from tables.models import Game, GameKind
from tests.poker.reading_cases import corpus
from web import terminal_views
from web.floor_forms import BOARD_FIELDS, SWEEP_CHOICES

CORPUS = corpus(17, pot=330, chinese=70, taiwanese=60)
NO_LOW = "no qualifying low: the high hand takes the whole pot"


def _panel(hand: dict[str, Any], reading: dict[str, Any]) -> tuple[dict[str, Any], Any, Any]:
    """Today's panel, the engine's words and the settlement's lines in words, for one hand."""
    names = {p["seat"]: f"P{p['seat']}" for p in hand["players"]}
    rules = rules_for(hand["game"])
    typed = Reading.from_json(reading)
    postings = settlement_postings(typed, engine_input=hand, player_of={s: 40 + s for s in names})
    game = Game(
        slug=hand["game"],
        kind=GameKind.POT if rules.is_pot_game else GameKind.PLAYER_DEALER,
        is_stud_game=rules.odd_chips_by_suit,
    )
    stored = postings.to_json()
    view = {
        "players": [{"seat_number": s, "player_name": n} for s, n in names.items()],
        "reading": {
            "reading": reading,
            "postings": stored,
            "net": stored["net"],
            "revision": 1,
            "status": "x",
        },
    }
    panel = terminal_views.reading_view(view, game)
    assert panel is not None
    words = reading_words(typed, names, rules=rules, money=format_cents)
    return panel, words, postings_words(postings, names)


def _today_payment_text(text: str) -> str:
    """A settlement line as the panel wrote it, said the engine's way (the two chosen changes)."""
    text = re.sub(r"^Seat (\d+) \((P\d+)\) puts in$", r"seat \1 (\2) puts in", text)
    return re.sub(r"back to seat (\d+)$", r"back to seat \1 (P\1)", text)


def test_the_panel_of_every_reading_is_the_engines_words() -> None:
    for hand, reading in CORPUS:
        panel, words, lines = _panel(hand, reading)
        typed = Reading.from_json(reading)
        assert [
            (_today_payment_text(p["text"]), p["amount"], p.get("due"), p.get("capped", False))
            for p in panel["payments"]
        ] == [(line.text, line.amount, line.due, line.capped) for line in lines]
        assert [(n["seat"], n["name"], n["cents"]) for n in panel["net"]] == sorted(
            (s.seat, s.name, s.net) for s in words.seats
        )
        if isinstance(typed, PotReading):
            assert panel["kind"] == "pot"
            assert [
                (
                    p["title"],
                    p["amount"],
                    p["seats"],
                    p["voided"],
                    [(x["text"], x["amount"]) for x in p["lines"] if x["text"] != NO_LOW],
                )
                for p in panel["pots"]
            ] == [
                (
                    p.title,
                    p.amount,
                    ", ".join(map(str, p.seats)),
                    p.voided,
                    [(x.text, x.amount) for x in p.lines if x.text != NO_LOW],
                )
                for p in words.pots
            ]
            assert [(r["text"], r["amount"]) for r in panel["returned"]] == [
                (r.text, r.amount) for r in words.returned
            ]
            # The panel listed the hands in the input's order (position order), the words by seat.
            assert sorted((h["seat"], h["text"]) for h in panel["hands"]) == [
                (s.seat, s.text) for s in words.seats if s.text
            ]
        elif isinstance(typed, ChineseReading):
            assert panel["kind"] == "chinese"
            assert panel["seats"] == [
                {"seat": s.seat, "name": s.name, "text": s.text, "points": s.points, "net": s.net}
                for s in words.seats
            ]
            assert panel["pairs"] == [
                {"title": p.title, "kind": p.kind, "detail": p.detail, "verdict": p.verdict}
                for p in words.pairs
            ]
        else:
            assert panel["kind"] == "taiwanese"
            assert panel["positions"] == [
                {
                    "title": p.title,
                    "verdict": p.verdict,
                    "hand": p.hand,
                    "points": p.points,
                    "paid": p.paid,
                    "capped": p.capped,
                }
                for p in words.positions
            ]
            assert [(s["seat"], s["name"], s["net"]) for s in panel["seats"]] == [
                (s.seat, s.name, s.net) for s in words.seats
            ]


def test_the_terminals_game_facts_are_the_engines() -> None:
    assert len(BOARD_FIELDS) == terminal_views.MAX_BOARDS == MAX_BOARDS
    assert [value for value, _ in SWEEP_CHOICES if value] == [
        str(s) for s in rules_for("chinese-poker").sweeps
    ]
