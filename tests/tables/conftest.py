"""Fixtures of the floor tests: house data, role users, API clients, tables with players, hands.

The house data (seed 004) is loaded once per test database (``django_db_setup``) and again by
the ``house`` fixture if a transactional test flushed it, so each test starts from it cheaply.

A hand is dealt only by the fee-taking deal, :func:`tables.hand_flow.start_hand` (RULINGS §6:
fees before every deal), so players need chips: ``buy_in_players`` seats players with a buy-in,
``table_with_players`` makes such a table, ``deal_hand`` deals and ``settle_hand`` finishes a
dealt hand through its showdown and confirmation. Use these rather than a per-file copy.
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

from ledger import selectors as ledger_selectors
from tables import hand_flow, services
from tables.house_data import load_house_data
from tables.models import CollectionSchedule, Game, GameKind, Hand, Player, Seating, Stakes, Table
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


_buy_in_keys = itertools.count(1)


@pytest.fixture
def buy_in_players(make_player: Callable[..., Player]) -> Callable[..., list[Player]]:
    """``buy_in_players(table, [1, 3, 5], amount_cents=None, by=None)``: a new player seated in each
    seat by their buy-in (:func:`tables.hand_flow.buy_in`) of ``amount_cents`` (default: the
    table's minimum buy-in, :func:`tables.hand_flow.table_rules`); returns the players by seat."""

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
                idempotency_key=f"fixture-buy-in-{next(_buy_in_keys)}",
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
    its fees by :func:`tables.hand_flow.start_hand` (the only way a hand is dealt)."""

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
def cash_out_everyone() -> Callable[..., None]:
    """``cash_out_everyone(table, by=None)``: each player seated at ``table`` cashes out all their
    chips and leaves (:func:`tables.hand_flow.cash_out`; one with no chips just leaves), e.g.
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
                idempotency_key=f"fixture-cash-out-{next(_buy_in_keys)}",
            )

    return cash_out


# A complete deck in a fixed order: settle_hand's Chinese poker hands are its 13-card slices.
_DECK = [rank + suit for suit in "shdc" for rank in "23456789TJQKA"]
# Every board card of a hold'em split: the board plays for both live players (a royal flush).
_SPLIT_BOARD = ["Ah", "Kh", "Qh", "Jh", "Th"]


def _showdown_to_settle(hand: Hand, winners: tuple[int, ...]) -> dict[str, Any]:
    """A showdown entry that settles ``hand`` simply (see :func:`settle_hand`)."""
    dealt = [hp.seat.number for hp in hand.players.select_related("seat").order_by("position")]
    if hand.game.slug == "chinese-poker":
        # Everyone surrenders: two surrendered hands push (docs/chinese-taiwanese.md), no chips move.
        return {
            "players": [
                {"seat": seat, "surrender": True, "cards": _DECK[13 * i : 13 * (i + 1)]}
                for i, seat in enumerate(dealt)
            ]
        }
    if hand.game.kind != GameKind.POT:
        raise ValueError(f"settle_hand settles pot games and Chinese poker, not {hand.game.slug}")
    unknown = set(winners) - set(dealt)
    if unknown:
        raise ValueError(f"seat(s) {sorted(unknown)} were not dealt into hand {hand.number}")
    chip = hand.table.chip_unit_cents
    kill_blind = hand_flow.hand_kill_blind(hand)
    players: list[dict[str, Any]] = []
    for seat in dealt:
        # One chip each (the kill seat its kill blind): the winners take every chip put in.
        entry: dict[str, Any] = {
            "seat": seat,
            "put_in": kill_blind if kill_blind and hand.kill_seat.number == seat else chip,
        }
        if seat not in winners:
            entry["folded"] = True
        players.append(entry)
    if len(winners) == 1:  # everyone else folds: no showdown, no cards (docs/hand-flow.md)
        return {"board": [], "players": players}
    if hand.game.slug != "holdem":
        raise ValueError("settle_hand splits hold'em pots only (the board plays)")
    low = iter(["2c", "3d", "4c", "5d", "2d", "3c", "4d", "5c", "6c", "7d", "6d", "7c"])
    for entry in players:
        if entry["seat"] in winners:
            entry["cards"] = [next(low), next(low)]
            entry["put_in"] = max(entry["put_in"], *(p["put_in"] for p in players))  # everyone called
    return {"board": _SPLIT_BOARD, "players": players}


@pytest.fixture
def settle_hand() -> Callable[..., Hand]:
    """``settle_hand(hand, winners=None, by=None)``: a dealt hand settled through the hand flow
    (:func:`tables.hand_flow.submit_showdown`, then :func:`~tables.hand_flow.confirm_settlement`).

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
        hand_flow.submit_showdown(hand=hand, submitted=_showdown_to_settle(hand, chosen), by=by)
        hand_flow.confirm_settlement(hand=hand, by=by)
        hand.refresh_from_db()
        return hand

    return settle
