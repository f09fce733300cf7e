"""Shared fixtures of every test directory. Engine tests (tests/poker/) need no database.

The house data (seed 004) is loaded once per test database (``django_db_setup``) and again by
the ``house`` fixture if a transactional test flushed it, so each test starts from it cheaply.
``@pytest.mark.postgres`` tests are skipped unless the database is PostgreSQL. With
``DATABASE_OWNER_URL`` set too (least-privilege roles), the owner makes the test database and the
tests connect as the app's role; ``db_app_role`` (or ``as_the_app_role``) gives a test the app's rights
on any PostgreSQL run, ``db_superuser_cursor`` a second connection with the database's own rights.

Two kinds of floor rows, under different names:

* the floor's: ``make_table`` (a table of the house data, made and opened by ``tables.services``),
  ``make_player`` and ``seat_players`` (through ``tables.services``);
* bare rows for the ledger tests: ``make_bare_table``, ``make_bare_player``, ``make_bare_hand``
  (and ``table``, ``other_table``, ``hand``, ``alice``, ``bob``, ``carol``): made directly with the
  floor's models, only the fields they require, no house data needed (they survive a ``flush``).

A hand is dealt only by the fee-taking deal, :func:`handflow.services.start_hand` (RULINGS §6:
fees before every deal), so players need chips: ``buy_in_players`` seats players with a buy-in,
``table_with_players`` makes such a table, ``deal_hand`` deals and ``settle_hand`` finishes a
dealt hand through its showdown and confirmation. Use these rather than a per-file copy.

The report tests use ``room`` (a :class:`tests.factories.ReportRoom`: house data, schedules with
versions in the past, tables, seated players with chips, hands at stated times with their fees)
and ``staff`` (users by role, with the report permissions). Plain helpers the tests import
(``ReportRoom``, ``rpt_fee``, ``at_local``, ``create_bare_hand``, ...) are in ``tests/factories.py``.
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import os
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group, Permission
from django.contrib.auth.models import User as AuthUser
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper
from django.db.utils import load_backend
from django.utils import timezone
from rest_framework.test import APIClient

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.db_privileges import grant_app_privileges, login, owner_login
from ledger.shifts import room_zone
from tables import services
from tables.house_data import load_house_data
from tables.models import CollectionSchedule, DealerShift, Game, Hand, Player, Seating, Stakes, Table
from tables.roles import AUDITOR, DEALER, FLOOR_MANAGER, sync_roles
from tests.factories import (
    COUNT_TEAM_PERMISSIONS,
    FLOOR_REPORT_PERMISSIONS,
    ReportRoom,
    create_bare_hand,
    create_bare_player,
    create_bare_table,
    showdown_to_settle,
)

# --- The database: house data, PostgreSQL-only tests, password hashing ------------------------------

HOUSE_SINCE = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """The house data is loaded once per test database, back-dated so that the tests' hands of
    past days (reports over a year) have schedules in force. Under the split (``SPLIT``) the owner
    made and migrated the database; the app's role is granted its rights and the tests run as it."""
    with django_db_blocker.unblock():
        if SPLIT is not None:
            _confine_to_the_app_role(SPLIT)
        load_house_data(effective_from=HOUSE_SINCE)
    yield
    if SPLIT is not None:
        _flush_patch.undo()
        with django_db_blocker.unblock():
            _close_owner_connection()
        # pytest-django drops the test database next, as the role that owns it.
        _log_in(connections[DEFAULT_DB_ALIAS], SPLIT.owner)


@pytest.fixture(autouse=True)
def _postgres_only(request: pytest.FixtureRequest) -> None:
    """``@pytest.mark.postgres`` tests are skipped unless the database is PostgreSQL."""
    if request.node.get_closest_marker("postgres") and connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL=postgres://...)")


@pytest.fixture(autouse=True)
def _tamper_needs_the_attackers_rights(request: pytest.FixtureRequest) -> None:
    """``@pytest.mark.tamper`` tests play an attacker with the database owner's or a superuser's
    rights (they rewrite journal rows, switch triggers off) inside the test's own transaction. Under
    the least-privilege split the test connection is the app's role, which can do none of that (what
    tests/ledger/test_db_roles.py proves), so they are skipped there; ``.ci/run`` runs them in its
    superuser pass (``-m tamper``), the attacker the issue names."""
    if request.node.get_closest_marker("tamper") and SPLIT is not None:
        pytest.skip("plays an attacker with the owner's rights: run as a superuser (.ci/run: -m tamper)")


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    # The production hasher takes ~0.5 s a password by design; tests only need a valid one.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def house(db: None) -> None:
    """The house data is there (reloaded if a transactional test flushed the database)."""
    if not Game.objects.filter(slug="holdem").exists():
        load_house_data(effective_from=HOUSE_SINCE)


