"""Hand reading: names, the five cards, categories, Omaha 2+3, fronts, ace-to-five lows."""

from __future__ import annotations

import random

import pytest

from poker.cards import FULL_DECK, CardError, format_cards, parse_cards
from poker.hands import (
    LOW_CARD_ORDER,
    Category,
    best_high,
    best_low_a5,
    low8_from_codes,
    omaha_board_low8,
    omaha_high,
    omaha_low,
    omaha_low8,
    qualifies_8,
    three_card_high,
)

BOARD_004 = parse_cards("6c 8c 6d 3h 6s")  # 004's Omaha example board


def high(text: str) -> tuple[str, list[str], Category]:
    h = best_high(parse_cards(text))
    return h.name, format_cards(h.cards), h.category


@pytest.mark.parametrize(
    ("cards", "name", "shown", "category"),
    [
        ("As Ks Qs Js Ts 2c 3d", "Royal flush", "As Ks Qs Js Ts", Category.STRAIGHT_FLUSH),
        ("8h 7h 6h 5h 4h Ah Kh", "Straight flush, eight high", "8h 7h 6h 5h 4h", Category.STRAIGHT_FLUSH),
        ("5d 4d 3d 2d Ad Kc Qs", "Straight flush, five high", "5d 4d 3d 2d Ad", Category.STRAIGHT_FLUSH),
        ("Qc Qd Qh Qs 2c 2d 3h", "Four of a kind, queens", "Qc Qd Qh Qs 3h", Category.FOUR_OF_A_KIND),
        ("6c 6d 6s Kd Kh 2c 3c", "Full house, sixes full of kings", "6c 6d 6s Kd Kh", Category.FULL_HOUSE),
        ("6c 6d 6s Kd Kh Ks 2c", "Full house, kings full of sixes", "Kd Kh Ks 6c 6d", Category.FULL_HOUSE),
        ("Kh 9h 7h 4h 2h Qd Jc", "Flush, king high", "Kh 9h 7h 4h 2h", Category.FLUSH),
        ("9c 8d 7h 6s 5c 5d 2h", "Straight, nine high", "9c 8d 7h 6s 5c", Category.STRAIGHT),
        ("Ah 2d 3c 4s 5h 9c 9d", "Straight, five high", "5h 4s 3c 2d Ah", Category.STRAIGHT),
        ("6c 6d 6s Jd 9h 2c 3h", "Three of a kind, sixes", "6c 6d 6s Jd 9h", Category.THREE_OF_A_KIND),
        ("Ad Ah 8c 8d 9s Js 2c", "Two pair, aces and eights", "Ad Ah 8c 8d Js", Category.TWO_PAIR),
        ("Jc Js 9d 7h 4c 3s 2d", "Pair of jacks", "Jc Js 9d 7h 4c", Category.PAIR),
        ("As Qd 9h 7c 5s 3d 2h", "Ace high", "As Qd 9h 7c 5s", Category.HIGH_CARD),
        ("2c 3d 4h 5s 7c 8d Ts", "Ten high", "Ts 8d 7c 5s 4h", Category.HIGH_CARD),
        ("Tc 9c 8c 7c 6c", "Straight flush, ten high", "Tc 9c 8c 7c 6c", Category.STRAIGHT_FLUSH),
        ("Tc 9c 8c 7c 6d 5c", "Flush, ten high", "Tc 9c 8c 7c 5c", Category.FLUSH),
        ("Tc 9c 8c 7c 6d 5h", "Straight, ten high", "Tc 9c 8c 7c 6d", Category.STRAIGHT),
    ],
)
def test_high_names_and_cards(cards: str, name: str, shown: str, category: Category) -> None:
    assert high(cards) == (name, shown.split(), category)


def test_high_hand_is_independent_of_input_order() -> None:
    a = best_high(parse_cards("6c 6d 6s Kd Kh 2c 3c"))
    b = best_high(parse_cards("3c Kh 6s 2c 6d Kd 6c"))
    assert a == b


