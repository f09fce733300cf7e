"""Cards: parsing, canonical text, codes, suit order (RULINGS section 1)."""

from __future__ import annotations

import copy
import pickle

import pytest
from phevaluator.card import Card as PhCard

from poker.cards import (
    CARDS_BY_CODE,
    FULL_DECK,
    JOKER,
    Card,
    CardError,
    card_key,
    format_cards,
    parse_card,
    parse_cards,
)


@pytest.mark.parametrize(
    ("text", "canonical", "rank", "suit"),
    [
        ("As", "As", 14, "s"),
        ("as", "As", 14, "s"),
        ("AS", "As", 14, "s"),
        ("td", "Td", 10, "d"),
        ("10d", "Td", 10, "d"),
        ("10H", "Th", 10, "h"),
        ("2c", "2c", 2, "c"),
        ("kH", "Kh", 13, "h"),
        (" Qd ", "Qd", 12, "d"),
        ("JK", "JK", 0, ""),
        ("jk", "JK", 0, ""),
    ],
)
def test_parse_card(text: str, canonical: str, rank: int, suit: str) -> None:
    card = parse_card(text)
    assert str(card) == canonical
    assert (card.rank, card.suit) == (rank, suit)


@pytest.mark.parametrize("text", ["", "1s", "Ax", "11h", "Asd", "J", "JKs", "0c", "ZZ"])
def test_unknown_card_is_refused_naming_the_text(text: str) -> None:
    with pytest.raises(CardError, match=repr(text).replace("\\", "\\\\").replace("[", r"\[")):
        parse_card(text)


def test_non_string_is_refused() -> None:
    with pytest.raises(CardError):
        parse_card(14)  # type: ignore[arg-type]


def test_parse_cards_accepts_spaces_commas_and_lists() -> None:
    expected = (Card(14, "s"), Card(10, "d"), Card(2, "c"))
    assert parse_cards("As Td 2c") == expected
    assert parse_cards("as,10d, 2C") == expected
    assert parse_cards("As,,Td  ,2c") == expected
    assert parse_cards(["As", "10d", "2c"]) == expected
    assert parse_cards("") == ()
    with pytest.raises(CardError, match="'Xx'"):
        parse_cards("As Xx")


def test_format_cards_is_canonical() -> None:
    assert format_cards(parse_cards("as 10h jk 2D")) == ["As", "Th", "JK", "2d"]


def test_deck_has_52_distinct_cards_and_codes_match_phevaluator() -> None:
    assert len(FULL_DECK) == 52
    assert len(set(FULL_DECK)) == 52
    assert JOKER not in FULL_DECK
    for card in FULL_DECK:
        assert PhCard(str(card)).id_ == card.code
        assert CARDS_BY_CODE[card.code] is card
    assert CARDS_BY_CODE[52] is JOKER


def test_cards_are_immutable_interned_and_hashable() -> None:
    card = parse_card("Ah")
    assert Card(14, "h") is card
    assert {card: 1}[Card(14, "h")] == 1
    assert pickle.loads(pickle.dumps(card)) is card
    assert copy.deepcopy(card) is card
    with pytest.raises(AttributeError):
        card.rank = 2  # type: ignore[misc]
    with pytest.raises(CardError):
        Card(15, "s")
    with pytest.raises(CardError):
        Card(10, "x")


def test_suit_order_breaks_ties_spades_hearts_diamonds_clubs() -> None:
    spade, heart, diamond, club = parse_cards("7s 7h 7d 7c")
    assert card_key(spade) > card_key(heart) > card_key(diamond) > card_key(club)
    assert spade.suit_order > heart.suit_order > diamond.suit_order > club.suit_order
    # rank first, then suit
    assert card_key(parse_card("8c")) > card_key(parse_card("7s"))
    ordered = sorted(parse_cards("Kc As 2s Kd"), key=card_key)
    assert format_cards(ordered) == ["2s", "Kc", "Kd", "As"]


def test_low_rank_counts_the_ace_low() -> None:
    assert parse_card("Ad").low_rank == 1
    assert parse_card("Kd").low_rank == 13
    assert JOKER.low_rank == 0
    assert JOKER.is_joker
    assert not parse_card("2c").is_joker
