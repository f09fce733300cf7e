"""One identity per player: found as typed, "same person?" before a second record, merges that keep
every record of both (the ledger untouched), and one table at a time."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.models import Entry, JournalTransaction
from tables import errors, services
from tables.models import ChipMovement, Player, PlayerMerge, Seating, Table, name_key, phone_digits
from tables.selectors import find_players, identity_players, same_person_candidates, seated_elsewhere

MakeTable = Callable[..., Table]


def test_the_keys_of_a_name_and_a_phone() -> None:
    assert name_key("Ana Ruiz") == name_key("  ana   RUIZ ") == name_key("Ruiz, Ána") == "ana ruiz"
    assert name_key("Ana Ruiz") != name_key("Ana Ruíz Soto")
    assert phone_digits("(530) 892-2282") == "5308922282"


def test_find_as_you_type_by_name_member_number_and_phone(db: None) -> None:
    ana = services.create_player(name="Ana Ruiz", member_number="M-1041", phone="(530) 892-2282")
    bea = services.create_player(name="Beatriz Anaya")
    services.create_player(name="Carl Ono")
    assert find_players("an") == [ana, bea]  # "an" is in both names
    assert find_players("ruiz a") == [ana]  # every word, any order
    assert find_players("ruíz") == [ana]  # accents aside
    assert find_players("m-10") == [ana]  # a member number as it starts
    assert find_players("892-22") == [ana]  # the phone's digits
    assert find_players("") == []
    assert find_players("zz") == []
    assert find_players("a\x00n") == [ana, bea]  # a NUL typed is no part of a name


def test_same_person_is_asked_when_asked_for(db: None) -> None:
    ana = services.create_player(name="Ana Ruiz", phone="530 892 2282")
    with pytest.raises(
        errors.PossibleDuplicate,
        match=r"Same person\? ana  ruiz may already be on file: Ana Ruiz \(530 892 2282\)",
    ):
        services.create_player(name="ana  ruiz", check_same_person=True)
    with pytest.raises(errors.PossibleDuplicate):
        services.create_player(name="A. R.", phone="(530) 892-2282", check_same_person=True)
    assert Player.objects.count() == 1
    assert same_person_candidates(name="Ruiz, Ana") == [ana]
    assert same_person_candidates(name="Ana Ruiz", exclude=ana) == []
    other = services.create_player(name="Ana Ruiz", check_same_person=False)  # the floor said: someone else
    assert other.pk != ana.pk
    assert services.create_player(name="Ben Ortiz", check_same_person=True).name == "Ben Ortiz"


def test_a_merge_keeps_every_record_and_rewrites_no_ledger_row(
    make_table: MakeTable, floor_user: object
) -> None:
    table = make_table(game="holdem", stakes="nl-100-500", schedule="A")
    ana = services.create_player(name="Ana Ruiz", member_number="M-1")
    dup = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=table, player=dup, amount_cents=20_000, seat_number=2, by=None, idempotency_key="a1"
    )
    hand_flow.cash_out(table=table, player=dup, by=None, idempotency_key="a2")
    ledger_rows = (
        list(JournalTransaction.objects.order_by("pk").values_list("pk", "kind", "memo")),
        list(Entry.objects.order_by("pk").values_list("pk", "account_id", "amount")),
    )
    merge = services.merge_players(survivor=ana, merged=dup, by=floor_user, reason="one person, two cards")  # type: ignore[arg-type]
    dup.refresh_from_db()
    assert (dup.merged_into, dup.name) == (ana, "Ana Ruiz")
    assert merge.merged_as == {"name": "Ana Ruiz", "member_number": None, "phone": ""}
    assert PlayerMerge.objects.get(merged=dup).reason == "one person, two cards"
    # Every record of the duplicate is still its own; the ledger is as it was.
    assert ChipMovement.objects.filter(player=dup).count() == 2
    assert Seating.objects.filter(player=dup).count() == 1
    assert (
        list(JournalTransaction.objects.order_by("pk").values_list("pk", "kind", "memo")),
        list(Entry.objects.order_by("pk").values_list("pk", "account_id", "amount")),
    ) == ledger_rows
    # Selectors follow the merge: the duplicate answers as the survivor.
    assert set(identity_players(dup)) == {ana, dup}
    assert find_players("ana") == [ana]
    assert services.day_totals(player=ana).in_cents == 20_000
    with pytest.raises(errors.PlayerMerged):
        services.seat_player(table=table, seat_number=3, player=dup, by=None)
    with pytest.raises(errors.PlayerMerged):
        services.merge_players(survivor=ana, merged=dup, by=None, reason="again")
    with pytest.raises(errors.PlayerMerged):
        services.merge_players(survivor=dup, merged=services.create_player(name="Zed"), by=None, reason="x")


def test_a_merge_keeps_groups_flat_and_needs_a_reason(db: None) -> None:
    a, b, c = (services.create_player(name=n) for n in ("A", "B", "C"))
    with pytest.raises(errors.FloorValidationError, match="reason"):
        services.merge_players(survivor=a, merged=b, by=None, reason=" ")
    with pytest.raises(errors.FloorValidationError):
        services.merge_players(survivor=a, merged=a, by=None, reason="same")
    services.merge_players(survivor=b, merged=c, by=None, reason="c is b")
    services.merge_players(survivor=a, merged=b, by=None, reason="b is a")
    assert set(Player.objects.filter(merged_into=a)) == {b, c}
    c.refresh_from_db()
    assert set(identity_players(c)) == {a, b, c}
    assert PlayerMerge.objects.count() == 2


def test_a_merge_of_two_seated_records_is_refused(make_table: MakeTable) -> None:
    one, two = make_table(), make_table()
    a = services.create_player(name="Ana")
    b = services.create_player(name="Ana R")
    services.seat_player(table=one, seat_number=1, player=a, by=None)
    services.seat_player(table=two, seat_number=1, player=b, by=None)
    with pytest.raises(errors.FloorConflict, match="one person sits at one table") as refused:
        services.merge_players(survivor=a, merged=b, by=None, reason="same")
    assert refused.value.code == "both_seated"
    assert not PlayerMerge.objects.exists()


def test_a_player_seated_at_table_4_is_refused_a_buy_in_at_table_1(make_table: MakeTable) -> None:
    """The issue's case: seated at table 4 with $203, then bought in at table 1 without a word."""
    four = make_table(number=4, game="holdem", stakes="nl-100-500", schedule="A")
    one = make_table(number=1, game="holdem", stakes="nl-100-500", schedule="A")
    ana = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=four, player=ana, amount_cents=20_300, seat_number=3, by=None, idempotency_key="t4"
    )
    with pytest.raises(errors.SeatedElsewhere, match="already sits at table 4 seat 3"):
        hand_flow.buy_in(
            table=one, player=ana, amount_cents=20_000, seat_number=1, by=None, idempotency_key="t1"
        )
    assert ledger_selectors.player_chips(table=one, player=ana) == 0
    assert [s.table.number for s in seated_elsewhere(ana)] == [4]
    # The floor allows it, saying why: kept on the seating.
    seating = services.seat_player(
        table=one, seat_number=1, player=ana, by=None, elsewhere_reason="racking up at 4"
    )
    hand_flow.buy_in(table=one, player=ana, amount_cents=20_000, by=None, idempotency_key="t1b")
    assert seating.elsewhere_reason == "racking up at 4"
    assert ledger_selectors.player_chips(table=one, player=ana) == 20_000


