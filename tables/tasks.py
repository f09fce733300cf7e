"""Celery tasks of the floor's waiting lists: thin, ids in (none needed here), safe to run twice.

The time limits of the lists (a call-in not arrived, a call not taken) take effect when they fall
due whether or not this runs: every read computes them (:mod:`tables.lists.rules`), and every
write records them first. This task records them in the meantime, so the day's record has them
even when nobody touches the lists (beat runs it every minute: ``backoffice.schedules``).
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from casino.core.tasks import RETRY_OPTIONS
from tables.lists import services as lists


@shared_task(name="tables.expire_waiting_lists", **RETRY_OPTIONS)
def expire_waiting_lists(self: Any) -> int:
    """Record every time limit passed on the waiting lists; returns how many were recorded (a second
    run records nothing more: each lapse moves its place out of the state that made it)."""
    return lists.expire_overdue()