def test_high_strength_orders_hands() -> None:
    order = [
        "7d 5c 4h 3s 2d",
        "Ac Qd 9h 7c 5s",
        "2c 2d 4h 5s 7c",
        "Ac Ad 8h 8s 2c",
        "3c 3d 3h As Kd",
        "5c 4d 3h 2s Ad",
        "6c 5d 4h 3s 2d",
        "Ac Kd Qh Js Tc",
        "2h 3h 4h 5h 7h",
        "3c 3d 3h 2s 2d",
        "2c 2d 2h 2s 3d",
        "5h 4h 3h 2h Ah",
        "Ah Kh Qh Jh Th",
    ]
    strengths = [best_high(parse_cards(t)).strength for t in order]
    assert strengths == sorted(strengths)
    assert len(set(strengths)) == len(strengths)
    # kickers count, suits never do
    assert (
        best_high(parse_cards("Ac Ad Kh 9s 2c")).strength > best_high(parse_cards("As Ah Kd 8s 7c")).strength
    )
    assert (
        best_high(parse_cards("Ac Ad Kh 9s 2c")).strength == best_high(parse_cards("As Ah Kd 9c 2h")).strength
    )


def test_omaha_004_example_kings_full_wins() -> None:
    seat1 = omaha_high(parse_cards("2s 4c Jd 9h"), BOARD_004)
    seat2 = omaha_high(parse_cards("Tc 5c Qc Ah"), BOARD_004)
    seat3 = omaha_high(parse_cards("Kh Kd 7h Jh"), BOARD_004)
    assert seat1.name == "Three of a kind, sixes"
    assert format_cards(seat1.cards) == ["6c", "6d", "6s", "Jd", "9h"]
    assert seat2.name == "Three of a kind, sixes"
    assert format_cards(seat2.cards) == ["6c", "6d", "6s", "Ah", "Qc"]
    assert seat3.name == "Full house, sixes full of kings"
    assert format_cards(seat3.cards) == ["6c", "6d", "6s", "Kd", "Kh"]
    assert seat3.strength > seat2.strength > seat1.strength


@pytest.mark.parametrize(
    ("hole", "board", "name"),
    [
        # four hearts on board and one in the hand is no flush in Omaha
        ("Ah Kc Qd Js", "2h 5h 8h Th 3c", "Ace high"),
        # quads in the hand play as a pair
        ("Ac Ad Ah As", "2c 7d 9h Js 4c", "Pair of aces"),
        # a board straight does not play without two hole cards
        ("Kc Kd 2h 2s", "5c 6d 7h 8s 9c", "Pair of kings"),
        # board trips + a hole pair makes the full house; hold'em reading would give quads
        ("Qc Qd Qh 3s", "Qs 2c 2d 7h 9s", "Full house, queens full of twos"),
        ("Jh Th 2c 3d", "Ah Kh Qh 4s 4d", "Royal flush"),
    ],
)
def test_omaha_uses_exactly_two_and_three(hole: str, board: str, name: str) -> None:
    h = omaha_high(parse_cards(hole), parse_cards(board))
    assert h.name == name
    hole_set, board_set = set(parse_cards(hole)), set(parse_cards(board))
    assert len(set(h.cards) & hole_set) == 2
    assert len(set(h.cards) & board_set) == 3


def test_three_card_front_rule() -> None:
    kk5 = three_card_high(parse_cards("Kh Kd 5c"))
    kk4 = three_card_high(parse_cards("Kh Kd 4c"))
    kk432 = best_high(parse_cards("Kc Ks 4d 3d 2h"))
    assert kk5.name == "Pair of kings"
    assert format_cards(kk5.cards) == ["Kd", "Kh", "5c"]
    assert kk5.strength > kk432.strength  # KK5 over KK432: fouls
    assert kk4.strength < kk432.strength  # KK4 against KK432: does not foul
    trips = three_card_high(parse_cards("2c 2h 2d"))
    assert trips.name == "Three of a kind, twos"
    assert trips.category is Category.THREE_OF_A_KIND
    assert trips.strength > best_high(parse_cards("Ac Ad Kh Ks Qd")).strength
    assert trips.strength < best_high(parse_cards("3c 3d 3h 4s 5d")).strength
    # no straights or flushes in a front
    front = three_card_high(parse_cards("Qh Kh Ah"))
    assert front.name == "Ace high"
    assert front.category is Category.HIGH_CARD
    assert front.strength < best_high(parse_cards("2c 2d 3h 4s 5d")).strength
    assert front.strength > best_high(parse_cards("Ac Kd Jh 9s 8d")).strength
    assert front.strength < best_high(parse_cards("Ac Kd Qh 3s 2d")).strength  # missing kickers are lowest
    with pytest.raises(ValueError, match="3 cards"):
        three_card_high(parse_cards("Ah Kh"))


