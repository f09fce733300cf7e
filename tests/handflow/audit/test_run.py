"""The replay audit (handflow/audit/): settled hands re-decided from their stored input and
compared with the stored reading, the stored ledger lines and the settlement's entries; a change
made behind the system's back is a failed check naming the hand, stored as a ``replay`` check."""

from __future__ import annotations

import datetime as dt
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from handflow import audit
from handflow.tasks import replay_audit_nightly
from ledger.models import CheckSource, IntegrityCheck, IntegrityScope
from tables.models import Hand, HandResult
from tests.handflow.audit.helpers import today, update_json

pytestmark = pytest.mark.django_db


def test_every_settled_hand_replays_to_what_was_recorded_and_posted(settled: dict[str, Hand]) -> None:
    outcome = audit.replay_audit(date_from=today(), date_to=today())
    assert outcome.ok, outcome.differences
    assert outcome.hands == 4
    # Hold'em hands post a settlement each; the surrendered Chinese poker hand moves nothing.
    assert outcome.transactions == 3
    assert outcome.entries > 3 * 4
    assert "4 settled hands re-decided" in outcome.summary()
    assert "no difference" in outcome.summary()


def test_an_input_changed_behind_the_systems_back_is_caught(settled: dict[str, Hand]) -> None:
    split = settled["split"]
    engine_input = HandResult.objects.get(hand=split).engine_input
    # Another board: the split shown down is no longer what these cards make.
    engine_input["board"] = ["2h", "7d", "9s", "Jc", "Qd"]
    update_json(split, "engine_input", engine_input)

    outcome = audit.replay_audit(date_from=today(), date_to=today())
    assert not outcome.ok
    assert {d.hand_id for d in outcome.differences} == {split.pk}
    checks = {d.check for d in outcome.differences}
    assert {
        audit.ReplayCheck.INPUT_DIGEST,
        audit.ReplayCheck.ENGINE_RESULT,
        audit.ReplayCheck.POSTINGS,
    } <= checks
    # The ledger still holds what the untouched reading posted: that comparison holds.
    assert audit.ReplayCheck.LEDGER not in checks
    digest = next(d for d in outcome.differences if d.check == audit.ReplayCheck.INPUT_DIGEST)
    assert digest.message.startswith(f"Table {split.table.number} hand {split.number} (id {split.pk}):")


def test_a_changed_result_or_changed_ledger_lines_are_caught(settled: dict[str, Hand]) -> None:
    outright, later = settled["outright"], settled["later"]
    result = HandResult.objects.get(hand=outright).engine_result
    first_seat = next(iter(result["net"]))
    result["net"][first_seat] += 100
    update_json(outright, "engine_result", result)
    postings = HandResult.objects.get(hand=later).postings
    postings["awards"][0]["amount"] -= 100
    update_json(later, "postings", postings)

    outcome = audit.replay_audit(date_from=today(), date_to=today())
    found = {(d.hand_id, d.check) for d in outcome.differences}
    assert found == {
        (outright.pk, audit.ReplayCheck.ENGINE_RESULT),
        (later.pk, audit.ReplayCheck.POSTINGS),
        (later.pk, audit.ReplayCheck.LEDGER),
    }
    engine = next(d for d in outcome.differences if d.check == audit.ReplayCheck.ENGINE_RESULT)
    assert f"net.{first_seat}" in engine.detail
    ledger = next(d for d in outcome.differences if d.check == audit.ReplayCheck.LEDGER)
    assert "entry" in ledger.detail


def test_only_the_period_is_audited(settled: dict[str, Hand]) -> None:
    Hand.objects.filter(pk=settled["later"].pk).update(created_at=timezone.now() - dt.timedelta(days=3))
    assert audit.replay_audit(date_from=today(), date_to=today()).hands == 3
    earlier = today() - dt.timedelta(days=3)
    assert audit.replay_audit(date_from=earlier, date_to=earlier).hands == 1
    with pytest.raises(ValueError, match="date_to"):
        audit.replay_audit(date_from=today(), date_to=earlier)


def test_the_command_exits_non_zero_and_stores_a_failed_replay_check(
    settled: dict[str, Hand], users: dict[str, Any]
) -> None:
    out = StringIO()
    call_command("replay_audit", "--from", today().isoformat(), "--to", today().isoformat(), stdout=out)
    assert "4 settled hands re-decided" in out.getvalue()
    assert "hands/s" in out.getvalue()
    check = IntegrityCheck.objects.filter(scope=IntegrityScope.REPLAY).latest("started_at")
    assert (check.ok, check.source, check.problems) == (True, CheckSource.MANUAL, [])

    split = settled["split"]
    engine_input = HandResult.objects.get(hand=split).engine_input
    engine_input["players"][0]["put_in"] += 100
    update_json(split, "engine_input", engine_input)
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="replay audit failed") as failed:
        call_command("replay_audit", stdout=out, stderr=err)  # default period: today
    assert failed.value.returncode == 1
    assert f"Table {split.table.number} hand {split.number}" in err.getvalue()
    check = IntegrityCheck.objects.filter(scope=IntegrityScope.REPLAY).latest("started_at")
    assert not check.ok
    assert {p["hand_id"] for p in check.problems} == {split.pk}
    assert "replay_input_digest" in {p["code"] for p in check.problems}


def test_the_command_refuses_bad_dates(db: None) -> None:
    err = StringIO()
    with pytest.raises(CommandError, match="not a date"):
        call_command("replay_audit", "--from", "yesterday", stderr=err)
    assert IntegrityCheck.objects.filter(scope=IntegrityScope.REPLAY).count() == 0


def test_the_nightly_task_audits_the_day_before(settled: dict[str, Hand]) -> None:
    Hand.objects.filter(pk=settled["split"].pk).update(created_at=timezone.now() - dt.timedelta(days=1))
    check_id = replay_audit_nightly.apply().get()
    check = IntegrityCheck.objects.get(pk=check_id)
    assert (check.scope, check.source, check.ok) == (IntegrityScope.REPLAY, CheckSource.NIGHTLY, True)
    # One hand was started the day before: its settlement was the one compared.
    assert check.transactions == 1
