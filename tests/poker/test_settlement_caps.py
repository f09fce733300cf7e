"""All-in caps (004 rules 2-3, RULINGS 3 and 5): payment by payment, in settlement order."""

from __future__ import annotations

from typing import Any

import pytest

from poker.chinese import decide_chinese
from poker.settlement import CapLedger, Due, Payment, nets, settle_in_order, whole_units
from poker.taiwanese import decide_taiwanese


class TestSettlementModule:
    def test_whole_units(self) -> None:
        assert whole_units(250, 100) == 200
        assert whole_units(200, 100) == 200
        assert whole_units(99, 100) == 0
        with pytest.raises(ValueError, match="positive"):
            whole_units(100, 0)

    def test_each_payment_moves_the_least_of_due_and_both_caps(self) -> None:
        dues = [Due(2, 1, 500, "a"), Due(3, 1, 500, "b"), Due(1, 3, 100, "c")]
        payments = settle_in_order(dues, {1: 700, 2: None, 3: 300}, payee_capped=True)
        assert payments == (
            Payment(2, 1, 500, 500, "a"),  # seat 1's cap 700 -> 200
            Payment(3, 1, 200, 500, "b"),  # the payee's cap stops it: 1 -> 0, 3 -> 100
            Payment(1, 3, 0, 100, "c"),  # seat 1 has nothing left to move
        )
        assert nets(payments, [1, 2, 3]) == {1: 700, 2: -500, 3: -200}

    def test_payer_only_caps(self) -> None:
        ledger = CapLedger({1: 100, 2: 0}, payee_capped=False)
        assert ledger.move(2, 1, 300) == 0  # seat 2 has nothing
        assert ledger.move(1, 2, 300) == 100
        assert ledger.left(1) == 0
        assert ledger.left(2) == 0  # receiving does not add to what a player may pay
        assert ledger.left(9) is None

    def test_bad_values(self) -> None:
        with pytest.raises(ValueError, match="negative"):
            CapLedger({1: -5}, payee_capped=True)
        with pytest.raises(ValueError, match="negative"):
            CapLedger({}, payee_capped=True).move(1, 2, -1)


# Four disjoint legal hands without bonuses and one fouled hand (house rules).  Pairwise,
# read by hand:  1-2: K-Q-J > J-T-8, wheel > KK, T-high straight < queens full: +1 for seat 1
#                1-4: K-Q-J > J-9-8, wheel < flush, straight < flush: -1 for seat 1
#                2-4: J-T-8 > J-9-8, KK < flush, full house > flush: +1 for seat 2
SEAT1 = {"front": "Kc Qs Jh", "middle": "2c 3d 4h 5s Ad", "back": "6c 7d 8h 9s Tc"}
SEAT2 = {"front": "Js Ts 8s", "middle": "Kh Ks 5h 9h Th", "back": "Qc Qd Qh Ac Ah"}
SEAT4 = {"front": "8c 9c Jc", "middle": "2s 3s 4s 6s 7s", "back": "8d 9d Td Jd Kd"}
FOULED = {"front": "6d 6h As", "middle": "2d 2h 3c 4c 7c", "back": "3h 4d 5c 5d 7h"}  # 66 over 22
SIX_PAIRS = "2d 2h 3c 3h 4c 4d 5c 5d 6d 6h 7c 7h As"  # FOULED's cards


