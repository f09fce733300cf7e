"""The replay audit's forked processes (:mod:`handflow.audit.workers`): several share the hands and
find what one finds, each on its own connection, dropping what came with the fork without closing
it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, connections

from handflow import audit
from handflow.audit import chunks, run, workers
from tables.models import Hand, HandResult, Player, Table
from tests.handflow.audit.helpers import today, update_json

pytestmark = pytest.mark.django_db

_CHUNK = chunks.audit_chunk
_SPOOL: dict[str, Path] = {}


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
    update_json(hands[3], "engine_input", engine_input)
    # One hand a chunk, over two forked processes with their own connections.
    outcome = audit.replay_audit(date_from=today(), date_to=today(), workers=2, chunk_hands=1)
    assert (outcome.workers, outcome.hands, outcome.transactions) == (2, 5, 5)
    assert {d.hand_id for d in outcome.differences} == {hands[3].pk}
    single = audit.replay_audit(date_from=today(), date_to=today())
    assert [(d.hand_id, d.check, d.detail) for d in single.differences] == [
        (d.hand_id, d.check, d.detail) for d in outcome.differences
    ]


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
