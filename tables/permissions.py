"""DRF permission mapping each viewset action to the Django permissions it needs.

A viewset declares ``action_permissions = {"list": ["tables.view_table"], "open":
["tables.manage_floor"], ...}``; an action it doesn't list is refused (fail closed).
Anonymous requests are refused before any mapping (DRF answers 403 with session auth).
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request


class ActionPermission(BasePermission):
    message = "Your role does not allow this."

    def has_permission(self, request: Request, view: Any) -> bool:
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
