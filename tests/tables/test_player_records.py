"""Every change to a player is in the change log, in words, with who and when: a creation (by the
service, a walk-in's buy-in, a walk-in put on a list), each field changed (old -> new; a member
number and a phone never in clear), a deletion (only of a player with no history at all), a merge
(a row for each record)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType

from backoffice.reports.changes import describe_change
from handflow import services as hand_flow
from ledger.models import Entry
from tables import services
from tables.errors import FloorValidationError, InUse, PlayerMerged
from tables.lists import services as lists
from tables.models import ConfigChange, Game, Player, Stakes, Table

pytestmark = pytest.mark.django_db


def log_of(player_id: int) -> list[ConfigChange]:
    """The player's change-log rows, oldest first."""
    return list(
        ConfigChange.objects.filter(
            content_type=ContentType.objects.get_for_model(Player), object_id=str(player_id)
        ).order_by("at", "pk")
    )


def words(change: ConfigChange) -> list[str]:
    return describe_change(change.before, change.after)


def written(change: ConfigChange) -> str:
    """Everything a change-log row keeps, as text."""
    return " ".join([change.object_repr, json.dumps(change.before), json.dumps(change.after), change.reason])


def test_a_creation_is_in_the_log_with_who_and_when_and_no_number_in_clear(users: dict[str, Any]) -> None:
    ana = services.create_player(
        name="Ana Ruiz",
        member_number="M-7731",
        phone="(530) 892-2282",
        by=users["floor"],
        reason="new member",
    )
    [created] = log_of(ana.pk)
    assert (created.action, created.by_username, created.reason) == ("create", "floor", "new member")
    assert created.object_repr == f"Ana Ruiz (player {ana.pk})"
    assert words(created) == ["Name Ana Ruiz", "Member number ending 31", "Phone ending 82"]
    assert "M-7731" not in written(created)
    assert "892-2282" not in written(created)
    assert "8922282" not in written(created)


def test_each_field_changed_is_old_to_new_in_one_row(users: dict[str, Any]) -> None:
    ana = services.create_player(name="Ana Ruiz", member_number="M-7731", phone="530 892 2282")
    services.update_player(
        player=ana,
        by=users["floor"],
        name="Ana Ruiz-Soto",
        member_number="M-9940",
        phone="",
        board_alias="Big Ana",
        reason="married; new card",
    )
    change = log_of(ana.pk)[-1]
    assert (change.action, change.by_username, change.reason) == ("update", "floor", "married; new card")
    assert words(change) == [
        "Name: Ana Ruiz -> Ana Ruiz-Soto",
        "Name on the board: none -> Big Ana",
        "Member number: ending 31 -> ending 40",
        "Phone: ending 82 -> none",
    ]
    assert "M-7731" not in written(change)
    assert "M-9940" not in written(change)
    assert change.object_repr == f"Ana Ruiz-Soto (player {ana.pk})"


def test_a_new_number_that_ends_alike_still_reads_as_a_change(db: None) -> None:
    ana = services.create_player(name="Ana", member_number="1001")
    services.update_player(player=ana, member_number="2001")
    assert words(log_of(ana.pk)[-1]) == ["Member number: ending 01 -> ending 01 (another number)"]


def test_saving_what_is_already_there_writes_nothing(db: None) -> None:
    ana = services.create_player(name="Ana", member_number="1001", phone="555 0100")
    services.update_player(player=ana, name=" Ana ", member_number="1001", phone="555 0100", board_alias="")
    assert [change.action for change in log_of(ana.pk)] == ["create"]


def test_a_refused_change_writes_nothing(db: None) -> None:
    ana = services.create_player(name="Ana")
    with pytest.raises(FloorValidationError):
        services.update_player(player=ana, name="Ana", board_alias="x" * 31)
    assert [change.action for change in log_of(ana.pk)] == ["create"]


