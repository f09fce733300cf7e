"""Domain errors of the floor (tables app).

Services raise these; they never return error values. Each error carries a stable, machine
readable ``code`` (the API puts it in the response body) and a human message. Each is a
:class:`casino.core.errors.DomainError`, so the API answers it with its ``status`` and
``as_dict()`` (``web.common.errors``). The three base classes say what kind of failure it is:

* :class:`FloorValidationError` -> 400: the request itself is wrong (bad stakes, a mismatch of
  game and stakes, a bad schedule row). ``field`` names the offending input when there is one.
* :class:`FloorNotFound` -> 404: something the request names doesn't exist (a seat number
  beyond the table's seats, an unknown table).
* :class:`FloorConflict` -> 409: the request is well-formed but the floor's current state
  forbids it (a taken seat, a closed table, a hand in progress, an illegal hand transition).
"""

from __future__ import annotations

from casino.core.errors import DomainError


class FloorError(DomainError):
    """Base class of every floor error: ``code`` is stable, ``message`` is for people (400)."""

    code = "floor_error"
    status = 400


class FloorValidationError(FloorError):
    """The input is invalid whatever the state of the floor (HTTP 400). ``errors`` has every
    problem found, by field, so that forms can show each next to its input."""

    code = "invalid"
    status = 400


class FloorNotFound(FloorError):
    """Something the request names does not exist (HTTP 404)."""

    code = "not_found"
    status = 404


class FloorConflict(FloorError):
    """The request conflicts with the current state of the floor (HTTP 409)."""

    code = "conflict"
    status = 409


# --- Specific errors (the codes are part of the API contract) ---------------------------------


class ConfigMismatch(FloorValidationError):
    """A table's game, stakes, seats or collection schedule don't fit together."""

    code = "config_mismatch"


class InvalidStakes(FloorValidationError):
    """A stakes definition is inconsistent with its structure (e.g. a kill at no limit)."""

    code = "invalid_stakes"


class InvalidSchedule(FloorValidationError):
    """A collection schedule or one of its rates is invalid."""

    code = "invalid_schedule"


class TooManyRates(FloorValidationError):
    """More than five collection rates would apply at one table (RULINGS §3, §6)."""

    code = "too_many_rates"


class SeatNotFound(FloorNotFound):
    code = "seat_not_found"


class SeatTaken(FloorConflict):
    code = "seat_taken"


class PlayerAlreadySeated(FloorConflict):
    code = "player_already_seated"


class SeatedElsewhere(FloorConflict):
    """The player sits at another table: one table at a time, unless the floor allows a second
    one with a reason."""

    code = "seated_elsewhere"


class PossibleDuplicate(FloorConflict):
    """A new player's name (or phone) matches a player on file: same person? Choose them, or
    confirm that this is someone else."""

    code = "possible_duplicate"


class PlayerMerged(FloorConflict):
    """The player record was merged into another: act on the player it was merged into."""

    code = "player_merged"


class IdentificationRequired(FloorConflict):
    """The transaction takes the player's gaming-day total in or out over the report threshold:
    record the player's identification first."""

    code = "identification_required"


class NotSeated(FloorConflict):
    code = "not_seated"


class TableClosed(FloorConflict):
    code = "table_closed"


class TableAlreadyInState(FloorConflict):
    code = "table_state"


class HandInProgress(FloorConflict):
    code = "hand_in_progress"


class PlayerInHand(FloorConflict):
    code = "player_in_hand"


class NotEnoughPlayers(FloorConflict):
    code = "not_enough_players"


class IllegalTransition(FloorConflict):
    code = "illegal_transition"


class InUse(FloorConflict):
    """The object is referenced by history (hands, seatings) and can't be removed or rewritten."""

    code = "in_use"


# --- The hand's money (handflow.services, the dealer terminals' API) ---------------------------------


class ChipsLocked(FloorConflict):
    """The player is dealt into a hand in progress: no chips on or off the table until it ends."""

    code = "chips_locked"


class BuyInRefused(FloorValidationError):
    """The amount breaks the table's buy-in rules (range, minimum, whole chips)."""

    code = "buy_in_refused"


class AlreadyBoughtIn(FloorConflict):
    """The player already bought in this session; more chips are a rebuy."""

    code = "already_bought_in"


class NoBuyIn(FloorConflict):
    """A rebuy before the session's buy-in."""

    code = "no_buy_in"


class ShortRebuyUsed(FloorConflict):
    """The session's one short rebuy was already made."""

    code = "short_rebuy_used"


class NoChips(FloorConflict):
    """Nothing to cash out."""

    code = "no_chips"


class NoCollectionRate(FloorConflict):
    """No rate of the table's schedule covers this hand (stakes and number of players)."""

    code = "no_collection_rate"


class InvalidShowdown(FloorValidationError):
    """The showdown entered is wrong: the engine's message, or a seat/amount that doesn't fit the hand."""

    code = "invalid_showdown"


class NoReading(FloorConflict):
    """Confirming a hand that has no showdown reading to confirm."""

    code = "no_reading"


class HandAlreadySettled(FloorConflict):
    """The hand is settled; its result can't change."""

    code = "hand_settled"


class HandVoided(FloorConflict):
    """The hand is void (a misdeal); nothing can be settled."""

    code = "hand_void"


class ReadingChanged(FloorConflict):
    """The confirmation names a reading (revision) other than the one on record."""

    code = "reading_changed"


class IdempotencyKeyMissing(FloorValidationError):
    """A write came without its ``Idempotency-Key`` header (or with a malformed one)."""

    code = "idempotency_key_required"


class IdempotencyKeyReused(FloorConflict):
    """The ``Idempotency-Key`` was already used for a different request."""

    code = "idempotency_conflict"


class FeesChanged(FloorConflict):
    """The fees the dealer confirmed are not the fees the deal would take now (a schedule version
    took effect, a player sat down or left): nothing is taken; show the new fees to confirm."""

    code = "fees_changed"


class NotYourTable(FloorError):
    """A dealer runs hands only at the table they are clocked in at (HTTP 403); the floor may
    run any table's."""

    code = "not_clocked_in"
    status = 403


class NotADealer(FloorValidationError):
    """Only a user who may run hands (a dealer, or the floor) can be clocked in at a table."""

    code = "not_a_dealer"


# --- Waiting lists and seat offers (tables.lists.calls, tables.lists.must_move) ---------------------


class ListClosed(FloorConflict):
    """The waiting list is closed: it takes nobody new."""

    code = "list_closed"


class AlreadyOnList(FloorConflict):
    """The player already holds a place on the list (one place per player per list)."""

    code = "already_on_list"


class NotOnList(FloorConflict):
    """The place is no longer on the list (seated, taken off, expired): nothing to do with it."""

    code = "not_on_list"


class NotCalled(FloorConflict):
    """The player isn't called to a seat now (never called, or the time to take it ran out)."""

    code = "not_called"


class NoOpenSeat(FloorConflict):
    """Every free seat at the table is taken or already offered to a called player."""

    code = "no_open_seat"


class NotFedByList(FloorValidationError):
    """The table is not a table of the list's game and stakes."""

    code = "not_fed_by_list"


class OutOfTurn(FloorValidationError):
    """Someone else is ahead for this seat: the floor may go out of turn only with a reason."""

    code = "out_of_turn"
