"""What no hash can check (``backoffice.books``): each settled hand's stored reading against its
settlement transaction, and each hand's fees against the schedule it recorded and its FEE
transaction. Every alteration is made behind the system's back (a queryset update of the floor's
rows, or the ledger's rows with the triggers off) and must come out as the named problem."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F

from backoffice.books import settlement_lines, verify_books, where_lines_part
from handflow import services as hand_flow
from ledger.hashing import json_digest, posting_digest
from ledger.keys import chain_keys
from ledger.models import Entry, JournalTransaction, TransactionKind
from poker.postings import Postings
from tables.models import CollectionSchedule, Hand, HandPlayer, HandResult
from tables.selectors import rate_for
from tests.ledger.forgery import rechain, sql, triggers_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def books(table_with_players: Any, deal_hand: Any, settle_hand: Any) -> dict[str, Any]:
    """A hold'em table with a settled hand (a pot) and a voided one (fees returned), and a Chinese
    poker table (each player pays) with a settled hand where nobody pays anyone."""
    table, _ = table_with_players(3)
    pot_hand = settle_hand(deal_hand(table))
    void = hand_flow.misdeal(hand=deal_hand(table), reason_code="other", reason="exposed card", by=None).hand
    chinese_table, _ = table_with_players(4, game="chinese-poker", stakes="points-1", schedule="CP1")
    chinese_hand = settle_hand(deal_hand(chinese_table))
    return {"table": table, "pot": pot_hand, "void": void, "chinese": chinese_hand}


def codes_of(report: Any, hand: Hand) -> set[str]:
    return {p.code for p in report.problems if p.hand_id == hand.pk}


def test_sound_hands_pass(books: dict[str, Any]) -> None:
    report = verify_books()
    assert report.ok, report.problems
    assert report.hands == 3
    pot = HandResult.objects.get(hand=books["pot"])
    assert pot.settlement is not None
    # The settlement's chained request digest covers the reading's input (handflow passes it).
    lines = list(pot.settlement.entries.order_by("line").values_list("account_id", "amount"))
    assert pot.settlement.request_digest == posting_digest(
        kind=pot.settlement.kind,
        table_id=pot.settlement.table_id,
        hand_id=books["pot"].pk,
        reverses_id=None,
        memo=pot.settlement.memo,
        lines=lines,
        request=None,
        input_digest=pot.digest,
    )
    assert pot.digest == json_digest(pot.engine_input) == hand_flow.digest_of(pot.engine_input)


def test_altered_postings_are_named(books: dict[str, Any]) -> None:
    reading = HandResult.objects.get(hand=books["pot"])
    postings = reading.postings
    postings["awards"][0]["amount"] += 100
    postings["put_ins"][-1]["amount"] += 100
    HandResult.objects.filter(pk=reading.pk).update(postings=postings)
    report = verify_books()
    assert codes_of(report, books["pot"]) == {"settlement_mismatch"}
    problem = next(p for p in report.problems if p.code == "settlement_mismatch")
    assert problem.transaction_id == reading.settlement_id
    assert "line " in problem.message
    assert "expected" in problem.message


def test_a_settlement_as_the_books_lay_it_out_and_where_the_ledger_parts_from_it() -> None:
    """The books compare a settlement's entries with the postings' ledger lines (the pot as the
    hand's pot account), and say the first line where they part."""
    postings = Postings.from_json(
        {
            "kind": "pot",
            "put_ins": [{"seat": 1, "player": 7, "amount": 400}, {"seat": 2, "player": 8, "amount": 400}],
            "awards": [{"seat": 2, "player": 8, "amount": 800, "pot": 0, "share": "whole"}],
            "returned": [],
            "net": {"1": -400, "2": 400},
        }
    )
    lines = settlement_lines(postings, 42)
    assert lines == [
        ("player", 7, -400),
        ("pot", 42, 400),
        ("player", 8, -400),
        ("pot", 42, 400),
        ("pot", 42, -800),
        ("player", 8, 800),
    ]
    assert where_lines_part(lines, lines) == "no difference"
    changed = [*lines[:1], ("pot", 42, 7), *lines[2:]]
    assert where_lines_part(lines, changed) == "line 2: expected +400 to pot 42, the ledger has +7 to pot 42"
    assert where_lines_part(lines, lines[:4]) == "line 5: expected -800 to pot 42, the ledger has nothing"
    assert (
        where_lines_part([], [("house", None, 5)]) == "line 1: expected nothing, the ledger has +5 to house"
    )


def test_an_altered_engine_input_is_named(books: dict[str, Any]) -> None:
    reading = HandResult.objects.get(hand=books["pot"])
    engine_input = reading.engine_input
    engine_input["players"][0]["put_in"] += 100
    HandResult.objects.filter(pk=reading.pk).update(engine_input=engine_input)
    assert codes_of(verify_books(), books["pot"]) == {"hand_input_digest_mismatch"}


def test_an_engine_input_altered_with_its_digest_is_named(books: dict[str, Any]) -> None:
    """The digest recomputed to match: the chained settlement still names the original input."""
    reading = HandResult.objects.get(hand=books["pot"])
    engine_input = reading.engine_input
    engine_input["players"][0]["put_in"] += 100
    HandResult.objects.filter(pk=reading.pk).update(
        engine_input=engine_input, digest=json_digest(engine_input)
    )
    assert codes_of(verify_books(), books["pot"]) == {"settlement_input_mismatch"}


def test_a_reading_unlinked_from_its_settlement_is_named(books: dict[str, Any]) -> None:
    HandResult.objects.filter(hand=books["pot"]).update(settlement=None)
    assert codes_of(verify_books(), books["pot"]) == {"settlement_missing", "settlement_unlinked"}


def test_unreadable_postings_are_named(books: dict[str, Any]) -> None:
    HandResult.objects.filter(hand=books["pot"]).update(postings={"kind": "pot"})
    assert codes_of(verify_books(), books["pot"]) == {"settlement_postings_malformed"}


def test_an_altered_fee_is_named(books: dict[str, Any]) -> None:
    hand: Hand = books["chinese"]
    HandPlayer.objects.filter(hand=hand, position=2).update(fee_cents=F("fee_cents") + 100)
    report = verify_books()
    assert codes_of(report, hand) == {"fee_schedule_mismatch", "fee_mismatch"}
    fee = JournalTransaction.objects.get(hand=hand, kind=TransactionKind.FEE)
    assert next(p for p in report.problems if p.code == "fee_mismatch").transaction_id == fee.pk


def test_a_hand_moved_to_another_schedule_is_named(books: dict[str, Any]) -> None:
    """Fees and the FEE transaction agree, but not with the schedule the hand records."""
    hand: Hand = books["pot"]
    players = hand.players.count()
    current = rate_for(
        schedule=hand.collection_schedule, stakes=hand.stakes, players=players, at=hand.created_at
    )
    assert current is not None
    other = next(
        (
            schedule
            for schedule in CollectionSchedule.objects.exclude(pk=hand.collection_schedule_id)
            if (rate := rate_for(schedule=schedule, stakes=hand.stakes, players=players, at=hand.created_at))
            is not None
            and rate.fees_by_position(players) != current.fees_by_position(players)
        ),
        None,
    )
    assert other is not None, "the house data has a schedule charging otherwise"
    Hand.objects.filter(pk=hand.pk).update(collection_schedule=other)
    assert codes_of(verify_books(), hand) == {"fee_schedule_mismatch"}


@pytest.mark.tamper
def test_a_fee_transaction_rewritten_with_the_key_is_named(books: dict[str, Any]) -> None:
    """An insider with the chain key rewrites a fee (every hash valid again): the hand's recorded
    fees give it away."""
    hand: Hand = books["chinese"]
    fee = JournalTransaction.objects.get(hand=hand, kind=TransactionKind.FEE)
    first, house = fee.entries.order_by("line").first(), fee.entries.order_by("line").last()
    assert first is not None
    assert house is not None
    key_id, key = chain_keys().current
    with triggers_off():
        sql("UPDATE ledger_entry SET amount = amount + 50 WHERE id = %s", [first.pk])
        sql("UPDATE ledger_entry SET amount = amount - 50 WHERE id = %s", [house.pk])
        sql("UPDATE ledger_account SET balance = balance + 50 WHERE id = %s", [first.account_id])
        sql("UPDATE ledger_account SET balance = balance - 50 WHERE id = %s", [house.account_id])
        rechain(fee.chain, key=key, key_id=key_id)
    report = verify_books()
    assert report.ledger.ok, report.ledger.problems
    assert codes_of(report, hand) == {"fee_mismatch"}


@pytest.mark.tamper
def test_a_legacy_unkeyed_settlement_without_the_input_is_accepted(books: dict[str, Any]) -> None:
    """Rows posted before the keyed chain had no input digest; as format 1 rows they pass."""
    reading = HandResult.objects.get(hand=books["pot"])
    txn = reading.settlement
    assert txn is not None
    legacy = posting_digest(
        kind=txn.kind,
        table_id=txn.table_id,
        hand_id=txn.hand_id,
        reverses_id=None,
        memo=txn.memo,
        lines=list(
            Entry.objects.filter(transaction=txn).order_by("line").values_list("account_id", "amount")
        ),
        request=None,
    )
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET request_digest = %s WHERE id = %s", [legacy, txn.pk])
        rechain(txn.chain, key=None)
    report = verify_books()
    assert report.ok, report.problems
    # The same digest on a keyed row is refused: every keyed settlement carries its input.
    key_id, key = chain_keys().current
    with triggers_off():
        rechain(txn.chain, key=key, key_id=key_id)
    assert codes_of(verify_books(), books["pot"]) == {"settlement_input_mismatch"}


def test_the_command_names_the_hand(books: dict[str, Any]) -> None:
    HandPlayer.objects.filter(hand=books["pot"], position=1).update(fee_cents=F("fee_cents") + 1)
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError):
        call_command("verify_ledger", stdout=out, stderr=err)
    assert f"[fee_schedule_mismatch] hand {books['pot'].pk} " in err.getvalue()
    assert "3 hand(s)" in out.getvalue()
