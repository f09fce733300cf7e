"""Fixtures of the floor tests: house data, role users, API clients, tables with players.

The house data (seed 004) is loaded once per test database (``django_db_setup``) and again by
the ``house`` fixture if a transactional test flushed it, so each test starts from it cheaply.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group
from django.db import connection
from rest_framework.test import APIClient

from tables import services
from tables.house_data import load_house_data
from tables.models import CollectionSchedule, Game, Player, Stakes, Table
from tables.roles import AUDITOR, DEALER, FLOOR_MANAGER, sync_roles

ROLES = {"dealer": DEALER, "floor": FLOOR_MANAGER, "auditor": AUDITOR}


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    with django_db_blocker.unblock():
        load_house_data()


@pytest.fixture(autouse=True)
def _postgres_only(request: pytest.FixtureRequest) -> None:
    """``@pytest.mark.postgres`` tests are skipped unless the database is PostgreSQL."""
    if request.node.get_closest_marker("postgres") and connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL=postgres://...)")


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    # The production hasher takes ~0.5 s a password by design; tests only need a valid one.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def house(db: None) -> None:
    """The house data is there (reloaded if a transactional test flushed the database)."""
    if not Game.objects.filter(slug="holdem").exists():
        load_house_data()


@pytest.fixture
def users(db: None) -> dict[str, AbstractBaseUser]:
    """One user per role: dealer, floor, auditor; plus ``admin`` (superuser) and ``nobody``."""
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
def client_for(users: dict[str, AbstractBaseUser]) -> Callable[[str | None], APIClient]:
    """``client_for("dealer")``: an API client logged in as that role (None: anonymous)."""

    def make(role: str | None) -> APIClient:
        client = APIClient()
        if role is not None:
            client.force_authenticate(users[role])
        return client

    return make


_numbers = itertools.count(1)


@pytest.fixture
def make_table(house: None) -> Callable[..., Table]:
    """``make_table(game="holdem", stakes="limit-4-8-half", schedule="A", open=True, ...)``."""

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
            number = max([next(_numbers), *Table.objects.values_list("number", flat=True)]) + 1
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


@pytest.fixture
def groups(db: None) -> Iterator[dict[str, Group]]:
    return sync_roles()