def player(seat: int, stack: int, setting: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": seat, "stack": stack}
    if setting:
        out.update({k: v.split() for k, v in setting.items()})
    out.update(extra)
    return out


def chinese(players: list[dict[str, Any]]) -> dict[str, Any]:
    return decide_chinese(
        {"game": "chinese-poker", "rules": "house", "point": 100, "button": 1, "players": players}
    )


def moves(result: dict[str, Any]) -> list[tuple[str, int, int, int, int]]:
    return [(p["reason"], p["from"], p["to"], p["due"], p["amount"]) for p in result["payments"]]


class TestChineseAllIn:
    def test_short_stack_in_the_middle_of_the_order(self) -> None:
        # seat 3 fouls (3 points to each) with 250 in play: only whole points play, cap 200
        r = chinese(
            [
                player(1, 10_000, SEAT1),
                player(2, 10_000, SEAT2),
                player(3, 250, FOULED),
                player(4, 10_000, SEAT4),
            ]
        )
        assert moves(r) == [
            ("pair 1-2", 2, 1, 100, 100),
            ("pair 1-3", 3, 1, 300, 200),  # cap reached
            ("pair 1-4", 1, 4, 100, 100),
            ("pair 2-3", 3, 2, 300, 0),  # nothing left
            ("pair 2-4", 4, 2, 100, 100),
            ("pair 3-4", 3, 4, 300, 0),
        ]
        assert {s: r["players"][s]["net"] for s in "1234"} == {"1": 200, "2": 0, "3": -200, "4": 0}

    def test_short_sweep_collects_only_up_to_its_stack(self) -> None:
        # seat 3 declares six pairs (3 from each) with 450 in play (cap 400); sweeps first
        r = chinese(
            [
                player(1, 10_000, SEAT1),
                player(2, 10_000, SEAT2),
                player(3, 450, cards=SIX_PAIRS.split(), declare="six-pairs"),
                player(4, 10_000, SEAT4),
            ]
        )
        assert moves(r)[:3] == [
            ("sweep 3-1", 1, 3, 300, 300),
            ("sweep 3-2", 2, 3, 300, 100),
            ("sweep 3-4", 4, 3, 300, 0),
        ]
        assert r["players"]["3"]["net"] == 400
        assert r["players"]["3"]["points"] == 9  # points are before the caps

    def test_winning_spends_the_cap_too(self) -> None:
        # seat 1 has 300 in play: +100 from seat 2, then 200 of seat 3's 300; then it cannot
        # pay the 100 it owes seat 4
        r = chinese(
            [
                player(1, 300, SEAT1),
                player(2, 10_000, SEAT2),
                player(3, 10_000, FOULED),
                player(4, 10_000, SEAT4),
            ]
        )
        assert moves(r)[:3] == [
            ("pair 1-2", 2, 1, 100, 100),
            ("pair 1-3", 3, 1, 300, 200),
            ("pair 1-4", 1, 4, 100, 0),
        ]
        assert r["players"]["1"]["net"] == 300

    def test_no_stack_means_no_cap(self) -> None:
        players = [player(1, 0, SEAT1), player(3, 0, FOULED)]
        for p in players:
            del p["stack"]
        r = chinese(players)
        assert moves(r) == [("pair 1-3", 3, 1, 300, 300)]

    def test_a_zero_stack_moves_nothing(self) -> None:
        r = chinese([player(1, 0, SEAT1), player(3, 10_000, FOULED)])
        assert moves(r) == [("pair 1-3", 3, 1, 300, 0)]
        assert r["players"]["1"]["net"] == 0


class TestTaiwaneseCaps:
    def test_a_player_pays_at_most_its_stack(self) -> None:
        # seat 2 loses the top (1), middle (2), bottom (3) and the scoop (3) to seat 1, at 100 a
        # point, but has 450 in play, counted in whole chips of 100: 400
        hand = {
            "game": "taiwanese-poker",
            "point": 100,
            "chip": 100,
            "button": 1,
            "boards": [["2c", "7d", "9h", "Js", "4c"]],
            "players": [
                {
                    "seat": 1,
                    "top": ["Ac"],
                    "middle": ["As", "Ad"],
                    "bottom": ["Kc", "Kd", "Ks", "Qh"],
                    "stack": 10_000,
                },
                {
                    "seat": 2,
                    "top": ["3d"],
                    "middle": ["5h", "6s"],
                    "bottom": ["Qd", "Qs", "3h", "5d"],
                    "stack": 450,
                },
            ],
        }
        r = decide_taiwanese(hand)
        got = [(p["reason"], p["due"], p["amount"]) for p in r["payments"]]
        # top: ace high over jack high (1); middle: a pair of aces over jack high (2, no bonus);
        # bottom (Omaha): a pair of kings over a pair of queens (3); and the scoop (3)
        assert got == [
            ("board 1 top", 100, 100),
            ("board 1 middle", 200, 200),
            ("board 1 bottom", 300, 100),
            ("board 1 scoop", 300, 0),
        ]
        assert r["players"]["2"]["net"] == -400
