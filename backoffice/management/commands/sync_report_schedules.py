"""``manage.py sync_report_schedules``: create or update the report jobs' periodic tasks
(``backoffice.schedules.SCHEDULES``) for Celery beat's ``DatabaseScheduler``. Idempotent; also runs
after every ``migrate``."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from backoffice.schedules import SCHEDULES, sync_periodic_tasks


class Command(BaseCommand):
    help = "Create or update the periodic tasks of the ledger's report jobs (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        created = sync_periodic_tasks()
        self.stdout.write(f"{len(SCHEDULES)} periodic task(s) in place, {created} created.")
