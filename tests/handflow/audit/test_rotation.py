"""The nightly replay audit: the day before, plus a rotating seventh of the older hands by id (every
hand re-decided again within a week), each part a ``replay`` checkpoint; ``replay_audit`` keeps to
an id range when given one."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable

import pytest
from django.db import connection
from django.utils import timezone

from handflow import audit
from handflow.tasks import replay_audit_nightly
from ledger.models import CheckpointKind, CheckpointPart, IntegrityCheck, VerificationCheckpoint
from ledger.shifts import room_zone
from ledger.verification import ROTATION_PARTS
from tables.models import Hand, HandResult, Player, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def old_hands(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
) -> list[Hand]:
    """Seven settled hands, started ten days ago."""
    table, _ = table_with_players(4, stakes="limit-4-8")
    hands = [settle_hand(deal_hand(table), winners=(1, 2) if n % 2 else None) for n in range(7)]
    Hand.objects.filter(pk__in=[hand.pk for hand in hands]).update(
        created_at=timezone.now() - dt.timedelta(days=10)
    )
    return hands


def _tamper(hand: Hand) -> None:
    engine_input = HandResult.objects.get(hand=hand).engine_input
    engine_input["players"][0]["put_in"] += 100
    cast = "::jsonb" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE tables_handresult SET engine_input = %s{cast} WHERE hand_id = %s",
            [json.dumps(engine_input), hand.pk],
        )


def test_an_id_range_keeps_the_audit_to_those_hands(old_hands: list[Hand]) -> None:
    old_hands[0].refresh_from_db()
    start = timezone.localtime(old_hands[0].created_at, room_zone()).date()
    ids = (old_hands[2].pk, old_hands[4].pk)
    outcome = audit.replay_audit(date_from=start, date_to=start, hand_ids=ids)
    assert outcome.hands == 3
    assert audit.replay_audit(date_from=start, date_to=start).hands == 7


def test_an_old_hand_tampered_is_found_within_a_week(
    old_hands: list[Hand], monkeypatch: pytest.MonkeyPatch
) -> None:
    _tamper(old_hands[3])
    real_now = timezone.now()
    found_on = []
    for night in range(ROTATION_PARTS):
        monkeypatch.setattr(timezone, "now", lambda night=night: real_now + dt.timedelta(days=night))
        before = max(IntegrityCheck.objects.values_list("pk", flat=True), default=0)
        day_check = IntegrityCheck.objects.get(pk=replay_audit_nightly.apply().get())
        assert day_check.ok  # the day before had no hand
        failed = IntegrityCheck.objects.filter(ok=False, pk__gt=before)
        if any(p.get("hand_id") == old_hands[3].pk for check in failed for p in check.problems):
            found_on.append(night)
    assert len(found_on) == 1  # re-decided by exactly one night of the week
    rotations = VerificationCheckpoint.objects.filter(
        kind=CheckpointKind.REPLAY, part=CheckpointPart.ROTATION
    )
    assert sum(c.rows for c in rotations) == len(old_hands)  # each old hand once over the week
    assert (
        VerificationCheckpoint.objects.filter(kind=CheckpointKind.REPLAY, part=CheckpointPart.SINCE).count()
        == 7
    )
