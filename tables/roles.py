"""The staff roles (Django groups) and their permissions; this module is their source of truth.

* **Dealer**: views the floor (tables, seats, players, seatings, hands, games, stakes,
  schedules, chips and readings) and runs hands (``tables.run_hand``: start, advance, void,
  showdown, confirm, misdeal); sells chips at the table (``tables.sell_chips``: buy-ins and
  rebuys, as California card-room dealers do). Changes no configuration and cashes nobody out.
  Finds players by name, but reads no player's record: identification numbers and a player's
  cash per gaming day are read with ``tables.view_playeridentification`` (the cage, the floor and
  auditors hold it; ``web.players.data.RECORD_PERMISSION``).
* **Cage cashier**: views the floor; sells chips and cashes players out
  (``tables.sell_chips``, ``tables.cash_out_chips``); records a player's identification and reads
  the cash-per-gaming-day report (``tables.add_playeridentification``,
  ``tables.view_playeridentification``). Runs no hands, seats nobody.
* **Floor manager**: everything a dealer can, plus ``tables.manage_floor`` (open/close tables,
  seat, move and unseat players), chips (``tables.sell_chips``, ``tables.cash_out_chips``),
  players (add/change/delete, merge two records of one person: ``tables.merge_player``), stakes,
  tables and collection schedules (add/change), the cash-per-gaming-day settings, identifications
  and report, the configuration history, and the waiting lists (``tables.run_waiting_lists``: add,
  call, seat, move, remove; must-move tables; ``tables.change_waitinglistsettings``: the room's
  list rules).
* **Auditor**: every ``view_*`` permission of the tables, ledger and web apps; changes nothing.

Admins are superusers. :func:`sync_roles` makes the four groups hold exactly these
permissions; it runs after every ``migrate`` (see ``TablesConfig.ready``) and from
``load_demo_floor``.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps as global_apps
from django.contrib.auth.models import Group, Permission
from django.db.models import Q

DEALER = "Dealer"
FLOOR_MANAGER = "Floor manager"
CAGE = "Cage cashier"
AUDITOR = "Auditor"

_FLOOR_VIEW = [
    "tables.view_game",
    "tables.view_stakes",
    "tables.view_table",
    "tables.view_seat",
    "tables.view_player",
    "tables.view_seating",
    "tables.view_buttonstate",
    "tables.view_hand",
    "tables.view_handplayer",
    "tables.view_collectionschedule",
    "tables.view_collectionscheduleversion",
    "tables.view_collectionrate",
    "tables.view_chipmovement",
    "tables.view_handresult",
    "tables.view_dealershift",
    "tables.view_playermerge",
    "tables.view_cashdaysettings",
]

ROLE_PERMISSIONS: dict[str, list[str]] = {
    DEALER: [*_FLOOR_VIEW, "tables.run_hand", "tables.sell_chips"],
    # The cage records a player's identification for a currency transaction report.
    CAGE: [
        *_FLOOR_VIEW,
        "tables.sell_chips",
        "tables.cash_out_chips",
        "tables.view_playeridentification",
        "tables.add_playeridentification",
    ],
    FLOOR_MANAGER: [
        *_FLOOR_VIEW,
        "tables.view_configchange",
        "tables.run_hand",
        "tables.sell_chips",
        "tables.cash_out_chips",
        "tables.manage_floor",
        "tables.add_player",
        "tables.change_player",
        "tables.delete_player",
        "tables.merge_player",
        "tables.view_playeridentification",
        "tables.add_playeridentification",
        "tables.change_cashdaysettings",
        "tables.add_seating",
        "tables.change_seating",
        "tables.add_stakes",
        "tables.add_table",
        "tables.change_table",
        "tables.add_collectionschedule",
        "tables.change_collectionschedule",
        "tables.add_collectionscheduleversion",
        "tables.add_collectionrate",
        # The waiting lists, seat offers and the board (docs/waiting-lists.md): the floor runs them.
        "tables.view_waitinglist",
        "tables.view_waitinglistentry",
        "tables.view_waitinglistevent",
        "tables.view_waitinglistsettings",
        "tables.view_mustmove",
        "tables.run_waiting_lists",
        "tables.change_waitinglistsettings",
        # The drop count and its variance sign-off are the floor's (docs/reports.md); the report
        # pages they sit on need the reports' view.
        "ledger.view_reports",
        "ledger.add_dropcount",
        "ledger.sign_off_variance",
    ],
}

# The auditor may view every model of these apps (the web's: the API's replay records, the floor's
# model until they moved).
AUDITOR_APPS = ("tables", "ledger", "web")


def _permissions(names: list[str]) -> list[Permission]:
    query = Q()
    for name in names:
        app_label, codename = name.split(".", 1)
        query |= Q(content_type__app_label=app_label, codename=codename)
    found = list(Permission.objects.filter(query).select_related("content_type"))
    missing = set(names) - {f"{p.content_type.app_label}.{p.codename}" for p in found}
    if missing:
        raise LookupError(f"permissions missing (run migrate): {', '.join(sorted(missing))}")
    return found


def sync_roles() -> dict[str, Group]:
    """Create or update the Dealer, Cage cashier, Floor manager and Auditor groups; idempotent."""
    groups: dict[str, Group] = {}
    for name, perms in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=name)
        group.permissions.set(_permissions(perms))
        groups[name] = group
    auditor, _ = Group.objects.get_or_create(name=AUDITOR)
    auditor.permissions.set(
        Permission.objects.filter(content_type__app_label__in=AUDITOR_APPS, codename__startswith="view_")
    )
    groups[AUDITOR] = auditor
    return groups


def sync_roles_after_migrate(**kwargs: Any) -> None:
    """post_migrate hook: make sure every app's permissions exist first, then sync the groups."""
    from django.contrib.auth.management import create_permissions

    using = kwargs.get("using", "default")
    app_registry = kwargs.get("apps") or global_apps
    if not app_registry.is_installed("tables") or not global_apps.is_installed("django.contrib.auth"):
        return
    for app_config in global_apps.get_app_configs():
        create_permissions(app_config, verbosity=0, using=using)
    sync_roles()
