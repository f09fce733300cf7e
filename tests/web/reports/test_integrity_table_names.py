"""The integrity page names each ledger chain's table by its number (issue #32): it listed the chain
heads as "table:7/8/9/10", the ledger's keys by the tables' database ids ("table:8" is table 7), and
"table:8" read as a table 8 the room doesn't have. The keys stay (hashed and signed); each is shown
with the table it is, and a chain of no table of the room says so."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from ledger.models import CheckSource, IntegrityCheck, IntegrityScope
from tables.models import Table

pytestmark = pytest.mark.django_db


def test_the_page_names_each_chain_by_its_table_s_number(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    make_table(number=5)
    seven = make_table(number=7)
    assert seven.pk != 7
    heads = [
        {"chain": "room", "sequence": 3, "hash": "a" * 64},
        {"chain": f"table:{seven.pk}", "sequence": 12, "hash": "b" * 64},
        {"chain": "table:99", "sequence": 1, "hash": "c" * 64},
    ]
    now = timezone.now()
    IntegrityCheck.objects.create(
        started_at=now - dt.timedelta(minutes=1),
        finished_at=now,
        source=CheckSource.NIGHTLY,
        scope=IntegrityScope.LEDGER,
        ok=False,
        transactions=16,
        entries=32,
        accounts=6,
        chains=3,
        problems=[
            {
                "code": "chain_gap",
                "message": f"transaction 4 (table:{seven.pk} #2): no row #1 before it in its chain",
                "chain": f"table:{seven.pk}",
            }
        ],
        guards={"vendor": "sqlite", "triggers": [], "probes": [], "notes": []},
        anchors={"format": 1, "at": now.isoformat(), "key_id": "k1", "heads": heads},
        software_version="casino test",
    )
    client = Client()
    client.force_login(users["auditor"])
    page = client.get("/reports/integrity/").content.decode()
    assert f"<td>Table 7 (chain table:{seven.pk})</td>" in page
    assert "<td>The room, no table (chain room)</td>" in page
    assert "<td>Not a table of the room (chain table:99)</td>" in page
    assert f"Table 7 (chain table:{seven.pk}): transaction 4" in page
