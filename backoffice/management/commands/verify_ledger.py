"""``manage.py verify_ledger``: verify the books (``backoffice.books.verify_books``).

Walks every hash chain (keyed: HMAC under the chain keys, ``ledger.keys``), re-adds every
transaction and account, compares every stored signed anchor, and any published copy given with
``--anchors`` (a shift close's sealed zip or, from before the zip, its CSV; a report's CSV export;
anchor JSON), with the ledger now, and checks each settled hand against its settlement and each
hand's fees against its schedule.
Prints a summary (and the problems found, naming the transaction, account or hand: the ledger's
first ``ledger.verification.MAX_PROBLEMS``, and how many more) and exits non-zero when anything
fails. This is the full check; the nightly job checks the new rows and a rotating seventh of the
older ones (``backoffice.integrity_checks``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser

from backoffice.books import verify_books
from ledger.anchors import MalformedAnchors, parse_published
from ledger.keys import parse_public_keys


class Command(BaseCommand):
    help = (
        "Verify the books: keyed hash chains, double entry, reversals, cached balances, signed anchors, "
        "settled hands and fees. Exits 1 on any failure."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
        parser.add_argument(
            "--anchors",
            action="append",
            default=[],
            metavar="FILE",
            help="A published copy of signed chain heads (report CSV or zip, anchor JSON) to compare too.",
        )
        parser.add_argument(
            "--public-key",
            action="append",
            default=[],
            metavar="ID:BASE64",
            help="Trust only this anchor public key (repeatable); default: the settings' keys.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        published: list[tuple[str, dict[str, Any]]] = []
        for name in options["anchors"]:
            try:
                published += parse_published(Path(name).read_bytes(), source=name)
            except (OSError, MalformedAnchors) as exc:
                raise CommandError(f"--anchors {name}: {exc}") from None
        try:
            public_keys = (
                parse_public_keys(",".join(options["public_key"]), what="--public-key")
                if options["public_key"]
                else None
            )
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from None
        report = verify_books(published=published, public_keys=public_keys)
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
        else:
            for problem in report.problems:
                self.stderr.write(f"[{problem.code}] {problem.message}")
            if (unlisted := report.ledger.problem_count - len(report.ledger.problems)) > 0:
                self.stderr.write(f"... and {unlisted} more ledger problem(s) of the same run, not listed")
            self.stdout.write(report.summary())
        if not report.ok:
            total = len(report.problems) + report.ledger.problem_count - len(report.ledger.problems)
            raise CommandError(f"ledger verification failed: {total} problem(s)")
