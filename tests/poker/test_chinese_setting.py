"""Chinese poker setting checks (RULINGS 3, seeds 003 and 004) and input validation."""

from __future__ import annotations

from typing import Any

import pytest

from poker.cards import parse_cards
from poker.chinese import decide_chinese, read_setting
from poker.errors import ShowdownError


def setting(front: str, middle: str, back: str, *, lowball: bool = False) -> str | None:
    """The foul reason of a setting (``None``: legal)."""
    _, foul = read_setting(parse_cards(front), parse_cards(middle), parse_cards(back), lowball_middle=lowball)
    return foul


class TestOrder:
    def test_003_first_legal_example(self) -> None:
        # dealt Jc Ad As 6h 5h 2h Ac 9c 7c 4h 3h Jd Js: JJJ / AAA97 / 6-high straight flush
        assert setting("Jc Jd Js", "Ad As Ac 9c 7c", "6h 5h 4h 3h 2h") is None

    def test_003_second_legal_example(self) -> None:
        # Q high / KKK73 / ace-high flush
        assert setting("Qc Jd 9s", "Kd Ks Kc 7c 3c", "Ah Jh 6h 4h 2h") is None

    def test_003_illegal_example_as_printed(self) -> None:
        # the front as printed has two cards: wrong counts
        foul = setting("Qc 3c", "Jh 4h Ah 2h 6h", "Kd Ks Kc 9s 7c")
        assert foul is not None
        assert "counts" in foul

    def test_003_illegal_example_back_below_middle(self) -> None:
        # with the 13th card (Jd) in the front: "The back hand, trip Kings, doesn't beat the
        # middle hand, a flush"
        foul = setting("Qc Jd 3c", "Jh 4h Ah 2h 6h", "Kd Ks Kc 9s 7c")
        assert foul is not None
        assert foul.startswith("middle")

    def test_kk5_front_over_kk432_middle_fouls(self) -> None:
        foul = setting("Kc Kd 5h", "Kh Ks 4c 3d 2h", "Ac Ad Ah 7c 7d")
        assert foul is not None
        assert foul.startswith("front")

    def test_kk4_front_against_kk432_middle_does_not_foul(self) -> None:
        assert setting("Kc Kd 4h", "Kh Ks 4c 3d 2h", "Ac Ad Ah 7c 7d") is None

    def test_straights_and_flushes_do_not_count_in_the_front(self) -> None:
        # a suited 2-3-4 front is only four high, below a jack-high middle
        assert setting("2h 3h 4h", "6c 5d 9s 8c Jd", "Ac Ad 7h 7s Kd") is None
        # as a straight flush it would beat trips: it doesn't
        assert setting("2h 3h 4h", "Qc Qd Qs 8c Jd", "Ac Ad Ah 7s 7d") is None

    def test_equal_middle_and_back_are_legal(self) -> None:
        assert setting("2c 3d 5h", "6c 7d 8h 9s Tc", "6d 7h 8s 9c Th") is None

    def test_front_trips_need_a_middle_above_them(self) -> None:
        assert setting("Qc Qd Qh", "Kc Kd 2c 3d 4h", "Ac Ad Ah 7c 7d") is not None
        assert setting("Qc Qd Qh", "Kc Kd Ks 3d 4h", "Ac Ad Ah 7c 7d") is None

    def test_a_card_twice_in_the_hand_fouls(self) -> None:
        foul = setting("Qc Qd 2h", "Kc Kd Ks 3d 4h", "Ac Ad Ah 2h 7d")
        assert foul == "card 2h appears twice in the hand"

    @pytest.mark.parametrize(
        ("front", "middle", "back"),
        [
            ("Qc Qd 2h 3h", "Kc Kd Ks 3d", "Ac Ad Ah 7c 7d"),  # 4-4-5
            ("Qc Qd", "Kc Kd Ks 3d 4h 2h", "Ac Ad Ah 7c 7d"),  # 2-6-5
            ("Qc Qd 2h", "Kc Kd Ks 3d 4h", "Ac Ad Ah 7c"),  # 12 cards
        ],
    )
    def test_wrong_counts_foul(self, front: str, middle: str, back: str) -> None:
        foul = setting(front, middle, back)
        assert foul is not None
        assert foul.startswith("wrong counts")

    def test_lowball_middle_needs_only_back_over_front(self) -> None:
        # middle quads above a back pair: legal in lowball, fouled otherwise
        assert setting("2c 3d 5h", "Ac Ad Ah As 3s", "Qs Qh 3c 4h 5d", lowball=True) is None
        assert setting("2c 3d 5h", "Ac Ad Ah As 3s", "Qs Qh 3c 4h 5d") is not None
        assert setting("Kc Kh 2s", "7c 5d 4h 3c 2h", "Qs Qh 3d 4d 5s", lowball=True) is not None


def _hand(players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": "chinese-poker",
        "rules": "house",
        "point": 100,
        "button": 1,
        "players": players,
    }
    out.update(extra)
    return out


