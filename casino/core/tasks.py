"""What every Celery task of the project shares: how it retries (Django and the settings only)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError

RETRYABLE = (OperationalError, InterfaceError)

#: Database errors are retried with exponential backoff and jitter, capped at
#: ``settings.LEDGER_TASK_RETRY_BACKOFF_MAX`` seconds, at most ``settings.LEDGER_TASK_MAX_RETRIES``
#: times; a task is acknowledged once it has run (a killed worker's task runs again: every task is
#: safe to run twice).
RETRY_OPTIONS: dict[str, Any] = {
    "bind": True,
    "autoretry_for": RETRYABLE,
    "retry_backoff": True,
    "retry_backoff_max": getattr(settings, "LEDGER_TASK_RETRY_BACKOFF_MAX", 600),
    "retry_jitter": True,
    "max_retries": getattr(settings, "LEDGER_TASK_MAX_RETRIES", 8),
    "acks_late": True,
}
