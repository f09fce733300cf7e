"""``migrate``, as the owner: the tables belong to the owner role, and the app's role gets its rights.

Why this exists: with least-privilege roles (docs/ledger.md, "Database roles") the app connects as
a role that can't create or alter tables; ``DATABASE_OWNER_URL`` is the role that owns them. Running
migrate through a second connection as the owner is not enough: a data migration or a
``post_migrate`` handler that goes through the default alias (``Model.objects`` without ``using``)
would run as the app, or wait for the owner's open transaction on the same table forever. So the
default alias itself logs in as the owner for the whole run (migrations, data migrations,
``post_migrate``), and afterwards the app's role is granted its rights on every table there is now
(as ``manage.py db_roles grant`` does), so a table a new migration made is covered at once.

Without ``DATABASE_OWNER_URL`` (or with DATABASE_URL's login), on SQLite or for another alias, this
is Django's ``migrate`` unchanged.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as MigrateCommand
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from ledger.db_privileges import PrivilegeError, grant_app_privileges, logged_in_as_owner, owner_login


class Command(MigrateCommand):
    help = (
        MigrateCommand.help + " With DATABASE_OWNER_URL, runs as the owner role and then grants the "
        "app's role its rights (docs/ledger.md, 'Database roles')."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[options["database"]]
        if options["database"] != DEFAULT_DB_ALIAS or connection.vendor != "postgresql":
            super().handle(*args, **options)
            return
        app = str(connection.settings_dict["USER"])
        with logged_in_as_owner(connection):
            super().handle(*args, **options)
            if owner_login()["USER"] == app:
                return  # one role does both (or the same role by another route)
            try:
                with transaction.atomic(using=DEFAULT_DB_ALIAS), connection.cursor() as cursor:
                    grant_app_privileges(cursor, app=app)
            except PrivilegeError as exc:
                raise CommandError(f"migrated, but the app's role was not granted its rights: {exc}") from exc
        if options["verbosity"] >= 1:
            self.stdout.write(f"Granted the app's role {app!r} its rights (db_roles grant).")