A = {
    "seat": 1,
    "front": ["Qs", "Qh", "2c"],
    "middle": ["Ks", "Kh", "3c", "4d", "6h"],
    "back": ["As", "Ah", "7c", "8d", "9h"],
}
B = {
    "seat": 2,
    "front": ["Jc", "9c", "2d"],
    "middle": ["Kd", "Kc", "5c", "6c", "7s"],
    "back": ["Ad", "Ac", "2h", "3h", "5s"],
}


class TestValidation:
    def test_the_same_card_in_two_hands_is_a_misdeal(self) -> None:
        b = dict(B, front=["Jc", "9c", "2c"])  # 2c is seat 1's
        with pytest.raises(ShowdownError, match=r"card 2c is held by seat 1 and seat 2 \(misdeal"):
            decide_chinese(_hand([A, b]))

    def test_unknown_card_names_the_seat(self) -> None:
        b = dict(B, front=["Jc", "9x", "2d"])
        with pytest.raises(ShowdownError, match=r"seat 2: unknown card '9x'"):
            decide_chinese(_hand([A, b]))

    def test_joker_is_refused(self) -> None:
        b = dict(B, front=["Jc", "JK", "2d"])
        with pytest.raises(ShowdownError, match=r"seat 2: the joker"):
            decide_chinese(_hand([A, b]))

    def test_card_text_is_case_insensitive_and_10_is_a_ten(self) -> None:
        b = dict(B, front=["jc", "10c", "2D"])
        r = decide_chinese(_hand([A, b]))
        assert r["players"]["2"]["segments"]["front"] == "Jack high"

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"rules": "texas"}, "unknown rule set 'texas'"),
            ({"rules": {"base": "house", "bonus-points": 3}}, "unknown rules option 'bonus-points'"),
            ({"rules": {"base": "nope"}}, "unknown rule set 'nope'"),
            ({"rules": {"base": "house", "royalties": "yes"}}, "must be true or false"),
            ({"point": 0}, "point must be at least 1"),
            ({"point": 1.5}, "point must be an integer"),
            ({"button": 7}, "button seat 7 is not a player"),
        ],
    )
    def test_bad_fields(self, change: dict[str, Any], message: str) -> None:
        with pytest.raises(ShowdownError, match=message):
            decide_chinese(_hand([A, B], **change))

    def test_seat_twice(self) -> None:
        with pytest.raises(ShowdownError, match="seat 1 appears twice"):
            decide_chinese(_hand([A, dict(B, seat=1)]))

    def test_at_most_four_hands(self) -> None:
        players = [dict(A, seat=s) for s in range(1, 6)]
        with pytest.raises(ShowdownError, match="2 to 4 hands"):
            decide_chinese(_hand(players))

    def test_negative_stack(self) -> None:
        with pytest.raises(ShowdownError, match="stack must be at least 0"):
            decide_chinese(_hand([A, dict(B, stack=-1)]))

    def test_unknown_sweep_and_sweep_outside_the_rule_set(self) -> None:
        cards = ["2c", "3d", "4h", "5s", "6c", "7d", "8h", "9s", "Tc", "Jh", "Qs", "Kc", "Ad"]
        seat2 = {"seat": 2, "cards": cards, "declare": "rainbow"}
        with pytest.raises(ShowdownError, match="unknown clean sweep 'rainbow'"):
            decide_chinese(_hand([A | {"front": ["Qh", "Qd", "2d"]}, seat2]))
        seat2 = {"seat": 2, "cards": cards, "declare": "thirteen-colours"}
        with pytest.raises(ShowdownError, match="not a clean sweep under rule set house"):
            decide_chinese(_hand([B, seat2]))
        seat2 = {"seat": 2, "cards": cards, "declare": "dragon"}
        with pytest.raises(ShowdownError, match="not a clean sweep under rule set blue-tiki-4-2"):
            decide_chinese(_hand([B | {"seat": 1}, seat2], rules="blue-tiki-4-2"))

    def test_both_cards_and_a_setting(self) -> None:
        b = dict(B, cards=["2s"])
        with pytest.raises(ShowdownError, match="either 'cards'"):
            decide_chinese(_hand([A, b]))

    def test_unset_hand_without_a_declaration_fouls(self) -> None:
        cards = B["front"] + B["middle"] + B["back"]
        r = decide_chinese(_hand([A, {"seat": 2, "cards": cards}]))
        assert r["players"]["2"]["fouled"]
        assert r["players"]["2"]["foul"].startswith("hand not set")

    def test_surrender_and_declare_together(self) -> None:
        b = {"seat": 2, "surrender": True, "declare": "dragon", "cards": B["front"] + B["middle"] + B["back"]}
        with pytest.raises(ShowdownError, match="cannot both surrender and declare"):
            decide_chinese(_hand([A, b]))

    def test_surrender_can_be_switched_off(self) -> None:
        rules = {"base": "house", "surrender-points": None}
        with pytest.raises(ShowdownError, match="does not allow surrender"):
            decide_chinese(_hand([A, {"seat": 2, "surrender": True}], rules=rules))
