"""Signals that record changes to users, groups and permissions as ``AuthChange`` rows, for the
configuration change log. Connected in ``LedgerConfig.ready``.

A signal doesn't know who made the change; the change log adds the admin's own log entries, which
do. Raw saves (fixtures being loaded) are not recorded.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db.models import Model

from ledger.models import AuthChange, AuthChangeAction

WATCHED_USER_FIELDS = ("username", "is_active", "is_staff", "is_superuser")


def _names(model: type[Model], pks: set[Any] | None) -> list[str]:
    if not pks:
        return []
    if model is Permission:
        return sorted(
            f"{p.content_type.app_label}.{p.codename}"
            for p in Permission.objects.filter(pk__in=pks).select_related("content_type")
        )
    return sorted(str(obj) for obj in model._default_manager.filter(pk__in=pks))


def remember_user_state(sender: type[Model], instance: Any, raw: bool = False, **kwargs: Any) -> None:
    """pre_save of the user model: keep the watched fields as they were, to name what changed."""
    if raw or instance.pk is None:
        instance.ledger_state_before = None
        return
    instance.ledger_state_before = (
        sender._default_manager.filter(pk=instance.pk).values(*WATCHED_USER_FIELDS).first()
    )


def record_user_saved(sender: type, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
    """post_save of the user model: a user created, or a watched field changed."""
    if raw:
        return
    after = {field: getattr(instance, field) for field in WATCHED_USER_FIELDS}
    if created:
        AuthChange.objects.create(
            action=AuthChangeAction.USER_CREATED,
            subject_type="user",
            subject_id=instance.pk,
            subject_repr=instance.get_username(),
            detail=after,
        )
        return
    before = getattr(instance, "ledger_state_before", None) or {}
    changed = {
        field: f"{before.get(field)} -> {after[field]}"
        for field in WATCHED_USER_FIELDS
        if field in before and before[field] != after[field]
    }
    if changed:
        AuthChange.objects.create(
            action=AuthChangeAction.USER_CHANGED,
            subject_type="user",
            subject_id=instance.pk,
            subject_repr=instance.get_username(),
            detail=changed,
        )


def record_group_saved(
    sender: type, instance: Group, created: bool, raw: bool = False, **kwargs: Any
) -> None:
    if raw or not created:
        return
    AuthChange.objects.create(
        action=AuthChangeAction.GROUP_CREATED,
        subject_type="group",
        subject_id=instance.pk,
        subject_repr=instance.name,
        detail={"name": instance.name},
    )


def record_membership(
    sender: type,
    instance: Any,
    action: str,
    reverse: bool,
    model: type[Model],
    pk_set: set[Any] | None,
    **kwargs: Any,
) -> None:
    """m2m_changed of user.groups, user.user_permissions and group.permissions (either side)."""
    if action not in {"post_add", "post_remove", "pre_clear"}:
        return
    user_model = get_user_model()
    if action == "pre_clear":
        # The set about to be cleared, read before it goes.
        field = _field_for(sender, instance)
        if field is None:
            return
        pk_set = set(getattr(instance, field).values_list("pk", flat=True))
        model = getattr(instance, field).model
    if not pk_set:
        return
    added = action == "post_add"
    if reverse:
        # e.g. group.user_set.add(user): record it on each user (or each group for permissions).
        subjects = list(model._default_manager.filter(pk__in=pk_set))
        targets = [instance]
    else:
        subjects = [instance]
        targets = list(model._default_manager.filter(pk__in=pk_set))
    for subject in subjects:
        if isinstance(subject, user_model):
            subject_type, subject_repr = "user", subject.get_username()
        else:
            subject_type, subject_repr = "group", str(subject)
        target_model = type(targets[0]) if targets else model
        if target_model is Permission:
            kind = AuthChangeAction.PERMISSIONS_ADDED if added else AuthChangeAction.PERMISSIONS_REMOVED
            names = _names(Permission, {t.pk for t in targets})
        else:
            kind = AuthChangeAction.GROUPS_ADDED if added else AuthChangeAction.GROUPS_REMOVED
            names = sorted(str(t) for t in targets)
        AuthChange.objects.create(
            action=kind,
            subject_type=subject_type,
            subject_id=subject.pk,
            subject_repr=subject_repr,
            detail={"items": names},
        )


def _field_for(sender: type, instance: Any) -> str | None:
    user_model = get_user_model()
    if isinstance(instance, user_model):
        if sender is user_model.groups.through:
            return "groups"
        if sender is user_model.user_permissions.through:
            return "user_permissions"
    if isinstance(instance, Group) and sender is Group.permissions.through:
        return "permissions"
    return None
