"""Taiwanese poker scoring: seed 000's examples as RULINGS section 5 reads them.

Expected figures are worked out by hand from the seed (the arithmetic is in each test).
"""

from __future__ import annotations

from typing import Any

import pytest

from poker.hands import Category
from poker.taiwanese import BONUS_CHART, Position, decide_taiwanese, split_in_chips


def player(seat: int, top: str, middle: str, bottom: str, **extra: Any) -> dict[str, Any]:
    return {"seat": seat, "top": top.split(), "middle": middle.split(), "bottom": bottom.split(), **extra}


def game(
    players: list[dict[str, Any]], boards: list[str], *, point: int = 100, chip: int = 100, button: int = 1
) -> dict[str, Any]:
    return {
        "game": "taiwanese-poker",
        "point": point,
        "chip": chip,
        "button": button,
        "boards": [b.split() for b in boards],
        "players": players,
    }


def position(result: dict[str, Any], pos: str, board: int = 1) -> dict[str, Any]:
    for p in result["positions"]:
        if p["position"] == pos and p["board"] == board:
            return dict(p)
    raise AssertionError(f"no {pos} on board {board}")


def paid(result: dict[str, Any], pos: str, board: int = 1) -> dict[int, int]:
    return {x["seat"]: x["amount"] for x in position(result, pos, board)["paid"]}


def awards(result: dict[str, Any], pos: str, board: int = 1) -> dict[int, int]:
    return {x["seat"]: x["amount"] for x in position(result, pos, board)["awards"]}


# 000's tie example: five players at $1 a point (chips of $1), the board runs out A A K 3 2
# and two players set A-K in the middle (aces full of kings: 2 base + 3 bonus = 5 points).
AAK32 = "Ac Ad Kh 3s 2d"


def ak_table(*, ace1: str = "As", ace2: str = "Ah", loser3_middle: str = "7c 7d") -> list[dict[str, Any]]:
    return [
        player(1, "Qs", f"{ace1} Kd", "9c 9d 4s 5s"),
        player(2, "Qh", f"{ace2} Kc", "8c 8d 4h 5h"),
        player(3, "Jh", loser3_middle, "Tc Td 4c 5c"),
        player(4, "Js", "6c 6d", "Th Ts 4d 5d"),
        player(5, "Jd", "9h 9s", "8h 8s 6h 6s"),
    ]


class TestSeedExamples:
    def test_two_ak_middles_split_8_and_7(self) -> None:
        r = decide_taiwanese(game(ak_table(), [AAK32]))
        middle = position(r, "middle")
        assert middle["hand"] == "Full house, aces full of kings"
        assert (middle["base"], middle["bonus"], middle["points"]) == (2, 3, 5)
        assert paid(r, "middle") == {3: 500, 4: 500, 5: 500}  # "Each losing player pays $5"
        # $15 split: the higher suited ace set in the middle (As) takes the odd dollar
        assert awards(r, "middle") == {1: 800, 2: 700}
        assert middle["winners"] == [1, 2]

    def test_the_odd_chip_follows_the_card_not_the_seat(self) -> None:
        r = decide_taiwanese(game(ak_table(ace1="Ah", ace2="As"), [AAK32]))
        assert awards(r, "middle") == {2: 800, 1: 700}
        assert position(r, "middle")["winners"] == [2, 1]

    def test_a_loser_with_the_same_bonus_pays_the_base_only(self) -> None:
        # "If one of the 3 losing players had set 33 ... $2 from the player with threes full of
        # aces plus $5 from each of the other players ... $12 to be split"
        r = decide_taiwanese(game(ak_table(loser3_middle="3c 3h"), [AAK32]))
        assert paid(r, "middle") == {3: 200, 4: 500, 5: 500}
        assert awards(r, "middle") == {1: 600, 2: 600}

    def test_top_three_of_a_kind_is_3_points(self) -> None:
        # "if the winner scores 3 points for the top hand ... each other player would pay $15"
        # (at $5 a point): a top card that trips the board's pair is 1 base + 2 bonus
        players = [
            player(1, "Kd", "2c 3c", "4c 5c 6c 7c"),
            player(2, "Qd", "2d 3d", "4d 5d 6d 7d"),
            player(3, "Jd", "2h 3h", "4h 5h 6h 8c"),
        ]
        r = decide_taiwanese(game(players, ["Kc Ks 9h Th 8s"], point=500, chip=500))
        top = position(r, "top")
        assert (top["winners"], top["points"]) == ([1], 3)
        assert paid(r, "top") == {2: 1500, 3: 1500}

    def test_middle_flush_is_2_plus_2(self) -> None:
        players = [
            player(1, "2c", "Ah 3h", "4c 5c 6s 7d"),
            player(2, "2d", "Kc Qd", "4d 5d 6c 7s"),
        ]
        r = decide_taiwanese(game(players, ["9h Jh 5h 8c Ts"]))
        middle = position(r, "middle")
        assert middle["hand"] == "Flush, ace high"
        assert (middle["base"], middle["bonus"]) == (2, 2)
        assert paid(r, "middle") == {2: 400}

    def test_same_category_exemption_and_no_discount_for_a_lesser_category(self) -> None:
        # top hands on 9h Th Jh Qc 2h: Ah makes an ace-high flush (1 + 3), 3h a jack-high
        # flush (same category: pays 1), Kd and 8c straights (pay 1 + 3 = 4)
        players = [
            player(1, "Ah", "3c 4d", "5s 6s 7c 8d"),
            player(2, "3h", "4c 5d", "6c 7d 2s 3s"),
            player(3, "Kd", "4s 5c", "6d 7s 2c 3d"),
            player(4, "8c", "4h 5h", "6h 7h 2d Ks"),
        ]
        r = decide_taiwanese(game(players, ["9h Th Jh Qc 2h"]))
        top = position(r, "top")
        assert (top["winners"], top["hand"], top["bonus"]) == ([1], "Flush, ace high", 3)
        assert paid(r, "top") == {2: 100, 3: 400, 4: 400}

    def test_bonus_chart_is_000s(self) -> None:
        c = Category
        expected = {
            Position.TOP: [0, 0, 1, 2, 3, 3, 4, 6, 12],
            Position.MIDDLE: [0, 0, 0, 1, 2, 2, 3, 5, 10],
            Position.BOTTOM: [0, 0, 0, 0, 0, 0, 2, 4, 8],
        }
        for pos, row in expected.items():
            assert [BONUS_CHART[pos].get(cat, 0) for cat in c] == row


