"""Django admin for players (registered by :mod:`tables.admin`, which imports this module).

Every change goes through the players' services (:mod:`tables.services.players`), so the admin
leaves the same trace in the change log as the floor's pages and the API: a creation, each field
changed (old -> new, numbers hidden), a deletion. What a service refuses is a form error, checked
by running the service in a transaction that is rolled back before anything is saved; a player the
service won't delete (any history at all) is shown as protected on the deletion page.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from django.http import HttpRequest

from tables import services
from tables.admin_tools import change_reason_field, dry_run, form_errors
from tables.errors import FloorError
from tables.models import Player


class PlayerForm(forms.ModelForm):
    change_reason = change_reason_field("Kept in the change log with the change (optional).")

    class Meta:
        model = Player
        fields = ("name", "member_number", "phone", "board_alias")


def save_player(player: Player | None, data: dict[str, Any], *, by: User | AnonymousUser | None) -> Player:
    """Create (``player`` None) or change a player from the admin form's cleaned data, through the
    services."""
    fields = {
        "name": data["name"],
        "member_number": data.get("member_number"),
        "phone": data.get("phone") or "",
        "board_alias": data.get("board_alias") or "",
        "reason": data.get("change_reason") or "",
    }
    if player is None:
        return services.create_player(by=by, **fields)
    return services.update_player(player=player, by=by, **fields)


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    form = PlayerForm
    list_display = ("name", "member_number", "created_at")
    search_fields = ("name", "member_number")

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form_class = super().get_form(request, obj, change=change, **kwargs)
        admin_user = request.user

        # The admin makes the form class at run time; mypy takes no variable as a base class.
        class ServicePlayerForm(form_class):  # type: ignore[valid-type,misc]
            def clean(self) -> dict[str, Any]:
                cleaned: dict[str, Any] = super().clean()
                if self.errors:
                    return cleaned
                try:
                    with dry_run():
                        save_player(self.instance if self.instance.pk else None, cleaned, by=admin_user)
                except FloorError as error:
                    form_errors(self, error)
                return cleaned

        return ServicePlayerForm

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        saved = save_player(obj if change else None, form.cleaned_data, by=request.user)
        obj.pk = saved.pk
        obj._state.adding = False
        obj.refresh_from_db()

    def get_deleted_objects(
        self, objs: Iterable[Player], request: HttpRequest
    ) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
        """The admin's own lists; a player the service refuses to delete is protected, with the
        service's reason (rather than the permissions the admin would ask for the history's rows:
        the history is never deleted, whoever asks)."""
        objs = list(objs)
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        refused = []
        for player in objs:
            try:
                with dry_run():
                    services.delete_player(player=player, by=request.user)
            except FloorError as error:
                refused.append(error.message)
        if refused:
            return deleted, counts, set(), [*refused, *protected]
        return deleted, counts, perms_needed, protected

    def delete_model(self, request: HttpRequest, obj: Player) -> None:
        services.delete_player(player=obj, by=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        for player in queryset:
            try:
                services.delete_player(player=player, by=request.user)
            except FloorError as error:
                self.message_user(request, error.message, level=messages.ERROR)
