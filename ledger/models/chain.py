"""The hash chains: one per table (``ROOM_CHAIN`` for postings with no table), each ordered by its
head row (:class:`ChainHead`), which every posting on the chain locks (docs/ledger.md).
"""

from __future__ import annotations

from django.db import models

GENESIS_HASH = "0" * 64
"""``prev_hash`` of the first transaction of every chain."""

ROOM_CHAIN = "room"
"""The chain of postings that belong to no single table (e.g. a player's table change)."""


def chain_for_table(table_id: int | None) -> str:
    """The hash-chain key of a table's postings; ``ROOM_CHAIN`` for postings with no table."""
    return ROOM_CHAIN if table_id is None else f"table:{table_id}"


def table_id_of_chain(chain: str) -> int | None:
    """The table's database id a chain key names (``table:8`` -> 8; not its number); None for
    ``ROOM_CHAIN`` or a key that is no table's."""
    prefix, _, rest = chain.partition(":")
    return int(rest) if prefix == "table" and rest.isdigit() else None


class ChainHead(models.Model):
    """The last (sequence, hash) of one chain. Locked FOR UPDATE by every posting on that chain,
    which orders the chain; only that table's postings wait on it."""

    chain = models.CharField(max_length=64, unique=True)
    sequence = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=64, default=GENESIS_HASH)

    class Meta:
        ordering = ["chain"]

    def __str__(self) -> str:
        return f"{self.chain} @ {self.sequence}"