# --- Least-privilege roles: the suite under the split (docs/ledger.md, "Database roles") ----------
#
# With DATABASE_URL as the app's role and DATABASE_OWNER_URL as the owner's (two roles on
# PostgreSQL), the test database is made and migrated by the owner, the app's role is granted its
# rights (ledger/db_privileges.py), and the tests connect as the app's role. A transactional test's
# flush (TRUNCATE, which the app may not do) runs as the owner. Without the split (SQLite, or one
# role such as a superuser) nothing of this applies.


class Split:
    """The two logins of the split: ``app`` (DATABASE_URL's) and ``owner`` (DATABASE_OWNER_URL's)."""

    def __init__(self, app: dict[str, Any], owner: dict[str, Any]) -> None:
        self.app = app
        self.owner = owner
        self.app_role = str(app["USER"])


def _split() -> Split | None:
    app, owner = login(django_settings.DATABASES["default"]), owner_login()
    if django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return None
    return Split(app, owner) if owner["USER"] != app["USER"] else None


SPLIT = _split()
_owner_connection: list[BaseDatabaseWrapper] = []  # the owner's session connection, made when needed
_flush_patch = pytest.MonkeyPatch()


def _log_in(wrapper: BaseDatabaseWrapper, credentials: dict[str, Any]) -> None:
    """``wrapper`` connects with ``credentials`` (a login) from its next query on."""
    wrapper.close()
    wrapper.settings_dict.update(copy.deepcopy(credentials))


def _connect_as(credentials: dict[str, Any], alias: str) -> BaseDatabaseWrapper:
    """A connection to the test database with ``credentials`` (a login), outside
    ``django.db.connections`` (so no test's list of allowed databases applies to it). Waits 30 s at
    most for a lock, then fails."""
    settings_dict = copy.deepcopy(connections[DEFAULT_DB_ALIAS].settings_dict)
    settings_dict.update(copy.deepcopy(credentials))
    settings_dict["OPTIONS"] = {**settings_dict.get("OPTIONS", {}), "options": "-c lock_timeout=30s"}
    wrapper: BaseDatabaseWrapper = load_backend(settings_dict["ENGINE"]).DatabaseWrapper(settings_dict, alias)
    return wrapper


def _flush_as_owner(sql_list: Iterable[str]) -> None:
    """``flush``'s statements (TRUNCATE), run by the owner in one transaction."""
    if not _owner_connection:
        assert SPLIT is not None
        _owner_connection.append(_connect_as(SPLIT.owner, "owner (flush)"))
    owner = _owner_connection[0]
    owner.ensure_connection()
    owner.set_autocommit(False)
    try:
        with owner.cursor() as cursor:
            for sql in sql_list:
                cursor.execute(sql)
        owner.commit()
    except BaseException:
        owner.rollback()
        raise
    finally:
        owner.set_autocommit(True)


def _close_owner_connection() -> None:
    while _owner_connection:
        _owner_connection.pop().close()


def _confine_to_the_app_role(split: Split) -> None:
    """The owner (still the default alias's login) grants the app's role its rights; then the default
    alias logs in as the app's role, and its flushes (a transactional test's teardown, ``manage.py
    flush`` in a test) run as the owner."""
    default = connections[DEFAULT_DB_ALIAS]
    with transaction.atomic(), default.cursor() as cursor:
        grant_app_privileges(cursor, app=split.app_role)
    _log_in(default, split.app)
    # On the class: the default alias isn't always the same object (asgiref keeps connections per
    # context, and the browser tests run an event loop in this thread).
    operations = type(default.ops)
    flush = operations.execute_sql_flush

    def execute_sql_flush(ops: Any, sql_list: Iterable[str]) -> None:
        if ops.connection.alias == DEFAULT_DB_ALIAS:
            _flush_as_owner(sql_list)
        else:
            flush(ops, sql_list)

    _flush_patch.setattr(operations, "execute_sql_flush", execute_sql_flush)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """Under the split the owner makes and migrates the test database: the default alias logs in as
    the owner until ``django_db_setup`` has granted the app's role its rights."""
    if SPLIT is not None:
        _log_in(connections[DEFAULT_DB_ALIAS], SPLIT.owner)


