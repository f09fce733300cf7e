"""Shift keys: which shift a moment falls in, on the card room's clock."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.test import override_settings

from ledger.shifts import Shift, ShiftCode

LA = zoneinfo.ZoneInfo("America/Los_Angeles")


@pytest.mark.parametrize(
    ("local", "expected"),
    [
        (dt.datetime(2030, 3, 1, 0, 0, tzinfo=LA), Shift(dt.date(2030, 3, 1), ShiftCode.GRAVE)),
        (dt.datetime(2030, 3, 1, 7, 59, 59, tzinfo=LA), Shift(dt.date(2030, 3, 1), ShiftCode.GRAVE)),
        (dt.datetime(2030, 3, 1, 8, 0, tzinfo=LA), Shift(dt.date(2030, 3, 1), ShiftCode.DAY)),
        (dt.datetime(2030, 3, 1, 15, 59, tzinfo=LA), Shift(dt.date(2030, 3, 1), ShiftCode.DAY)),
        (dt.datetime(2030, 3, 1, 16, 0, tzinfo=LA), Shift(dt.date(2030, 3, 1), ShiftCode.SWING)),
        (dt.datetime(2030, 3, 1, 23, 59, tzinfo=LA), Shift(dt.date(2030, 3, 1), ShiftCode.SWING)),
    ],
)
@override_settings(TIME_ZONE="America/Los_Angeles")
def test_shift_boundaries_on_the_room_clock(local: dt.datetime, expected: Shift) -> None:
    assert Shift.at(local) == expected
    assert Shift.at(local.astimezone(dt.UTC)) == expected  # the same instant, given in UTC


@override_settings(TIME_ZONE="Asia/Taipei")
def test_the_room_clock_is_the_time_zone_setting() -> None:
    moment = dt.datetime(2030, 3, 1, 1, 0, tzinfo=dt.UTC)  # 09:00 in Taipei
    assert Shift.at(moment) == Shift(dt.date(2030, 3, 1), ShiftCode.DAY)


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        Shift.at(dt.datetime(2030, 3, 1, 12, 0))


def test_shift_text_round_trips() -> None:
    shift = Shift(dt.date(2030, 3, 1), "swing")  # type: ignore[arg-type]
    assert shift.code is ShiftCode.SWING
    assert str(shift) == "2030-03-01/swing"
    assert Shift.parse("2030-03-01/SWING") == shift
    with pytest.raises(ValueError, match="shift code"):
        Shift.parse("2030-03-01/brunch")
    with pytest.raises(ValueError, match="not a shift key"):
        Shift.parse("2030-03-01")
    with pytest.raises(TypeError):
        Shift(dt.datetime(2030, 3, 1, tzinfo=dt.UTC), ShiftCode.DAY)
