"""Taiwanese poker input validation: clear errors naming the seat (or board) and the card."""

from __future__ import annotations

from typing import Any

import pytest

from poker.errors import ShowdownError
from poker.taiwanese import decide_taiwanese


def base() -> dict[str, Any]:
    return {
        "game": "taiwanese-poker",
        "point": 100,
        "chip": 100,
        "button": 1,
        "boards": [["Ac", "Ad", "Kh", "3s", "2d"]],
        "players": [
            {
                "seat": 1,
                "top": ["Qs"],
                "middle": ["As", "Kd"],
                "bottom": ["9c", "9d", "4s", "5s"],
                "stack": 10000,
            },
            {
                "seat": 2,
                "top": ["Qh"],
                "middle": ["Ah", "Kc"],
                "bottom": ["8c", "8d", "4h", "5h"],
                "stack": 10000,
            },
        ],
    }


def with_player(seat_index: int, **change: Any) -> dict[str, Any]:
    hand = base()
    hand["players"][seat_index].update(change)
    return hand


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        (with_player(1, top=["Qh", "Jh"]), r"seat 2: the top hand has 1 card, got 2"),
        (with_player(1, bottom=["8c", "8d", "4h"]), r"seat 2: the bottom hand has 4 cards, got 3"),
        (with_player(1, middle=None), r"seat 2: missing field 'middle'"),
        (with_player(1, top=["Qx"]), r"seat 2 top: unknown card 'Qx'"),
        (with_player(1, top=["JK"]), r"seat 2 top: the joker"),
        (with_player(1, top=["Qs"]), r"card Qs is held by seat 1 and seat 2 \(misdeal\)"),
        (with_player(1, middle=["Ah", "Ah"]), r"seat 2: card Ah appears twice in the hand"),
        (with_player(1, top=["Kh"]), r"card Kh is both in seat 2 and on board 1 \(misdeal\)"),
        (with_player(1, seat=1), r"seat 1 appears twice"),
        (with_player(1, stack=-5), r"seat 2: stack must be at least 0"),
    ],
)
def test_player_errors(hand: dict[str, Any], message: str) -> None:
    with pytest.raises(ShowdownError, match=message):
        decide_taiwanese(hand)


def test_a_card_on_two_boards() -> None:
    hand = base()
    hand["boards"].append(["7c", "7d", "Kh", "6s", "6d"])
    with pytest.raises(ShowdownError, match=r"card Kh is both in board 1 and on board 2 \(misdeal\)"):
        decide_taiwanese(hand)


def test_board_size() -> None:
    hand = base()
    hand["boards"] = [["7c", "7d", "6s", "6d"]]
    with pytest.raises(ShowdownError, match="board 1: a board has 5 cards, got 4"):
        decide_taiwanese(hand)


def test_single_board_key_is_accepted() -> None:
    hand = base()
    hand["board"] = hand.pop("boards")[0]
    assert decide_taiwanese(hand)["positions"][0]["board"] == 1


@pytest.mark.parametrize("count", [1, 7])
def test_two_to_six_players(count: int) -> None:
    hand = base()
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs" if r + s not in ("Ac", "Ad", "Kh", "3s", "2d")]
    hand["players"] = [
        {
            "seat": i + 1,
            "top": deck[7 * i : 7 * i + 1],
            "middle": deck[7 * i + 1 : 7 * i + 3],
            "bottom": deck[7 * i + 3 : 7 * i + 7],
        }
        for i in range(count)
    ]
    with pytest.raises(ShowdownError, match="2 to 6 players"):
        decide_taiwanese(hand)


def test_six_players_and_two_boards_use_the_whole_deck() -> None:
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    hand = base()
    hand["boards"] = [deck[42:47], deck[47:52]]
    hand["players"] = [
        {
            "seat": i + 1,
            "top": deck[7 * i : 7 * i + 1],
            "middle": deck[7 * i + 1 : 7 * i + 3],
            "bottom": deck[7 * i + 3 : 7 * i + 7],
        }
        for i in range(6)
    ]
    r = decide_taiwanese(hand)
    assert sum(p["net"] for p in r["players"].values()) == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"chip": None}, "missing field 'chip'"),
        ({"point": 150}, r"point \(150\) must be a whole number of chips \(100\)"),
        ({"point": "100"}, "point must be an integer"),
        ({"game": "holdem"}, "not a Taiwanese poker hand"),
        ({"boards": []}, "non-empty list"),
        ({"board": ["2c"]}, "not both"),
    ],
)
def test_field_errors(change: dict[str, Any], message: str) -> None:
    hand = base()
    for k, v in change.items():
        if v is None:
            del hand[k]
        else:
            hand[k] = v
    with pytest.raises(ShowdownError, match=message):
        decide_taiwanese(hand)
