"""The showdown entry a dealer is making, kept per hand on the server (a draft): only while the
hand is in progress, only by whoever runs the table's hands, bounded in size, and never the
ledger's (no reading, no status, no money)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from ledger.models import JournalTransaction
from tables import errors, services
from tables.choices import HandStatus
from tables.models import Hand, HandResult, Player, ShowdownDraft, Table
from tables.services.drafts import MAX_DRAFT_CHARS, MAX_DRAFT_FIELDS, MAX_FIELD_CHARS

ENTRY = {"board": "Ah Kd 7c", "cards_1": "As Ac", "put_in_1": "8", "folded_3": "on", "active": "board"}


@pytest.fixture
def hand(
    make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]], deal_hand: Any
) -> Hand:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    return deal_hand(table)


def test_a_draft_is_kept_replaced_and_touches_nothing_else(hand: Hand, users: dict[str, Any]) -> None:
    postings = JournalTransaction.objects.count()
    draft = services.save_showdown_draft(hand=hand, entry=ENTRY, by=users["floor"])
    assert (draft.entry, draft.updated_by) == (ENTRY, users["floor"])
    later = services.save_showdown_draft(hand=hand, entry=ENTRY | {"cards_2": "Kc"}, by=None)
    assert ShowdownDraft.objects.filter(hand=hand).count() == 1  # the last save wins
    assert later.entry["cards_2"] == "Kc"
    assert later.updated_by is None
    assert later.updated_at >= draft.updated_at
    shown = services.showdown_draft(hand)
    assert shown is not None
    assert shown.entry == later.entry
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT
    assert not HandResult.objects.filter(hand=hand).exists()
    assert JournalTransaction.objects.count() == postings


def test_only_the_dealer_on_duty_or_the_floor_keeps_a_draft(hand: Hand, users: dict[str, Any]) -> None:
    with pytest.raises(errors.NotYourTable):
        services.save_showdown_draft(hand=hand, entry=ENTRY, by=users["dealer"])
    services.clock_in(table=hand.table, dealer=users["dealer"], by=users["dealer"])
    services.save_showdown_draft(hand=hand, entry=ENTRY, by=users["dealer"])
    assert ShowdownDraft.objects.get(hand=hand).updated_by == users["dealer"]


def test_no_draft_for_a_hand_that_is_over(hand: Hand, settle_hand: Callable[..., Hand]) -> None:
    settle_hand(hand)
    with pytest.raises(errors.HandAlreadySettled) as settled:
        services.save_showdown_draft(hand=hand, entry=ENTRY, by=None)
    assert settled.value.status == 409
    table = hand.table
    void = hand_flow.misdeal(
        hand=hand_flow.start_hand(table=table, by=None).hand, reason_code="two_boxed", by=None
    ).hand
    with pytest.raises(errors.HandVoided):
        services.save_showdown_draft(hand=void, entry=ENTRY, by=None)
    assert not ShowdownDraft.objects.exists()


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        (["board", "Ah"], "an object"),
        ({f"cards_{i}": "" for i in range(MAX_DRAFT_FIELDS + 1)}, f"at most {MAX_DRAFT_FIELDS} fields"),
        ({"cards_1": "x" * (MAX_FIELD_CHARS + 1)}, f"at most {MAX_FIELD_CHARS} characters"),
        ({"Cards 1": "As"}, "not a field of the entry"),
        ({"x" * 41: "As"}, "not a field of the entry"),
        ({"cards_1": 12}, "is not text"),
        ({"cards_1": "As\x00"}, "is not text"),
        ({f"cards_{i}": "x" * 150 for i in range(MAX_DRAFT_CHARS // 150)}, f"at most {MAX_DRAFT_CHARS}"),
    ],
)
def test_a_draft_is_bounded(hand: Hand, entry: Any, says: str) -> None:
    with pytest.raises(errors.FloorValidationError) as refused:
        services.save_showdown_draft(hand=hand, entry=entry, by=None)
    assert (refused.value.field, refused.value.status) == ("entry", 400)
    assert says in refused.value.message
    assert not ShowdownDraft.objects.exists()