def test_high_refuses_joker_and_wrong_sizes() -> None:
    with pytest.raises(CardError, match="joker"):
        best_high(parse_cards("JK As Ks Qs Js"))
    with pytest.raises(ValueError, match="5 to 7"):
        best_high(parse_cards("As Ks Qs Js"))
    with pytest.raises(ValueError, match="Omaha"):
        omaha_high(parse_cards("As Ks Qs"), BOARD_004)


# ----------------------------------------------------------------------------------------
# Lows
# ----------------------------------------------------------------------------------------


def low(text: str, joker_ok: bool = False) -> tuple[str, list[str], bool]:
    h = best_low_a5(parse_cards(text), joker_ok=joker_ok)
    return h.name, format_cards(h.cards), h.qualifies_8


@pytest.mark.parametrize(
    ("cards", "name", "shown", "qualifies"),
    [
        ("8c 6c 4c 3h 2s", "8-6-4-3-2", "8c 6c 4c 3h 2s", True),
        ("7d 5c 4h 3s Ah Kd Kc", "7-5-4-3-A", "7d 5c 4h 3s Ah", True),
        ("5h 4h 3h 2h Ah 9c 9d", "5-4-3-2-A", "5h 4h 3h 2h Ah", True),  # straight flush is a wheel
        ("9c 7d 5h 4s 2c Kd Qh", "9-7-5-4-2", "9c 7d 5h 4s 2c", False),
        ("2c 2d 6h 5s 4c Kd Kh", "K-6-5-4-2", "Kd 6h 5s 4c 2c", False),  # five ranks: no pair
        ("2c 2d 6h 5s 4c 4d 6d", "Pair of twos, 6-5-4", "2c 2d 6d 5s 4c", False),
        ("Ah Ad 2c 2d 3c 3d Kc", "Pair of aces, K-3-2", "Ad Ah Kc 3c 2c", False),
        ("Ac Ad As 2c 2d 2h Kc", "Two pair, twos and aces, K", "2c 2d Ac Ad Kc", False),
        ("Tc Jd Qh Ks 9c", "K-Q-J-10-9", "Ks Qh Jd Tc 9c", False),
    ],
)
def test_low_names_and_cards(cards: str, name: str, shown: str, qualifies: bool) -> None:
    assert low(cards) == (name, shown.split(), qualifies)


def test_low_strength_orders_lows() -> None:
    best_first = [
        "5c 4d 3h 2s Ad",
        "6c 4d 3h 2s Ad",
        "6c 5d 4h 3s 2d",
        "7c 5d 4h 3s 2d",
        "8c 6d 4h 3s 2d",
        "8c 6d 5h 3s Ad",
        "8c 7d 6h 5s 4d",
        "Kc Qd Jh Ts 8d",
        "Ac Ad 4h 3s 2d",  # a pair of aces is the lowest pair
        "2c 2d 4h 3s Ad",
        "2c 2d 5h 3s Ad",
        "Kc Kd 4h 3s 2d",
        "Ac Ad 2h 2s Kd",  # any one pair beats two pair
        "3c 3d 2h 2s Ad",
        "Ac Ad As 2c 3d",
        "Ac Ad As 2c 2d",
        "Ac Ad As Ah 2d",
    ]
    strengths = [best_low_a5(parse_cards(t)).strength for t in best_first]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(strengths)


def test_lowball_joker_is_the_lowest_rank_not_in_the_hand() -> None:
    assert low("4c 3d 2s Ah JK", joker_ok=True) == ("5-4-3-2-A", ["JK", "4c", "3d", "2s", "Ah"], True)
    assert low("5c 4d 3s 2h JK", joker_ok=True)[0] == "5-4-3-2-A"
    assert low("7c 6d 4s 2h JK", joker_ok=True)[0] == "7-6-4-2-A"
    assert low("Ac Ad 3s 4h JK", joker_ok=True)[0] == "Pair of aces, 4-3-2"
    assert low("Kc Kd Qs Qh JK", joker_ok=True)[0] == "Two pair, kings and queens, A"
    with pytest.raises(CardError, match="joker"):
        best_low_a5(parse_cards("4c 3d 2s Ah JK"))


