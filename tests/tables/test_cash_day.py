"""Cash per gaming day: the room's gaming day (its start hour a setting), each player's cash in and
out, the log over $3,000, the warning and the identification past $10,000, the day's report."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Callable

import pytest
from django.conf import settings

from backoffice.reports.cash_day import build_cash_day_report
from handflow import services as hand_flow
from tables import errors, services
from tables.models import CashDaySettings, ChipMovement, ConfigChange, Player, PlayerIdentification, Table
from tables.player_names import names_as_of

MakeTable = Callable[..., Table]


def room(year: int, month: int, day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=zoneinfo.ZoneInfo(settings.TIME_ZONE))


def test_the_gaming_day_starts_at_the_settings_hour(db: None) -> None:
    assert CashDaySettings.current().gaming_day_start_hour == 6
    assert services.gaming_day(room(2030, 3, 2, 5, 59)) == dt.date(2030, 3, 1)
    assert services.gaming_day(room(2030, 3, 2, 6, 0)) == dt.date(2030, 3, 2)
    start, end = services.gaming_day_bounds(dt.date(2030, 3, 2))
    assert (start, end) == (room(2030, 3, 2, 6), room(2030, 3, 3, 6))
    services.update_cash_day_settings(by=None, reason="the room opens at ten", gaming_day_start_hour=10)
    assert services.gaming_day(room(2030, 3, 2, 9, 0)) == dt.date(2030, 3, 1)
    # Daylight saving (2030-03-10 in the US): the gaming day is 23 hours on the wall clock.
    start, end = services.gaming_day_bounds(dt.date(2030, 3, 9))
    assert end.astimezone(dt.UTC) - start.astimezone(dt.UTC) == dt.timedelta(hours=23)


def test_settings_change_with_a_reason_in_the_history(db: None) -> None:
    with pytest.raises(errors.FloorValidationError, match="reason"):
        services.update_cash_day_settings(by=None, reason="", log_threshold_cents=250_000)
    with pytest.raises(errors.FloorValidationError, match="0 to 23"):
        services.update_cash_day_settings(by=None, reason="r", gaming_day_start_hour=24)
    with pytest.raises(errors.FloorValidationError, match="above the report threshold"):
        services.update_cash_day_settings(by=None, reason="r", log_threshold_cents=2_000_000)
    services.update_cash_day_settings(by=None, reason="the regulator's letter", log_threshold_cents=250_000)
    assert CashDaySettings.current().log_threshold_cents == 250_000
    change = ConfigChange.objects.get(content_type__model="cashdaysettings")
    assert (change.before["log_threshold_cents"], change.after["log_threshold_cents"]) == (300_000, 250_000)
    assert change.reason == "the regulator's letter"


def test_the_day_total_warns_past_10000_and_needs_identification(make_table: MakeTable) -> None:
    table = make_table(game="holdem", stakes="nl-200-nomax", schedule="A")
    ana = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=table, player=ana, amount_cents=600_000, seat_number=1, by=None, idempotency_key="b1"
    )
    check = services.check_cash(player=ana, kind="rebuy", amount_cents=300_000)
    assert (check.total_before_cents, check.total_after_cents, check.logged) == (600_000, 900_000, False)
    assert (check.over_report_threshold, check.warning) == (False, "")
    check = services.check_cash(player=ana, kind="rebuy", amount_cents=500_000)
    assert (check.logged, check.over_report_threshold, check.needs_identification) == (True, True, True)
    assert "to $11,000, over $10,000" in check.warning
    with pytest.raises(errors.IdentificationRequired, match="Record the player's identification"):
        services.require_identification(player=ana, kind="rebuy", amount_cents=500_000)
    # Out is counted apart from in.
    assert not services.check_cash(player=ana, kind="cash_out", amount_cents=900_000).over_report_threshold
    ident = services.record_identification(
        player=ana, kind="drivers_license", number="D1234567", issued_by="California", by=None
    )
    assert ident.gaming_day == services.gaming_day()
    check = services.require_identification(player=ana, kind="rebuy", amount_cents=500_000)
    assert (check.identification_id, check.needs_identification) == (ident.pk, False)


def test_recording_an_identification_is_in_the_players_change_log_in_words(db: None) -> None:
    ana = services.create_player(name="Ana Ruiz")
    ident = services.record_identification(
        player=ana, kind="drivers_license", number="D1234567", issued_by="California", by=None
    )
    change = ConfigChange.objects.filter(object_repr__startswith="Ana Ruiz").order_by("-pk").first()
    assert change is not None
    assert change.object_id == str(ana.pk)
    words = change.after["identification"]
    assert words.startswith("Driver")
    assert "ending 67, issued by California" in words
    assert f"{ident.gaming_day:%Y-%m-%d}" in words
    assert "D1234567" not in str(change.after)
    # Not a rename: the reports' names as they were are unchanged by it.
    assert names_as_of([ana.pk], ident.recorded_at - dt.timedelta(seconds=1)) == {ana.pk: "Ana Ruiz"}


def test_identification_is_checked(db: None) -> None:
    ana = services.create_player(name="Ana")
    with pytest.raises(errors.FloorValidationError, match="Unknown identification"):
        services.record_identification(player=ana, kind="library_card", number="1", issued_by="CA", by=None)
    with pytest.raises(errors.FloorValidationError, match="number is required"):
        services.record_identification(player=ana, kind="passport", number=" ", issued_by="CA", by=None)
    with pytest.raises(errors.FloorValidationError, match="expired"):
        services.record_identification(
            player=ana, kind="passport", number="X1", issued_by="MX", expires_on=dt.date(2001, 1, 1), by=None
        )
    assert not PlayerIdentification.objects.exists()


def test_the_days_report(make_table: MakeTable, floor_user: object) -> None:
    table = make_table(game="holdem", stakes="nl-200-nomax", schedule="A")
    ana = services.create_player(name="Ana Ruiz", member_number="M-9")
    dup = services.create_player(name="Ana R.")
    ben = services.create_player(name="Ben")
    hand_flow.buy_in(
        table=table, player=ana, amount_cents=700_000, seat_number=1, by=None, idempotency_key="a"
    )
    hand_flow.buy_in(
        table=table, player=dup, amount_cents=400_000, seat_number=2, by=None, idempotency_key="d"
    )
    hand_flow.buy_in(
        table=table, player=ben, amount_cents=100_000, seat_number=3, by=None, idempotency_key="b"
    )
    hand_flow.cash_out(table=table, player=dup, by=None, idempotency_key="d-out")
    services.merge_players(survivor=ana, merged=dup, by=None, reason="one person")
    services.record_identification(player=dup, kind="passport", number="P9", issued_by="Mexico", by=None)
    report = build_cash_day_report(services.gaming_day())
    by_name = {p.name: p for p in report.players}
    assert (by_name["Ana Ruiz"].in_cents, by_name["Ana Ruiz"].out_cents) == (1_100_000, 400_000)
    assert (by_name["Ana Ruiz"].over_in, by_name["Ana Ruiz"].over_out) == (True, False)
    assert by_name["Ana Ruiz"].identification == "Passport P9, Mexico"  # recorded on the survivor
    assert [p.name for p in report.reports] == ["Ana Ruiz"]
    assert (by_name["Ben"].in_cents, by_name["Ben"].over_in) == (100_000, False)
    assert [(line.name, line.amount_cents, line.direction) for line in report.log] == [
        ("Ana Ruiz", 700_000, "in"),
        ("Ana R.", 400_000, "in"),
        ("Ana R.", 400_000, "out"),
    ]
    assert (report.in_cents, report.out_cents) == (1_200_000, 400_000)
    # Another gaming day has nothing.
    assert build_cash_day_report(services.gaming_day() - dt.timedelta(days=2)).players == []
    assert ChipMovement.objects.count() == 4
    assert Player.objects.get(pk=dup.pk).merged_into_id == ana.pk