def test_a_merged_duplicate_seated_counts_as_the_player(make_table: MakeTable) -> None:
    one, two = make_table(), make_table()
    ana = services.create_player(name="Ana")
    dup = services.create_player(name="Ana (again)")
    services.seat_player(table=one, seat_number=1, player=dup, by=None)
    services.merge_players(survivor=ana, merged=dup, by=None, reason="same card")
    with pytest.raises(errors.SeatedElsewhere, match=r"Ana already sits at table \d+ seat 1"):
        services.seat_player(table=two, seat_number=1, player=ana, by=None)


def test_a_table_change_is_not_a_second_table(
    make_table: MakeTable, buy_in_players: Callable[..., list[Player]]
) -> None:
    one, two = make_table(), make_table()
    (ana,) = buy_in_players(one, [1])
    moved = hand_flow.move_player(
        seating=Seating.objects.active().get(player=ana), to_table=two, to_seat_number=4, by=None
    )
    assert (moved.table, moved.elsewhere_reason) == (two, "")
    assert seated_elsewhere(ana) == [moved]


def test_member_numbers_are_unique(make_player: Callable[..., Player]) -> None:
    make_player("Ana", member_number="M-1")
    with pytest.raises(errors.FloorConflict, match="belongs to Ana"):
        services.create_player(name="Ben", member_number="M-1")
    # Many players may have none.
    services.create_player(name="Cy", member_number="")
    services.create_player(name="Di", member_number=None)
    assert Player.objects.filter(member_number__isnull=True).count() == 2
