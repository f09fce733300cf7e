"""``manage.py load_demo_floor``: demo staff accounts, tables and seated players; idempotent.

Creates users ``dealer``, ``floor`` and ``auditor`` in their groups, printing each new user's
random password once, five demo tables (opened), and a few players seated and bought in. Needs the
house data (``load_house_data``) first.

Run again, it changes nothing the floor may have changed since, and says so: a user that exists
keeps its password and its groups; a table that exists keeps its status (one the floor closed stays
closed); a demo player bought in once is not bought in again (once cashed out or moved, they stay
so); only what is missing is created, and only what was done is counted.

Demo data is for a demo: with ``DEBUG`` off (production, the default) the command refuses, unless
asked for by name with ``--demo`` (a demonstration server run with production settings). ``make run``
loads it with DEBUG=1; ``make setup`` (the PostgreSQL and production path) doesn't load it.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from handflow import chips
from tables import services
from tables.errors import FloorError
from tables.models import ChipMovement, CollectionSchedule, Game, Player, Seating, Stakes, Table
from tables.roles import AUDITOR, DEALER, FLOOR_MANAGER, sync_roles

# username, role, staff (may log in to the admin, which then shows what the role permits)
DEMO_USERS = (("dealer", DEALER, False), ("floor", FLOOR_MANAGER, True), ("auditor", AUDITOR, True))

# number, game slug, stakes code, schedule code, seat count (None: the game's)
DEMO_TABLES = (
    (1, "holdem", "limit-4-8-half", "A", None),
    (2, "holdem", "nl-100-500", "B", None),
    (3, "omaha-hi-lo", "limit-6-12", "C", None),
    (4, "chinese-poker", "points-5", "CP2", None),
    (5, "taiwanese-poker", "points-2", "CP1", None),
)

# member number, name, table, seat
DEMO_PLAYERS = (
    ("D-1001", "Ana Ruiz", 1, 1),
    ("D-1002", "Ben Okafor", 1, 3),
    ("D-1003", "Chen Li", 1, 6),
    ("D-1004", "Dora Szabo", 2, 2),
    ("D-1005", "Eli Navarro", 2, 5),
    ("D-1006", "Fay Moreau", 4, 1),
    ("D-1007", "Gus Tanaka", 4, 2),
    ("D-1008", "Hana Petrov", 4, 3),
    ("D-1009", "Ivo Kim", 4, 4),
    ("D-1010", "Jo Adeyemi", 4, 5),
)

REASON = "demo floor (load_demo_floor)"


class Command(BaseCommand):
    help = "Create demo users (dealer, floor, auditor), demo tables and seated players; idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--demo",
            action="store_true",
            help="Load it with DEBUG off too: this is a demonstration server, not a card room's.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["demo"]:
            raise CommandError(
                "DEBUG is off (production): the demo floor (staff users with printed passwords, open tables, "
                "buy-ins) is not loaded. For a local demo set DEBUG=1 (`make run` does); for a demonstration "
                "server with production settings ask for it by name: load_demo_floor --demo."
            )
        if not Game.objects.exists() or not CollectionSchedule.objects.exists():
            raise CommandError("No house data: run `manage.py load_house_data` first.")
        groups = sync_roles()
        self._users(groups)
        try:
            with transaction.atomic():
                self._tables()
                self._players()
        except FloorError as exc:
            raise CommandError(f"demo floor not loaded: {exc}") from exc

    def _users(self, groups: dict[str, Any]) -> None:
        user_model = get_user_model()
        for username, role, staff in DEMO_USERS:
            user = user_model.objects.filter(username=username).first()
            if user is not None:
                self.stdout.write(f"User {username} already exists; password unchanged.")
            else:
                password = secrets.token_urlsafe(12)
                user = user_model.objects.create_user(username=username, password=password, is_staff=staff)
                # Shown once: it is stored only as a hash.
                self.stdout.write(
                    self.style.SUCCESS(f"Created user {username} ({role}) with password: {password}")
                )
                user.groups.add(groups[role])  # an existing user's groups are the floor's

    def _tables(self) -> None:
        for number, game, stakes, schedule, seats in DEMO_TABLES:
            table = Table.objects.filter(number=number).first()
            if table is None:
                table = services.create_table(
                    number=number,
                    game=Game.objects.get(slug=game),
                    stakes=Stakes.objects.get(code=stakes),
                    collection_schedule=CollectionSchedule.objects.get(code=schedule),
                    seat_count=seats,
                    by=None,
                    reason=REASON,
                )
                self.stdout.write(
                    f"Created table {number}: {table.game} {table.stakes.label}, schedule {schedule}."
                )
                services.open_table(table=table, by=None, reason=REASON)
            else:
                # Its status is the floor's: a table the floor closed stays closed.
                self.stdout.write(
                    f"Table {number} already exists ({table.get_status_display().lower()}); left as it is."
                )

    def _players(self) -> None:
        seated = 0
        for member_number, name, table_number, seat_number in DEMO_PLAYERS:
            key = f"demo:{member_number}:{table_number}"
            player = Player.objects.filter(member_number=member_number).first()
            if player is None:
                player = services.create_player(name=name, member_number=member_number)
            elif ChipMovement.objects.filter(transaction__idempotency_key=key).exists():
                continue  # bought in by an earlier run: where they are now is the floor's doing
            table = Table.objects.get(number=table_number)
            if not table.is_open or Seating.objects.active().filter(table=table, player=player).exists():
                continue
            if Seating.objects.active().filter(seat__table=table, seat__number=seat_number).exists():
                continue
            # Seated and bought in together (twice the table's minimum buy-in, within its
            # maximum), so the demo dealer can deal at once; the key makes a re-run a no-op.
            rules = chips.table_rules(table)
            amount = 2 * rules.minimum_cents
            if rules.maximum_cents is not None:
                amount = min(amount, rules.maximum_cents)
            movement = chips.buy_in(
                table=table,
                player=player,
                amount_cents=amount,
                seat_number=seat_number,
                by=None,
                idempotency_key=key,
            )
            seated += 0 if movement.replayed else 1
        self.stdout.write(
            f"Demo players: {seated} seated and bought in now."
            if seated
            else "Demo players: nobody seated or bought in now (those bought in before are left as they are)."
        )
