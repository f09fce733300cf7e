"""The reading in words (poker.reading_words): the worked examples word for word, and over many
engine readings, every chip the reading moves said once, each seat named one way."""

from __future__ import annotations

from typing import Any

from poker.games import rules_for
from poker.postings import settlement_postings
from poker.reading import ChineseReading, PotReading, Reading, TaiwaneseReading
from poker.reading_words import ReadingWords, Said, hand_words, postings_words, pot_name, reading_words, who
from tests.poker.reading_cases import WORKED, corpus, decided

CORPUS = corpus(31, pot=330, chinese=70, taiwanese=60)


def money(cents: int) -> str:
    """Dollars as the floor says them (the test's own, to keep the engine's tests pure)."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}" if rest == 0 else f"{sign}${dollars:,}.{rest:02d}"


def _names(hand: dict[str, Any]) -> dict[int, str]:
    return {p["seat"]: f"Player {p['seat']}" for p in hand["players"]}


def _words(hand: dict[str, Any], reading: dict[str, Any] | None = None) -> ReadingWords:
    reading = reading if reading is not None else decided(hand)
    assert reading is not None
    return reading_words(Reading.from_json(reading), _names(hand), rules=rules_for(hand["game"]), money=money)


def _worked(game: str, index: int = 0) -> dict[str, Any]:
    return [h for h in WORKED if h["game"] == game][index]


def test_a_seat_is_said_one_way() -> None:
    assert who(3, {3: "Ana"}) == "seat 3 (Ana)"
    assert who(3, {}) == "seat 3"
    assert who(3, {3: ""}) == "seat 3"
    assert [pot_name(i) for i in range(3)] == ["main pot", "side pot 1", "side pot 2"]


def test_the_omaha_hi_lo_example() -> None:
    words = _words(_worked("omaha-hi-lo"))
    (pot,) = words.pots
    assert (pot.title, pot.amount, pot.seats, pot.voided) == ("Main pot", 6500, (1, 2, 3), None)
    assert pot.lines == (
        Said("high half to seat 3 (Player 3): Full house, sixes full of kings (6c 6d 6s Kd Kh)", 3300),
        Said("low half to seat 1 (Player 1): low 8-6-4-3-2 (8c 6c 4c 3h 2s)", 3200),
        Said("the high half takes the odd chip"),
    )
    assert [(a.who, str(a.share), a.amount, a.hand) for a in pot.awards] == [
        ("seat 3 (Player 3)", "high", 3300, "Full house, sixes full of kings"),
        ("seat 1 (Player 1)", "low", 3200, "8-6-4-3-2"),
    ]
    assert [(s.who, s.text, s.net) for s in words.seats] == [
        (
            "seat 1 (Player 1)",
            "Three of a kind, sixes (6c 6d 6s Jd 9h); low 8-6-4-3-2 (8c 6c 4c 3h 2s)",
            1200,
        ),
        (
            "seat 2 (Player 2)",
            "Three of a kind, sixes (6c 6d 6s Ah Qc); low 8-6-5-3-A (8c 6c 5c 3h Ah)",
            -2000,
        ),
        ("seat 3 (Player 3)", "Full house, sixes full of kings (6c 6d 6s Kd Kh)", 1300),
        ("seat 5 (Player 5)", "", -500),
    ]
    assert words.summary() == (
        "main pot $65: seat 3 (Player 3) high $33 with Full house, sixes full of kings, "
        "seat 1 (Player 1) low $32 with 8-6-4-3-2"
    )


def test_the_sevens_rule_example() -> None:
    words = _words(_worked("lowball"))
    (pot,) = words.pots
    assert (pot.amount, pot.voided) == (3000, 2000)
    assert pot.lines == (Said("the pot to seat 1 (Player 1): low 7-5-4-3-2 (7c 5d 4c 3h 2h)", 3000),)
    reason = "after-draw action void (004 lowball rule 2)"
    assert words.returned == (
        Said(f"{reason}: back to seat 1 (Player 1)", 800),
        Said(f"{reason}: back to seat 2 (Player 2)", 400),
        Said(f"{reason}: back to seat 3 (Player 3)", 800),
    )
    assert words.summary().startswith("main pot $30: seat 1 (Player 1) whole $30 with 7-5-4-3-2; ")


def test_a_split_with_an_odd_chip_and_a_hand_without_showdown() -> None:
    words = _words(_worked("holdem", 0))
    assert words.pots[0].lines[-1] == Said("odd chip to seat 4 (Player 4): first clockwise from the button")
    assert words.pots[0].lines[0].text.startswith("the pot (tie) to seat 4 (Player 4): Royal flush")
    folded = _words(_worked("holdem", 1))
    assert folded.pots[0].lines == (
        Said("the pot to seat 1 (Player 1): everyone else folded, no showdown", 400),
    )
    assert folded.returned == (Said("uncalled chips back to seat 1 (Player 1)", 200),)
    assert folded.summary() == (
        "main pot $4: seat 1 (Player 1) whole $4; uncalled chips back to seat 1 (Player 1) $2"
    )


def test_a_hi_lo_pot_without_a_qualifying_low() -> None:
    hand = {
        "game": "omaha-hi-lo",
        "chip": 100,
        "button": 1,
        "board": ["Kc", "Qd", "Jh", "9s", "9c"],
        "players": [
            {"seat": 1, "cards": ["As", "2s", "3s", "4s"], "put_in": 500},
            {"seat": 2, "cards": ["Ac", "Ts", "3c", "4c"], "put_in": 500},
        ],
    }
    assert _words(hand).pots[0].lines == (
        Said("the pot to seat 2 (Player 2): Straight, ace high (Ac Kc Qd Jh Ts)", 1000),
        Said("no qualifying low: the high hand takes the whole pot"),
    )


def test_the_chinese_poker_example() -> None:
    words = _words(_worked("chinese-poker"))
    assert [(s.text, s.points, s.net) for s in words.seats] == [
        ("clean sweep: dragon (declared dragon, verified)", 39, 10000),
        (
            "front Pair of jacks / middle Two pair, aces and threes / back Full house, kings full of fives",
            -7,
            -2000,
        ),
        ("surrendered", -16, -6500),
        ("fouled: fouled by the house (004 rule 8)", -16, -1500),
    ]
    assert [(p.title, p.kind, p.detail, p.verdict) for p in words.pairs][2:] == [
        ("seat 1 (Player 1) v seat 4 (Player 4)", "sweep", "sweep +13", "seat 1 (Player 1) wins 13 points"),
        ("seat 2 (Player 2) v seat 3 (Player 3)", "pair", "surrender +3", "seat 2 (Player 2) wins 3 points"),
        (
            "seat 2 (Player 2) v seat 4 (Player 4)",
            "pair",
            "front +1, middle +1, back +1",
            "seat 2 (Player 2) wins 3 points",
        ),
        ("seat 3 (Player 3) v seat 4 (Player 4)", "pair", "every segment even", "push"),
    ]
    assert words.summary().startswith(
        "seat 2 (Player 2) pays seat 1 (Player 1) $20 (due $65), sweep 1-2; "
        "seat 3 (Player 3) pays seat 1 (Player 1) $65, sweep 1-3; "
    )


def test_a_false_declaration_says_what_was_declared() -> None:
    hand = {
        "game": "chinese-poker",
        "rules": "house",
        "point": 100,
        "button": 1,
        "players": [
            {
                "seat": 1,
                "declare": "dragon",
                "cards": ["2c", "3d", "4h", "5s", "6c", "7d", "8h", "9s", "Tc", "Jh", "Qs", "Kc", "Kd"],
            },
            {"seat": 2, "surrender": True},
        ],
    }
    assert _words(hand).seats[0].text == (
        "false declaration (dragon): declared dragon, which the 13 cards do not hold"
    )


def test_the_taiwanese_poker_example() -> None:
    words = _words(_worked("taiwanese-poker"))
    assert words.seats[0].text.startswith(
        "board 1: top Two pair, aces and twos (Ac Ad 2c 2d Kh) / "
        "middle Two pair, aces and threes (Ac Ad 3d 3s Kh)"
    )
    assert "; board 2: top Ten high (Ts 9d 8c 7c 4h)" in words.seats[0].text
    assert [(p.title, p.verdict, p.hand, p.points, p.paid, p.capped) for p in words.positions][:2] == [
        (
            "board 1 top",
            "seat 3 (Player 3) wins",
            "Two pair, aces and kings",
            "2 points (1 + 1 bonus)",
            "seat 2 (Player 2) $1, seat 1 (Player 1) $2",
            False,
        ),
        (
            "board 1 middle",
            "seat 1 (Player 1) wins",
            "Full house, aces full of kings",
            "5 points (2 + 3 bonus)",
            "seat 2 (Player 2) $5, seat 3 (Player 3) $5",
            False,
        ),
    ]
    assert words.positions[-1].title == "board 2 scoop"
    assert words.positions[-1].capped
    one_board = {**_worked("taiwanese-poker"), "boards": _worked("taiwanese-poker")["boards"][:1]}
    assert _words(one_board).seats[0].text.startswith("top Two pair, aces and twos (Ac Ad 2c 2d Kh) / middle")


def test_every_chip_is_said_once() -> None:
    """Pot games: a pot's award lines add up to the pot; every chip given back has its line.
    Chinese and Taiwanese poker: a line per payment with its amount and due."""
    for hand, reading in CORPUS:
        typed = Reading.from_json(reading)
        words = _words(hand, reading)
        assert [s.seat for s in words.seats] == list(typed.seats)
        assert [s.net for s in words.seats] == list(typed.net.values())
        assert all(s.who == who(s.seat, _names(hand)) for s in words.seats)
        summary = words.summary()
        if isinstance(typed, PotReading):
            for pot, said in zip(typed.pots, words.pots, strict=True):
                assert sum(line.amount or 0 for line in said.lines) == pot.amount
                assert [a.amount for a in said.awards] == [a.amount for a in pot.awards]
                assert f"{said.title.lower()} {money(pot.amount)}" in summary
            assert [line.amount for line in words.returned] == [r.amount for r in typed.returned if r.amount]
            read = {h.seat for h in typed.hands}
            assert {s.seat for s in words.seats if s.text} == read
            assert words.pairs == words.positions == words.payments == ()
        else:
            assert [(p.amount, p.due, p.reason) for p in words.payments] == [
                (p.amount, p.due, p.reason) for p in typed.payments
            ]
            assert words.pots == words.returned == ()
            if typed.payments:
                assert summary.count(" pays ") == len(typed.payments)
            else:
                by_seat = sorted(words.seats, key=lambda s: s.seat)
                assert summary == "; ".join(f"{s.who} net {money(s.net)}" for s in by_seat)
        if isinstance(typed, ChineseReading):
            assert len(words.pairs) == len(typed.matchups)
            assert all(s.points is not None for s in words.seats)
        if isinstance(typed, TaiwaneseReading):
            assert len(words.positions) == len(typed.positions)


def test_the_settlement_in_words() -> None:
    for hand, reading in CORPUS:
        typed = Reading.from_json(reading)
        players = {p["seat"]: 100 + p["seat"] for p in hand["players"]}
        postings = settlement_postings(typed, engine_input=hand, player_of=players)
        lines = postings_words(postings, _names(hand))
        amounts = [line.amount for line in lines]
        assert amounts == [
            *(p.amount for p in postings.put_ins),
            *(a.amount for a in postings.awards),
            *(r.amount for r in postings.returned),
            *(p.amount for p in postings.payments),
        ]
        for line, payment in zip(
            lines[len(lines) - len(postings.payments) :], postings.payments, strict=True
        ):
            assert line.due == payment.due
            assert line.capped == payment.capped
            assert line.text.startswith(f"{who(payment.from_seat, _names(hand))} pays ")
    hand = _worked("omaha-hi-lo")
    omaha = settlement_postings(
        Reading.from_json(decided(hand)), engine_input=hand, player_of={1: 1, 2: 2, 3: 3, 5: 5}
    )
    assert [line.text for line in postings_words(omaha, {1: "A", 3: "C"})] == [
        "seat 1 (A) puts in",
        "seat 2 puts in",
        "seat 3 (C) puts in",
        "seat 5 puts in",
        "main pot (high half) to seat 3 (C)",
        "main pot (low half) to seat 1 (A)",
    ]


def test_a_hand_in_words() -> None:
    reading = Reading.from_json(decided(_worked("lowball")))
    assert isinstance(reading, PotReading)
    seat_one = reading.hand_of(1)
    assert seat_one is not None
    assert seat_one.low is not None
    assert hand_words(seat_one.low, low=True) == "low 7-5-4-3-2 (7c 5d 4c 3h 2h)"
    assert hand_words(seat_one.low) == "7-5-4-3-2 (7c 5d 4c 3h 2h)"
