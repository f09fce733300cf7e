"""Misdeal reasons that fit the game: 004's for Chinese poker and lowball, Robert's Rules of Poker's
for the pot games, "other" everywhere (docs/misdeals.md); said once (tables.games) and enforced by
the service that voids a hand, whoever calls it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from poker.games import GAME_RULES
from tables.choices import HandStatus, MisdealReason
from tables.errors import FloorValidationError
from tables.games import GAME_WORDS, misdeal_reasons_for, say_games
from tables.models import Hand, Player, Table
from tables.services import check_misdeal_reason

R = MisdealReason
CHINESE_004 = {"exposed_five", "wrong_count", "boxed_cards", "foreign_card", "duplicate_card"}
LOWBALL_004 = {"six_cards", "exposed_up"}


def codes(slug: str) -> list[str]:
    return [str(r) for r in misdeal_reasons_for(slug)]


def test_each_game_offers_its_own_misdeals_and_other_last() -> None:
    for slug in GAME_RULES:
        assert codes(slug)[-1] == "other", slug
        assert len(set(codes(slug))) == len(codes(slug)), slug
    assert set(codes("chinese-poker")) == CHINESE_004 | {"other"}
    # Stud: no button, and an exposed first or second down card is dealt around, not a misdeal.
    for stud in ("stud", "stud-hi-lo", "razz", "five-card-stud", "option-alley"):
        assert "button_misplaced" not in codes(stud)
        assert "first_cards_exposed" not in codes(stud)
        assert {"two_boxed", "wrong_number", "empty_seat_dealt", "same_card_twice"} <= set(codes(stud))
        assert not (CHINESE_004 | LOWBALL_004) & set(codes(stud)), stud
    assert {"first_cards_exposed", "button_misplaced", "first_card_wrong"} <= set(codes("holdem"))
    # Lowball: 004 rule 13 first, in place of Robert's exposed and extra cards.
    assert codes("lowball")[:2] == ["six_cards", "exposed_up"]
    assert not {"first_cards_exposed", "two_exposed", "extra_cards"} & set(codes("lowball"))
    assert "button_misplaced" in codes("lowball")
    # Taiwanese poker: neither source names its misdeals; a game the engine doesn't know: "other".
    assert codes("taiwanese-poker") == ["other"]
    assert codes("snap") == ["other"]
    # Dealer's choice: any of its games' (a hand's own game is the one picked).
    assert set(codes("dealers-choice")) == set().union(
        *(codes(r.slug) for r in GAME_RULES["dealers-choice"].choices)
    )
    # Every code is offered somewhere.
    assert set(R.values) == set().union(*(codes(slug) for slug in GAME_RULES))


def test_the_check_refuses_a_code_of_another_game(make_table: Callable[..., Table]) -> None:
    stud = make_table(game="stud", stakes="limit-4-8", schedule="A").game
    with pytest.raises(FloorValidationError) as refused:
        check_misdeal_reason("wrong_count", game=stud)
    assert refused.value.field == "reason_code"
    assert "004 Chinese poker 7b" in refused.value.message
    assert "is not a misdeal of Seven card stud" in refused.value.message
    code, words = check_misdeal_reason("wrong_number", game=stud)
    assert (code, words) == (R.WRONG_NUMBER, R.WRONG_NUMBER.label)
    # Without a game the code is only checked to be one of the codes (kept for callers that
    # check before they hold the hand; the void itself checks the game).
    assert check_misdeal_reason("wrong_count")[0] == R.WRONG_COUNT


def test_a_stud_hand_cant_be_voided_with_chinese_pokers_reason(
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
) -> None:
    """The issue's report: a stud hand recorded as "a player dealt the wrong number of cards (004
    Chinese poker 7b)". Refused, and nothing of the misdeal is done (its fees stay collected)."""
    table = make_table(game="stud", stakes="limit-4-8", schedule="A")
    players = buy_in_players(table, [1, 2, 3], 8_000)
    hand = deal_hand(table)
    dealt_chips = [ledger_selectors.player_chips(table=table, player=p) for p in players]
    with pytest.raises(FloorValidationError) as refused:
        hand_flow.misdeal(hand=hand, reason_code="wrong_count", by=None)
    assert refused.value.status == 400
    hand.refresh_from_db()
    assert (hand.status, hand.misdeal_reason) == (HandStatus.DEALT, "")
    assert [ledger_selectors.player_chips(table=table, player=p) for p in players] == dealt_chips
    voided = hand_flow.misdeal(hand=hand, reason_code="wrong_number", by=None).hand
    assert (voided.status, voided.misdeal_reason) == (HandStatus.VOID, "wrong_number")
    assert voided.void_reason == "A player dealt a wrong number of cards (Robert's Rules, misdeal 2e)"


def test_dealers_choice_checks_the_game_picked(
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
) -> None:
    table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    hand = deal_hand(table, game="razz")
    with pytest.raises(FloorValidationError):
        hand_flow.misdeal(hand=hand, reason_code="button_misplaced", by=None)  # razz has no button
    with pytest.raises(FloorValidationError):
        hand_flow.misdeal(hand=hand, reason_code="six_cards", by=None)  # lowball's, not razz's
    assert hand_flow.misdeal(hand=hand, reason_code="two_boxed", by=None).hand.misdeal_reason == "two_boxed"


@pytest.mark.parametrize(
    ("game", "stakes", "schedule", "fits", "wrong"),
    [
        ("chinese-poker", "points-5", "CP2", "boxed_cards", "two_boxed"),
        ("lowball", "limit-4-8", "A", "six_cards", "extra_cards"),
        ("taiwanese-poker", "points-5", "CP1", "other", "wrong_number"),
    ],
)
def test_each_games_void_takes_its_own_codes(
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
    game: str,
    stakes: str,
    schedule: str,
    fits: str,
    wrong: str,
) -> None:
    table = make_table(game=game, stakes=stakes, schedule=schedule)
    buy_in_players(table, [1, 2, 3], 10_000)
    hand = deal_hand(table)
    with pytest.raises(FloorValidationError):
        hand_flow.misdeal(hand=hand, reason_code=wrong, by=None)
    voided = hand_flow.misdeal(
        hand=hand, reason_code=fits, reason="words" if fits == "other" else "", by=None
    ).hand
    assert voided.misdeal_reason == fits


def test_the_engine_slugs_are_said_as_a_card_room_says_them() -> None:
    assert say_games("seat 3: holdem needs 2 cards") == "seat 3: Hold'em needs 2 cards"
    assert (
        say_games("board is only for holdem and omaha games") == "board is only for Hold'em and omaha games"
    )
    assert say_games("not a Chinese poker hand: game 'chinese-poker'") == (
        "not a Chinese poker hand: game 'Chinese poker'"
    )
    # Slugs that are words of their own stay as they are (a message's "stud" is not a game's slug).
    assert say_games("odd chips by suit (stud), lowball") == "odd chips by suit (stud), lowball"
    assert GAME_WORDS["holdem"] == "Hold'em"
    assert set(GAME_RULES) <= set(GAME_WORDS)  # every game the engine knows has its words
