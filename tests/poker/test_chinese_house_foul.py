"""Chinese poker: a hand the house fouls (seed 004 Chinese poker rule 8: "Any hand containing an
incorrect number of cards may be fouled") and the dealer terminal's card-count check.

* ``"fouled": true`` on a player: the hand plays as fouled whatever its cards (given in part,
  or not at all), with the reason "fouled by the house (004 rule 8)".
* :func:`poker.chinese.count_problems`: the first wrong card count of an entry, or None;
  the engine itself still reads a wrong count as a foul (RULINGS section 3).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from poker.chinese import HOUSE_FOUL, count_problems, decide_chinese
from poker.showdown import ShowdownError, decide

# Legal settings without bonuses (house rules): Amy beats Bob in the front and the back.
AMY = {
    "front": ["Qs", "Qh", "2c"],
    "middle": ["Ks", "Kh", "3c", "4d", "6h"],
    "back": ["As", "Ah", "7c", "8d", "9h"],
}
BOB = {
    "front": ["Jc", "9c", "2d"],
    "middle": ["Kd", "Kc", "5c", "6c", "7s"],
    "back": ["Ad", "Ac", "2h", "3h", "5s"],
}
# Trips in front (3), quads in the middle (8), a straight flush in the back (5): 16 bonus points.
BONUS = {
    "front": ["Js", "Jh", "Jd"],
    "middle": ["Tc", "Td", "Th", "Ts", "5d"],
    "back": ["9s", "8s", "7s", "6s", "5s"],
}


def hand(*players: dict[str, Any], rules: str = "house", point: int = 100) -> dict[str, Any]:
    return {"game": "chinese-poker", "rules": rules, "point": point, "button": 1, "players": list(players)}


def pay(result: dict[str, Any]) -> list[tuple[int, int, int]]:
    return [(p["from"], p["to"], p["amount"]) for p in result["payments"]]


# ----------------------------------------------------------------------------------------
# "fouled": true
# ----------------------------------------------------------------------------------------


def test_house_foul_on_a_legal_setting_plays_as_fouled() -> None:
    # Bob's setting is legal (he would lose 1-2 to Amy); the house fouls it: he pays Amy what a
    # foul costs under the house rules, 3 points plus Amy's bonuses (none): 300.
    result = decide(hand({"seat": 1, **AMY}, {"seat": 2, **BOB, "fouled": True}))
    bob = result["players"]["2"]
    assert bob["fouled"] is True
    assert bob["status"] == "fouled"
    assert bob["foul"] == HOUSE_FOUL == "fouled by the house (004 rule 8)"
    assert pay(result) == [(2, 1, 300)]
    assert result["players"]["1"]["net"] == 300
    # without the mark the same hands play as set: Amy wins 2 segments, loses 1: 100
    plain = decide(hand({"seat": 1, **AMY}, {"seat": 2, **BOB}))
    assert plain["players"]["2"]["fouled"] is False
    assert pay(plain) == [(2, 1, 100)]


def test_house_foul_pays_the_opponents_bonuses() -> None:
    # 3 points plus the set hand's front trips 3, middle quads 8, back straight flush 5 = 19
    result = decide(hand({"seat": 1, **BONUS}, {"seat": 2, "fouled": True}))
    assert pay(result) == [(2, 1, 1900)]
    # the house fouls the strong hand: it pays Amy 3 points (Amy has no bonus) instead of
    # collecting 3 + 16 from her
    result = decide(hand({"seat": 1, **AMY}, {"seat": 2, **BONUS, "fouled": True}))
    assert pay(result) == [(2, 1, 300)]
    assert decide(hand({"seat": 1, **AMY}, {"seat": 2, **BONUS}))["payments"][0]["amount"] == 1900


@pytest.mark.parametrize(
    "cards",
    [
        {
            "front": ["Jc", "9c"],
            "middle": ["Kd", "Kc", "5c", "6c", "7s"],
            "back": ["Ad", "Ac", "2h", "3h", "5s"],
        },
        {"front": ["Jc", "9c", "2d", "4c"], "middle": ["Kd", "Kc", "5c", "6c", "7s"]},  # 4 and 5, no back
        {"cards": ["Jc", "9c", "2d", "Kd", "Kc", "5c", "6c", "7s", "Ad", "Ac", "2h", "3h"]},  # 12
        {},  # no cards at all
    ],
)
def test_house_foul_with_a_wrong_count_or_no_cards(cards: dict[str, Any]) -> None:
    result = decide(hand({"seat": 1, **AMY}, {"seat": 2, **cards, "fouled": True}))
    assert result["players"]["2"]["foul"] == HOUSE_FOUL
    assert result["players"]["2"]["segments"] == {"front": None, "middle": None, "back": None}
    assert pay(result) == [(2, 1, 300)]


def test_house_foul_overrides_a_declaration_and_a_surrender() -> None:
    dragon = ["2s", "3c", "4h", "5h", "6d", "7c", "8h", "9s", "Tc", "Js", "Qs", "Ks", "As"]
    result = decide(
        hand({"seat": 1, **BOB}, {"seat": 2, "cards": dragon, "declare": "dragon", "fouled": True})
    )
    assert result["players"]["2"]["status"] == "fouled"
    assert result["players"]["2"]["declared"] == "dragon"
    assert result["players"]["2"]["sweep"] is None
    assert pay(result) == [(2, 1, 300)]
    result = decide(hand({"seat": 1, **AMY}, {"seat": 2, "surrender": True, "fouled": True}))
    assert result["players"]["2"]["foul"] == HOUSE_FOUL
    assert pay(result) == [(2, 1, 300)]


def test_two_house_fouls_push_and_fouled_false_changes_nothing() -> None:
    result = decide(hand({"seat": 1, **AMY, "fouled": True}, {"seat": 2, "fouled": True}))
    assert pay(result) == []
    assert decide(hand({"seat": 1, **AMY, "fouled": False}, {"seat": 2, **BOB})) == decide(
        hand({"seat": 1, **AMY}, {"seat": 2, **BOB})
    )


def test_house_fouled_cards_are_still_checked() -> None:
    with pytest.raises(ShowdownError, match=r"^seat 2: fouled must be true or false, got 'yes'$"):
        decide(hand({"seat": 1, **AMY}, {"seat": 2, **BOB, "fouled": "yes"}))
    # a card in two hands is still a misdeal, an unknown card still an input error
    with pytest.raises(ShowdownError, match=r"card Qs is held by seat 1 and seat 2 \(misdeal, 004 rule 9\)"):
        decide(hand({"seat": 1, **AMY}, {"seat": 2, "front": ["Qs"], "fouled": True}))
    with pytest.raises(ShowdownError, match=r"seat 2: unknown card 'Qx'"):
        decide(hand({"seat": 1, **AMY}, {"seat": 2, "back": ["Qx"], "fouled": True}))


# ----------------------------------------------------------------------------------------
# count_problems
# ----------------------------------------------------------------------------------------

DRAGON = ["2c", "3d", "4h", "5s", "6c", "7d", "8h", "9s", "Tc", "Jh", "Qs", "Kc", "Ad"]
GOOD = hand({"seat": 1, **AMY}, {"seat": 2, **BOB}, {"seat": 3, "surrender": True}, point=500)


def test_count_problems_none_for_right_counts() -> None:
    assert count_problems(GOOD) is None
    assert count_problems({"seat": 4, "cards": DRAGON, "declare": "dragon"}) is None
    assert count_problems({"seat": 4, "cards": DRAGON, "surrender": True}) is None
    assert count_problems({"seat": 4, "cards": DRAGON}) is None  # unset, 13 cards (a foul, not a count)


@pytest.mark.parametrize(
    ("player", "message"),
    [
        ({**BOB, "front": ["Jc", "9c"]}, "seat 2: front 2, middle 5, back 5 cards (a set hand is 3-5-5)"),
        (
            {**BOB, "back": BOB["back"] + ["Th"]},
            "seat 2: front 3, middle 5, back 6 cards (a set hand is 3-5-5)",
        ),
        (
            {"front": BOB["front"], "middle": BOB["middle"] + BOB["back"][:1], "back": BOB["back"][1:]},
            "seat 2: front 3, middle 6, back 4 cards (a set hand is 3-5-5)",
        ),
        (
            {"front": BOB["front"], "middle": BOB["middle"]},
            "seat 2: front 3, middle 5, back 0 cards (a set hand is 3-5-5)",
        ),
        (
            {"front": "Jc 9c 2d", "middle": "Kd Kc 5c 6c", "back": BOB["back"]},
            "seat 2: front 3, middle 4, back 5",
        ),
        ({"cards": DRAGON[:12], "declare": "dragon"}, "seat 2: the declared hand has 12 cards (13 needed)"),
        ({"cards": DRAGON[:12], "declare": True}, "seat 2: the declared hand has 12 cards (13 needed)"),
        (
            {"cards": [*DRAGON, "Ah"], "surrender": True},
            "seat 2: the surrendered hand has 14 cards (13 needed)",
        ),
        ({"cards": DRAGON[:11]}, "seat 2: the hand has 11 cards (13 needed)"),
        ({}, "seat 2: no cards entered"),
    ],
)
def test_count_problems_names_the_seat_and_the_counts(player: dict[str, Any], message: str) -> None:
    entry = copy.deepcopy(GOOD)
    entry["players"][1] = {"seat": 2, **player}
    got = count_problems(entry)
    assert got is not None
    assert got.startswith(message)
    assert count_problems({"seat": 2, **player}) == got  # one player object works too


def test_count_problems_skips_a_hand_the_house_fouled() -> None:
    entry = copy.deepcopy(GOOD)
    entry["players"][1] = {"seat": 2, "front": ["Jc", "9c"], "fouled": True}
    assert count_problems(entry) is None


def test_count_problems_first_problem_in_input_order() -> None:
    entry = copy.deepcopy(GOOD)
    entry["players"][0]["front"] = ["Qs"]
    entry["players"][1]["back"] = ["Ad"]
    assert count_problems(entry) == "seat 1: front 1, middle 5, back 5 cards (a set hand is 3-5-5)"
    entry["players"][0] = {"front": ["Qs"], "middle": AMY["middle"], "back": AMY["back"]}  # no seat
    assert count_problems(entry) == "players[0]: front 1, middle 5, back 5 cards (a set hand is 3-5-5)"


def test_count_problems_does_not_change_the_engine() -> None:
    # the engine still plays a wrong count as a foul (RULINGS 3), not as an input error
    entry = copy.deepcopy(GOOD)
    entry["players"][1]["front"] = ["Jc", "9c"]
    assert count_problems(entry) is not None
    result = decide_chinese(entry)
    assert result["players"]["2"]["foul"] == "wrong counts: front 2, middle 5, back 5 (3-5-5 needed)"
