"""The nightly check costs what the day cost: it verifies the journal rows and hands since the last
checkpoint plus a rotating seventh of the older ones (every row again within a week), starting each
chain from a verified hash; the full check stays, in the worker; problems are counted and capped."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from backoffice import tasks
from backoffice.integrity_checks import ROTATION_PARTS, problem_total, rotation_slice, run_nightly_check
from ledger import verification
from ledger.models import (
    CheckpointKind,
    CheckpointPart,
    IntegrityCheck,
    JournalTransaction,
    VerificationCheckpoint,
)
from ledger.verification import Problem, ProblemList, verify_ledger, verify_ledger_range
from tables.models import Hand, Player, Table
from tests.factories import ReportRoom, at_local
from tests.ledger.forgery import sql, triggers_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def floor(room: ReportRoom, a_past_day: dt.date) -> dict[str, Any]:
    tables = [room.table(number, schedule=room.limit_schedule()) for number in (81, 82)]
    players = {
        table.pk: room.seat(table, [f"{table.number}A", f"{table.number}B", f"{table.number}C"])
        for table in tables
    }
    return {"room": room, "day": a_past_day, "tables": tables, "players": players}


def play(floor: dict[str, Any], hands: int, *, minute: int = 0) -> list[Hand]:
    room: ReportRoom = floor["room"]
    played = []
    for i in range(hands):
        table: Table = floor["tables"][i % 2]
        players: list[Player] = floor["players"][table.pk]
        played.append(room.hand(table, players, at=at_local(floor["day"], 10, minute + i)))
    return played


# The checks below are judged by what they found in the rows (``problems``); ``ok`` also needs the
# database's guards to hold, which a superuser's test connection rightly fails.


def checkpoint(kind: CheckpointKind, part: CheckpointPart) -> VerificationCheckpoint:
    return VerificationCheckpoint.objects.filter(kind=kind, part=part).order_by("-pk").first()


def test_the_rotation_covers_every_id_once_a_week() -> None:
    for last_id in (1, 6, 7, 8, 100, 1_000_003):
        start = dt.date(2030, 1, 1)
        slices = [rotation_slice(last_id, start + dt.timedelta(days=i)) for i in range(ROTATION_PARTS)]
        covered = sorted((first, last) for found in slices if found is not None for first, last in [found])
        assert covered[0][0] == 1
        assert covered[-1][1] == last_id
        for (_, end), (begin, _) in itertools.pairwise(covered):
            assert begin == end + 1  # no gap, no overlap
        size = max(last - first + 1 for first, last in covered)
        assert size <= -(-last_id // ROTATION_PARTS)  # a seventh, rounded up
    assert rotation_slice(0, dt.date(2030, 1, 1)) is None


def test_the_second_night_reads_only_the_new_rows_and_a_seventh(floor: dict[str, Any]) -> None:
    play(floor, 14)
    first = run_nightly_check(day=dt.date(2030, 1, 1))
    assert first.problems == []
    full = checkpoint(CheckpointKind.LEDGER, CheckpointPart.FULL)
    total = JournalTransaction.objects.count()
    assert (full.first_id, full.last_id, full.rows) == (1, JournalTransaction.objects.latest("pk").pk, total)
    assert set(full.heads) == set(JournalTransaction.objects.values_list("chain", flat=True))

    before = full.last_id
    play(floor, 2, minute=30)
    new_rows = JournalTransaction.objects.filter(pk__gt=before).count()
    assert new_rows > 0
    second = run_nightly_check(day=dt.date(2030, 1, 2))
    assert second.problems == []
    since = checkpoint(CheckpointKind.LEDGER, CheckpointPart.SINCE)
    assert (since.first_id, since.rows) == (before + 1, new_rows)
    rotation = checkpoint(CheckpointKind.LEDGER, CheckpointPart.ROTATION)
    assert rotation.rows <= -(-before // ROTATION_PARTS)
    assert second.transactions == new_rows + rotation.rows < total
    hands_since = checkpoint(CheckpointKind.HANDS, CheckpointPart.SINCE)
    newest = list(Hand.objects.order_by("-pk").values_list("pk", flat=True)[:2])
    assert (hands_since.first_id, hands_since.last_id) == (newest[1], newest[0])
    # The heads it signed are every chain's, the unchanged ones carried from the checkpoint.
    assert {head["chain"] for head in second.anchors["heads"]} == set(full.heads)

    # A night with nothing new reads no new row, and still compares the chain heads.
    third = run_nightly_check(day=dt.date(2030, 1, 3))
    assert third.problems == []
    assert checkpoint(CheckpointKind.LEDGER, CheckpointPart.SINCE).rows == 0


@pytest.mark.tamper
def test_a_new_row_altered_is_found_the_next_night(floor: dict[str, Any]) -> None:
    play(floor, 4)
    assert run_nightly_check(day=dt.date(2030, 1, 1)).problems == []
    last = JournalTransaction.objects.latest("pk").pk
    play(floor, 2, minute=30)
    altered = JournalTransaction.objects.filter(pk__gt=last).order_by("pk").first()
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET memo = %s WHERE id = %s", ["edited", altered.pk])
    check = run_nightly_check(day=dt.date(2030, 1, 2))
    assert not check.ok
    assert ("hash_mismatch", altered.pk) in {(p["code"], p.get("transaction_id")) for p in check.problems}
    assert not checkpoint(CheckpointKind.LEDGER, CheckpointPart.SINCE).ok


@pytest.mark.tamper
def test_the_last_verified_row_altered_breaks_the_link_from_the_checkpoint(floor: dict[str, Any]) -> None:
    play(floor, 4)
    assert run_nightly_check(day=dt.date(2030, 1, 1)).problems == []
    head = checkpoint(CheckpointKind.LEDGER, CheckpointPart.FULL).heads
    chain = str(floor["tables"][0].pk) if str(floor["tables"][0].pk) in head else sorted(head)[0]
    sequence = head[chain][0]
    with triggers_off():  # the attacker rewrites the last verified row's stored hash
        sql(
            "UPDATE ledger_journaltransaction SET hash = %s WHERE chain = %s AND sequence = %s",
            ["f" * 64, chain, sequence],
        )
    play(floor, 4, minute=30)
    found = verify_ledger_range(
        first_id=checkpoint(CheckpointKind.LEDGER, CheckpointPart.FULL).last_id + 1,
        last_id=JournalTransaction.objects.latest("pk").pk,
        heads=head,
    )
    codes = {problem.code for problem in found.problems if problem.chain == chain}
    assert {"checkpoint_mismatch", "chain_broken"} <= codes


@pytest.mark.tamper
def test_an_old_row_altered_is_found_within_a_week(floor: dict[str, Any]) -> None:
    play(floor, 14)
    assert run_nightly_check(day=dt.date(2030, 1, 1)).problems == []
    old = JournalTransaction.objects.order_by("pk")[5]
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET memo = %s WHERE id = %s", ["edited", old.pk])
    found_on = []
    for night in range(2, 2 + ROTATION_PARTS):
        check = run_nightly_check(day=dt.date(2030, 1, night))
        if ("hash_mismatch", old.pk) in {(p["code"], p.get("transaction_id")) for p in check.problems}:
            found_on.append(night)
    assert len(found_on) == 1  # read again by exactly one night of the week


def test_the_full_check_runs_in_the_worker_and_stores_full_checkpoints(floor: dict[str, Any]) -> None:
    play(floor, 4)
    check = IntegrityCheck.objects.get(pk=tasks.verify_ledger_full.delay().get())
    assert check.problems == []
    assert check.transactions == JournalTransaction.objects.count()
    assert checkpoint(CheckpointKind.LEDGER, CheckpointPart.FULL).rows == check.transactions
    hands = checkpoint(CheckpointKind.HANDS, CheckpointPart.FULL)
    assert (hands.first_id, hands.last_id) == (1, Hand.objects.latest("pk").pk)
    # The next nightly starts from the full check's checkpoint.
    play(floor, 1, minute=30)
    run_nightly_check(day=dt.date(2030, 1, 1))
    since = checkpoint(CheckpointKind.LEDGER, CheckpointPart.SINCE)
    assert since.first_id == checkpoint(CheckpointKind.LEDGER, CheckpointPart.FULL).last_id + 1


@pytest.mark.tamper
def test_problems_are_counted_and_capped(floor: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    kept = ProblemList(limit=3)
    kept += [Problem("x", str(i)) for i in range(10)]
    kept.append(Problem("x", "one more"))
    assert (len(kept), kept.total) == (3, 11)

    play(floor, 6)
    rows = JournalTransaction.objects.count()
    with triggers_off():  # every row altered: a year of damage, in small
        sql("UPDATE ledger_journaltransaction SET memo = %s", ["edited"])
    monkeypatch.setattr(verification, "MAX_PROBLEMS", 5)
    report = verify_ledger()
    assert len(report.problems) == 5
    assert report.problem_count >= rows
    assert not report.ok
    check = IntegrityCheck.objects.get(pk=tasks.verify_ledger_full.delay().get())
    assert len(check.problems) == 6  # five, and one line counting the rest
    assert check.problems[-1]["code"] == "ledger_more"
    assert problem_total(check) >= rows


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_the_checkpoints_are_append_only_for_the_app_role(
    floor: dict[str, Any], as_the_app_role: None
) -> None:
    play(floor, 1)
    run_nightly_check(day=dt.date(2030, 1, 1))
    from django.db import DatabaseError, transaction

    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_verificationcheckpoint SET ok = false")
    assert timezone.now()