@pytest.fixture(scope="session", autouse=True)
def _owner_url_not_inherited() -> Iterator[None]:
    """The suite's subprocesses (``manage.py`` checks, a Celery worker) are given their own
    DATABASE_URL; an inherited DATABASE_OWNER_URL would name another database (which the settings
    refuse). They never migrate, so they don't get it."""
    saved = os.environ.pop("DATABASE_OWNER_URL", None)
    yield
    if saved is not None:
        os.environ["DATABASE_OWNER_URL"] = saved


def _user_triggers(cursor: CursorWrapper) -> dict[tuple[str, str], bool]:
    cursor.execute(
        "SELECT c.relname, t.tgname, t.tgenabled <> 'D' FROM pg_trigger t "
        "JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace"
    )
    return {(table, name): bool(enabled) for table, name, enabled in cursor.fetchall()}


@pytest.fixture
def db_superuser_cursor(transactional_db: None) -> Iterator[CursorWrapper]:
    """A cursor on the test database with the rights of whoever has the database itself: a test that
    acts as an attacker with direct database access uses it. PostgreSQL only (skipped elsewhere).

    It is a second connection, in autocommit (each statement commits at once): as the owner under
    the split (DATABASE_OWNER_URL's login), else with the default connection's own login (the
    superuser a plain PostgreSQL run uses). So the test is transactional (this fixture asks for
    ``transactional_db``): the rows it made are committed and visible here, and no open transaction
    holds the locks an ``ALTER TABLE`` waits for (a lock is waited for 30 s at most).

    The owner is no superuser: it may ``ALTER TABLE ... DISABLE TRIGGER <name>`` or ``USER``, not
    ``ALL`` (that includes the foreign keys' system triggers), and not set
    ``session_replication_role``. A trigger disabled here is enabled again after the test; one that
    was dropped fails the test's teardown (later tests would run without it)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL=postgres://...)")
    rights = SPLIT.owner if SPLIT is not None else login(connection.settings_dict)
    attacker = _connect_as(rights, "attacker")
    with attacker.cursor() as cursor:
        before = _user_triggers(cursor)
    try:
        with attacker.cursor() as cursor:
            yield cursor
    finally:
        attacker.close()
        repair = _connect_as(rights, "attacker (repair)")
        try:
            with repair.cursor() as cursor:
                after = _user_triggers(cursor)
                for (table, name), enabled in before.items():
                    if enabled and after.get((table, name)) is False:
                        cursor.execute(f'ALTER TABLE "{table}" ENABLE TRIGGER "{name}"')
        finally:
            repair.close()
        dropped = sorted(f"{name} on {table}" for table, name in before if (table, name) not in after)
        if dropped:
            pytest.fail(f"the test dropped trigger(s) {', '.join(dropped)}: later tests would lack them")


@pytest.fixture
def as_the_app_role(request: pytest.FixtureRequest) -> None:
    """Where there are roles (PostgreSQL) the test's connection holds only the app's rights
    (``db_app_role``); nothing changes on SQLite. For a test of what the app sees in production, such
    as the integrity report's guard line, which fails on a superuser's connection."""
    if connection.vendor == "postgresql":
        request.getfixturevalue("db_app_role")


@pytest.fixture
def db_app_role(db: None) -> Iterator[str]:
    """The test's connection holds only the app's rights (ledger/db_privileges.py); yields the
    role's name. PostgreSQL only (skipped elsewhere).

    Under the split the connection is the app's role already. On a plain superuser run a role is made
    for the test, granted the app's rights by the superuser (the tables' owner there) and SET on the
    connection: within the test's transaction, which rolls it all back; for a transactional test
    until teardown, which drops the role."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL=postgres://...)")
    if SPLIT is not None:
        yield SPLIT.app_role
        return
    role = f"test_app_{uuid.uuid4().hex[:16]}"
    in_transaction = connection.in_atomic_block
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}"')
        grant_app_privileges(cursor, app=role)
        cursor.execute(f'SET {"LOCAL " if in_transaction else ""}ROLE "{role}"')
    try:
        yield role
    finally:
        if not in_transaction:  # else the test's rollback takes the role and its grants away
            with connection.cursor() as cursor:
                cursor.execute("RESET ROLE")
                cursor.execute(f'DROP OWNED BY "{role}"')
                cursor.execute(f'DROP ROLE "{role}"')


