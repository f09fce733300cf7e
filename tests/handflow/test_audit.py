"""The replay audit (handflow/audit/): settled hands re-decided from their stored input and
compared with the stored reading, the stored ledger lines and the settlement's entries; a change
made behind the system's back is a failed check naming the hand, stored as a ``replay`` check."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, connections
from django.utils import timezone

from handflow import audit
from handflow.audit import chunks, run, workers
from handflow.tasks import replay_audit_nightly
from ledger.models import CheckSource, IntegrityCheck, IntegrityScope
from ledger.shifts import room_zone
from poker.postings import Postings
from tables.models import Hand, HandResult, Player, Table

pytestmark = pytest.mark.django_db


def today() -> dt.date:
    return timezone.localtime(timezone.now(), room_zone()).date()


@pytest.fixture
def settled(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
) -> dict[str, Hand]:
    """Three settled hold'em hands at one table: an outright win, a split shown down, another win;
    and a Chinese poker hand (everyone surrenders)."""
    table, _ = table_with_players(4, stakes="limit-4-8")
    outright = settle_hand(deal_hand(table))
    split = settle_hand(deal_hand(table), winners=(1, 2))
    later = settle_hand(deal_hand(table))
    chinese_table, _ = table_with_players(4, game="chinese-poker", stakes="points-1", schedule="CP1")
    chinese = settle_hand(deal_hand(chinese_table))
    return {"outright": outright, "split": split, "later": later, "chinese": chinese}


def _update_json(hand: Hand, column: str, value: Any) -> None:
    """Change a stored reading's JSON column with plain SQL, past every service (the tampering)."""
    cast = "::jsonb" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE tables_handresult SET {column} = %s{cast} WHERE hand_id = %s",
            [json.dumps(value), hand.pk],
        )


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
    _update_json(split, "engine_input", engine_input)

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
    _update_json(outright, "engine_result", result)
    postings = HandResult.objects.get(hand=later).postings
    postings["awards"][0]["amount"] -= 100
    _update_json(later, "postings", postings)

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


def test_ledger_lines_follow_the_ledgers_layout() -> None:
    """The audit compares the settlement's entries with the postings' ledger lines, the hand's pot
    as ``POT``."""
    pot = {
        "kind": "pot",
        "put_ins": [{"seat": 1, "player": 7, "amount": 400}, {"seat": 2, "player": 8, "amount": 400}],
        "awards": [{"seat": 2, "player": 8, "amount": 700, "pot": 0, "share": "whole"}],
        "returned": [{"seat": 1, "player": 7, "amount": 100}],
        "net": {"1": -300, "2": 300},
    }
    assert audit.ledger_lines(Postings.from_json(pot)) == [
        (7, -400),
        ("pot", 400),
        (8, -400),
        ("pot", 400),
        ("pot", -700),
        (8, 700),
        ("pot", -100),
        (7, 100),
    ]
    payment = {"from_seat": 1, "to_seat": 2, "due": 0, "reason": "pair 1-2"}
    payments = {
        "kind": "payments",
        "payments": [
            payment | {"from_player": 3, "to_player": 4, "amount": 0},
            payment
            | {"from_seat": 2, "to_seat": 3, "from_player": 4, "to_player": 5, "amount": 250, "due": 250},
        ],
        "net": {"1": 0, "2": -250, "3": 250},
    }
    assert audit.ledger_lines(Postings.from_json(payments)) == [(4, -250), (5, 250)]


def test_first_difference_names_the_path() -> None:
    assert audit.first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) is None
    assert audit.first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "a[1].b: 2, stored 3"
    assert audit.first_difference({"a": [1]}, {"a": [1, 2]}) == "a: 1 items, stored 2"
    assert audit.first_difference({"x": 1}, {}) == "x: 1, not stored"


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
    _update_json(split, "engine_input", engine_input)
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


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_several_processes_share_the_hands_and_find_the_same(
    house: None,
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
) -> None:
    table, _ = table_with_players(4, stakes="limit-4-8")
    hands = [settle_hand(deal_hand(table), winners=(1, 2) if n % 2 else None) for n in range(5)]
    engine_input = HandResult.objects.get(hand=hands[3]).engine_input
    engine_input["players"][0]["put_in"] += 100
    _update_json(hands[3], "engine_input", engine_input)
    # One hand a chunk, over two forked processes with their own connections.
    outcome = audit.replay_audit(date_from=today(), date_to=today(), workers=2, chunk_hands=1)
    assert (outcome.workers, outcome.hands, outcome.transactions) == (2, 5, 5)
    assert {d.hand_id for d in outcome.differences} == {hands[3].pk}
    single = audit.replay_audit(date_from=today(), date_to=today())
    assert [(d.hand_id, d.check, d.detail) for d in single.differences] == [
        (d.hand_id, d.check, d.detail) for d in outcome.differences
    ]


# --- The forked processes and the database connections ------------------------------------------------

_CHUNK = chunks.audit_chunk
_SPOOL: dict[str, Path] = {}


def _chunk_naming_its_backend(args: Any) -> Any:
    """The audit's chunk, then the PostgreSQL backend that served it, written to the spool under
    the process's pid (module level: the pool sends it to the processes by name)."""
    result = _CHUNK(args)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (_SPOOL["dir"] / str(os.getpid())).write_text(str(cursor.fetchone()[0]))
    return result


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_forked_processes_never_talk_on_the_parents_connection(
    house: None,
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """With a connection pool (``DATABASE_POOL_MAX``), closing a connection gives it back to the
    pool, open: a process forked then would take the parent's pooled connection, its socket, as
    its own. The audit closes the pool before forking; each process reads through a connection of
    its own, and the parent's next connection works."""
    table, _ = table_with_players(4, stakes="limit-4-8")
    hands = [settle_hand(deal_hand(table)) for _ in range(3)]
    connection.close()
    pooled = {**connection.settings_dict["OPTIONS"], "pool": {"min_size": 1, "max_size": 2, "timeout": 10}}
    monkeypatch.setitem(connection.settings_dict, "OPTIONS", pooled)
    # Where the audit looks its chunk up (the processes are sent the wrapper by name).
    monkeypatch.setattr(run, "audit_chunk", _chunk_naming_its_backend)
    _SPOOL["dir"] = tmp_path
    try:
        parent = _backend_pid()  # the pool's connection, open in it
        outcome = audit.replay_audit(date_from=today(), date_to=today(), workers=2)
        served = {int(found.read_text()) for found in tmp_path.iterdir()}
        assert (outcome.ok, outcome.hands, outcome.workers) == (True, len(hands), 2)
        assert served, "no process read a chunk"
        assert parent not in served
        assert _backend_pid() not in served  # the parent reads on, on a connection of its own
    finally:
        connection.close()
        connection.close_pool()


def test_a_forked_process_drops_what_came_with_the_fork_without_closing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Closing an inherited connection would send the server a goodbye on the parent's socket (the
    parent's session would end): the process forgets it instead, and closes its own when it ends."""

    class Inherited:
        closed = False

        def close(self) -> None:
            self.closed = True

    inherited = Inherited()
    finalizers: list[Any] = []
    handle = connections["default"]

    def finalize(*args: Any, **kwargs: Any) -> None:
        finalizers.append(args)

    monkeypatch.setattr(handle, "connection", inherited)
    monkeypatch.setattr(workers.multiprocessing.util, "Finalize", finalize)
    workers.start_worker()
    assert handle.connection is None
    assert not inherited.closed
    assert finalizers == [(None, workers.close_connections)]
