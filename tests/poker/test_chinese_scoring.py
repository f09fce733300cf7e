"""Chinese poker scoring: every worked example of seeds 001-004 as RULINGS sections 3-4 read them.

Expected figures are worked out by hand from the seeds (the arithmetic is in each test), never
taken from the code under test.
"""

from __future__ import annotations

from typing import Any

import pytest

from poker.chinese import decide_chinese

# Two-player hands used across the tests (each is a legal setting; the comments read them).
AMY = {"front": "Qs Qh 2c", "middle": "Ks Kh 3c 4d 6h", "back": "As Ah 7c 8d 9h"}  # QQ / KK643 / AA987
# Bob loses the front (J high < QQ), wins the middle (KK765 > KK643), loses the back (AA532).
BOB = {"front": "Jc 9c 2d", "middle": "Kd Kc 5c 6c 7s", "back": "Ad Ac 2h 3h 5s"}
# Carl loses all three to Amy: J high < QQ, TT < KK, JJ < AA.
CARL = {"front": "Jd 8c 3d", "middle": "Tc Th 4c 5d 8s", "back": "Jc Jh 9s 6s 4s"}


def hand(rules: Any, *players: dict[str, Any], point: int = 100, button: int = 1) -> dict[str, Any]:
    return {
        "game": "chinese-poker",
        "rules": rules,
        "point": point,
        "button": button,
        "players": list(players),
    }