# --- Users and roles ---------------------------------------------------------------------------------

ROLES = {"dealer": DEALER, "floor": FLOOR_MANAGER, "auditor": AUDITOR}


@pytest.fixture
def groups(db: None) -> Iterator[dict[str, Group]]:
    return sync_roles()


@pytest.fixture
def users(db: None) -> dict[str, AbstractBaseUser]:
    """One user per role: dealer, floor, auditor (password ``pw-<name>``); plus ``admin``
    (superuser) and ``nobody``."""
    groups = sync_roles()
    model = get_user_model()
    made: dict[str, AbstractBaseUser] = {}
    for username, role in ROLES.items():
        user = model.objects.create_user(username=username, password="pw-" + username)
        user.groups.add(groups[role])
        made[username] = user
    made["admin"] = model.objects.create_superuser(
        username="admin", password="pw-admin", email="a@example.invalid"
    )
    made["nobody"] = model.objects.create_user(username="nobody", password="pw-nobody")
    return made


@pytest.fixture
def floor_user(users: dict[str, AbstractBaseUser]) -> AbstractBaseUser:
    return users["floor"]


@pytest.fixture
def on_duty(users: dict[str, AbstractBaseUser]) -> Callable[..., DealerShift]:
    """``on_duty(table, who="dealer")``: that user clocked in at ``table``, as the terminal does
    (only the dealer clocked in there, or the floor, runs its hands)."""

    def clock_in(table: Table, who: str = "dealer") -> DealerShift:
        dealer = users[who]
        assert isinstance(dealer, AuthUser)
        return services.clock_in(table=table, dealer=dealer, by=dealer)

    return clock_in


@pytest.fixture
def client_for(users: dict[str, AbstractBaseUser]) -> Callable[[str | None], APIClient]:
    """``client_for("dealer")``: an API client logged in as that role (None: anonymous)."""

    def make(role: str | None) -> APIClient:
        client = APIClient()
        if role is not None:
            client.force_authenticate(users[role])
        return client

    return make


@pytest.fixture
def staff(db: None) -> dict[str, AbstractBaseUser]:
    """The report tests' users by role (no passwords): ``auditor``, ``dealer``, ``floor`` (the
    Floor manager group) from tables.roles; ``counter`` and ``manager`` also hold the report
    permissions (``tests.factories.COUNT_TEAM_PERMISSIONS`` and ``FLOOR_REPORT_PERMISSIONS``;
    ``counter``: count team; ``manager``: floor manager who signs off); ``nobody`` has none."""
    groups: dict[str, Group] = sync_roles()
    model = get_user_model()
    made: dict[str, AbstractBaseUser] = {}
    for username, role in (("auditor", AUDITOR), ("dealer", DEALER), ("floor", FLOOR_MANAGER)):
        user = model.objects.create_user(username=username, password=None)
        user.groups.add(groups[role])
        made[username] = user
    for username, perms in (("counter", COUNT_TEAM_PERMISSIONS), ("manager", FLOOR_REPORT_PERMISSIONS)):
        user = model.objects.create_user(username=username, password=None)
        user.groups.add(groups[FLOOR_MANAGER])
        for name in perms:
            app_label, codename = name.split(".")
            user.user_permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
        made[username] = user
    made["nobody"] = model.objects.create_user(username="nobody", password=None)
    return made


@pytest.fixture
def cashier(db: None) -> AbstractBaseUser:
    """A user with no role (no password), who posts the ledger tests' transactions."""
    user: AbstractBaseUser = get_user_model().objects.create_user(username="cashier", password=None)
    return user


# --- Floor factories: tables of the house data, players, seatings (tables.services) ----------------

_table_numbers = itertools.count(1)


