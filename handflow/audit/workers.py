"""The audit's forked processes and the database connections: none goes with the fork
(:func:`close_connections` before it), and each process opens, and at its end closes, its own
(:func:`start_worker`, the pool's initializer)."""

from __future__ import annotations

import multiprocessing.util

from django.db import connections


def close_connections() -> None:
    """Close this process's database connections, and its connection pool (PostgreSQL with
    ``DATABASE_POOL_MAX``: psycopg's pool keeps connections open after ``close()`` takes one back).

    Called before forking the audit's processes: a forked process inherits every open socket, and
    two processes talking on one connection interleave their messages (a pooled connection handed
    to every process at once). With nothing open, each process opens its own; this one opens a new
    connection (a new pool) when it next needs one."""
    for alias in connections:
        handle = connections[alias]
        handle.close()
        close_pool = getattr(handle, "close_pool", None)  # the PostgreSQL backend's (Django >= 5.1)
        if close_pool is not None:
            close_pool()


def start_worker() -> None:
    """A forked audit process's start: drop any connection that came with the fork (there should
    be none: :func:`close_connections` ran before it) without closing it, since closing sends the
    server a goodbye on the parent's socket and ends the parent's session; and close the process's
    own connections, and pool, when it ends."""
    for handle in connections.all(initialized_only=True):
        handle.connection = None
    multiprocessing.util.Finalize(None, close_connections, exitpriority=10)
