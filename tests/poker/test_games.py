"""The game descriptor (poker.games): a GameRules for every game of the house data, agreeing with
the floor's rows and with what the engine itself accepts and refuses."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from poker.chinese_rules import RulesError
from poker.errors import ShowdownError
from poker.games import DEALERS_CHOICE, GAME_RULES, MAX_BOARDS, STUD_CHOICE, EngineKind, rules_for
from poker.kill import KillKind
from poker.showdown import GAMES, POT_GAMES, decide, game_admits_joker
from tests.poker.reading_cases import DECK, SWEEP_HANDS, chinese_hand, pot_hand, taiwanese_hand

HOUSE_DATA = Path(__file__).resolve().parents[2] / "tables" / "data" / "house_data.json"
HOUSE_GAMES: list[dict[str, Any]] = json.loads(HOUSE_DATA.read_text(encoding="utf-8"))["games"]


@pytest.mark.parametrize("game", HOUSE_GAMES, ids=lambda g: g["slug"])
def test_every_house_game_has_rules_that_agree_with_its_row(game: dict[str, Any]) -> None:
    rules = rules_for(game["slug"])
    assert rules.slug == game["slug"]
    assert game["kind"] == ("player_dealer" if rules.played_for_points else "pot")
    assert game["is_dealers_choice"] == rules.dealers_choice == (not rules.has_showdown)
    if rules.has_showdown:
        assert game["is_stud_game"] == rules.odd_chips_by_suit
        assert game["is_button_game"] == (not rules.odd_chips_by_suit)
    if rules.most_players is not None:
        assert (game["max_hands"] or game["seat_count"]) <= rules.most_players


def test_the_rules_are_the_engines_games() -> None:
    assert {slug for slug, r in GAME_RULES.items() if r.has_showdown} == set(GAMES)
    assert {g["slug"] for g in HOUSE_GAMES} == set(GAME_RULES)
    assert [r.slug for r in GAME_RULES.values() if r.is_pot_game] == list(POT_GAMES)
    assert {r.engine for r in GAME_RULES.values()} == {*EngineKind, None}
    with pytest.raises(ShowdownError, match="unknown game 'blackjack'; known games: holdem, omaha"):
        rules_for("blackjack")


def test_dealers_choice_picks_among_the_pot_games() -> None:
    choice = rules_for(DEALERS_CHOICE)
    assert [r.slug for r in choice.choices] == list(POT_GAMES)
    assert choice.player_fields == choice.hand_fields == ()
    stud = rules_for(STUD_CHOICE)
    assert all(r.choices == () for r in GAME_RULES.values() if r not in (choice, stud))


def test_seven_card_stud_choice_picks_among_the_three_stud_games() -> None:
    stud = rules_for(STUD_CHOICE)
    assert [r.slug for r in stud.choices] == ["stud", "stud-hi-lo", "razz"]
    assert all(r.odd_chips_by_suit for r in stud.choices)
    assert not stud.has_showdown
    assert stud.player_fields == ()
    house = {g["slug"]: g for g in HOUSE_GAMES}
    assert house[STUD_CHOICE]["choice_of"] == list(stud.choice_of)


@pytest.mark.parametrize("slug", list(POT_GAMES))
def test_pot_game_facts_are_the_engines(slug: str) -> None:
    rules, spec = rules_for(slug), POT_GAMES[slug]
    assert rules.spec is spec
    assert rules.hand_cards == spec.hole
    assert rules.has_board == bool(spec.board)
    assert not rules.agrees_boards
    assert rules.hand_fields == (("board",) if spec.board else ())
    assert rules.joker_dealt(at_dealers_choice=False) == game_admits_joker(slug)
    assert not rules.joker_dealt(at_dealers_choice=True)
    rng = random.Random(slug)
    hand = pot_hand(rng, slug)
    hand.pop("joker", None)
    for p in hand["players"]:
        p.pop("put_in_after_draw", None)
        p.pop("checked_seven", None)
    decide(hand)  # the hand as generated is accepted
    # The sevens rule's fields are player fields exactly where the engine takes them.
    with_after = json.loads(json.dumps(hand))
    with_after["players"][0]["put_in_after_draw"] = 0
    if "put_in_after_draw" in rules.player_fields:
        decide(with_after)
    else:
        with pytest.raises(ShowdownError, match="put_in_after_draw is only for lowball"):
            decide(with_after)
    # A hand holds hand_cards cards: one more is refused.
    live = next(p for p in hand["players"] if "cards" in p)
    live["cards"] = [*live["cards"], "JK" if "JK" not in live["cards"] else "2c"]
    with pytest.raises(ShowdownError):
        decide(hand)


def test_pot_games_say_how_a_split_goes() -> None:
    assert [s for s, r in GAME_RULES.items() if r.odd_chips_by_suit] == [
        "stud",
        "stud-hi-lo",
        "razz",
        "five-card-stud",
        "option-alley",
    ]
    assert [s for s, r in GAME_RULES.items() if r.low_qualifies] == [
        "omaha-hi-lo",
        "stud-hi-lo",
        "five-card-draw-hi-lo",
    ]
    assert [s for s, r in GAME_RULES.items() if r.joker] == ["lowball"]
    assert [s for s, r in GAME_RULES.items() if r.sevens] == ["lowball"]


def test_chinese_poker_facts_are_the_engines() -> None:
    rules = rules_for("chinese-poker")
    assert rules.engine is EngineKind.CHINESE
    assert [(r.name, r.cards) for r in rules.rows] == [("front", 3), ("middle", 5), ("back", 5)]
    assert rules.hand_cards == 13
    assert rules.played_for_points
    assert not rules.chip_in_input
    assert rules.rule_set == "house"
    assert rules.surrender
    assert rules.house_foul
    assert not rules.has_board
    assert not rules.agrees_boards
    assert not rules.joker
    hand = chinese_hand(random.Random(4), "house")
    assert set().union(*(p.keys() for p in hand["players"])) - {"stack"} <= set(rules.player_fields)
    # Every sweep the house lets a player declare is accepted (a sweep the cards don't hold fouls);
    # another the engine knows is refused under the house rules.
    other = SWEEP_HANDS[1][1]
    opponent = {"seat": 2, "front": other[:3], "middle": other[3:8], "back": other[8:]}

    def declaring(sweep: str) -> dict[str, Any]:
        declares = {"seat": 1, "cards": SWEEP_HANDS[0][1], "declare": sweep}
        return {
            "game": "chinese-poker",
            "rules": "house",
            "point": 100,
            "button": 1,
            "players": [declares, opponent],
        }

    for sweep in rules.sweeps:
        decide(declaring(str(sweep)))
    assert [str(s) for s in rules.sweeps] == ["dragon", "six-pairs", "three-straights", "three-flushes"]
    with pytest.raises(RulesError, match="four-trips is not a clean sweep under rule set house"):
        decide(declaring("four-trips"))
    # At most four hands.
    five = [{"seat": s, "surrender": True} for s in range(1, rules.most_players + 2)]
    with pytest.raises(ShowdownError, match="2 to 4 hands, got 5"):
        decide({"game": "chinese-poker", "rules": "house", "point": 100, "button": 1, "players": five})
    # The entry check: a wrong count is a slip to correct, not a foul.
    wrong = {"players": [{"seat": 2, "front": ["Ac", "Kc"], "middle": [], "back": []}]}
    assert rules.entry_problem(wrong) == "seat 2: front 2, middle 0, back 0 cards (a set hand is 3-5-5)"
    assert rules.entry_problem({"players": [{"seat": 2, "fouled": True}]}) is None


def test_taiwanese_poker_facts_are_the_engines() -> None:
    rules = rules_for("taiwanese-poker")
    assert rules.engine is EngineKind.TAIWANESE
    assert [(r.name, r.cards) for r in rules.rows] == [("top", 1), ("middle", 2), ("bottom", 4)]
    assert rules.hand_cards == 7
    assert rules.board_cards == 5
    assert rules.max_boards == MAX_BOARDS == 3
    assert rules.agrees_boards
    assert not rules.has_board
    assert rules.hand_fields == ("board", "boards")
    assert rules.played_for_points
    assert rules.chip_in_input
    assert rules.sweeps == ()
    assert not rules.surrender
    assert not rules.house_foul
    assert rules.entry_problem({"players": [{"seat": 1, "top": []}]}) is None
    rng = random.Random(6)
    hand = taiwanese_hand(rng)
    while len(hand["players"]) != 2:
        hand = taiwanese_hand(rng)
    used = {c for p in hand["players"] for row in rules.rows for c in p[row.name]}
    spare = [c for c in DECK if c not in used]
    boards = [spare[5 * b : 5 * b + 5] for b in range(rules.max_boards)]
    hand.pop("board", None)
    decide({**hand, "boards": boards})  # the most boards, with two players
    assert {key for p in hand["players"] for key in p} - {"stack"} == set(rules.player_fields)
    short = json.loads(json.dumps(hand))
    short["boards"] = boards
    short["players"][0]["middle"] = short["players"][0]["middle"][:1]
    with pytest.raises(ShowdownError, match="the middle hand has 2 cards, got 1"):
        decide(short)
    seven = [{"seat": s, "top": [], "middle": [], "bottom": []} for s in range(1, rules.most_players + 2)]
    with pytest.raises(ShowdownError, match="2 to 6 players, got 7"):
        decide(
            {
                "game": "taiwanese-poker",
                "point": 100,
                "chip": 100,
                "button": 1,
                "board": boards[0],
                "players": seven,
            }
        )


def test_the_kill_multipliers_in_percent() -> None:
    assert [(str(k), k.multiplier_pct) for k in KillKind] == [("none", 100), ("half", 150), ("full", 200)]
    for kind in KillKind:
        assert KillKind.from_multiplier_pct(kind.multiplier_pct) is kind
    assert KillKind.from_multiplier_pct(175) is None