@pytest.fixture
def make_table(house: None) -> Callable[..., Table]:
    """``make_table(game="holdem", stakes="limit-4-8-half", schedule="A", open=True, ...)``: a table of
    the house data, created (and opened) by ``tables.services``. Bare rows: ``make_bare_table``."""

    def make(
        *,
        number: int | None = None,
        game: str = "holdem",
        stakes: str = "limit-4-8-half",
        schedule: str = "A",
        seat_count: int | None = None,
        open: bool = True,
        **kwargs: Any,
    ) -> Table:
        if number is None:
            number = max([next(_table_numbers), *Table.objects.values_list("number", flat=True)]) + 1
        table = services.create_table(
            number=number,
            game=Game.objects.get(slug=game),
            stakes=Stakes.objects.get(code=stakes),
            collection_schedule=CollectionSchedule.objects.get(code=schedule),
            seat_count=seat_count,
            by=None,
            **kwargs,
        )
        if open:
            table = services.open_table(table=table, by=None)
        return table

    return make


@pytest.fixture
def make_player(db: None) -> Callable[..., Player]:
    """``make_player(name=None, member_number=None)``: a player created by ``tables.services``
    (named "Player <n>" by default). Bare rows: ``make_bare_player``."""
    counter = itertools.count(1)

    def make(name: str | None = None, member_number: str | None = None) -> Player:
        return services.create_player(name=name or f"Player {next(counter)}", member_number=member_number)

    return make


@pytest.fixture
def seat_players(make_player: Callable[..., Player]) -> Callable[..., list[Player]]:
    """``seat_players(table, [1, 3, 5])`` seats a new player in each seat; returns the players."""

    def seat(table: Table, seats: list[int]) -> list[Player]:
        players = []
        for number in seats:
            player = make_player(f"Seat {number} at {table.number}")
            services.seat_player(table=table, seat_number=number, player=player, by=None)
            players.append(player)
        return players

    return seat


# --- Ledger factories: bare floor rows (tests.factories) and idempotency keys -------------------------


@pytest.fixture
def make_bare_table(db: None) -> Callable[[], Table]:
    """``make_bare_table()``: :func:`tests.factories.create_bare_table` (no house data needed)."""
    return create_bare_table


@pytest.fixture
def make_bare_player(db: None) -> Callable[..., Player]:
    """``make_bare_player(name="player")``: :func:`tests.factories.create_bare_player`."""
    return create_bare_player


@pytest.fixture
def make_bare_hand(db: None) -> Callable[..., Hand]:
    """``make_bare_hand(table, status="settled")``: :func:`tests.factories.create_bare_hand` (no fees)."""
    return create_bare_hand


@pytest.fixture
def table(db: None) -> Table:
    """A bare table (:func:`tests.factories.create_bare_table`)."""
    return create_bare_table()


@pytest.fixture
def other_table(db: None) -> Table:
    """Another bare table."""
    return create_bare_table()


@pytest.fixture
def alice(db: None) -> Player:
    return create_bare_player("Alice")


@pytest.fixture
def bob(db: None) -> Player:
    return create_bare_player("Bob")


@pytest.fixture
def carol(db: None) -> Player:
    return create_bare_player("Carol")


@pytest.fixture
def hand(table: Table) -> Hand:
    """A bare settled hand at ``table`` (:func:`tests.factories.create_bare_hand`)."""
    return create_bare_hand(table)


@pytest.fixture
def keys() -> Iterator[str]:
    """Fresh idempotency keys: ``next(keys)``."""
    return (f"test-key-{n}" for n in itertools.count(1))


# --- Hand factories: buy-ins, deals, settlements, cash-outs (handflow.services) --------------------

_fixture_keys = itertools.count(1)


@pytest.fixture
def buy_in_players(make_player: Callable[..., Player]) -> Callable[..., list[Player]]:
    """``buy_in_players(table, [1, 3, 5], amount_cents=None, by=None)``: a new player seated in each
    seat by their buy-in (:func:`handflow.services.buy_in`) of ``amount_cents`` (default: the
    table's minimum buy-in, :func:`handflow.services.table_rules`); returns the players by seat."""

    def buy(
        table: Table, seats: list[int], amount_cents: int | None = None, by: AbstractBaseUser | None = None
    ) -> list[Player]:
        amount = amount_cents if amount_cents is not None else hand_flow.table_rules(table).minimum_cents
        players = []
        for number in seats:
            player = make_player(f"Seat {number} at {table.number}")
            hand_flow.buy_in(
                table=table,
                player=player,
                amount_cents=amount,
                seat_number=number,
                by=by,
                idempotency_key=f"fixture-buy-in-{next(_fixture_keys)}",
            )
            players.append(player)
        return players

    return buy


