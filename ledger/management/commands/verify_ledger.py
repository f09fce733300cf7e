"""``manage.py verify_ledger``: walk every hash chain, re-add every transaction and account.

Prints a summary (and every problem found, naming the transaction or account) and exits non-zero
when anything fails. The checks are ``ledger.verification.verify_ledger``'s.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ledger.verification import verify_ledger


class Command(BaseCommand):
    help = (
        "Verify the ledger: hash chains, double entry, reversals and cached balances. Exits 1 on any failure."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        report = verify_ledger()
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
        else:
            for problem in report.problems:
                self.stderr.write(f"[{problem.code}] {problem.message}")
            self.stdout.write(report.summary())
        if not report.ok:
            raise CommandError(f"ledger verification failed: {len(report.problems)} problem(s)")
