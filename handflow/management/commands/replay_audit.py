"""``manage.py replay_audit [--from DATE] [--to DATE] [--workers N]``: re-decide every settled
hand of the period from its stored input and compare it with what was recorded and posted
(:mod:`handflow.audit`).

Prints a summary (hands, settlements and entries compared, hands/s) and every difference, naming
the hand; stores the outcome as a ``replay`` integrity check (``--no-store``: don't); exits 1 on
any difference. Dates are business dates on the room's clock; the default period is today.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from handflow.audit import record_replay_check, replay_audit
from ledger.models import CheckSource
from ledger.shifts import room_zone


def business_date(text: str) -> dt.date:
    """An ISO date (``2030-01-31``) for argparse; anything else is a usage error."""
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise CommandError(f"{text!r} is not a date (YYYY-MM-DD)", returncode=2) from None


class Command(BaseCommand):
    help = (
        "Re-decide every settled hand of a period from its stored input with the engine and compare it "
        "with the stored reading, its ledger lines and the settlement's entries. Exits 1 on any difference."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from", dest="date_from", type=business_date, help="First business date (default today)."
        )
        parser.add_argument(
            "--to", dest="date_to", type=business_date, help="Last business date (default --from)."
        )
        parser.add_argument(
            "--workers", type=int, default=1, help="Processes over id ranges (PostgreSQL only; default 1)."
        )
        parser.add_argument(
            "--no-store", action="store_true", help="Don't store the outcome as an integrity check."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        today = timezone.localtime(timezone.now(), room_zone()).date()
        date_from: dt.date = options["date_from"] or options["date_to"] or today
        date_to: dt.date = options["date_to"] or date_from
        if date_to < date_from:
            raise CommandError("--to must be on or after --from", returncode=2)
        if options["workers"] < 1:
            raise CommandError("--workers must be at least 1", returncode=2)
        outcome = replay_audit(date_from=date_from, date_to=date_to, workers=options["workers"])
        for difference in outcome.differences:
            self.stderr.write(f"[{difference.check}] {difference.message}")
        self.stdout.write(outcome.summary())
        if not options["no_store"]:
            check = record_replay_check(outcome=outcome, source=CheckSource.MANUAL)
            self.stdout.write(f"Stored as integrity check {check.pk} (scope replay).")
        if not outcome.ok:
            raise CommandError(f"replay audit failed: {outcome.difference_count} difference(s)")