@pytest.fixture
def table_with_players(
    make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> Callable[..., tuple[Table, list[Player]]]:
    """``table_with_players(3)`` (seats 1-3) or ``table_with_players(seats=[2, 5, 9])``: an open
    table (``make_table``'s keyword arguments: game, stakes, schedule, ...) with a bought-in player in
    each seat; ``amount_cents`` as :func:`buy_in_players`. Returns (table, players by seat)."""

    def make(
        players: int | None = None,
        *,
        seats: list[int] | None = None,
        amount_cents: int | None = None,
        **table_kwargs: Any,
    ) -> tuple[Table, list[Player]]:
        if (players is None) == (seats is None):
            raise TypeError("give the number of players or their seats")
        table = make_table(**table_kwargs)
        return table, buy_in_players(table, seats or list(range(1, (players or 0) + 1)), amount_cents)

    return make


@pytest.fixture
def deal_hand() -> Callable[..., Hand]:
    """``deal_hand(table, game=None, sit_out_seat_numbers=(), by=None)``: the next hand, dealt with
    its fees by :func:`handflow.services.start_hand` (the only way a hand is dealt)."""

    def deal(
        table: Table,
        *,
        game: Game | str | None = None,
        sit_out_seat_numbers: Any = (),
        by: AbstractBaseUser | None = None,
    ) -> Hand:
        played = Game.objects.get(slug=game) if isinstance(game, str) else game
        return hand_flow.start_hand(
            table=table, by=by, game=played, sit_out_seat_numbers=sit_out_seat_numbers
        )

    return deal


@pytest.fixture
def settle_hand() -> Callable[..., Hand]:
    """``settle_hand(hand, winners=None, by=None)``: a dealt hand settled through the hand flow
    (:func:`handflow.services.submit_showdown`, then :func:`~handflow.services.confirm_settlement`).

    Pot games: every player dealt in puts in one chip (the kill seat its kill blind) and all but
    ``winners`` (default: the button) fold, so a single winner wins the pot outright (the kill
    counts it, RULINGS §2); two winners at hold'em split it on a board that plays. Chinese poker:
    everyone surrenders, so every pair pushes and no chips move. Returns the hand, settled.
    """

    def settle(
        hand: Hand, winners: tuple[int, ...] | list[int] | None = None, by: AbstractBaseUser | None = None
    ) -> Hand:
        hand = Hand.objects.select_related("table", "game", "button_seat", "kill_seat", "stakes").get(
            pk=hand.pk
        )
        chosen = tuple(winners) if winners else (hand.button_seat.number,)
        hand_flow.submit_showdown(hand=hand, submitted=showdown_to_settle(hand, chosen), by=by)
        hand_flow.confirm_settlement(hand=hand, by=by)
        hand.refresh_from_db()
        return hand

    return settle


@pytest.fixture
def cash_out_everyone() -> Callable[..., None]:
    """``cash_out_everyone(table, by=None)``: each player seated at ``table`` cashes out all their
    chips and leaves (:func:`handflow.services.cash_out`; one with no chips just leaves), e.g.
    before the table closes."""

    def cash_out(table: Table, by: AbstractBaseUser | None = None) -> None:
        for seating in Seating.objects.active().filter(table=table).select_related("player"):
            if not ledger_selectors.player_chips(table=table, player=seating.player):
                services.unseat_player(seating=seating, by=by)
                continue
            hand_flow.cash_out(
                table=table,
                player=seating.player,
                by=by,
                idempotency_key=f"fixture-cash-out-{next(_fixture_keys)}",
            )

    return cash_out


# --- Report room: a card room with schedules, tables, hands and their fees (docs/reports.md) ------


@pytest.fixture
def room(house: None, cashier: AbstractBaseUser) -> ReportRoom:
    """A :class:`tests.factories.ReportRoom` whose postings are the ``cashier``'s."""
    return ReportRoom(cashier)


@pytest.fixture
def a_past_day() -> dt.date:
    """A business date well in the past (shifts over, nothing else posted that day)."""
    return (timezone.localtime(timezone.now(), room_zone()) - dt.timedelta(days=30)).date()
