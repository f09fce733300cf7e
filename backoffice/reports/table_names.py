"""How the reports and their exports name a table, and a ledger chain, for people: by the table's
number, as the room does, never by its database id.

The ledger keys each table's hash chain by the table's database id (``ledger.models.chain_for_table``:
``table:8`` is the chain of the table whose id is 8, which may be table 7). Those keys are hashed
and signed, so they stay as they are; a page or an export shows them translated, the key kept
beside the name: ``Table 7 (chain table:8)``. A chain that is no table of the room says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from ledger.models import ROOM_CHAIN, table_id_of_chain
from tables.models import Table, table_name

#: The chain of the postings that belong to no single table.
ROOM_NAME = "The room, no table"


def table_numbers(ids: Iterable[int]) -> dict[int, int]:
    """The numbers of the tables with these database ids (an id of no table is left out)."""
    wanted = {pk for pk in ids if isinstance(pk, int)}
    return dict(Table.objects.filter(pk__in=wanted).values_list("pk", "number")) if wanted else {}


def chain_names(chains: Iterable[str]) -> dict[str, str]:
    """Each chain key -> the table it is, for people: ``Table 7`` (for ``table:8``), ``The room, no
    table`` (``room``), ``Not a table of the room`` (no table has that id) or ``Not a table's
    chain``. One query, whatever the number of chains; :func:`chain_label` adds the key."""
    keys = [str(chain) for chain in chains]
    numbers = table_numbers(pk for pk in map(table_id_of_chain, keys) if pk is not None)
    names: dict[str, str] = {}
    for chain in keys:
        table_id = table_id_of_chain(chain)
        if chain == ROOM_CHAIN:
            name = ROOM_NAME
        elif table_id is None:
            name = "Not a table's chain"
        elif table_id in numbers:
            name = table_name(numbers[table_id])
        else:
            name = "Not a table of the room"
        names[chain] = name
    return names


def chain_label(chain: str, name: str) -> str:
    """A chain as a page shows it: its name and the ledger's key, ``Table 7 (chain table:8)``."""
    return f"{name} (chain {chain})"


@dataclasses.dataclass(frozen=True, slots=True)
class NamedHead:
    """A chain head of a signed anchor, with the chain's name for people (:func:`chain_names`)."""

    chain: str
    name: str
    sequence: int
    hash: str

    @property
    def label(self) -> str:
        return chain_label(self.chain, self.name)


def named_heads(document: Mapping[str, Any] | None) -> list[NamedHead]:
    """The heads of a signed anchor document (``ledger.anchors``), each named (none for none)."""
    heads = [h for h in (document or {}).get("heads", []) if isinstance(h, Mapping)]
    names = chain_names(str(h.get("chain", "")) for h in heads)
    return [
        NamedHead(
            chain=str(h.get("chain", "")),
            name=names[str(h.get("chain", ""))],
            sequence=h.get("sequence", 0),
            hash=str(h.get("hash", "")),
        )
        for h in heads
    ]


__all__ = ["ROOM_NAME", "NamedHead", "chain_label", "chain_names", "named_heads", "table_numbers"]
