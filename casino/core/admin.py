"""The admin's read-only page: what the floor's and the ledger's append-only records and their
derived rows share (both apps import it from here, the kernel, since they don't import each other)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest

if TYPE_CHECKING:  # generic in the stubs only (pyproject.toml, the admin's mypy override)
    _ModelAdmin = admin.ModelAdmin[Any]
else:
    _ModelAdmin = admin.ModelAdmin


class NoWrites:
    """The three refusals of a read-only admin page or inline: no add, change or delete, whatever
    the user's permissions (the rows change through the services)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(NoWrites, _ModelAdmin):
    """Viewed only: no add, change or delete whatever the user's permissions, and no bulk action
    (not even the site-wide "delete selected"). A user with the model's ``view`` permission sees
    the list and each row's page with every field read-only; the rows change through the services."""

    actions = None
