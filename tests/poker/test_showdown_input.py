"""The showdown's input typed (poker.showdown_input): every input the engine reads (the worked
examples, a generated corpus of every game, and anything of the JSON's shapes) typed and written
back as it came, its seats, put-ins, stacks and declarations read typed, and a value of the wrong
JSON type refused naming it. No database."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poker.errors import ShowdownError
from poker.showdown import decide
from poker.showdown_input import SET_ROW_KEYS, SeatIn, ShowdownInput
from tests.poker.reading_cases import WORKED, any_hand

CORPUS = [any_hand(random.Random(seed)) for seed in range(300)]

cards = st.lists(st.sampled_from(["As", "Kd", "7h", "2c", "Tc", "JK"]), max_size=13)
money = st.integers(min_value=0, max_value=2**62)


@st.composite
def seats(draw: st.DrawFn) -> dict[str, Any]:
    """A player object of any game, each key given or not."""
    seat: dict[str, Any] = {"seat": draw(st.integers(min_value=1, max_value=10))}
    for key in draw(st.lists(st.sampled_from(SET_ROW_KEYS), unique=True, max_size=3)):
        seat[key] = draw(cards)
    optional: dict[str, st.SearchStrategy[Any]] = {
        "cards": cards,
        "put_in": money,
        "folded": st.booleans(),
        "put_in_after_draw": money,
        "checked_seven": st.booleans(),
        "declare": st.one_of(st.booleans(), st.sampled_from(["dragon", "six-pairs", "bogus", ""])),
        "surrender": st.booleans(),
        "fouled": st.booleans(),
        "stack": money,
    }
    for key, values in optional.items():
        if draw(st.booleans()):
            seat[key] = draw(values)
    return seat


@st.composite
def inputs(draw: st.DrawFn) -> dict[str, Any]:
    """An input object of any game's shape, each optional key given or not."""
    hand: dict[str, Any] = {
        "game": draw(st.sampled_from(["holdem", "lowball", "chinese-poker", "taiwanese-poker", "x"]))
    }
    optional: dict[str, st.SearchStrategy[Any]] = {
        "button": st.integers(min_value=-(2**62), max_value=2**62),
        "chip": money,
        "point": money,
        "rules": st.one_of(
            st.sampled_from(["house", "eastern"]), st.fixed_dictionaries({"base": st.just("house")})
        ),
        "board": cards,
        "boards": st.lists(cards, max_size=3),
        "joker": st.booleans(),
    }
    for key, values in optional.items():
        if draw(st.booleans()):
            hand[key] = draw(values)
    hand["players"] = draw(st.lists(seats(), max_size=6))
    return hand


@given(inputs())
def test_any_input_of_the_engines_shapes_is_written_back_as_it_came(hand: dict[str, Any]) -> None:
    kept = copy.deepcopy(hand)
    typed = ShowdownInput.from_json(hand)
    assert typed.to_json() == hand
    assert ShowdownInput.from_json(typed.to_json()) == typed
    assert hand == kept  # read, not changed


@pytest.mark.parametrize("hand", [*WORKED, *CORPUS], ids=lambda h: str(h.get("game")))
def test_every_input_the_engine_reads_is_written_back_as_it_came(hand: dict[str, Any]) -> None:
    typed = ShowdownInput.from_json(hand)
    assert typed.to_json() == hand
    assert decide(typed.to_json()) == decide(hand)
    assert [p.seat for p in typed.players] == [p["seat"] for p in hand["players"]]


def test_a_pot_games_seats_are_read_typed() -> None:
    typed = ShowdownInput.from_json(
        {
            "game": "lowball",
            "chip": 100,
            "button": 2,
            "joker": False,
            "players": [
                {"seat": 1, "cards": ["7c", "5d", "4c", "3h", "2h"], "put_in": 1800, "checked_seven": True},
                {"seat": 2, "put_in": 1400, "folded": True, "put_in_after_draw": 400},
            ],
        }
    )
    first, second = typed.players
    assert (first.seat, first.cards, first.put_in_cents, first.is_folded) == (
        1,
        ("7c", "5d", "4c", "3h", "2h"),
        1800,
        False,
    )
    assert (second.put_in_after_draw, second.is_folded, second.cards) == (400, True, None)
    assert typed.joker is False
    assert typed.seat(2) == second
    assert typed.seat(3) is None


def test_a_set_hands_rows_stack_and_declaration_are_read_typed() -> None:
    typed = ShowdownInput.from_json(
        {
            "game": "chinese-poker",
            "rules": {"base": "house", "surrender": 2},
            "point": 500,
            "button": 1,
            "players": [
                {"seat": 1, "front": ["As", "Ad", "Ah"], "middle": [], "back": [], "stack": 10_000},
                {"seat": 2, "cards": ["2c"] * 13, "declare": "dragon", "stack": 2_000},
                {"seat": 3, "declare": True, "surrender": True, "fouled": False, "stack": None},
            ],
        }
    )
    one, two, three = typed.players
    assert one.rows == (("front", ("As", "Ad", "Ah")), ("middle", ()), ("back", ()))
    assert (one.stack, one.declared, one.put_in_cents) == (10_000, "", 0)
    assert (two.declared, two.stack) == ("dragon", 2_000)
    assert (three.declare, three.declared, three.surrender, three.stack) == (True, "", True, None)
    assert typed.rules == {"base": "house", "surrender": 2}
    assert "stack" not in typed.to_json()["players"][2]  # type: ignore[index, operator]  # null: absent


def _holdem_seat(**given: Any) -> dict[str, Any]:
    return {"game": "holdem", "players": [{"seat": 1} | given]}


@pytest.mark.parametrize(
    ("hand", "named"),
    [
        ([], "input must be an object"),
        ({"players": []}, "input.game must be a string"),
        ({"game": "holdem"}, "input.players must be a list"),
        ({"game": "holdem", "players": [1]}, "players[0] must be an object"),
        ({"game": "holdem", "players": [{"seat": "1"}]}, "players[0].seat must be an integer"),
        (
            _holdem_seat(put_in=True),
            "players[0].put_in must be an integer",
        ),
        (
            _holdem_seat(folded=1),
            "players[0].folded must be true or false",
        ),
        (_holdem_seat(cards="As"), "players[0].cards must be a list"),
        (_holdem_seat(cards=[1]), "players[0].cards[0] must be a string"),
        ({"game": "chinese-poker", "players": [{"seat": 1, "declare": 5}]}, "players[0].declare must be"),
        ({"game": "chinese-poker", "players": [{"seat": 1, "front": {}}]}, "players[0].front must be a list"),
        ({"game": "holdem", "board": "AsKd", "players": []}, "input.board must be a list"),
        ({"game": "taiwanese-poker", "boards": [["As"], 1], "players": []}, "input.boards[1] must be a list"),
        ({"game": "chinese-poker", "rules": 1, "players": []}, "input.rules must be an object"),
        ({"game": "holdem", "chip": 1.0, "players": []}, "input.chip must be an integer"),
    ],
)
def test_a_value_of_the_wrong_json_type_is_refused_naming_it(hand: Any, named: str) -> None:
    with pytest.raises(ShowdownError, match="^" + named.replace("[", r"\[").replace("]", r"\]")):
        ShowdownInput.from_json(hand)


def test_a_seat_on_its_own() -> None:
    seat = SeatIn.from_json({"seat": 4, "put_in": 200, "folded": True, "unknown": 1})
    assert seat == SeatIn(seat=4, put_in=200, folded=True)
    assert seat.to_json() == {"seat": 4, "put_in": 200, "folded": True}  # what the engine doesn't read
