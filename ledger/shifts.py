"""Shifts: the key under which the house's fee collections are booked.

A shift is a business date plus a shift code, read on the wall clock of ``settings.TIME_ZONE``
(the card room's clock, not UTC):

* ``grave``  00:00-08:00
* ``day``    08:00-16:00
* ``swing``  16:00-24:00

All three shifts of a calendar date share that date as their business date. Wall-clock hours are
used on purpose: on a daylight-saving change the grave shift is an hour shorter or longer, which is
how the floor staff's rota works too.

The ledger stores a shift as two columns on ``Account`` (``shift_date``, ``shift_code``) rather than
as a row of its own: a shift needs no attributes besides its key, and a plain key lets every table
open its house-collection account for a shift without touching a shared row.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass

from django.conf import settings
from django.db import models
from django.utils import timezone


class ShiftCode(models.TextChoices):
    GRAVE = "grave", "Graveyard (00:00-08:00)"
    DAY = "day", "Day (08:00-16:00)"
    SWING = "swing", "Swing (16:00-24:00)"


# First wall-clock hour of each shift, in the order the shifts run through a business date.
SHIFT_STARTS: tuple[tuple[int, ShiftCode], ...] = (
    (0, ShiftCode.GRAVE),
    (8, ShiftCode.DAY),
    (16, ShiftCode.SWING),
)


def room_zone() -> zoneinfo.ZoneInfo:
    """The card room's time zone (``settings.TIME_ZONE``)."""
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def shift_hours(code: ShiftCode) -> tuple[int, int]:
    """``[first hour, end hour)`` of a shift on the room's wall clock: grave (0, 8), day (8, 16),
    swing (16, 24)."""
    starts = [hour for hour, _ in SHIFT_STARTS] + [24]
    for index, (hour, shift_code) in enumerate(SHIFT_STARTS):
        if shift_code == code:
            return hour, starts[index + 1]
    raise ValueError(code)  # pragma: no cover - every ShiftCode is in SHIFT_STARTS


def local_midnight(day: dt.date) -> dt.datetime:
    """The aware start of ``day`` on the room's clock."""
    return dt.datetime.combine(day, dt.time(0), tzinfo=room_zone())


@dataclass(frozen=True, slots=True)
class Shift:
    """A shift key: ``business_date`` and ``code``. Immutable and hashable."""

    business_date: dt.date
    code: ShiftCode

    def __post_init__(self) -> None:
        if not isinstance(self.business_date, dt.date) or isinstance(self.business_date, dt.datetime):
            raise TypeError(f"business_date must be a date, not {type(self.business_date).__name__}")
        # Accept the plain string value too ("day"), but always store the enum member.
        object.__setattr__(self, "code", ShiftCode(self.code))

    @classmethod
    def at(cls, moment: dt.datetime) -> Shift:
        """The shift running at ``moment`` (an aware datetime) on the card room's clock.

        Raises ``ValueError`` for a naive datetime: its wall clock is ambiguous.
        """
        if timezone.is_naive(moment):
            raise ValueError("Shift.at() needs an aware datetime")
        local = moment.astimezone(room_zone())
        code = ShiftCode.GRAVE
        for start_hour, shift_code in SHIFT_STARTS:
            if local.hour >= start_hour:
                code = shift_code
        return cls(business_date=local.date(), code=code)

    def bounds(self) -> tuple[dt.datetime, dt.datetime]:
        """``[start, end)`` of the shift as aware datetimes (wall clock: a DST day's grave shift is
        an hour shorter or longer)."""
        first, end = shift_hours(self.code)
        start = dt.datetime.combine(self.business_date, dt.time(first), tzinfo=room_zone())
        if end == 24:
            return start, local_midnight(self.business_date + dt.timedelta(days=1))
        return start, dt.datetime.combine(self.business_date, dt.time(end), tzinfo=room_zone())

    @classmethod
    def current(cls) -> Shift:
        """The shift running now."""
        return cls.at(timezone.now())

    @classmethod
    def parse(cls, text: str) -> Shift:
        """Parse ``"YYYY-MM-DD/code"`` (the form ``str()`` gives). ``ValueError`` on bad text."""
        date_text, sep, code_text = text.partition("/")
        if not sep:
            raise ValueError(f"{text!r} is not a shift key (expected YYYY-MM-DD/grave|day|swing)")
        try:
            code = ShiftCode(code_text.strip().lower())
        except ValueError:
            raise ValueError(f"{code_text!r} is not a shift code ({', '.join(ShiftCode.values)})") from None
        return cls(business_date=dt.date.fromisoformat(date_text.strip()), code=code)

    def __str__(self) -> str:
        return f"{self.business_date.isoformat()}/{self.code.value}"
