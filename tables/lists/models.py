"""Waiting lists, seat offers and their record: who waits for which game, who was called to which
seat, and everything that happened to each place on a list (docs/waiting-lists.md).

* :class:`WaitingList`: one list per game and stakes; a list whose game has no open table is an
  interest list (nothing to store: it is read from the tables);
* :class:`WaitingListEntry`: a player's place on a list, added in person or by phone (a call-in,
  which expires if the player hasn't arrived), for a seat or for a table change; ordered by
  ``position`` (1 is next), which the services renumber when the order changes;
* :class:`WaitingListEvent`: the append-only record of every add, arrival, call, pass, expiry,
  removal, seating, reorder and move, with who and when, and whom the player went ahead of and why;
* :class:`WaitingListSettings`: the room's single row of rules (call-in expiry, time to take a
  called seat, what a missed call costs, the table changes' turn, players enough to open a game);
* :class:`MustMove`: a must-move table, and the main game (its list) it feeds.

All of the ``tables`` app (its label, tables and migration ``0005_waiting_lists`` as before), imported
by :mod:`tables.models` with the app's other models. State changes go through
:mod:`tables.lists.services`; time-based changes (an expired call-in, a missed call) are computed
from the timestamps when read (:mod:`tables.lists.rules`) and recorded, dated at their deadline, by
the next write.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.choices import MAX_SEATS, MIN_PLAYERS
from tables.models.games import Game
from tables.models.players import Player
from tables.models.stakes import Stakes
from tables.models.tables import Table


class EntryState(models.TextChoices):
    """Where a player's place on a list stands. ``waiting`` and ``called`` are on the list; the
    other three are final (the place is kept for the record)."""

    WAITING = "waiting", "Waiting"
    CALLED = "called", "Called to a seat"
    SEATED = "seated", "Seated"
    REMOVED = "removed", "Off the list"
    EXPIRED = "expired", "Call-in expired"

    @classmethod
    def on_list(cls) -> list[str]:
        return [cls.WAITING, cls.CALLED]


class EntrySource(models.TextChoices):
    IN_PERSON = "in_person", "In person"
    PHONE = "phone", "By phone (call-in)"


class EntryKind(models.TextChoices):
    """What the player waits for: a seat, or (seated at a table of the list's game) another table."""

    SEAT = "seat", "A seat"
    TABLE_CHANGE = "table_change", "A table change"


class ListEvent(models.TextChoices):
    ADDED = "added", "Added"
    ARRIVED = "arrived", "Call-in arrived"
    CALLED = "called", "Called to a seat"
    PASSED = "passed", "Passed (missed or declined the call)"
    EXPIRED = "expired", "Call-in expired"
    REMOVED = "removed", "Taken off the list"
    SEATED = "seated", "Seated from the list"
    REORDERED = "reordered", "Moved by hand"
    MUST_MOVED = "must_moved", "Moved from the must-move table"
    TABLE_CHANGED = "table_changed", "Table change served"


class MissedCallPolicy(models.TextChoices):
    """What happens to a called player who doesn't take the seat in time (or passes it)."""

    DOWN_THEN_OFF = "down_then_off", "Moved down the first time, off the list the second"
    BOTTOM_THEN_OFF = "bottom_then_off", "To the bottom the first time, off the list the second"
    OFF = "off", "Off the list at once"


class WaitingList(models.Model):
    """The list of one game at one stakes. A player may be on several lists (a form's "any game at
    these stakes" adds them to each list of those stakes). The tables it feeds are the open tables
    of its game and stakes; with none open it is an interest list."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="waiting_lists")
    stakes = models.ForeignKey(Stakes, on_delete=models.PROTECT, related_name="waiting_lists")
    is_active = models.BooleanField(default=True, help_text="Closed lists take nobody new.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ("game__sort_order", "game__slug", "stakes__code")
        permissions = (("run_waiting_lists", "Can add, call, seat and remove players on the waiting lists"),)
        constraints = (
            models.UniqueConstraint(fields=("game", "stakes"), name="waitinglist_one_per_game_stakes"),
        )

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        """``Texas Hold'em $4-$8 limit, half kill``."""
        return f"{self.game.name} {self.stakes.label}"

    def feeds(self, table: Table) -> bool:
        """Whether a seat at ``table`` is offered from this list (same game and stakes)."""
        return table.game_id == self.game_id and table.stakes_id == self.stakes_id


class WaitingListEntry(models.Model):
    """A player's place on a list. One place per player per list while on it (database).

    ``position`` orders the places on the list (1 is next; renumbered by the services).
    A call-in (``added_via`` phone) must arrive (``arrived_at``) before ``expires_at``, set when added
    from the room's setting then; until it arrives it keeps its place but is not called. A called
    player (``called_to``) has until ``call_deadline`` to take the seat.
    """

    waiting_list = models.ForeignKey(WaitingList, on_delete=models.PROTECT, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="list_entries")
    entry_kind = models.CharField(max_length=20, choices=EntryKind, default=EntryKind.SEAT)
    from_table = models.ForeignKey(
        Table,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="A table change's table.",
    )
    added_via = models.CharField(max_length=20, choices=EntrySource, default=EntrySource.IN_PERSON)
    state = models.CharField(max_length=20, choices=EntryState, default=EntryState.WAITING)
    position = models.PositiveIntegerField()
    note = models.CharField(max_length=100, blank=True)
    added_at = models.DateTimeField(default=timezone.now)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    arrived_at = models.DateTimeField(null=True, blank=True)
    called_at = models.DateTimeField(null=True, blank=True)
    call_deadline = models.DateTimeField(null=True, blank=True)
    called_to = models.ForeignKey(Table, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    misses = models.PositiveSmallIntegerField(default=0)
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ("waiting_list", "position", "id")
        verbose_name_plural = "waiting list entries"
        constraints = (
            models.UniqueConstraint(
                fields=("waiting_list", "player"),
                condition=Q(state__in=("waiting", "called")),
                name="waitinglistentry_one_place_per_player",
                violation_error_message="The player is already on this list.",
            ),
            models.CheckConstraint(
                condition=~Q(state="called") | (Q(called_to__isnull=False) & Q(call_deadline__isnull=False)),
                name="waitinglistentry_called_has_seat_and_deadline",
            ),
            models.CheckConstraint(
                condition=Q(added_via="phone", expires_at__isnull=False)
                | (~Q(added_via="phone") & Q(expires_at__isnull=True)),
                name="waitinglistentry_call_in_expires",
            ),
            models.CheckConstraint(
                condition=~Q(entry_kind="table_change") | Q(from_table__isnull=False),
                name="waitinglistentry_table_change_from_table",
            ),
        )
        indexes = (models.Index(fields=("state", "waiting_list"), name="waitinglistentry_state_idx"),)

    def __str__(self) -> str:
        return f"{self.player} on {self.waiting_list} ({self.state})"

    @property
    def is_on_list(self) -> bool:
        return self.state in EntryState.on_list()


class _AppendOnlyQuerySet(models.QuerySet["WaitingListEvent"]):
    """Bulk update and delete are refused: the record is append-only."""

    def update(self, **kwargs: Any) -> int:
        raise TypeError("WaitingListEvent rows are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("WaitingListEvent rows are append-only")


class WaitingListEvent(models.Model):
    """One thing that happened on a list: who did it (None: the clock), when, to whom, and why.

    ``passed_over`` names the players the list had ahead of this one when they were called, seated
    or moved in, each with why they were not first (``[{"player_id", "player", "position",
    "why"}]``): the record a dispute settles from. Append-only (as :class:`ConfigChange`).
    """

    at = models.DateTimeField(default=timezone.now, db_index=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    by_username = models.CharField(max_length=150, blank=True, help_text="Kept as it was at the time.")
    event = models.CharField(max_length=20, choices=ListEvent)
    waiting_list = models.ForeignKey(WaitingList, on_delete=models.PROTECT, related_name="events")
    entry = models.ForeignKey(
        WaitingListEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    seat_number = models.PositiveSmallIntegerField(null=True, blank=True)
    position_before = models.PositiveIntegerField(null=True, blank=True)
    position_after = models.PositiveIntegerField(null=True, blank=True)
    reason = models.TextField(blank=True)
    passed_over = models.JSONField(default=list, blank=True)

    objects = _AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ("at", "id")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.event} {self.player_id} on {self.waiting_list_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("WaitingListEvent rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("WaitingListEvent rows are append-only")


class WaitingListSettings(models.Model):
    """The room's rules for its lists: one row (``id`` 1), edited by the floor; read with
    :meth:`current` (the defaults until the floor first saves them)."""

    SINGLETON_ID: ClassVar[int] = 1

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    call_in_minutes = models.PositiveSmallIntegerField(
        default=60,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 60)],
        help_text="A call-in who hasn't arrived this long after the call is off the list.",
    )
    call_minutes = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(1), MaxValueValidator(60)],
        help_text="A called player has this long to take the seat.",
    )
    missed_call_policy = models.CharField(
        max_length=20, choices=MissedCallPolicy, default=MissedCallPolicy.DOWN_THEN_OFF
    )
    move_down_places = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="How far down a first missed call moves the player.",
    )
    table_changes_first = models.BooleanField(
        default=True, help_text="A table change request within the game is served before the list."
    )
    interest_players = models.PositiveSmallIntegerField(
        default=6,
        validators=[MinValueValidator(MIN_PLAYERS), MaxValueValidator(MAX_SEATS)],
        help_text="Players waiting that are enough to open a table of a game not running.",
    )
    interest_by_game = models.JSONField(
        default=dict, blank=True, help_text="A game's own number of players to open it: {game slug: players}."
    )
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        verbose_name = "waiting list settings"
        verbose_name_plural = "waiting list settings"
        constraints = (models.CheckConstraint(condition=Q(id=1), name="waitinglistsettings_single_row"),)

    def __str__(self) -> str:
        return "Waiting list settings"

    @classmethod
    def current(cls) -> WaitingListSettings:
        """The room's settings: the saved row, or the defaults (unsaved) before the first save."""
        return cls.objects.filter(pk=cls.SINGLETON_ID).first() or cls(id=cls.SINGLETON_ID)

    def players_to_open(self, game: Game) -> int:
        """How many players waiting are enough to open a table of ``game``."""
        value = (self.interest_by_game or {}).get(game.slug)
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else self.interest_players


class MustMove(models.Model):
    """``table`` is a must-move table of the main game ``waiting_list`` names: when a seat opens at
    one of the main game's other tables, its players move there in order, the longest there first.
    The list feeds the must-move table too (it is a table of the same game and stakes)."""

    table = models.OneToOneField(Table, on_delete=models.PROTECT, related_name="must_move")
    waiting_list = models.ForeignKey(WaitingList, on_delete=models.PROTECT, related_name="must_moves")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ("table__number",)

    def __str__(self) -> str:
        return f"Table {self.table.number} must move to {self.waiting_list}"
