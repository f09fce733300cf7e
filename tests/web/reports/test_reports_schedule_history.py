"""The schedule page's history: each version lists only the rates it changed from the version
before, old and new fee side by side, and the rates added or removed; the first version its rates."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tables import services as floor_services
from tables.history import snapshot
from tables.models import CollectionSchedule

pytestmark = pytest.mark.django_db


def test_a_revision_shows_only_the_rates_it_changed(house: None, users: dict[str, Any]) -> None:
    schedule = CollectionSchedule.objects.get(code="A")
    latest = schedule.versions.order_by("-number").first()
    assert latest is not None
    rates = [
        {k: v for k, v in snapshot(rate).items() if k not in {"id", "version_id"}}
        for rate in latest.rates.order_by("pk")
    ]
    changed = next(
        i for i, r in enumerate(rates) if r["structure"] == "limit" and r["small_bet_cents"] == 400
    )
    old_fee = rates[changed]["fee_cents"]
    rates[changed]["fee_cents"] = old_fee + 100
    floor_services.revise_schedule(schedule=schedule, rates=rates, by=users["floor"], reason="rate review")

    client = Client()
    client.force_login(users["auditor"])
    response = client.get("/floor/schedules/A/")
    assert response.status_code == 200
    shown = response.content.decode()
    newest = shown[
        shown.index(f'id="version-{latest.number + 1}"') : shown.index(f'id="version-{latest.number}"')
    ]
    # One row: the rate that changed, with its old and its new fee.
    assert newest.count("<tr class=") == 1
    assert f"Changed from version {latest.number}" in newest
    assert "<td>$4-$8</td>" in newest
    assert f'<td class="old-fee">${old_fee // 100} from the button</td>' in newest
    assert f'<td class="new-fee">${old_fee // 100 + 1} from the button</td>' in newest
    # The first version lists its rates once, folded away.
    first = shown[shown.index('id="version-1"') :]
    assert f"{latest.rates.count()} rates of the first version" in first
