"""``manage.py new_ledger_key [--id ID] [--anchor]``: make a new key and print the settings to add.

Chain key (default): prints the ``LEDGER_KEYS`` entry and ``LEDGER_KEY_ID``. Rotation: add the entry
in front of the keys already in ``LEDGER_KEYS`` (keep them: the rows they hashed stay verifiable)
and set ``LEDGER_KEY_ID`` to the new id; new rows are hashed with it from the next start.

``--anchor``: a new Ed25519 anchor signing key: prints ``LEDGER_ANCHOR_SIGNING_KEY`` (secret) and the
public key, to add to ``LEDGER_ANCHOR_PUBLIC_KEYS`` of every installation that verifies anchors
(keep the old public keys there) and to give the regulator.

Nothing is stored: the key exists only in what this prints. Keep it out of the database's host.

It runs under production settings before any key exists (``DEBUG=0 manage.py new_ledger_key``): it
runs no system checks (``ledger.E001``/``E002`` would refuse the missing keys it is there to make) and
the app's start-up refusal of the development keys lets it through (``ledger.keys.KEYLESS_COMMANDS``).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from ledger.keys import KEY_ID, new_chain_key, new_signing_key


class Command(BaseCommand):
    help = "Generate a ledger chain key (or with --anchor an anchor signing key) and print its settings."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--id", default="", help="The key's id (default: k<UTC date and time>).")
        parser.add_argument("--anchor", action="store_true", help="An Ed25519 anchor signing key instead.")

    def handle(self, *args: Any, **options: Any) -> None:
        key_id = options["id"] or timezone.now().strftime("k%Y%m%d%H%M")
        if not KEY_ID.fullmatch(key_id):
            raise CommandError(f"key id {key_id!r} must be 1-32 letters, digits, '_', '.' or '-'")
        if options["anchor"]:
            private, public = new_signing_key()
            self.stdout.write(f"LEDGER_ANCHOR_SIGNING_KEY={key_id}:{private}")
            self.stdout.write(
                f"# public key, for LEDGER_ANCHOR_PUBLIC_KEYS and the regulator: {key_id}:{public}"
            )
            return
        self.stdout.write(f'LEDGER_KEYS="{key_id}:{new_chain_key()},<the keys already in LEDGER_KEYS>"')
        self.stdout.write(f"LEDGER_KEY_ID={key_id}")
