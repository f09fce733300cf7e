"""DRF permission mapping each viewset action to the Django permissions it needs.

A viewset declares ``action_permissions = {"list": ["tables.view_table"], "open":
["tables.manage_floor"], ...}``; an action it doesn't list is refused (fail closed).
Anonymous requests are refused before any mapping (DRF answers 403 with session auth).
"""

from __future__ import annotations

from collections.abc import Sequence

from rest_framework.permissions import BasePermission, OperandHolder, SingleOperandHolder
from rest_framework.request import Request
from rest_framework.views import APIView


class ActionPermission(BasePermission):
    message = "Your role does not allow this."

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        mapping: dict[str, list[str]] = getattr(view, "action_permissions", {})
        action = getattr(view, "action", None)
        if action is None:
            # No action for this method: let DRF answer 405 Method Not Allowed.
            return True
        perms = mapping.get(action)
        if perms is None and action == "metadata":
            perms = mapping.get("list")
        if perms is None:
            return False
        return bool(user.has_perms(perms))


class ActionPermissionMixin:
    """For every API viewset: each action needs the Django permissions ``action_permissions`` lists
    for it (an action it doesn't list is refused). Errors are mapped once for the whole API
    (``web.common.errors``), not per viewset."""

    # Typed as APIView.permission_classes is (a mixin's attribute must match the view's exactly).
    permission_classes: Sequence[type[BasePermission] | OperandHolder | SingleOperandHolder] = (
        ActionPermission,
    )
    action_permissions: dict[str, list[str]] = {}
    # Every id in a route is digits (a row id fits 64 bits): "abc", "1e3" or "null,null" is no
    # route at all (404) rather than a lookup that fails in the database. Viewsets looked up by a
    # code or a slug set their own pattern.
    lookup_value_regex = r"[0-9]{1,18}"
