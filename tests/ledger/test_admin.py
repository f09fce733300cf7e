"""The ledger's admin is read-only: lists and details show, nothing can be added, changed or deleted."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from ledger import services
from ledger.models import Account, ChainHead, Entry, JournalTransaction
from tables.models import Player, Table

pytestmark = pytest.mark.django_db

MODELS = [Account, JournalTransaction, Entry, ChainHead]


@pytest.fixture
def admin_client_with_ledger(table: Table, alice: Player) -> Client:
    services.buy_in(table=table, player=alice, amount=1_000, user=None, idempotency_key="in")
    superuser = get_user_model().objects.create_superuser(
        username="auditor", email="a@example.invalid", password=None
    )
    client = Client()
    client.force_login(superuser)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_lists_and_details_show(admin_client_with_ledger: Client, model: type) -> None:
    meta = model._meta
    listing = admin_client_with_ledger.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
    assert listing.status_code == 200
    obj = model.objects.first()
    detail = admin_client_with_ledger.get(
        reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    )
    assert detail.status_code == 200
    assert b'name="_save"' not in detail.content  # no save button: it's a view page


@pytest.mark.parametrize("model", MODELS)
def test_nothing_can_be_added_changed_or_deleted(admin_client_with_ledger: Client, model: type) -> None:
    meta = model._meta
    prefix = f"admin:{meta.app_label}_{meta.model_name}"
    obj = model.objects.first()
    assert admin_client_with_ledger.get(reverse(f"{prefix}_add")).status_code == 403
    assert (
        admin_client_with_ledger.post(reverse(f"{prefix}_delete", args=[obj.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert admin_client_with_ledger.post(reverse(f"{prefix}_change", args=[obj.pk]), {}).status_code == 403
    assert model.objects.filter(pk=obj.pk).exists()
