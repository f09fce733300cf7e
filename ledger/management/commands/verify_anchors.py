"""``manage.py verify_anchors FILE... | -``: compare published chain heads with the ledger now.

Each FILE (``-``: standard input) is a report's CSV export, a zip of CSVs whose anchor files are
read (a shift close's sealed export, the integrity report's download), a shift close's single CSV
from before the zip, or anchor JSON (one document, a list, or the JSON lines of
``LEDGER_ANCHOR_DIR/anchors.jsonl``). Every document's
signature must verify, and the transaction at each published (chain, sequence) must still have the
published hash (``ledger.anchors.compare``). ``--stored`` adds the anchors the database holds.

Needs no secret: with ``--public-key ID:BASE64`` (the room's published anchor key) only those keys
are trusted, so a regulator with a copy of the database and the public key can run it. Exits 1 on
any problem.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ledger.anchors import MalformedAnchors, compare, parse_published, stored_documents
from ledger.keys import parse_public_keys


class Command(BaseCommand):
    help = (
        "Check published, signed chain heads (a report's zip of CSVs, a shift close's CSV, anchor JSON) "
        "against the ledger now. "
        "Exits 1 on any problem."
    )
    stealth_options = ("stdin",)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "files",
            nargs="*",
            metavar="FILE",
            help="A report's zip of CSVs, a shift close's CSV or anchor JSON; - for stdin.",
        )
        parser.add_argument(
            "--public-key",
            action="append",
            default=[],
            metavar="ID:BASE64",
            help="Trust only this anchor public key (repeatable); default: the settings' keys.",
        )
        parser.add_argument(
            "--stored", action="store_true", help="Also check the anchors stored in the database."
        )
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        public_keys = None
        if options["public_key"]:
            try:
                public_keys = parse_public_keys(",".join(options["public_key"]), what="--public-key")
            except ImproperlyConfigured as exc:
                raise CommandError(str(exc)) from None
        documents: list[tuple[str, dict[str, Any]]] = []
        for name in options["files"]:
            documents += self._read(name, options.get("stdin"))
        if options["stored"]:
            documents += stored_documents()
        if not documents:
            raise CommandError("no anchors to check: give a FILE (or -) or --stored")
        result = compare(documents, public_keys=public_keys)
        if options["json"]:
            payload = {
                "ok": result.ok,
                "documents": result.documents,
                "heads": result.heads,
                "problems": [
                    {"code": p.code, "message": p.message, "chain": p.chain} for p in result.problems
                ],
            }
            self.stdout.write(json.dumps(payload, indent=2))
        else:
            for problem in result.problems:
                self.stderr.write(f"[{problem.code}] {problem.message}")
            verdict = "OK" if result.ok else f"FAILED: {len(result.problems)} problem(s)"
            self.stdout.write(
                f"anchors {verdict}: {result.documents} document(s), {result.heads} published head(s) checked"
            )
        if not result.ok:
            raise CommandError(f"anchor verification failed: {len(result.problems)} problem(s)")

    def _read(self, name: str, stdin: Any) -> list[tuple[str, dict[str, Any]]]:
        try:
            if name == "-":
                stream = stdin or sys.stdin
                data: str | bytes = getattr(stream, "buffer", stream).read()
            else:
                data = Path(name).read_bytes()
        except OSError as exc:
            raise CommandError(f"{name}: can't be read ({exc})") from None
        try:
            return parse_published(data, source="stdin" if name == "-" else name)
        except MalformedAnchors as exc:
            raise CommandError(str(exc)) from None
