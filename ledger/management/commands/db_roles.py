"""``manage.py db_roles``: least-privilege PostgreSQL roles for the app (``ledger/db_privileges.py``).

* ``db_roles setup`` prints the SQL a superuser runs once per database: the owner role and the app
  role (names and passwords from ``DATABASE_OWNER_URL`` and ``DATABASE_URL``, or ``--owner``,
  ``--app``, ``--database-name``), the database owned by the owner, the app's CONNECT and default
  privileges. ``db_roles setup | psql -U postgres -d casino -v ON_ERROR_STOP=1``.
* ``db_roles grant`` logs in as the owner (``DATABASE_OWNER_URL``): the app's role gets exactly its
  rights on every table there is now. ``migrate`` does this itself after migrating
  (``ledger/management/commands/migrate.py``); ``--print`` prints the statements instead. When the
  app connects as the owner (no ``DATABASE_OWNER_URL``) or on SQLite there is nothing to grant, and
  it says so.
* ``db_roles check`` compares what the app's role holds with the policy (exit status 1 and one line
  per difference); by default the role the app connects as.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from ledger.db_privileges import (
    PrivilegeError,
    app_table_rights,
    grant_app_privileges,
    grant_statements,
    logged_in_as_owner,
    owner_login,
    privilege_differences,
    setup_sql,
)

TABLES = "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p')"


class Command(BaseCommand):
    help = (
        "Least-privilege PostgreSQL roles: `setup` prints a superuser's SQL (the owner and app roles), "
        "`grant` gives the app role its rights as the owner (after every migrate), `check` compares "
        "the app role's rights with the policy."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="{setup,grant,check}")
        setup = actions.add_parser("setup", help="print the SQL a superuser runs once per database")
        setup.add_argument("--owner", help="the owner role (default: DATABASE_OWNER_URL's user)")
        setup.add_argument("--app", help="the app's role (default: DATABASE_URL's user)")
        setup.add_argument("--database-name", help="the database (default: DATABASE_URL's)")
        grant = actions.add_parser("grant", help="as the owner, give the app role its rights on every table")
        grant.add_argument("--app", help="the app's role (default: DATABASE_URL's user)")
        grant.add_argument("--print", action="store_true", dest="print_only", help="print, change nothing")
        check = actions.add_parser("check", help="compare the app role's rights with the policy")
        check.add_argument("--app", help="the role to check (default: the role the app connects as)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["action"] == "setup":
                self._setup(options)
            elif options["action"] == "grant":
                self._grant(options)
            else:
                self._check(options)
        except PrivilegeError as exc:
            raise CommandError(str(exc)) from exc

    def _setup(self, options: dict[str, Any]) -> None:
        app_db, owner_db = settings.DATABASES[DEFAULT_DB_ALIAS], owner_login()
        postgres = app_db["ENGINE"] == "django.db.backends.postgresql"
        if not postgres and not (options["owner"] and options["app"] and options["database_name"]):
            raise CommandError(
                "DATABASE_URL is not PostgreSQL (SQLite has no roles): give --owner, --app and "
                "--database-name to print the SQL for a PostgreSQL database"
            )
        owner = options["owner"] or owner_db.get("USER") or ""
        app = options["app"] or app_db.get("USER") or ""
        if owner == app and not options["owner"]:
            raise CommandError(
                f"DATABASE_OWNER_URL names the same role as DATABASE_URL ({app!r}): set it to the owner "
                "role's URL, or give --owner"
            )
        self.stdout.write(
            setup_sql(
                owner=owner,
                app=app,
                database=options["database_name"] or app_db["NAME"],
                # A password is printed only when it comes with the role's own URL.
                owner_password=None if options["owner"] else owner_db.get("PASSWORD") or None,
                app_password=None if options["app"] else app_db.get("PASSWORD") or None,
            ),
            ending="",
        )

    def _grant(self, options: dict[str, Any]) -> None:
        connection = connections[DEFAULT_DB_ALIAS]
        if connection.vendor != "postgresql":
            self.stdout.write("SQLite has no roles: nothing to grant.")
            return
        app = options["app"] or connection.settings_dict.get("USER") or ""
        if options["print_only"]:  # reading the catalog needs no owner
            with connection.cursor() as cursor:
                cursor.execute("SELECT current_database()")
                database = cursor.fetchone()[0]
                cursor.execute(TABLES)
                tables = [name for (name,) in cursor.fetchall()]
            for statement in grant_statements(app=app, tables=tables, database=database):
                self.stdout.write(statement + ";")
            return
        with logged_in_as_owner(connection), connection.cursor() as cursor:
            cursor.execute("SELECT current_user, current_database()")
            me, database = cursor.fetchone()
            if app == me:
                self.stdout.write(
                    f"The app connects as {me!r}, the role that owns the tables (DATABASE_OWNER_URL unset, "
                    "or naming DATABASE_URL's role): nothing to grant. Least privilege: README, "
                    '"Least privilege on PostgreSQL".'
                )
                return
            with transaction.atomic():
                grant_app_privileges(cursor, app=app)
                cursor.execute(TABLES)
                rights = app_table_rights(name for (name,) in cursor.fetchall())
        changeable = sum("UPDATE" in held for held in rights.values())
        self.stdout.write(
            f"Granted role {app!r} its rights on {len(rights)} table(s) in {database!r} as {me!r}: "
            f"{changeable} updatable, {len(rights) - changeable} append-only or read-only; "
            "no TRUNCATE, no ownership."
        )

    def _check(self, options: dict[str, Any]) -> None:
        connection = connections[DEFAULT_DB_ALIAS]
        if connection.vendor != "postgresql":
            self.stdout.write("SQLite has no roles: nothing to check.")
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            app = options["app"] or cursor.fetchone()[0]
            differences = privilege_differences(cursor, app=app)
        if differences:
            for line in differences:
                self.stderr.write(line)
            raise CommandError(
                f"role {app!r} differs from the least-privilege policy in {len(differences)} way(s)"
            )
        self.stdout.write(f"OK: role {app!r} holds exactly the app's rights (no TRUNCATE, no ownership).")