class TestScoopTiesBoards:
    # seat 1 wins all three positions outright on this board
    SCOOPER = player(1, "Ac", "As Ad", "Kc Kd Ks Qh")
    OTHER2 = player(2, "3d", "5h 6s", "Qd Qs 3h 5d")
    OTHER3 = player(3, "8c", "6d 6c", "Tc Td 3c 5s")
    BOARD = "2c 7d 9h Js 4c"

    def test_scoop_earns_3_more_from_each_other_player(self) -> None:
        r = decide_taiwanese(game([self.SCOOPER, self.OTHER2, self.OTHER3], [self.BOARD]))
        scoop = position(r, "scoop")
        assert scoop["winners"] == [1]
        assert paid(r, "scoop") == {2: 300, 3: 300}
        assert [p["position"] for p in r["positions"]] == ["top", "middle", "bottom", "scoop"]

    def test_no_scoop_with_a_tie(self) -> None:
        # seat 2 ties the top with the other black ace: seat 1 no longer wins it outright
        other = player(2, "Ah", "5h 6s", "Qd Qs 3h 5d")
        r = decide_taiwanese(game([self.SCOOPER, other], [self.BOARD]))
        assert position(r, "top")["winners"] == [2, 1]  # Ac vs Ah: the same hand; hearts over clubs
        assert paid(r, "top") == {}
        assert all(p["position"] != "scoop" for p in r["positions"])

    def test_ties_split_in_whole_chips_by_the_highest_card_set(self) -> None:
        # on A A K 3 2 four bottoms make the wheel (4-5 with A-3-2); seat 5's pair of eights...
        # loses and pays 3 points: 300 in chips of 100 among four winners: one chip each to
        # the three highest cards set in the bottom (Ts, Td, 9d), none to 8d
        r = decide_taiwanese(game(ak_table(), [AAK32]))
        bottom = position(r, "bottom")
        assert bottom["winners"] == [4, 3, 1, 2]
        assert awards(r, "bottom") == {4: 100, 3: 100, 1: 100, 2: 0}

    def test_split_in_chips(self) -> None:
        assert split_in_chips(1500, [1, 2], 100) == [(1, 800), (2, 700)]
        assert split_in_chips(1200, [1, 2], 100) == [(1, 600), (2, 600)]
        assert split_in_chips(700, [5, 6, 7], 100) == [(5, 300), (6, 200), (7, 200)]
        assert split_in_chips(250, [1, 2], 25) == [(1, 125), (2, 125)]

    def test_each_board_is_scored_on_its_own_at_full_value(self) -> None:
        players = [self.SCOOPER, self.OTHER2, self.OTHER3]
        second = "8h 8s 3s 2s Th"  # a second board from unused cards
        both = decide_taiwanese(game(players, [self.BOARD, second]))
        one = decide_taiwanese(game(players, [self.BOARD]))
        two = decide_taiwanese(game(players, [second]))
        for seat in "123":
            assert both["players"][seat]["net"] == one["players"][seat]["net"] + two["players"][seat]["net"]
        assert [(p["board"], p["position"]) for p in both["positions"]][:4] == [
            (1, "top"),
            (1, "middle"),
            (1, "bottom"),
            (1, "scoop"),
        ]
        assert len(both["players"]["1"]["boards"]) == 2
        # on the first board seat 1 scoops: 1 + 2 + 3 + 3 points from each of two players
        assert one["players"]["1"]["net"] == 2 * (1 + 2 + 3 + 3) * 100

    def test_payers_clockwise_from_the_button(self) -> None:
        players = [self.SCOOPER, self.OTHER2, self.OTHER3, player(4, "5c", "6h 7c", "7s 8s 2h 9s")]
        r = decide_taiwanese(game(players, [self.BOARD], button=3))
        assert [x["seat"] for x in position(r, "top")["paid"]] == [3, 4, 2]
        assert [p["from"] for p in r["payments"] if p["reason"] == "board 1 top"] == [3, 4, 2]

    def test_nets_sum_to_zero_and_match_payments(self) -> None:
        r = decide_taiwanese(game(ak_table(), [AAK32]))
        nets = {int(s): v["net"] for s, v in r["players"].items()}
        assert sum(nets.values()) == 0
        flows: dict[int, int] = dict.fromkeys(nets, 0)
        for pay in r["payments"]:
            flows[pay["from"]] -= pay["amount"]
            flows[pay["to"]] += pay["amount"]
        assert flows == nets

    @pytest.mark.parametrize("pos", ["top", "middle", "bottom"])
    def test_hands_are_read_per_board(self, pos: str) -> None:
        r = decide_taiwanese(game(ak_table(), [AAK32]))
        read = r["players"]["1"]["boards"][0][pos]
        assert len(read["cards"]) == 5
        assert read["name"]
