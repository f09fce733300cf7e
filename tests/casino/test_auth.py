"""casino.auth.OneQueryModelBackend answers exactly as Django's ModelBackend, in one query."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission

from casino.auth import PERMISSIONS_ATTRIBUTE, OneQueryModelBackend

pytestmark = pytest.mark.django_db


def _fresh(user: Any) -> Any:
    return get_user_model().objects.get(pk=user.pk)  # no permission cache on it


@pytest.fixture
def perms() -> list[Permission]:
    return list(Permission.objects.select_related("content_type").order_by("pk")[:6])


def _names(permissions: list[Permission]) -> set[str]:
    return {f"{p.content_type.app_label}.{p.codename}" for p in permissions}


@pytest.mark.parametrize("kind", ["own", "groups", "both", "none", "superuser", "inactive"])
def test_the_same_permissions_as_model_backend(
    kind: str, perms: list[Permission], django_assert_num_queries: Any
) -> None:
    user = get_user_model().objects.create_user(username=f"u-{kind}", password="x" * 12)
    first, second = Group.objects.create(name=f"g1-{kind}"), Group.objects.create(name=f"g2-{kind}")
    first.permissions.add(*perms[:3])
    second.permissions.add(*perms[2:5])  # perms[2] comes from both groups
    if kind in ("own", "both", "inactive"):
        user.user_permissions.add(perms[0], perms[5])
    if kind in ("groups", "both", "inactive"):
        user.groups.add(first, second)
    if kind == "superuser":
        user.is_superuser = True
    if kind == "inactive":
        user.is_active = False
    user.save()

    expected = ModelBackend().get_all_permissions(_fresh(user))
    user = _fresh(user)
    with django_assert_num_queries(0 if kind == "inactive" else 1):
        got = OneQueryModelBackend().get_all_permissions(user)
        again = OneQueryModelBackend().get_all_permissions(user)
        assert again is got or kind == "inactive"  # cached on the user (no query either way)
    assert got == expected
    wanted = {
        "own": _names([perms[0], perms[5]]),
        "groups": _names(perms[:5]),
        "both": _names(perms[:6]),
        "none": set(),
        "inactive": set(),
    }
    if kind in wanted:
        assert got == wanted[kind]
    else:
        assert got == _names(list(Permission.objects.select_related("content_type")))
    assert OneQueryModelBackend().has_perm(user, next(iter(_names(perms[:1])))) == (
        kind != "none" and kind != "inactive"
    )


def test_it_is_the_configured_backend(settings: Any) -> None:
    assert settings.AUTHENTICATION_BACKENDS == ["casino.auth.OneQueryModelBackend"]


def test_the_cache_is_ours_on_the_user_object(perms: list[Permission]) -> None:
    user = get_user_model().objects.create_user(username="cached", password="x" * 12)
    user.user_permissions.add(perms[0])
    user = _fresh(user)
    # ModelBackend's private cache is neither read nor written.
    user._perm_cache = {"made.up"}
    assert OneQueryModelBackend().get_all_permissions(user) == _names(perms[:1])
    assert user._perm_cache == {"made.up"}
    assert getattr(user, PERMISSIONS_ATTRIBUTE) == _names(perms[:1])
    # As Django documents: the same object keeps its answer, a user fetched again reads afresh.
    user.user_permissions.add(perms[1])
    assert not user.has_perm(next(iter(_names(perms[1:2]))))
    fetched = _fresh(user)
    assert OneQueryModelBackend().get_all_permissions(fetched) == _names(perms[:2])
    assert fetched.has_perm(next(iter(_names(perms[1:2]))))
