"""The hand API benchmark's floor: a dealer terminal's request that does no work.

``bench_hand_api.py`` serves the project's own URLs with this one route in front of them.
``POST /bench/noop/`` goes through everything a real terminal request goes through before its
work begins: the same middleware, DRF's session authentication and CSRF check, the same
``ActionPermission`` check for ``tables.run_hand`` that "start hand" makes, JSON parsing of
the body and a JSON response. It reads and writes no row of the floor or the ledger. A hand is
three terminal requests (start, showdown, confirm), so three of these are the least a hand can
cost on this stack, whatever the hand flow does.

Benchmark code only: no project URLconf includes it.
"""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from web.common.permissions import ActionPermissionMixin


class NoOpViewSet(ActionPermissionMixin, viewsets.ViewSet):
    """Authenticated, permission-checked, parses the body, does nothing else."""

    action_permissions = {"noop": ["tables.run_hand"]}

    @action(detail=False, methods=["post"])
    def noop(self, request: Request) -> Response:
        body: Any = request.data
        return Response({"ok": True, "fields": len(body)})


urlpatterns = [
    path("bench/noop/", NoOpViewSet.as_view({"post": "noop"}), name="bench-noop"),
    path("", include("casino.urls")),
]
