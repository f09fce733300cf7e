"""Lowball's house rules (seed 004, lowball rules 1 and 2) through decide().

* Rule 1: "When playing Dealer's Choice, no joker will be added": the hand says ``"joker": false``
  and the joker ``JK`` is then refused anywhere (docs/showdown-json.md, "joker").
* Rule 2: "Must bet a seven or better or lose all action after the draw": a player the dealer
  marks ``checked_seven`` cannot win what was bet after the draw; when that player has the best
  hand of a pot, the pot's after-draw chips go back to whoever bet them (docs/engine.md,
  "The sevens rule").

Expected figures are worked out by hand in the comments, never taken from the code under test.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker.cards import FULL_DECK
from poker.pots import Stake, settle, settle_void_after_draw
from poker.showdown import (
    JOKER_GAMES,
    POT_GAMES,
    ShowdownError,
    decide,
    game_admits_joker,
)

VOID = "after-draw action void (004 lowball rule 2)"


def p(seat: int, cards: str | None, put_in: int, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": seat, "put_in": put_in}
    if cards is not None:
        out["cards"] = cards.split()
    out.update(extra)
    return out


def lowball(players: list[dict[str, Any]], button: int = 3, chip: int = 100, **extra: Any) -> dict[str, Any]:
    return {"game": "lowball", "button": button, "chip": chip, "players": players, **extra}


def awards(result: dict[str, Any]) -> list[list[tuple[int, int]]]:
    return [[(a["seat"], a["amount"]) for a in pot["awards"]] for pot in result["pots"]]


def without_sevens(hand: dict[str, Any]) -> dict[str, Any]:
    """The same hand with the sevens-rule fields taken out."""
    out = copy.deepcopy(hand)
    for player in out["players"]:
        player.pop("put_in_after_draw", None)
        player.pop("checked_seven", None)
    return out


# ----------------------------------------------------------------------------------------
# Rule 1: lowball without the joker (dealer's choice)
# ----------------------------------------------------------------------------------------

# The dealer's-choice hand that went wrong: a $16 pot, two players in for $8 each; the joker
# made JK-2-3-4-6 a 6-4-3-2-A that beat seat 2's 7-5-4-3-2.  Without the joker the JK is no card.
DEALERS_CHOICE = lowball([p(1, "JK 2c 3d 4h 6s", 800), p(2, "7c 5d 4c 3h 2h", 800)], button=2)


def test_lowball_plays_the_joker_by_default() -> None:
    result = decide(copy.deepcopy(DEALERS_CHOICE))
    assert result["hands"]["1"]["low"] == "6-4-3-2-A"
    assert awards(result) == [[(1, 1600)]]
    assert decide({**copy.deepcopy(DEALERS_CHOICE), "joker": True}) == result


def test_lowball_without_the_joker_refuses_the_joker() -> None:
    with pytest.raises(ShowdownError) as err:
        decide({**copy.deepcopy(DEALERS_CHOICE), "joker": False})
    assert str(err.value) == (
        "seat 1: the joker JK is not in the deck for this hand"
        ' (lowball played without the joker, "joker": false; 004 lowball rule 1)'
    )


def test_lowball_without_the_joker_refuses_it_in_a_folded_hand_too() -> None:
    hand = lowball(
        [p(1, "7c 5d 4c 3h 2h", 800), p(2, "8c 6d 4d 3c 2d", 800), p(3, "JK Kc", 200, folded=True)],
        joker=False,
    )
    with pytest.raises(ShowdownError, match=r"^seat 3: the joker JK is not in the deck for this hand"):
        decide(hand)


def test_lowball_without_the_joker_decides_a_hand_without_it_as_before() -> None:
    hand = lowball([p(1, "7c 5d 4c 3h 2h", 800), p(2, "8c 6d 4d 3c 2d", 800)])
    assert decide({**hand, "joker": False}) == decide(hand)
    result = decide({**hand, "joker": False})
    assert result["net"] == {"1": 800, "2": -800}


@pytest.mark.parametrize("game", sorted(set(POT_GAMES) - {"lowball"}))
def test_joker_true_is_an_error_for_a_game_without_the_joker(game: str) -> None:
    hand = {"game": game, "button": 1, "chip": 100, "joker": True, "players": [p(1, None, 100)]}
    with pytest.raises(ShowdownError) as err:
        decide(hand)
    assert str(err.value) == f'"joker": true, but {game} has no joker (only lowball is played with it)'


def test_joker_false_or_absent_is_fine_for_a_game_without_the_joker() -> None:
    hand = {
        "game": "holdem",
        "button": 1,
        "chip": 100,
        "board": ["Qs", "Jh", "Tc", "4d", "3s"],
        "players": [p(1, "Ac Kd", 300), p(2, "7c 2d", 300)],
    }
    assert decide({**hand, "joker": False}) == decide(hand)
    with pytest.raises(ShowdownError, match=r"^seat 1: the joker JK plays only in lowball, not in holdem$"):
        decide({**hand, "joker": False, "players": [p(1, "JK Kd", 300), p(2, "7c 2d", 300)]})


@pytest.mark.parametrize("value", ["false", 0, 1, "no", [], {}])
def test_joker_must_be_a_boolean(value: object) -> None:
    with pytest.raises(ShowdownError) as err:
        decide({**copy.deepcopy(DEALERS_CHOICE), "joker": value})
    assert str(err.value) == f"joker must be true or false, got {value!r}"


def test_game_admits_joker_for_the_card_picker() -> None:
    assert frozenset({"lowball"}) == JOKER_GAMES
    assert game_admits_joker("lowball") is True
    assert game_admits_joker("lowball", None) is True
    assert game_admits_joker("lowball", True) is True
    assert game_admits_joker("lowball", False) is False  # dealer's choice
    for game in [*sorted(set(POT_GAMES) - {"lowball"}), "chinese-poker", "taiwanese-poker"]:
        assert game_admits_joker(game) is False
        assert game_admits_joker(game, False) is False
        with pytest.raises(ShowdownError, match="has no joker"):
            game_admits_joker(game, True)
    with pytest.raises(ShowdownError, match="unknown game 'lowbal'"):
        game_admits_joker("lowbal")
    with pytest.raises(ShowdownError, match="joker must be true or false"):
        game_admits_joker("lowball", "no")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------
# Rule 2: must bet a seven or better or lose all action after the draw
# ----------------------------------------------------------------------------------------

# Seat 1 (7-5-4-3-2) checks after the draw, seat 2 bets $4, seat 3 raises to $8, seat 1 calls
# $8 and seat 2 folds.  Before the draw each put in $10.
#   seat 1: 1000 + 800 = 1800 (800 after the draw), marked checked_seven
#   seat 2: 1000 + 400 = 1400 (400 after the draw), folded
#   seat 3: 1000 + 800 = 1800 (800 after the draw), 8-6-4-3-2
# One pot of 5000 for seats 1 and 3 (seat 2's folded chips stay in it).  Seat 1 has the best
# hand: the 2000 bet after the draw goes back (800, 400, 800); the 3000 from before the draw
# goes to seat 1.  Nets: seat 1 -1800 + 3000 + 800 = +2000, seat 2 -1400 + 400 = -1000,
# seat 3 -1800 + 800 = -1000: each opponent loses exactly what it put in before the draw.
TWO_BETTORS = lowball(
    [
        p(1, "7c 5d 4c 3h 2h", 1800, put_in_after_draw=800, checked_seven=True),
        p(2, None, 1400, folded=True, put_in_after_draw=400),
        p(3, "8c 6d 4d 3c 2d", 1800, put_in_after_draw=800),
    ]
)


def test_marked_best_hand_wins_only_the_money_from_before_the_draw() -> None:
    result = decide(copy.deepcopy(TWO_BETTORS))
    assert result["pots"] == [
        {
            "amount": 3000,
            "seats": [1, 3],
            "awards": [{"seat": 1, "amount": 3000, "share": "whole"}],
            "voided": 2000,
        }
    ]
    assert result["returned"] == [
        {"seat": 1, "amount": 800, "reason": VOID},
        {"seat": 2, "amount": 400, "reason": VOID},
        {"seat": 3, "amount": 800, "reason": VOID},
    ]
    assert result["net"] == {"1": 2000, "2": -1000, "3": -1000}
    assert result["hands"]["1"]["low"] == "7-5-4-3-2"
    # without the mark seat 1 would have won all 5000
    assert decide(without_sevens(TWO_BETTORS))["net"] == {"1": 3200, "2": -1400, "3": -1800}


# A side pot.  Before the draw each put in $10.  After it seat 1 checks, seat 2 bets its last $3
# (all in), seat 3 raises to $8, seat 1 calls $8.
#   seat 1: 1800 (800 after), seat 2: 1300 (300 after), seat 3: 1800 (800 after)
# Main pot: levels 0-1300, 3 x 1300 = 3900, seats 1, 2, 3; its after-draw chips are each seat's
# chips between 1000 and 1300: 300 + 300 + 300 = 900.  Side pot: levels 1300-1800,
# 2 x 500 = 1000, seats 1 and 3, all of it bet after the draw.
def side_pot_hand(seat1: str, seat2: str, seat3: str) -> dict[str, Any]:
    return lowball(
        [
            p(1, seat1, 1800, put_in_after_draw=800, checked_seven=True),
            p(2, seat2, 1300, put_in_after_draw=300),
            p(3, seat3, 1800, put_in_after_draw=800),
        ]
    )


def test_side_pot_marked_player_best_in_both_pots() -> None:
    # seat 1 7-6-4-3-2 beats 8-7-5-3-2 and 9-8-6-4-3: main pot 3900 - 900 voided = 3000 to seat 1;
    # side pot 1000 all voided (500 back to seats 1 and 3).
    # nets: seat 1 -1800 + 3000 + 300 + 500 = +2000; seat 2 -1300 + 300 = -1000;
    # seat 3 -1800 + 300 + 500 = -1000.
    result = decide(side_pot_hand("7c 6c 4c 3c 2c", "8d 7d 5d 3d 2d", "9h 8h 6h 4h 3h"))
    assert [(pot["amount"], pot["seats"], pot["voided"]) for pot in result["pots"]] == [
        (3000, [1, 2, 3], 900),
        (0, [1, 3], 1000),
    ]
    assert awards(result) == [[(1, 3000)], []]
    assert result["returned"] == [
        {"seat": 1, "amount": 800, "reason": VOID},
        {"seat": 2, "amount": 300, "reason": VOID},
        {"seat": 3, "amount": 800, "reason": VOID},
    ]
    assert result["net"] == {"1": 2000, "2": -1000, "3": -1000}


def test_side_pot_marked_player_beaten_in_the_main_pot_best_in_the_side_pot() -> None:
    # seat 2's 6-4-3-2-A beats seat 1's 7-5-4-3-2: seat 2 wins the main pot, all 3900, as usual.
    # Seat 1 has the best hand of the side pot (against seat 3's 9-8-6-4-3) but checked: the side
    # pot, all bet after the draw, goes back (500 to seat 1, 500 to seat 3).
    # nets: seat 1 -1800 + 500 = -1300; seat 2 -1300 + 3900 = +2600; seat 3 -1800 + 500 = -1300.
    hand = side_pot_hand("7c 5c 4c 3c 2c", "6d 4d 3d 2d Ad", "9h 8h 6h 4h 3h")
    result = decide(hand)
    assert [(pot["amount"], pot["seats"], pot.get("voided")) for pot in result["pots"]] == [
        (3900, [1, 2, 3], None),
        (0, [1, 3], 1000),
    ]
    assert awards(result) == [[(2, 3900)], []]
    assert result["returned"] == [
        {"seat": 1, "amount": 500, "reason": VOID},
        {"seat": 3, "amount": 500, "reason": VOID},
    ]
    assert result["net"] == {"1": -1300, "2": 2600, "3": -1300}
    # without the mark seat 1 would have won the side pot
    assert decide(without_sevens(hand))["net"] == {"1": -800, "2": 2600, "3": -1800}


def test_marked_player_without_the_best_hand_changes_nothing() -> None:
    # seat 3's 6-5-4-3-2 beats marked seat 1's 7-5-4-3-2 in the only pot: the usual result
    hand = copy.deepcopy(TWO_BETTORS)
    hand["players"][2]["cards"] = ["6c", "5c", "4d", "3c", "2d"]
    result = decide(hand)
    assert result == decide(without_sevens(hand))
    assert result["net"] == {"1": -1800, "2": -1400, "3": 3200}
    assert "voided" not in result["pots"][0]
    assert result["returned"] == []


def test_marked_player_tying_for_the_best_hand_voids_the_after_draw_action() -> None:
    # Seats 1 (marked) and 2 both hold 7-5-4-3-2, seat 3 9-8-7-6-5.  Before the draw 500 each,
    # after it 400 each (seat 2 bet, seats 3 and 1 called).  The marked hand is a best hand,
    # so all the action after the draw is void (Robert's Rules): 400 back to each; the 1500
    # from before the draw is split 800 / 700, the odd chip to seat 2, the first seat
    # clockwise from the button (seat 1).
    # nets: seat 1 -900 + 700 + 400 = +200; seat 2 -900 + 800 + 400 = +300; seat 3 -900 + 400.
    hand = lowball(
        [
            p(1, "7c 5c 4c 3c 2c", 900, put_in_after_draw=400, checked_seven=True),
            p(2, "7d 5d 4d 3d 2d", 900, put_in_after_draw=400),
            p(3, "9h 8h 7h 6h 5h", 900, put_in_after_draw=400),
        ],
        button=1,
    )
    result = decide(hand)
    assert awards(result) == [[(2, 800), (1, 700)]]
    assert result["pots"][0]["amount"] == 1500
    assert result["pots"][0]["voided"] == 1200
    assert result["net"] == {"1": 200, "2": 300, "3": -500}


def test_marked_hand_with_the_joker_is_a_seven() -> None:
    # JK-7-6-5-4: the joker is the ace, 7-6-5-4-A, a seven: the mark stands
    hand = lowball(
        [
            p(1, "JK 7c 6d 5h 4s", 1200, put_in_after_draw=200, checked_seven=True),
            p(2, "8c 6c 4d 3c 2d", 1200, put_in_after_draw=200),
        ]
    )
    result = decide(hand)
    assert result["hands"]["1"]["low"] == "7-6-5-4-A"
    assert result["net"] == {"1": 1000, "2": -1000}


@pytest.mark.parametrize(
    ("cards", "name"),
    [
        ("8h 5d 4c 3h 2h", "8-5-4-3-2"),
        ("Ac Ad 2c 3h 4h", "Pair of aces, 4-3-2"),
        ("JK 8s 6h 5h 4s", "8-6-5-4-A"),
    ],
)
def test_a_mark_on_a_hand_that_is_not_a_seven_or_better_is_refused(cards: str, name: str) -> None:
    hand = copy.deepcopy(TWO_BETTORS)
    hand["players"][0]["cards"] = cards.split()
    with pytest.raises(ShowdownError) as err:
        decide(hand)
    assert str(err.value) == (
        f"seat 1: marked checked_seven, but {name} is not a seven or better"
        " (the mark is wrong: only a 7-x-x-x-x low or better must be bet)"
    )


def test_a_mark_needs_every_live_players_after_draw_money() -> None:
    hand = copy.deepcopy(TWO_BETTORS)
    del hand["players"][2]["put_in_after_draw"]
    with pytest.raises(ShowdownError) as err:
        decide(hand)
    assert str(err.value) == (
        "seat 3: missing field 'put_in_after_draw' (every live player needs it"
        " when a player is marked checked_seven: seat 1)"
    )
    # a folded player may leave it out: none of its chips were bet after the draw
    hand = copy.deepcopy(TWO_BETTORS)
    del hand["players"][1]["put_in_after_draw"]
    assert decide(hand)["net"] == {"1": 2400, "2": -1400, "3": -1000}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"put_in_after_draw": 1900}, "seat 1: put_in_after_draw 1900 is more than put_in 1800"),
        ({"put_in_after_draw": -1}, "seat 1: put_in_after_draw must not be negative, got -1"),
        ({"put_in_after_draw": 800.0}, "seat 1: put_in_after_draw must be an integer number of cents"),
        ({"put_in_after_draw": True}, "seat 1: put_in_after_draw must be an integer number of cents"),
        ({"checked_seven": "yes"}, "seat 1: checked_seven must be true or false, got 'yes'"),
        ({"folded": True}, "seat 1: checked_seven marks a player in at the showdown, but the player folded"),
    ],
)
def test_bad_sevens_fields(change: dict[str, Any], message: str) -> None:
    hand = copy.deepcopy(TWO_BETTORS)
    hand["players"][0].update(change)
    with pytest.raises(ShowdownError) as err:
        decide(hand)
    assert str(err.value).startswith(message)


@pytest.mark.parametrize("game", sorted(set(POT_GAMES) - {"lowball"}))
def test_sevens_fields_are_only_for_lowball(game: str) -> None:
    spec = POT_GAMES[game]
    deck = [str(c) for c in FULL_DECK]
    hand: dict[str, Any] = {
        "game": game,
        "button": 1,
        "chip": 100,
        "board": deck[:5] if spec.board else [],
        "players": [
            p(1, " ".join(deck[10 : 10 + spec.hole]), 300),
            p(2, " ".join(deck[20 : 20 + spec.hole]), 300),
        ],
    }
    base = decide(copy.deepcopy(hand))
    hand["players"][0]["checked_seven"] = False  # no mark: accepted, changes nothing
    assert decide(copy.deepcopy(hand)) == base
    hand["players"][0]["checked_seven"] = True
    with pytest.raises(ShowdownError) as err:
        decide(copy.deepcopy(hand))
    assert str(err.value) == f"seat 1: checked_seven is only for lowball (004 lowball rule 2), not {game}"
    del hand["players"][0]["checked_seven"]
    hand["players"][0]["put_in_after_draw"] = 100
    with pytest.raises(ShowdownError) as err:
        decide(hand)
    assert str(err.value) == f"seat 1: put_in_after_draw is only for lowball (004 lowball rule 2), not {game}"


def test_after_draw_money_without_a_mark_changes_nothing() -> None:
    hand = copy.deepcopy(TWO_BETTORS)
    hand["players"][0]["checked_seven"] = False
    assert decide(hand) == decide(without_sevens(TWO_BETTORS))


def test_a_lone_marked_player_gets_the_after_draw_bets_back_to_their_owners() -> None:
    # Seat 1 checks a 6-4-3-2-A, seat 2 bets $4, seat 1 raises $8, seat 2 folds: the check
    # voids the action after the draw (400 back to seat 2, 800 to seat 1: 400 of it unmatched
    # anyway); seat 1 wins the 2000 from before the draw.
    hand = lowball(
        [
            p(1, "6c 4d 3h 2s Ac", 1800, put_in_after_draw=800, checked_seven=True),
            p(2, None, 1400, folded=True, put_in_after_draw=400),
        ]
    )
    result = decide(hand)
    assert result["returned"] == [
        {"seat": 1, "amount": 400},
        {"seat": 1, "amount": 400, "reason": VOID},
        {"seat": 2, "amount": 400, "reason": VOID},
    ]
    assert result["net"] == {"1": 1000, "2": -1000}
    # the marked player's cards are needed to check the seven
    del hand["players"][0]["cards"]
    with pytest.raises(ShowdownError, match=r"^seat 1: checked_seven needs the player's 5 cards"):
        decide(hand)


# ----------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------

SEVEN_RANKS = "A234567"
SUITS = "cdhs"


def _sevens_deal(rnd: random.Random, n: int, marks: int, chip: int) -> dict[str, Any]:
    """A random lowball hand: ``marks`` seats hold a seven or better and are marked; every seat
    puts in some chips before the draw (some fold, some are all in) and some after it."""
    deck = [str(c) for c in FULL_DECK]
    rnd.shuffle(deck)
    players: list[dict[str, Any]] = []
    for i in range(n):
        marked = i < marks
        if marked:  # five different ranks, seven or lower
            ranks = rnd.sample(SEVEN_RANKS, 5)
            cards = [next(c for c in deck if c[0] == r) for r in ranks]
        else:
            cards = deck[:5]
        for c in cards:
            deck.remove(c)
        before = rnd.randint(1, 12) * chip + rnd.choice([0, 0, rnd.randint(0, chip - 1)])
        after = rnd.choice([0, rnd.randint(0, 8) * chip, rnd.randint(0, 900)])
        folded = not marked and i > 0 and rnd.random() < 0.3
        player = {"seat": i + 1, "cards": cards, "put_in": before + after, "folded": folded}
        if not folded or rnd.random() < 0.5:
            player["put_in_after_draw"] = after
        if marked:
            player["checked_seven"] = True
        players.append(player)
    rnd.shuffle(players)
    live = [pl for pl in players if not pl["folded"]]
    top = max(pl["put_in"] for pl in players)
    if all(pl["put_in"] < top for pl in live):  # a live player reaches the top level
        extra = top - live[0]["put_in"]
        live[0]["put_in"] = top
        live[0]["put_in_after_draw"] = live[0].get("put_in_after_draw", 0) + extra
    return lowball(players, button=rnd.randint(1, n), chip=chip, joker=rnd.random() < 0.5)


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 7), st.integers(1, 2), st.randoms(use_true_random=False), st.sampled_from([1, 25, 100]))
def test_sevens_rule_keeps_the_chips(n: int, marks: int, rnd: random.Random, chip: int) -> None:
    hand = _sevens_deal(rnd, n, min(marks, n), chip)
    result = decide(hand)
    put = {pl["seat"]: pl["put_in"] for pl in hand["players"]}
    after = {pl["seat"]: pl.get("put_in_after_draw", 0) for pl in hand["players"]}
    marked = {pl["seat"] for pl in hand["players"] if pl.get("checked_seven")}
    live = {pl["seat"] for pl in hand["players"] if not pl["folded"]}
    net = {int(seat): amount for seat, amount in result["net"].items()}
    # chips in = chips out, and net sums to zero
    assert sum(net.values()) == 0
    out = sum(pot["amount"] for pot in result["pots"]) + sum(r["amount"] for r in result["returned"])
    assert out == sum(put.values())
    for pot in result["pots"]:
        assert sum(a["amount"] for a in pot["awards"]) == pot["amount"]
        assert {a["seat"] for a in pot["awards"]} <= set(pot["seats"]) <= live
    # nobody wins more than everyone else put in, nor loses more than it put in
    for seat, amount in net.items():
        assert -put[seat] <= amount <= sum(put.values()) - put[seat]
    # a marked player wins none of the chips others bet after the draw
    for seat in marked:
        assert net[seat] <= sum(put[s] - after[s] for s in put if s != seat)
    # chips given back for the rule are the owner's own after-draw chips, at most
    for r in result["returned"]:
        if "reason" in r:
            assert 0 < r["amount"] <= after[r["seat"]]
    # no pot voided: exactly the usual result
    if not any("voided" in pot for pot in result["pots"]):
        assert result == decide(without_sevens(hand))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2000), st.integers(0, 800), st.booleans()), min_size=2, max_size=8),
    st.randoms(use_true_random=False),
    st.sampled_from([1, 100]),
)
def test_void_after_draw_is_settle_when_no_marked_seat_wins_a_pot(
    stakes: list[tuple[int, int, bool]], rnd: random.Random, chip: int
) -> None:
    """pots.settle_void_after_draw: settle()'s very result unless a marked seat has a pot's best
    hand; chips in = chips out either way."""
    table = [
        Stake(i + 1, before + after, folded and i > 0) for i, (before, after, folded) in enumerate(stakes)
    ]
    table[0] = Stake(1, max(s.put_in for s in table))  # a live seat reaches the top level
    after = {s.seat: min(a, s.put_in) for s, (_, a, _) in zip(table, stakes, strict=True)}
    live = [s.seat for s in table if not s.folded]
    strength = {seat: rnd.randint(0, 3) for seat in live}
    order = {seat: seat for seat in live}
    marked = [seat for seat in live if rnd.random() < 0.4]
    plain = settle(table, chip=chip, low=strength, high_order=order)
    got = settle_void_after_draw(
        table, chip=chip, strength=strength, order=order, after_draw=after, checked=marked
    )
    best = [max(strength[s] for s in pot.seats) for pot in plain.pots]
    marked_wins = any(
        strength[s] == b for pot, b in zip(plain.pots, best, strict=True) for s in pot.seats if s in marked
    )
    if not marked_wins:
        assert got == plain
    assert sum(got.net.values()) == 0
    out = (
        sum(p.amount for p in got.pots)
        + sum(r.amount for r in got.returned)
        + sum(r.amount for r in got.voided)
    )
    assert out == sum(s.put_in for s in table)
    for r in got.voided:
        assert 0 < r.amount <= after[r.seat]
    assert [p.seats for p in got.pots] == [p.seats for p in plain.pots]
