"""Chinese poker rule sets are data: the named sets, inline rules objects, errors."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest

from poker.chinese_rules import (
    RULE_SETS,
    BonusHand,
    ChineseRules,
    NaturalTies,
    Overall,
    RulesError,
    Segment,
    resolve_rules,
)
from poker.errors import ShowdownError
from poker.sweeps import SweepKind

HOUSE_TABLE = {
    (Segment.FRONT, BonusHand.THREE_OF_A_KIND): 3,
    (Segment.MIDDLE, BonusHand.FULL_HOUSE): 2,
    (Segment.MIDDLE, BonusHand.FOUR_OF_A_KIND): 8,
    (Segment.BACK, BonusHand.FOUR_OF_A_KIND): 4,
    (Segment.MIDDLE, BonusHand.STRAIGHT_FLUSH): 10,
    (Segment.BACK, BonusHand.STRAIGHT_FLUSH): 5,
}


def table(rules: ChineseRules, *, lowball: bool = False) -> dict[tuple[Segment, BonusHand], int]:
    rows = rules.lowball_bonuses if lowball else rules.bonuses
    return {(r.segment, r.hand): r.points for r in rows}


def test_the_seven_named_sets() -> None:
    assert set(RULE_SETS) == {"house", "blue-tiki-4-2", "blue-tiki-6-1", "2-4", "1-6", "eastern", "western"}


def test_house_is_004_and_rulings_3() -> None:
    house = resolve_rules(None)
    assert house is RULE_SETS["house"]
    assert house.button_wins_ties
    assert table(house) == HOUSE_TABLE
    assert dict(house.sweeps) == {
        SweepKind.DRAGON: 13,
        SweepKind.SIX_PAIRS: 3,
        SweepKind.THREE_STRAIGHTS: 3,
        SweepKind.THREE_FLUSHES: 3,
    }
    assert house.overall is Overall.NONE
    assert house.scoop_points == 0
    assert not house.double_same_type


def test_blue_tiki_tables_are_001s() -> None:
    four_two = RULE_SETS["blue-tiki-4-2"]
    assert table(four_two) == {
        (Segment.BACK, BonusHand.ROYAL_FLUSH): 5,
        (Segment.MIDDLE, BonusHand.ROYAL_FLUSH): 5,
        (Segment.BACK, BonusHand.STRAIGHT_FLUSH): 4,
        (Segment.MIDDLE, BonusHand.STRAIGHT_FLUSH): 4,
        (Segment.BACK, BonusHand.FOUR_OF_A_KIND): 3,
        (Segment.MIDDLE, BonusHand.FOUR_OF_A_KIND): 3,
        (Segment.MIDDLE, BonusHand.FULL_HOUSE): 1,
        (Segment.FRONT, BonusHand.THREE_OF_A_KIND): 1,
    }
    assert table(four_two, lowball=True) == {
        (Segment.BACK, BonusHand.ROYAL_FLUSH): 3,
        (Segment.BACK, BonusHand.STRAIGHT_FLUSH): 2,
        (Segment.BACK, BonusHand.FOUR_OF_A_KIND): 1,
        (Segment.MIDDLE, BonusHand.WHEEL_LOW): 1,
        (Segment.FRONT, BonusHand.EIGHTS_OR_BETTER): 1,
    }
    assert four_two.overall is Overall.NET
    assert four_two.overall_points == 1
    six_one = RULE_SETS["blue-tiki-6-1"]
    assert six_one.scoop_points == 3
    assert six_one.overall is Overall.NONE
    assert not four_two.sweeps
    assert not six_one.sweeps


def test_eastern_and_western_are_003s() -> None:
    eastern = RULE_SETS["eastern"]
    assert table(eastern) == HOUSE_TABLE
    assert eastern.double_same_type
    assert dict(eastern.sweeps) == {
        SweepKind.DRAGON: 13,
        SweepKind.THIRTEEN_COLOURS: 13,
        SweepKind.TWELVE_COLOURS: 3,
        SweepKind.SIX_PAIRS: 3,
        SweepKind.THREE_STRAIGHTS: 3,
        SweepKind.THREE_FLUSHES: 3,
    }
    assert eastern.surrender_points == 3
    western = RULE_SETS["western"]
    assert western.overall is Overall.SEGMENTS
    assert western.overall_points == 1
    assert not western.royalties
    assert not western.sweeps


def test_002_sets() -> None:
    two_four, one_six = RULE_SETS["2-4"], RULE_SETS["1-6"]
    assert (two_four.overall, two_four.overall_points, two_four.scoop_points) == (Overall.SEGMENTS, 1, 0)
    assert (one_six.overall, one_six.scoop_points) == (Overall.NONE, 3)
    for rules in (two_four, one_six):
        assert rules.natural_ties is NaturalTies.COMPARE
        assert not rules.scoop_double
        assert {k for k, _ in rules.sweeps} >= {
            SweepKind.THREE_STRAIGHTS,
            SweepKind.THREE_FLUSHES,
            SweepKind.SIX_PAIRS,
            SweepKind.FOUR_TRIPS,
            SweepKind.THREE_QUADS,
            SweepKind.THREE_STRAIGHT_FLUSHES,
            SweepKind.DRAGON,
        }


def test_rules_are_frozen() -> None:
    with pytest.raises(FrozenInstanceError):
        RULE_SETS["house"].scoop_points = 9  # type: ignore[misc]


class TestInline:
    def test_options_override_the_base(self) -> None:
        r = resolve_rules({"base": "2-4", "scoop-double": True, "surrender_points": 2})
        assert r.scoop_double
        assert r.surrender_points == 2
        assert r.overall is Overall.SEGMENTS  # from the base
        assert r.name == "2-4+scoop-double+surrender-points"

    def test_base_defaults_to_house(self) -> None:
        r = resolve_rules({"lowball-middle": True})
        assert r.lowball_middle
        assert r.button_wins_ties

    def test_no_change_is_the_named_set(self) -> None:
        assert resolve_rules({"base": "eastern"}) is RULE_SETS["eastern"]

    def test_sweeps_merge_and_zero_removes(self) -> None:
        r = resolve_rules({"base": "house", "sweeps": {"no-pictures": 4, "six_pairs": 0}})
        assert r.sweep_values == {
            SweepKind.DRAGON: 13,
            SweepKind.THREE_STRAIGHTS: 3,
            SweepKind.THREE_FLUSHES: 3,
            SweepKind.NO_PICTURES: 4,
        }

    def test_bonus_table_replaces(self) -> None:
        r = resolve_rules({"base": "western", "royalties": True, "bonuses": {"back": {"four-of-a-kind": 2}}})
        assert r.bonus_table == (r.bonuses[0],)
        assert table(r) == {(Segment.BACK, BonusHand.FOUR_OF_A_KIND): 2}

    def test_round_trip_through_json(self) -> None:
        for rules in RULE_SETS.values():
            data = rules.to_json()
            data["base"] = data.pop("name")
            again = resolve_rules(data)
            assert again == rules

    @pytest.mark.parametrize(
        ("value", "message"),
        [
            ("texas", "unknown rule set"),
            (42, "rule set name or an object"),
            ({"base": "house", "colour": True}, "unknown rules option 'colour'"),
            ({"overall": "most"}, "must be one of none, segments, net"),
            ({"natural-ties": 1}, "must be one of push, compare"),
            ({"scoop-points": -1}, ">= 0"),
            ({"sweeps": {"rainbow": 3}}, "unknown clean sweep 'rainbow'"),
            ({"sweeps": [1]}, "must be an object"),
            ({"bonuses": {"top": {"full-house": 1}}}, "bonuses.top"),
            ({"bonuses": {"back": {"flush": 1}}}, "bonuses.back.flush"),
        ],
    )
    def test_errors(self, value: object, message: str) -> None:
        with pytest.raises(RulesError, match=message) as info:
            resolve_rules(value)
        assert isinstance(info.value, ShowdownError)
