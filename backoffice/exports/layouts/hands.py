"""The hand history's tables (``backoffice.reports.hands``), joined by ``hand_id``."""

from __future__ import annotations

from typing import Any

from backoffice.exports.sections import Section, make_section
from backoffice.reports import hands
from backoffice.reports.common import fmt_local


def key(hand: hands.HandLine) -> list[Any]:
    """The columns that tie a row of the hand history's tables to its hand."""
    return [hand.hand_id, hand.table_number, hand.hand_number]


def hand_history_sections(report: hands.HandHistory) -> list[Section]:
    """The hand history as five related tables, keyed by ``hand_id``: the hands, the players dealt
    in (cards as entered, the reading, fees, net), the pots and their awards (and chips returned),
    the settlement payments in order (due and paid), and every ledger entry of the hands."""
    return [
        make_section(
            "Hands",
            [
                "hand_id",
                "table",
                "hand",
                "started",
                "shift",
                "game",
                "stakes",
                "schedule",
                "rate",
                "status",
                "button_seat",
                "button_player",
                "dealer",
                "players",
                "boards_agreed",
                "board",
                "fees_due_cents",
                "fees_paid_cents",
                "fees_returned_cents",
                "waived_cents",
                "misdeal_reason",
                "misdeal_text",
                "reading_status",
                "reading_revision",
                "input_sha256",
                "settlement_transaction",
                "settlement_hash",
                "reading",
            ],
            (
                [
                    *key(h),
                    fmt_local(h.started_at),
                    h.shift,
                    h.game,
                    h.stakes,
                    h.schedule,
                    h.rate,
                    h.status,
                    h.button_seat,
                    h.button_player,
                    h.dealer,
                    len(h.players),
                    "" if h.boards_agreed is None else h.boards_agreed,
                    " | ".join([h.board, *h.boards]).strip(" |"),
                    h.fees_due_cents,
                    h.fees_paid_cents,
                    h.fees_returned_cents,
                    h.waived_cents,
                    h.misdeal_reason,
                    h.void_reason,
                    h.reading_status,
                    h.revision,
                    h.input_digest,
                    h.settlement_id,
                    h.settlement_hash,
                    h.reading,
                ]
                for h in report.hands
            ),
            totals=["fees_due_cents", "fees_paid_cents", "fees_returned_cents", "waived_cents"],
        ),
        make_section(
            "Players dealt in",
            [
                "hand_id",
                "table",
                "hand",
                "position",
                "seat",
                "player_id",
                "player",
                "cards_as_entered",
                "sweep_declared",
                "sweep_declared_at",
                "reading",
                "fee_due_cents",
                "fee_paid_cents",
                "net_cents",
            ],
            (
                [
                    *key(h),
                    p.position,
                    p.seat,
                    p.player_id,
                    p.player,
                    p.cards,
                    p.sweep_declared,
                    fmt_local(p.sweep_declared_at),
                    p.reading,
                    p.fee_due_cents,
                    p.fee_paid_cents,
                    p.result_cents,
                ]
                for h in report.hands
                for p in h.players
            ),
            totals=["fee_paid_cents"],
        ),
        make_section(
            "Pots and awards",
            [
                "hand_id",
                "table",
                "hand",
                "pot",
                "pot_cents",
                "seat",
                "player",
                "share",
                "award_cents",
                "with",
            ],
            (
                [*key(h), pot.number, pot.amount_cents, a.seat, a.player, a.share, a.amount_cents, a.hand]
                for h in report.hands
                for pot in h.pots
                for a in pot.awards
            ),
            totals=["award_cents"],
        ),
        make_section(
            "Chips returned",
            ["hand_id", "table", "hand", "seat", "player", "amount_cents", "reason"],
            ([*key(h), r.seat, r.player, r.amount_cents, r.reason] for h in report.hands for r in h.returned),
            totals=["amount_cents"],
        ),
        make_section(
            "Settlement payments",
            [
                "hand_id",
                "table",
                "hand",
                "order",
                "from_seat",
                "from_player",
                "to_seat",
                "to_player",
                "due_cents",
                "paid_cents",
                "capped",
                "reason",
            ],
            (
                [
                    *key(h),
                    p.order,
                    p.from_seat,
                    p.from_player,
                    p.to_seat,
                    p.to_player,
                    p.due_cents,
                    p.amount_cents,
                    "yes" if p.capped else "no",
                    p.reason,
                ]
                for h in report.hands
                for p in h.settlement
            ),
            totals=["due_cents", "paid_cents"],
        ),
        make_section(
            "Ledger postings",
            [
                "hand_id",
                "table",
                "hand",
                "transaction_id",
                "kind",
                "transaction_hash",
                "line",
                "account",
                "amount_cents",
            ],
            (
                [*key(h), e.transaction_id, e.kind, e.transaction_hash, e.line, e.account, e.amount_cents]
                for h in report.hands
                for e in h.payments
            ),
        ),
    ]
