"""What the replay audit's tests share: the room's day, and a stored reading changed with plain SQL."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from django.db import connection
from django.utils import timezone

from ledger.shifts import room_zone
from tables.models import Hand


def today() -> dt.date:
    return timezone.localtime(timezone.now(), room_zone()).date()


def update_json(hand: Hand, column: str, value: Any) -> None:
    """Change a stored reading's JSON column with plain SQL, past every service (the tampering)."""
    cast = "::jsonb" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE tables_handresult SET {column} = %s{cast} WHERE hand_id = %s",
            [json.dumps(value), hand.pk],
        )
