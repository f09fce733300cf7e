"""A player's name as it was at a time (``tables.player_names``): today's name unwound through the
renames in the change log, read in one query whatever the number of players and renames."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from tables import player_names, services
from tables.lists import services as lists
from tables.models import Player
from tables.player_names import NameHistory, name_history, names_as_of

pytestmark = pytest.mark.django_db


def test_the_name_before_a_rename_is_the_old_one_after_it_the_new_one() -> None:
    ana, ben = services.create_player(name="Ana Ruiz"), services.create_player(name="Ben")
    before = timezone.now()
    services.update_player(player=ana, name="Ana Soto")
    between = timezone.now()
    services.update_player(player=ana, name="Ana Soto-Ruiz")
    after = timezone.now()
    assert names_as_of([ana.pk, ben.pk], before) == {ana.pk: "Ana Ruiz", ben.pk: "Ben"}
    assert names_as_of([ana.pk], between) == {ana.pk: "Ana Soto"}
    assert names_as_of([ana.pk], after) == {ana.pk: "Ana Soto-Ruiz"}
    assert names_as_of([ana.pk + ben.pk + 100], after) == {}
    history = name_history({ana.pk: "Ana Soto-Ruiz"}, since=before)
    assert history.during(ana.pk, before, after) == ["Ana Ruiz", "Ana Soto", "Ana Soto-Ruiz"]
    assert history.during(ana.pk, between, after) == ["Ana Soto", "Ana Soto-Ruiz"]
    assert history.during(ana.pk, after, timezone.now()) == ["Ana Soto-Ruiz"]


def test_a_row_at_the_moment_of_the_rename_reads_the_new_name() -> None:
    moment = timezone.now()
    history = NameHistory(current={1: "New"}, renames={1: ((moment,), ("Old",))})
    assert (history.at(1, moment - dt.timedelta(microseconds=1)), history.at(1, moment)) == ("Old", "New")
    assert history.at(2, moment) == ""


def test_other_changes_and_older_renames_are_not_read_as_names(users: dict[str, Any]) -> None:
    ana = services.create_player(name="Ana Ruiz", member_number="1001")
    services.update_player(player=ana, name="Ana Soto")
    since = timezone.now()
    services.update_player(player=ana, member_number="2002", board_alias="Big A")
    lists.set_board_alias(player=ana, alias="Ana S.", by=users["floor"])
    history = name_history({ana.pk: "Ana Soto"}, since=since)
    assert history.renames == {}
    assert history.at(ana.pk, since) == "Ana Soto"


def test_many_players_are_read_without_their_ids_and_still_right(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(player_names, "BY_ID_LIMIT", 1)
    ana, ben = services.create_player(name="Ana"), services.create_player(name="Ben")
    before = timezone.now()
    services.update_player(player=ana, name="Ann")
    services.update_player(player=ben, name="Benito")
    services.update_player(player=services.create_player(name="Cy"), name="Cyrus")  # not asked about
    assert names_as_of([ana.pk, ben.pk], before) == {ana.pk: "Ana", ben.pk: "Ben"}


def test_one_query_whatever_the_players_and_renames(django_assert_num_queries: Any) -> None:
    ContentType.objects.get_for_model(Player)  # cached for the process, as in a running server
    players = [services.create_player(name=f"P{n}") for n in range(30)]
    since = timezone.now()
    for round_ in range(3):
        for player in players:
            services.update_player(player=player, name=f"{player.name} r{round_}")
    current = {p.pk: f"{p.name} r2" for p in players}
    with django_assert_num_queries(1):
        history = name_history(current, since=since)
    assert {history.at(pk, since) for pk in current} == {p.name for p in players}
