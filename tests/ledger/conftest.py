"""The ledger tests' bare floor rows (:mod:`tests.factories`) and idempotency keys.

Made directly with the floor's models, only the fields they require, no house data needed (they
survive a ``flush``): the ledger tests need a table, a player or a hand to point at, nothing of the
floor's rules. ``make_bare_table``, ``make_bare_player`` and ``make_bare_hand`` give the factories;
``table``, ``other_table``, ``hand``, ``alice``, ``bob`` and ``carol`` are such rows. Only the
ledger's tests use them; the floor's own rows are ``make_table`` and the rest
(``tests/fixtures/floor.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pytest

from tables.models import Hand, Player, Table
from tests.factories import create_bare_hand, create_bare_player, create_bare_table


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
