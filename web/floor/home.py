"""Pages of the floor. The home page is the floor overview: every open table's game, stakes and
seats, its hands and fees this shift, and a banner when the latest check failed: the books (the
ledger and the database's guards) or the replay audit, which names the hands whose stored record
no longer gives what was read and posted."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.mixins import PermissionRequiredMixin
from django.db.models import Count, Q
from django.views.generic import TemplateView

from ledger.models import IntegrityCheck, IntegrityScope
from ledger.selectors import latest_integrity_failure, tables_collected
from ledger.shifts import Shift
from tables.choices import HandStatus
from tables.models import Hand, Table, TableStatus

MAX_HANDS_NAMED = 10
"""The floor overview names at most this many hands of a failed replay audit (the report has all)."""


def failed_hands(check: IntegrityCheck | None) -> list[dict[str, Any]]:
    """The hands a failed replay audit names (``hand_id``, ``table``, ``hand``), each once."""
    if check is None or check.scope != IntegrityScope.REPLAY:
        return []
    seen: dict[int, dict[str, Any]] = {}
    for problem in check.problems:
        if isinstance(problem, dict) and isinstance(problem.get("hand_id"), int):
            seen.setdefault(problem["hand_id"], problem)
    return list(seen.values())[:MAX_HANDS_NAMED]


class HomeView(PermissionRequiredMixin, TemplateView):
    """``/``: the floor overview (login required by middleware). Refreshes itself every 30 s."""

    template_name = "tables/home.html"
    permission_required = "tables.view_table"
    refresh_seconds = 30

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        shift = Shift.current()
        tables = list(
            Table.objects.filter(status=TableStatus.OPEN)
            .select_related("game", "stakes", "collection_schedule")
            .annotate(seated=Count("seatings", filter=Q(seatings__left_at__isnull=True)))
            .order_by("number")
        )
        ids = [t.pk for t in tables]
        # Hands dealt this shift (a misdeal's void hand is not one); the fees are the balance of
        # each table's house-collection account for the shift (fees returned on a misdeal are off).
        hands = dict(
            Hand.objects.filter(table_id__in=ids, dealt_at__gte=shift.bounds()[0])
            .exclude(status=HandStatus.VOID)
            .values_list("table_id")
            .annotate(n=Count("id"))
        )
        fees = tables_collected(table_ids=ids, shift=shift)
        for table in tables:
            table.hands_this_shift = hands.get(table.pk, 0)
            table.fees_this_shift_cents = fees.get(table.pk, 0)
        failure = latest_integrity_failure()
        context.update(
            tables=tables,
            shift=shift,
            integrity_failure=failure,
            failed_hands=failed_hands(failure),
            closed_tables=Table.objects.exclude(status=TableStatus.OPEN)
            .select_related("game", "stakes")
            .order_by("number"),
            refresh_seconds=self.refresh_seconds,
        )
        return context