def p(seat: int, setting: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": seat}
    if setting:
        out.update({k: v.split() for k, v in setting.items()})
    for k, v in extra.items():
        out[k] = v.split() if k in ("front", "middle", "back", "cards") else v
    return out


def pair_total(result: dict[str, Any], a: int, b: int) -> int:
    """Points of the pair from ``a``'s side."""
    for m in result["matchups"]:
        if m["seats"] == [a, b]:
            return int(m["total"])
        if m["seats"] == [b, a]:
            return -int(m["total"])
    raise AssertionError(f"no matchup {a}-{b}")


def pair_points(result: dict[str, Any], a: int, b: int) -> dict[str, int]:
    for m in result["matchups"]:
        if m["seats"] == [a, b]:
            return dict(m["points"])
    raise AssertionError(f"no matchup {a}-{b}")


# --------------------------------------------------------------------------------------
# 001: 4-2 and 6-1 scoring
# --------------------------------------------------------------------------------------


class TestBlueTiki:
    def test_4_2_three_of_three_is_3_plus_1(self) -> None:
        r = decide_chinese(hand("blue-tiki-4-2", p(1, AMY), p(2, CARL)))
        assert pair_total(r, 1, 2) == 3 + 1
        assert pair_points(r, 1, 2)["overall"] == 1

    def test_4_2_two_of_three_is_2_minus_1_plus_1(self) -> None:
        r = decide_chinese(hand("blue-tiki-4-2", p(1, AMY), p(2, BOB)))
        assert pair_total(r, 1, 2) == 2 - 1 + 1
        pts = pair_points(r, 1, 2)
        assert (pts["front"], pts["middle"], pts["back"], pts["overall"]) == (1, -1, 1, 1)

    def test_6_1_three_of_three_is_3_plus_3(self) -> None:
        r = decide_chinese(hand("blue-tiki-6-1", p(1, AMY), p(2, CARL)))
        assert pair_total(r, 1, 2) == 3 + 3

    def test_6_1_two_of_three_is_2_minus_1(self) -> None:
        r = decide_chinese(hand("blue-tiki-6-1", p(1, AMY), p(2, BOB)))
        assert pair_total(r, 1, 2) == 2 - 1

    def test_money_is_points_times_point(self) -> None:
        r = decide_chinese(hand("blue-tiki-4-2", p(1, AMY), p(2, CARL), point=500))
        assert r["payments"] == [{"from": 2, "to": 1, "amount": 2000, "due": 2000, "reason": "pair 1-2"}]
        assert (r["players"]["1"]["net"], r["players"]["2"]["net"]) == (2000, -2000)

    # Dave wins only the back, with quads (001 royalty 3); Eve wins front and middle.
    DAVE = {"front": "4d 3d 2d", "middle": "Kc Qd Jh 8s 6c", "back": "9c 9d 9h 9s 2s"}
    EVE = {"front": "Ac Kd 5h", "middle": "Ah Ad 3h 6h 7d", "back": "Ts Tc Th 2h 3s"}

    def test_royalties_count_before_the_bonus_point(self) -> None:
        # 001: "a player who wins only one out of three ... but wins at least three more royalty
        # points than his opponent wins the bonus point": -1 -1 +1 +3 = 2 > 0, so +1: 3.
        r = decide_chinese(hand("blue-tiki-4-2", p(1, self.DAVE), p(2, self.EVE)))
        assert pair_points(r, 1, 2)["bonus"] == 3
        assert pair_total(r, 1, 2) == -1 - 1 + 1 + 3 + 1

    def test_without_royalties_the_bonus_point_goes_the_other_way(self) -> None:
        rules = {"base": "blue-tiki-4-2", "royalties": False}
        r = decide_chinese(hand(rules, p(1, self.DAVE), p(2, self.EVE)))
        assert pair_total(r, 1, 2) == -1 - 1 + 1 - 1

    def test_6_1_with_royalties(self) -> None:
        r = decide_chinese(hand("blue-tiki-6-1", p(1, self.DAVE), p(2, self.EVE)))
        assert pair_total(r, 1, 2) == -1 - 1 + 1 + 3


# A weak opponent for the royalty tables: 5-3-2 / J-9-8-7-4 / Q-8-6-4-2, no pairs.
WEAK = {"front": "2c 3d 5h", "middle": "4s 7c 8d 9h Js", "back": "2d 4c 6c 8h Qd"}


class TestBlueTikiRoyaltyTable:
    """001's standard royalty table; a scoop under 4-2 is 3 + 1, so royalties = total - 4."""

    @pytest.mark.parametrize(
        ("setting", "royalty"),
        [
            pytest.param(
                {"front": "Kc Kd Kh", "middle": "9c Ts Jh Qc Ks", "back": "As Qs 7s 5s 3s"},
                1,
                id="front-trips",
            ),
            pytest.param(
                {"front": "Kc Kd 2h", "middle": "Tc Td Th 3c 3h", "back": "Ac Ad Ah 6d 6h"}, 1, id="middle-fh"
            ),
            pytest.param(
                {"front": "Kc Kd 2h", "middle": "Tc Td Th Ts 3c", "back": "Ac Ad Ah As 3h"},
                3 + 3,
                id="middle-quads",
            ),
            pytest.param(
                {"front": "Kc Kd 2h", "middle": "Ac Ah 3c 4h 5d", "back": "Tc Td Th Ts 3h"},
                3,
                id="back-quads",
            ),
            pytest.param(
                {"front": "Kc Kd 2h", "middle": "Ac Ah 3c 4h 5d", "back": "5s 6s 7s 8s 9s"}, 4, id="back-sf"
            ),
            pytest.param(
                {"front": "Kc Kd 2h", "middle": "Ac Ad 3c 4h 5d", "back": "Th Jh Qh Kh Ah"},
                5,
                id="back-royal",
            ),
            pytest.param(
                {"front": "Kc Kd 2h", "middle": "5s 6s 7s 8s 9s", "back": "Ac Ad Ah As 3h"},
                0,
                id="middle-sf-needs-back",
            ),
        ],
    )
    def test_standard_table(self, setting: dict[str, str], royalty: int) -> None:
        r = decide_chinese(hand("blue-tiki-4-2", p(1, setting), p(2, WEAK)))
        if royalty == 0:  # a middle straight flush above a back that is not: a fouled hand
            assert r["players"]["1"]["fouled"]
            return
        assert not r["players"]["1"]["fouled"]
        assert pair_points(r, 1, 2)["bonus"] == royalty
        assert pair_total(r, 1, 2) == 4 + royalty

    def test_middle_and_back_straight_flushes(self) -> None:
        # middle 9-high straight flush (4) below a back royal flush (5): 9 royalty points
        setting = {"front": "Kc Kd 2h", "middle": "5s 6s 7s 8s 9s", "back": "Th Jh Qh Kh Ah"}
        r = decide_chinese(hand("blue-tiki-4-2", p(1, setting), p(2, WEAK)))
        assert pair_points(r, 1, 2)["bonus"] == 4 + 5

    def test_only_the_stronger_of_two_royalty_hands_is_paid(self) -> None:
        # both backs are quads (3 each): only the winner's counts (001)
        strong = {"front": "Kc Kd 2h", "middle": "Ac Ah 3c 4h 5d", "back": "Tc Td Th Ts 3h"}
        other = {"front": "2c 3d 5h", "middle": "4s 7c 8d 9h Js", "back": "6c 6d 6h 6s Qd"}
        r = decide_chinese(hand("blue-tiki-4-2", p(1, strong), p(2, other)))
        assert pair_points(r, 1, 2)["bonus"] == 3


class TestLowballMiddle:
    """001's lowball middle, read ace-to-five as RULINGS 4 rules (the wheel is the best)."""

    RULES = {"base": "blue-tiki-4-2", "lowball-middle": True}
    # front 999 (001 lowball: "888 or better" 1), middle the wheel 5-4-3-2-A (1), back quads (1)
    LOW = {"front": "9c 9d 9s", "middle": "5c 4d 3s 2s Ah", "back": "Tc Td Th Ts 3h"}
    # a pair of kings in the middle is a poor low
    POOR = {"front": "2c 3d 5h", "middle": "Kd Ks 9h Jd Qd", "back": "2d 4c 6c 8h Qc"}

    def test_lowball_royalty_table(self) -> None:
        r = decide_chinese(hand(self.RULES, p(1, self.LOW), p(2, self.POOR)))
        assert not r["players"]["2"]["fouled"]  # middle above the back is legal in lowball
        pts = pair_points(r, 1, 2)
        assert (pts["front"], pts["middle"], pts["back"]) == (1, 1, 1)
        assert pts["bonus"] == 1 + 1 + 1
        assert pair_total(r, 1, 2) == 3 + 3 + 1
        assert r["players"]["1"]["segments"]["middle"] == "5-4-3-2-A"

    def test_a_suited_wheel_is_still_the_wheel(self) -> None:
        suited = {**self.LOW, "middle": "5s 4s 3s 2s As", "back": "7c 7d 7h 7s 3h"}
        r = decide_chinese(hand(self.RULES, p(1, suited), p(2, self.POOR)))
        assert r["players"]["1"]["segments"]["middle"] == "5-4-3-2-A"
        assert pair_points(r, 1, 2)["bonus"] == 3  # the wheel's royalty too

    def test_seven_five_is_no_royalty_under_ace_to_five(self) -> None:
        # 001's "23457" (a deuce-to-seven reading) is only a 7-low ace-to-five: no royalty
        seven = {**self.LOW, "middle": "7c 5d 4h 3c 2h"}
        r = decide_chinese(hand(self.RULES, p(1, seven), p(2, self.POOR)))
        assert r["players"]["1"]["segments"]["middle"] == "7-5-4-3-2"
        assert pair_points(r, 1, 2)["bonus"] == 2  # front trips and back quads only

    def test_eights_or_better_in_front_only(self) -> None:
        low7 = {"front": "7d 7h 7s", "middle": "6s 5d 4h 3c 2h", "back": "Tc Td Th Ts 3h"}
        r = decide_chinese(hand(self.RULES, p(1, low7), p(2, self.POOR)))
        # 777 is below 888: no front royalty; 6-5-4-3-2 is a 6-low (straights don't count),
        # which wins the middle from a pair of kings but is not the wheel
        assert pair_points(r, 1, 2)["middle"] == 1
        assert r["players"]["1"]["segments"]["middle"] == "6-5-4-3-2"
        assert pair_points(r, 1, 2)["bonus"] == 1  # the back quads only

    @pytest.mark.parametrize(
        ("lower", "higher"),
        [
            ("Ac 2d 3h 4c 5s", "7c 5d 4h 3c 2h"),  # the wheel is the best low, above 7-5-4-3-2
            ("Ac 2d 3h 4c 6s", "2c 3d 4h 5c 7s"),  # ace is low: 6-4-3-2-A beats 7-5-4-3-2
            ("2c 3d 4h 5c 6s", "2h 3c 4d 5s 7h"),  # 2-3-4-5-6 is a 6-low, not a straight
            ("2c 4c 6c 8c Tc", "2d 4d 6d 8d Jh"),  # a flush doesn't count: T-8-6-4-2
            ("9c Td Jh Qc Ks", "2c 2h 4h 5c 6s"),  # any five unpaired ranks beat a pair
            ("8c 6d 5h 4c 2h", "8s 6c 5d 4h 3d"),  # compared from the top down
        ],
    )
    def test_middle_plays_low(self, lower: str, higher: str) -> None:
        cards_in_use = set(lower.split()) | set(higher.split())
        # fronts from the lowest unused cards, backs from the highest (legal under lowball:
        # back over front); only the middle is looked at.
        pool = [c for c in _deck() if c not in cards_in_use]
        a = {"front": " ".join(pool[0:3]), "middle": lower, "back": " ".join(pool[-5:])}
        b = {"front": " ".join(pool[3:6]), "middle": higher, "back": " ".join(pool[-10:-5])}
        r = decide_chinese(hand(self.RULES, p(1, a), p(2, b)))
        assert not r["players"]["1"]["fouled"]
        assert not r["players"]["2"]["fouled"]
        assert pair_points(r, 1, 2)["middle"] == 1

    def test_only_back_over_front_is_required(self) -> None:
        # back below the front fouls; the middle may be anything
        bad = {"front": "Kc Kh 2s", "middle": "Ac Ad Ah As 3s", "back": "Qs Qh 3c 4h 5d"}
        r = decide_chinese(hand(self.RULES, p(1, bad), p(2, self.POOR)))
        assert r["players"]["1"]["fouled"]


def _deck() -> list[str]:
    return [r + s for r in "23456789TJQKA" for s in "cdhs"]


# --------------------------------------------------------------------------------------
# 002: 2-4 and 1-6 scoring (the Amy and Bob example), naturals, scoop-double
# --------------------------------------------------------------------------------------


class TestEncyclopedia:
    def test_amy_and_bob_2_4(self) -> None:
        # "Bob would pay Amy two units": front and back 2, middle -1, overall unit 1
        r = decide_chinese(hand("2-4", p(1, AMY), p(2, BOB)))
        assert pair_total(r, 1, 2) == 2
        assert r["payments"] == [{"from": 2, "to": 1, "amount": 200, "due": 200, "reason": "pair 1-2"}]

    def test_amy_and_bob_1_6(self) -> None:
        # "Bob would pay Amy one unit": 2 - 1, no bonus units
        r = decide_chinese(hand("1-6", p(1, AMY), p(2, BOB)))
        assert pair_total(r, 1, 2) == 1

    def test_2_4_scoop_is_4_and_1_6_scoop_is_6(self) -> None:
        assert pair_total(decide_chinese(hand("2-4", p(1, AMY), p(2, CARL))), 1, 2) == 4
        assert pair_total(decide_chinese(hand("1-6", p(1, AMY), p(2, CARL))), 1, 2) == 6

    def test_2_4_one_win_two_ties_gets_no_overall_unit(self) -> None:
        # "wins two out of the three hands": one win and two ties is 1 unit
        a = {"front": "Qs Qh 2c", "middle": "Ks Kh 3c 4d 6h", "back": "2s 3s 4s 5s 7s"}
        b = {"front": "Jc 9c 2d", "middle": "Kd Kc 3d 4c 6d", "back": "2h 3h 4h 5h 7h"}
        r = decide_chinese(hand("2-4", p(1, a), p(2, b)))
        pts = pair_points(r, 1, 2)
        assert (pts["front"], pts["middle"], pts["back"], pts["overall"]) == (1, 0, 0, 0)

    def test_royalty_only_to_the_stronger_hand(self) -> None:
        # 002 royalties (the house values): front trips 3 goes to the winner only
        a = {"front": "Kc Kd Kh", "middle": "9c Ts Jh Qc Ks", "back": "As Js 7s 5s 3s"}
        b = {"front": "Qd Qh Qs", "middle": "2h 3h 4h 5h 7h", "back": "6c 6d 6s 8c 8h"}
        r = decide_chinese(hand("2-4", p(1, a), p(2, b)))
        pts = pair_points(r, 1, 2)
        assert pts["front"] == 1
        assert pts["bonus"] == 3  # a's KKK, not b's QQQ (b's middle flush and back FH: no royalty)

    def test_scoop_double(self) -> None:
        # Taiwanese variant: scooped pays double the base (3 + 1 overall) = 8
        r = decide_chinese(hand({"base": "2-4", "scoop-double": True}, p(1, AMY), p(2, CARL)))
        assert pair_total(r, 1, 2) == 2 * (3 + 1)
        assert pair_points(r, 1, 2)["scoop"] == 3 + 1

    def test_not_scooped_is_not_doubled(self) -> None:
        r = decide_chinese(hand({"base": "2-4", "scoop-double": True}, p(1, AMY), p(2, BOB)))
        assert pair_total(r, 1, 2) == 2

    def test_home_run_doubles_again(self) -> None:
        # Amy scoops Carl and Fay: a home run, each pays 2 x 2 x (3 + 1) = 16
        fay = {"front": "8h 7d 2s", "middle": "9c 9d 3s 4h 6d", "back": "Ts Td 7h 5c 2h"}
        r = decide_chinese(hand({"base": "2-4", "scoop-double": True}, p(1, AMY), p(2, CARL), p(3, fay)))
        assert pair_total(r, 1, 2) == 16
        assert pair_total(r, 1, 3) == 16
        # Carl vs Fay: front J83 > T72, middle TT > 99, back JJ > TT: Carl scoops Fay, no home run
        assert pair_total(r, 2, 3) == 2 * 4

    def test_naturals_are_exempt_from_scoop_double(self) -> None:
        flushes = "2c 5c 9c 2d 4d 6d 8d Qd 3h 5h 7h 9h Kh"  # 3 + 5 + 5 suited: three flushes
        rules = {"base": "2-4", "scoop-double": True}
        r = decide_chinese(hand(rules, p(1, CARL), p(2, cards=flushes, declare="three-flushes")))
        assert pair_total(r, 2, 1) == 3  # the natural's value, not doubled

    def test_naturals_of_the_same_kind_compare(self) -> None:
        # 002: "If two players have six pair the player with the highest six pair wins"
        high = "Ac Ad Kc Kd Qc Qd Jc Jd Tc Td 9c 9d 2s"
        low = "Ah As Kh Ks Qh Qs Jh Js Th Ts 9h 8s 8h"
        r = decide_chinese(
            hand("2-4", p(1, cards=high, declare="six-pairs"), p(2, cards=low, declare="six-pairs"))
        )
        assert pair_total(r, 1, 2) == 3
        # under the house rules equal sweeps push
        r = decide_chinese(
            hand("house", p(1, cards=high, declare="six-pairs"), p(2, cards=low, declare="six-pairs"))
        )
        assert pair_total(r, 1, 2) == 0

    def test_fouled_hand_pays_what_being_scooped_costs(self) -> None:
        # RULINGS 4: under 2-4 a scoop costs 3 + 1
        fouled = {"front": "Ac Ad 2h", "middle": "Kc Kd 3c 4h 5h", "back": "Qc Qd 6c 7h 8d"}
        r = decide_chinese(hand("2-4", p(1, CARL), p(2, fouled)))
        assert r["players"]["2"]["fouled"]
        assert pair_total(r, 1, 2) == 4


# --------------------------------------------------------------------------------------
# 003: Eastern and Western
# --------------------------------------------------------------------------------------

# P wins middle and back (JJJJ7 over 6666A), loses the front (55 against KK).
P_QUADS = {"front": "5c 5d 8h", "middle": "Ac Ad 2c 3d 4h", "back": "Jc Jd Jh Js 7c"}
Q_QUADS = {"front": "Kc Kd 2h", "middle": "Kh Ks 3c 4c 5s", "back": "6c 6d 6h 6s Ah"}


class TestEasternWestern:
    def test_eastern_doubles_a_bonus_over_the_same_type(self) -> None:
        # 003: "your back hand is JJJJ7 and your opponents back hand is 6666A, you'll earn a
        # bonus of 8 units, not 4"
        r = decide_chinese(hand("eastern", p(1, P_QUADS), p(2, Q_QUADS)))
        assert pair_points(r, 1, 2)["bonus"] == 8
        assert pair_total(r, 1, 2) == -1 + 1 + 1 + 8

    def test_eastern_does_not_double_over_another_type(self) -> None:
        other = {"front": "Kc Kd 2h", "middle": "Kh Ks 3c 4c 5s", "back": "6c 6d 6h Ah As"}  # a full house
        r = decide_chinese(hand("eastern", p(1, P_QUADS), p(2, other)))
        assert pair_points(r, 1, 2)["bonus"] == 4

    def test_western_majority_point(self) -> None:
        # 1 per segment plus 1 for the majority; no bonuses
        r = decide_chinese(hand("western", p(1, P_QUADS), p(2, Q_QUADS)))
        pts = pair_points(r, 1, 2)
        assert pts["bonus"] == 0
        assert pair_total(r, 1, 2) == -1 + 1 + 1 + 1

    def test_eastern_sweeps(self) -> None:
        red = "2h 3h 4h 5h 6h 7h 8h 9h Th 2d 3d 4d 5d"  # 13 red cards (also three flushes)
        twelve = "Jh Qh Kh Ah 6d 7d 8d 9d Td Jd Qd Kd 2s"  # exactly 12 red
        r = decide_chinese(
            hand(
                "eastern",
                p(1, cards=red, declare="thirteen-colours"),
                p(2, cards=twelve, declare="12-colours"),
            )
        )
        assert r["players"]["1"]["sweep"] == "thirteen-colours"
        assert r["players"]["2"]["sweep"] == "twelve-colours"
        assert pair_total(r, 1, 2) == 13

    def test_eastern_surrender_pays_each_opponent_3(self) -> None:
        r = decide_chinese(hand("eastern", p(1, AMY), p(2, CARL), p(3, surrender=True)))
        assert pair_total(r, 3, 1) == -3
        assert pair_total(r, 3, 2) == -3
        assert r["players"]["3"]["net"] == -600


# --------------------------------------------------------------------------------------
# 004 / RULINGS 3: the house rules
# --------------------------------------------------------------------------------------


class TestHouse:
    def test_bonus_example_nets_to_5(self) -> None:
        # RULINGS 3: win two segments with quads in the back and lose one: 1 + 1 - 1 + 4 = 5
        r = decide_chinese(hand("house", p(1, P_QUADS), p(2, Q_QUADS)))
        assert pair_total(r, 1, 2) == 1 + 1 - 1 + 4
        assert r["rules"] == "house"

    def test_house_is_the_default(self) -> None:
        h = hand("house", p(1, P_QUADS), p(2, Q_QUADS))
        del h["rules"]
        assert pair_total(decide_chinese(h), 1, 2) == 5

    def test_bonus_only_to_the_winner_of_the_segment(self) -> None:
        # the loser holds bonus hands too (KKK front, 9999 back) but loses those segments
        loser = {"front": "Kc Kd Kh", "middle": "2c 3d 4c 5d 6s", "back": "9c 9d 9h 9s 7c"}
        winner = {"front": "Ah As Ac", "middle": "Tc Td Th Ts 2s", "back": "4h 5h 6h 7h 8h"}
        r = decide_chinese(hand("house", p(1, winner), p(2, loser)))
        assert not r["players"]["1"]["fouled"]
        assert not r["players"]["2"]["fouled"]
        pts = pair_points(r, 1, 2)
        # winner: front trips 3, middle quads 8, back straight flush 5
        assert pts["bonus"] == 3 + 8 + 5
        assert pair_total(r, 1, 2) == 3 + 16

    def test_button_wins_ties(self) -> None:
        a = {"front": "Qs Qh 2c", "middle": "Ks Kh 3c 4d 6h", "back": "2s 3s 4s 5s 7s"}
        b = {"front": "Qc Qd 2d", "middle": "Kd Kc 3d 4c 6d", "back": "2h 3h 4h 5h 7h"}
        # every segment ties; the button player (seat 2 here) wins all three
        r = decide_chinese(hand("house", p(1, a), p(2, b), button=2))
        assert pair_total(r, 2, 1) == 3
        # under Western rules the ties push
        r = decide_chinese(hand("western", p(1, a), p(2, b), button=2))
        assert pair_total(r, 2, 1) == 0

    def test_ties_between_non_button_players_push(self) -> None:
        a = {"front": "Qs Qh 2c", "middle": "Ks Kh 3c 4d 6h", "back": "2s 3s 4s 5s 7s"}
        b = {"front": "Qc Qd 2d", "middle": "Kd Kc 3d 4c 6d", "back": "2h 3h 4h 5h 7h"}
        c = {"front": "Jc 9c 8d", "middle": "Tc Th 5c 5d 9h", "back": "Ac Ad Ah 6c 6s"}
        r = decide_chinese(hand("house", p(3, c), p(1, a), p(2, b), button=3))
        assert pair_total(r, 1, 2) == 0

    def test_fouled_hand_pays_3_plus_the_opponents_bonuses(self) -> None:
        fouled = {"front": "Ac Ad 2h", "middle": "Kc Kd 3c 4h 5d", "back": "Qc Qd 6c 7h 8d"}
        good = {"front": "Js Jh Jd", "middle": "9h 9d 9s 9c Ts", "back": "2s 3s 4s 5s 6s"}
        r = decide_chinese(hand("house", p(1, good), p(2, fouled)))
        assert not r["players"]["1"]["fouled"]
        assert r["players"]["2"]["fouled"]
        assert "beats" in r["players"]["2"]["foul"]
        # 3 points plus good's front trips 3, middle quads 8, back straight flush 5
        assert pair_total(r, 1, 2) == 3 + (3 + 8 + 5)

    def test_two_fouled_hands_push(self) -> None:
        f1 = {"front": "Ac Ad 2h", "middle": "Kc Kd 3c 4h 5h", "back": "Qc Qd 6c 7h 8d"}
        f2 = {"front": "As Ah 2s", "middle": "Ks Kh 3s 5s 7s", "back": "Qs Qh 6d 7d 9d"}
        r = decide_chinese(hand("house", p(1, f1), p(2, f2), p(3, CARL)))
        assert pair_total(r, 1, 2) == 0
        assert pair_total(r, 3, 1) == 3
        assert pair_total(r, 3, 2) == 3

    def test_surrender_pushes_with_a_fouled_hand(self) -> None:
        f1 = {"front": "Ac Ad 2h", "middle": "Kc Kd 3c 4h 5h", "back": "Qc Qd 6c 7h 8d"}
        r = decide_chinese(hand("house", p(1, f1), p(2, surrender=True), p(3, CARL)))
        assert pair_total(r, 1, 2) == 0
        assert pair_total(r, 2, 3) == -3


# The sweep tests' deals: the three sweep hands and FILLER are 52 distinct cards.
DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jh Qs Kc Ad"  # also three straights: A23 45678 9TJQK
SIX_PAIRS = "2d 2h 3c 3h 4c 4d 5c 5d 6d 6h 7c 7h As"
THREE_FLUSHES = "2s 3s 4s 6s 7s 8d 9d Td Jd Kd 8c 9c Jc"
# J high / KK / queens full of aces: no bonus of any kind
FILLER = {"front": "Js Ts 8s", "middle": "Kh Ks 5h 9h Th", "back": "Qc Qd Qh Ac Ah"}
# The same cards set as regular hands (no bonuses): K high / wheel / ten-high straight ...
DRAGON_SET = {"front": "Kc Qs Jh", "middle": "2c 3d 4h 5s Ad", "back": "6c 7d 8h 9s Tc"}
# ... and J high / seven-high spade flush / king-high diamond flush.
FLUSHES_SET = {"front": "8c 9c Jc", "middle": "2s 3s 4s 6s 7s", "back": "8d 9d Td Jd Kd"}


class TestHouseSweeps:
    def test_dragon_collects_13_from_everyone_and_pays_nothing(self) -> None:
        r = decide_chinese(
            hand("house", p(1, FILLER), p(2, cards=DRAGON, declare="dragon"), p(3, FLUSHES_SET))
        )
        assert pair_total(r, 2, 1) == 13
        assert pair_total(r, 2, 3) == 13
        assert r["players"]["2"]["sweep"] == "dragon"
        assert r["players"]["2"]["net"] == 2 * 1300
        assert pair_points(r, 1, 2)["sweep"] == -13

    def test_higher_sweep_collects_its_value_from_the_lower(self) -> None:
        r = decide_chinese(
            hand(
                "house",
                p(1, cards=DRAGON, declare="dragon"),
                p(2, cards=SIX_PAIRS, declare="six-pairs"),
                p(3, FILLER),
            )
        )
        assert pair_total(r, 1, 2) == 13
        assert pair_total(r, 1, 3) == 13
        assert pair_total(r, 2, 3) == 3  # the lower sweep still collects from the set hand

    def test_equal_sweeps_push(self) -> None:
        r = decide_chinese(
            hand(
                "house",
                p(1, cards=SIX_PAIRS, declare="six-pairs"),
                p(2, cards=THREE_FLUSHES, declare="three-flushes"),
                p(3, FILLER),
            )
        )
        assert pair_total(r, 1, 2) == 0
        assert pair_total(r, 1, 3) == 3
        assert pair_total(r, 2, 3) == 3

    def test_declared_sweep_not_there_is_a_foul(self) -> None:
        r = decide_chinese(hand("house", p(1, cards=SIX_PAIRS, declare="dragon"), p(2, FILLER)))
        assert r["players"]["1"]["fouled"]
        assert r["players"]["1"]["sweep"] is None
        assert pair_total(r, 2, 1) == 3  # 3 points; FILLER has no bonus

    def test_a_set_hand_holding_a_sweep_plays_as_set(self) -> None:
        # the dragon's cards set as a hand: compared segment by segment, no sweep.  Against
        # FILLER: front K-Q-J beats J-T-8, the wheel beats KK, the ten-high straight loses to
        # queens full: 1 + 1 - 1.
        r = decide_chinese(hand("house", p(1, DRAGON_SET), p(2, FILLER)))
        assert r["players"]["1"]["sweep"] is None
        assert not r["players"]["1"]["fouled"]
        pts = pair_points(r, 1, 2)
        assert (pts["front"], pts["middle"], pts["back"], pts["sweep"]) == (1, 1, -1, 0)

    def test_with_two_sweeps_only_the_higher_counts(self) -> None:
        # the dragon is also three straights: declared three straights, the dragon's 13 counts
        # (not 13 + 3, not 3)
        r = decide_chinese(hand("house", p(1, cards=DRAGON, declare="three-straights"), p(2, FILLER)))
        assert r["players"]["1"]["sweep"] == "dragon"
        assert pair_total(r, 1, 2) == 13

    def test_sweep_pairs_settle_first(self) -> None:
        r = decide_chinese(
            hand(
                "house",
                p(1, DRAGON_SET),
                p(2, FILLER),
                p(3, cards=SIX_PAIRS, declare="six-pairs"),
                p(4, FLUSHES_SET),
            )
        )
        assert [m["seats"] for m in r["matchups"]] == [[1, 3], [2, 3], [3, 4], [1, 2], [1, 4], [2, 4]]
        reasons = [pay["reason"] for pay in r["payments"]]
        assert reasons[:3] == ["sweep 3-1", "sweep 3-2", "sweep 3-4"]
        assert r["players"]["3"]["net"] == 3 * 300
