"""Pages of the floor. The home page lists the open tables; fuller dealer pages come later."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.mixins import PermissionRequiredMixin
from django.db.models import Count, Q
from django.views.generic import TemplateView

from tables.models import Table, TableStatus


class HomeView(PermissionRequiredMixin, TemplateView):
    """``/``: the open tables with game, stakes and seats filled (login required by middleware)."""

    template_name = "tables/home.html"
    permission_required = "tables.view_table"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["tables"] = (
            Table.objects.filter(status=TableStatus.OPEN)
            .select_related("game", "stakes", "collection_schedule")
            .annotate(seated=Count("seatings", filter=Q(seatings__left_at__isnull=True)))
            .order_by("number")
        )
        return context