def test_a_walk_ins_buy_in_and_a_walk_in_on_a_list_are_created_in_the_log(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(stakes="nl-20-100")
    moved = hand_flow.buy_in(
        table=table,
        new_player_name="Kai Wong",
        amount_cents=10_000,
        seat_number=3,
        by=users["floor"],
        idempotency_key="walk-in",
    )
    [created] = log_of(moved.movement.player_id)
    assert (created.action, created.by_username, words(created)) == ("create", "floor", ["Name Kai Wong"])
    holdem = lists.create_list(
        game=Game.objects.get(slug="holdem"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=None
    )
    [entry] = lists.add_player(waiting_lists=[holdem], new_player_name="Dee Phone", by=users["floor"])
    assert [(c.action, c.by_username) for c in log_of(entry.player_id)] == [("create", "floor")]


def test_a_player_with_no_history_is_deleted_and_the_deletion_is_logged(users: dict[str, Any]) -> None:
    typo = services.create_player(name="Ana Ruizz", member_number="M-7731")
    pk = typo.pk
    services.delete_player(player=typo, by=users["floor"], reason="typed twice")
    assert not Player.objects.filter(pk=pk).exists()
    deleted = log_of(pk)[-1]
    assert (deleted.action, deleted.by_username, deleted.reason) == ("delete", "floor", "typed twice")
    assert deleted.object_repr == f"Ana Ruizz (player {pk})"
    assert words(deleted) == ["Deleted"]
    assert deleted.before == {
        "name": "Ana Ruizz",
        "board_alias": "",
        "member_number": "ending 31",
        "phone": "",
    }


def test_a_player_with_ledger_rows_or_any_record_is_not_deleted(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(stakes="nl-20-100")
    ben = services.create_player(name="Ben")
    hand_flow.buy_in(
        table=table, player=ben, amount_cents=10_000, seat_number=1, by=None, idempotency_key="b"
    )
    cy = services.create_player(name="Cy")
    # No seat, no hand: only an identification on record (the database's reference refuses).
    services.record_identification(
        player=cy, kind="drivers_license", number="D1234567", issued_by="CA", by=None
    )
    for player in (ben, cy):
        logged = [change.action for change in log_of(player.pk)]
        with pytest.raises(InUse):
            services.delete_player(player=player, by=users["floor"])
        assert Player.objects.filter(pk=player.pk).exists()
        # The refused deletion wrote nothing (Cy's identification is in the log as a change).
        assert [change.action for change in log_of(player.pk)] == logged
    assert [change.action for change in log_of(ben.pk)] == ["create"]
    assert [change.action for change in log_of(cy.pk)] == ["create", "update"]
    assert Entry.objects.filter(account__player=ben).exists()


def test_a_merge_is_in_both_records_logs_with_the_reason(users: dict[str, Any]) -> None:
    ana = services.create_player(name="Ana Ruiz")
    old = services.create_player(name="Ana Ruis")
    older = services.create_player(name="A. Ruiz")
    services.merge_players(survivor=old, merged=older, by=users["floor"], reason="same card")
    services.merge_players(survivor=ana, merged=old, by=users["floor"], reason="same licence")
    kept = log_of(ana.pk)[-1]
    assert (kept.by_username, kept.reason) == ("floor", "same licence")
    assert words(kept) == [f"Took in the record of Ana Ruis (player {old.pk}), A. Ruiz (player {older.pk})"]
    for record in (old, older):
        merged = log_of(record.pk)[-1]
        assert (merged.by_username, merged.reason) == ("floor", "same licence")
        assert words(merged) == [f"Merged into Ana Ruiz (player {ana.pk})"]
    # Each record keeps its history: the merged one's creation and rename rows stay its own.
    assert [c.action for c in log_of(older.pk)] == ["create", "update", "update"]
    with pytest.raises(PlayerMerged):
        services.update_player(player=old, name="Ana R.")
    assert len(log_of(old.pk)) == 3