def test_omaha_low_contract_example() -> None:
    seat1 = omaha_low(parse_cards("2s 4c Jd 9h"), BOARD_004)
    seat2 = omaha_low(parse_cards("Tc 5c Qc Ah"), BOARD_004)
    seat3 = omaha_low(parse_cards("Kh Kd 7h Jh"), BOARD_004)
    assert (seat1.name, format_cards(seat1.cards)) == ("8-6-4-3-2", ["8c", "6c", "4c", "3h", "2s"])
    assert (seat2.name, format_cards(seat2.cards)) == ("8-6-5-3-A", ["8c", "6c", "5c", "3h", "Ah"])
    assert seat1.strength > seat2.strength
    assert seat1.qualifies_8
    assert seat2.qualifies_8
    assert not seat3.qualifies_8
    assert not qualifies_8(seat3)
    assert not qualifies_8(None)


@pytest.mark.parametrize(
    ("hole", "board", "name"),
    [
        # three low board cards plus two low hole cards of a rank the board already has
        ("Ac 2c Kd Kh", "Ad 2d 3h 7s 8c", "8-7-3-2-A"),
        # the best two hole cards, not just the lowest hole card
        ("Ac 4d 5h 9s", "2c 3d 6h Ks Qd", "6-4-3-2-A"),
        # a pair in the hand does not count twice: the second hole card must be the king
        ("2c 2d Kh Ks", "Ac 3d 4h Qs Jd", "K-4-3-2-A"),
        # only one low card in the hand
        ("Ac Kd Ks Kh", "2c 3d 4h Qs Qd", "K-4-3-2-A"),
        # four-card low on board never plays by itself
        ("Kc Kd Qh Qs", "Ac 2d 3h 4s 5c", "K-Q-3-2-A"),
    ],
)
def test_omaha_low_two_plus_three(hole: str, board: str, name: str) -> None:
    h = omaha_low(parse_cards(hole), parse_cards(board))
    assert h.name == name
    assert len(set(h.cards) & set(parse_cards(hole))) == 2
    assert len(set(h.cards) & set(parse_cards(board))) == 3


def test_omaha_low_with_only_paired_lows() -> None:
    h = omaha_low(parse_cards("Ac Ad As Ah"), parse_cards("Kc Kd Ks 2h 3h"))
    # two aces from the hand, and the best three from the board: 3-2-K, pairing the aces
    assert h.name == "Pair of aces, K-3-2"
    assert h.category is Category.PAIR
    assert not h.qualifies_8


def test_eight_or_better_fast_paths_agree_with_the_full_readers() -> None:
    """The showdown reads 8-or-better lows through shortcuts; they must match the full readers."""
    rng = random.Random(7)
    deck = list(FULL_DECK)
    for _ in range(20_000):
        cards = rng.sample(deck, 7)
        full = best_low_a5(cards)
        assert low8_from_codes([c.code for c in cards]) == (full if full.qualifies_8 else None)
        hole, board = cards[:4], rng.sample([c for c in deck if c not in cards], 5)
        full = omaha_low(hole, board)
        hc = sorted((c.code for c in hole), key=LOW_CARD_ORDER.__getitem__)
        fast = omaha_low8(hc, *omaha_board_low8([c.code for c in board]))
        assert fast == (full if full.qualifies_8 else None)


def test_holdem_fast_path_reads_every_hand_as_best_high() -> None:
    """The hold'em loop (one board for every hand) gives the same hand, name and five cards as
    the general reading of each player's seven cards."""
    from poker.hands import holdem_highs

    rng = random.Random(7)
    for _ in range(3_000):
        deck = rng.sample(FULL_DECK, 5 + 2 * 9)
        board, holes = deck[:5], [deck[5 + 2 * i : 7 + 2 * i] for i in range(9)]
        seats = rng.sample(range(1, 10), 9)
        hands, strengths = holdem_highs(seats, holes, board)
        assert list(hands) == list(strengths) == seats
        assert list(hands.values()) == [best_high([*hole, *board]) for hole in holes]
        assert list(strengths.values()) == [h.strength for h in hands.values()]
