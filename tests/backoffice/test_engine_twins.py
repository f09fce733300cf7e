"""The engine's postings and reading in words give what the back office computes today (DB-free),
so the books audit and the hand history can switch to them:

* ``backoffice.audit._settlement_lines`` == ``Postings.ledger_lines()`` (the pot as the hand's pot);
  its ``_first_difference`` finds the line ``poker.postings.first_line_difference`` finds;
* the hand history's pots, returns and payments (``backoffice.reports.hands``) are the words'
  pots, returns and payments, and a Chinese or Taiwanese poker hand's one-line summary is the
  same; where the presenter chose otherwise it is said here: the hand that won a whole pot of a
  low-only game is named (the history left it out), the history's ``pot 1`` is the ``main pot``,
  a surrender reads ``surrendered`` (the history showed nothing: it looked for ``surrender``), a
  hand's cards follow its name in brackets.

These name today's homes of the back office's functions; they go once it reads through the
engine's.
"""

from __future__ import annotations

import random
import re
from typing import Any

from backoffice import audit
from backoffice.reports import hands as history
from casino.core.money import format_cents
from poker.games import rules_for
from poker.postings import LedgerLine, first_line_difference, settlement_postings
from poker.reading import ChineseReading, PotReading, Reading
from poker.reading_words import reading_words, who
from tests.poker.reading_cases import corpus

CORPUS = corpus(23, pot=330, chinese=70, taiwanese=60)
HAND_ID = 4242


def _audit_line(line: LedgerLine) -> tuple[str, int | None, int]:
    return ("pot", HAND_ID, line.amount) if line.player is None else ("player", line.player, line.amount)


def test_the_books_settlement_lines_are_the_engines() -> None:
    for hand, reading in CORPUS:
        players = {p["seat"]: 900 + p["seat"] for p in hand["players"]}
        postings = settlement_postings(Reading.from_json(reading), engine_input=hand, player_of=players)
        assert [_audit_line(line) for line in postings.ledger_lines()] == audit._settlement_lines(
            postings.to_json(), HAND_ID
        )


def test_the_first_difference_is_found_at_the_same_line() -> None:
    rng = random.Random(3)
    for _ in range(300):
        expected = [("player", rng.randint(1, 3), rng.choice([-5, 5])) for _ in range(rng.randint(0, 6))]
        found = list(expected)
        if found and rng.random() < 0.7:
            found[rng.randrange(len(found))] = ("pot", HAND_ID, 7)
        if rng.random() < 0.3:
            found = found[: rng.randint(0, len(found))]
        today = audit._first_difference(expected, found)
        difference = first_line_difference(expected, found)
        if difference is None:
            assert today == "no difference"
        else:
            assert today.startswith(f"line {difference.line}: expected ")


def _history_and_words(hand: dict[str, Any], reading: dict[str, Any]) -> tuple[dict[int, str], Any]:
    names = {p["seat"]: f"P{p['seat']}" for p in hand["players"]}
    words = reading_words(
        Reading.from_json(reading), names, rules=rules_for(hand["game"]), money=format_cents
    )
    return names, words


def test_the_hand_historys_pots_returns_and_payments_are_the_words() -> None:
    for hand, reading in CORPUS:
        names, words = _history_and_words(hand, reading)
        typed = Reading.from_json(reading)
        pots = history.pot_lines(reading, names)
        assert [(p.number - 1, p.amount_cents, p.seats, p.voided_cents) for p in pots] == [
            (i, p.amount, list(p.seats), p.voided or 0) for i, p in enumerate(words.pots)
        ]
        for old, new in zip(pots, words.pots, strict=True):
            assert [(a.seat, a.player, a.share, a.amount_cents) for a in old.awards] == [
                (a.seat, names[a.seat], str(a.share), a.amount) for a in new.awards
            ]
            for a_old, a_new in zip(old.awards, new.awards, strict=True):
                low_only_whole = isinstance(typed, PotReading) and a_new.hand and not a_old.hand
                assert a_old.hand == a_new.hand or low_only_whole
        assert [(r.seat, r.amount_cents) for r in history.return_lines(reading, names)] == [
            (r.seat, r.amount) for r in getattr(typed, "returned", ())
        ]
        payments = history.settlement_payments(reading, names)
        assert [
            (
                f"seat {p.from_seat} ({p.from_player})",
                f"seat {p.to_seat} ({p.to_player})",
                p.amount_cents,
                p.due_cents,
            )
            for p in payments
        ] == [(p.payer, p.payee, p.amount, p.due) for p in words.payments]
        assert [p.capped for p in payments] == [p.capped for p in words.payments]
        if not isinstance(typed, PotReading) and typed.payments:
            assert history.summarize_reading(reading, names) == words.summary()
        elif not isinstance(typed, PotReading):  # nobody paid: each seat's net, named one way now
            today = history.summarize_reading(reading, names)
            assert re.sub(r"seat (\d+) net", r"seat \1 (P\1) net", today) == words.summary()


def test_seats_are_named_the_historys_way() -> None:
    for seat, name in ((3, "Ana"), (4, "")):
        assert history._who(seat, name) == who(seat, {seat: name})


def test_a_set_chinese_hand_reads_as_in_the_history() -> None:
    for hand, reading in CORPUS:
        typed = Reading.from_json(reading)
        if not isinstance(typed, ChineseReading):
            continue
        _, words = _history_and_words(hand, reading)
        for p in typed.players:
            said = words.seat(p.seat)
            assert said is not None
            today = history.seat_reading(None, reading["players"][str(p.seat)])
            if str(p.status) == "set":
                assert today == said.text
            elif str(p.status) == "surrendered":
                assert (today, said.text) == ("", "surrendered")
