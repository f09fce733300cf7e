"""Authentication backend: Django's ModelBackend with django-axes's lock-out in front and a user's
permissions read in one query.

Lock-outs: every ``authenticate()`` asks django-axes first whether the client's address or the
username is locked out (too many failed logins, ``AXES_*`` in the settings) and is refused before the
password is hashed; axes counts the failures from Django's ``user_login_failed`` signal. One backend
does both (rather than axes's own backend listed first) so a session names the backend that logged
it in, as before. Like axes's, it needs the request: ``authenticate()`` without one raises.

Every API request checks its action's permissions (``web.common.permissions.ActionPermission``), and
ModelBackend reads a user's own permissions and their groups' permissions in two queries. Here
both come from one statement (the same rows, the same ``app_label.codename`` strings, superusers
and inactive users treated the same), which saves a round trip and most of the ORM's work on every
request of a dealer terminal.

The answer is kept as ModelBackend keeps its own, on the user object (:data:`PERMISSIONS_ATTRIBUTE`):
it lives as long as that object, in practice the request's ``request.user``, and a user fetched
again reads their permissions afresh, which is what Django documents after a permission changes.
It is an attribute of ours, not ModelBackend's private ``_perm_cache``: what Django keeps there,
and when it fills it (its async ``aget_all_permissions`` does, with its two queries), is Django's
to change. Nothing here reads or writes that attribute.
"""

from __future__ import annotations

import functools
from typing import Any

from axes.backends import AxesStandaloneBackend
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.http import HttpRequest

PERMISSIONS_ATTRIBUTE = "casino_permissions"
"""The attribute of the user object that holds its ``app_label.codename`` set once read."""


class OneQueryModelBackend(AxesStandaloneBackend, ModelBackend):
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        """axes's check (raises ``PermissionDenied`` for a locked-out client or username, and requires
        ``request``), then ModelBackend's username and password check."""
        AxesStandaloneBackend.authenticate(self, request, username=username, password=password, **kwargs)
        return ModelBackend.authenticate(self, request, username=username, password=password, **kwargs)

    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        """ModelBackend's answer (``has_perm`` and ``has_module_perms`` ask this), read in one query
        the first time and then from the user object (:data:`PERMISSIONS_ATTRIBUTE`)."""
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        perms: set[str] | None = getattr(user_obj, PERMISSIONS_ATTRIBUTE, None)
        if perms is None:
            if user_obj.is_superuser:
                rows = Permission.objects.values_list("content_type__app_label", "codename").order_by()
            else:
                with connection.cursor() as cursor:
                    cursor.execute(_permissions_sql(), [user_obj.pk, user_obj.pk])
                    rows = cursor.fetchall()
            perms = {f"{app_label}.{codename}" for app_label, codename in rows}
            setattr(user_obj, PERMISSIONS_ATTRIBUTE, perms)
        return perms


@functools.cache
def _permissions_sql() -> str:
    """ModelBackend's two queries (the user's own permissions, their groups') as one statement,
    written out: compiling the ORM's version of it cost more than running it."""
    User = get_user_model()
    quote = connection.ops.quote_name
    # The many-to-many relations' through models (the descriptors name them, typed).
    user_perms = User.user_permissions.through._meta
    user_groups = User.groups.through._meta
    group_perms = Group.permissions.through._meta
    permission, content_type = Permission._meta, ContentType._meta
    return (
        f"SELECT ct.{quote('app_label')}, p.{quote('codename')} "
        f"FROM {quote(permission.db_table)} p "
        f"JOIN {quote(content_type.db_table)} ct ON ct.{quote('id')} = p.{quote('content_type_id')} "
        f"WHERE p.{quote('id')} IN ("
        f"SELECT {quote('permission_id')} FROM {quote(user_perms.db_table)} WHERE {quote('user_id')} = %s "
        f"UNION SELECT gp.{quote('permission_id')} FROM {quote(group_perms.db_table)} gp "
        f"JOIN {quote(user_groups.db_table)} ug ON ug.{quote('group_id')} = gp.{quote('group_id')} "
        f"WHERE ug.{quote('user_id')} = %s)"
    )
