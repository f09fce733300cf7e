"""Does a hand's settlement transaction post what its reading's postings say? The one comparison,
for both readers of a settled hand against the ledger: the books' hand checks
(:mod:`backoffice.books`) and the replay audit (:mod:`handflow.audit`).

:func:`compare_settlement` makes the entries the postings post (:meth:`Postings.ledger_lines`, as
``ledger.services.award_pot`` and ``post_payments`` post them, lines of zero left out), takes the
transaction kind that settles them (:data:`ledger.models.SETTLEMENT_KINDS`), and compares them
with the transaction the ledger holds: is there one when chips move, is it a settlement of this
hand of that kind, and where do its entries first part from the expected ones. Each reader lays
out a line its own way (``line``: whose account, how the pot is named) and words the findings for
its own report; what is compared is said here once.

Pure: plain values in, plain values out, no query.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Protocol

from ledger.models import SETTLEMENT_KINDS, TransactionKind
from poker.postings import LedgerLine, LineDifference, Postings, first_line_difference

__all__ = ["PostedSettlement", "SettlementComparison", "compare_settlement", "settlement_lines"]


class PostedSettlement[L](Protocol):
    """A settlement transaction as its reader holds it: its hand, its kind and its entries in
    line order, each laid out as the reader's ``line`` lays out the expected ones."""

    @property
    def hand_id(self) -> int | None: ...

    @property
    def kind(self) -> str: ...

    @property
    def lines(self) -> Sequence[L]: ...


@dataclasses.dataclass(frozen=True, slots=True)
class SettlementComparison[L]:
    """What :func:`compare_settlement` found for one hand: ``kind``, the transaction kind the
    postings settle with; ``expected``, the entries they post; ``posted``, the transaction
    compared (None: there is none); ``difference``, the first line where its entries part from
    ``expected`` (None: they are the same, or nothing was posted)."""

    hand_id: int
    kind: TransactionKind
    expected: list[L]
    posted: PostedSettlement[L] | None
    difference: LineDifference[L] | None

    @property
    def missing(self) -> bool:
        """The postings move chips and there is no settlement transaction."""
        return self.posted is None and bool(self.expected)

    @property
    def other_settlement(self) -> bool:
        """The transaction is not a settlement of this hand of the postings' kind."""
        posted = self.posted
        return posted is not None and (posted.kind != self.kind or posted.hand_id != self.hand_id)

    @property
    def matches(self) -> bool:
        return not self.missing and not self.other_settlement and self.difference is None


def settlement_lines[L](postings: Postings, line: Callable[[LedgerLine], L]) -> list[L]:
    """The entries the settlement of ``postings`` posts, in order, each laid out by ``line``."""
    return [line(entry) for entry in postings.ledger_lines()]


def compare_settlement[L](
    postings: Postings,
    posted: PostedSettlement[L] | None,
    *,
    hand_id: int,
    line: Callable[[LedgerLine], L],
) -> SettlementComparison[L]:
    """Hand ``hand_id``'s stored ``postings`` against ``posted``, the settlement transaction its
    reading links to (None when there is none), its entries laid out by ``line`` (see the module
    docstring). Never raises for a difference: it is in the answer."""
    expected = settlement_lines(postings, line)
    difference = None
    if posted is not None and list(posted.lines) != expected:
        difference = first_line_difference(expected, posted.lines)
    return SettlementComparison(hand_id, SETTLEMENT_KINDS[postings.kind], expected, posted, difference)
