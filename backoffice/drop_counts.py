"""Drop counts and their variance sign-offs (services; HackSoft style, as ``ledger.services``).

* ``record_drop_count``: the count team (or a floor manager) enters the drop counted for a table
  and shift, with the names of the two counters (both required, different).
* ``correct_drop_count``: a correction is a new record superseding the current one, with a reason;
  nothing is ever edited or deleted (the database refuses it).
* ``sign_off_variance``: a count whose variance against the fees the ledger recorded exceeds the
  threshold (``variance_threshold_bp()``, default 300 bp = 3%) needs a written explanation signed
  off by a user other than the one who entered the count.

Keyword-only arguments; each service is one ``transaction.atomic()``; every refusal is a
``ledger.errors.RecordError`` (nothing written).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from ledger.errors import InvalidRecord, RecordConflict, RecordNotAllowed
from ledger.models import AccountKind, DropCount, Entry, VarianceSignOff
from ledger.shifts import Shift

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

    from tables.models import Table

DEFAULT_THRESHOLD_BP = 300
"""3%: a variance above this share of the recorded fees must be explained and signed off."""

MAX_AMOUNT_CENTS = 10**13


def variance_threshold_bp() -> int:
    """The variance threshold in basis points: ``settings.LEDGER_DROP_VARIANCE_THRESHOLD_BP`` when
    set (an int, 0..10000), else 300 (3%)."""
    value = getattr(settings, "LEDGER_DROP_VARIANCE_THRESHOLD_BP", DEFAULT_THRESHOLD_BP)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10_000:
        raise ValueError(f"LEDGER_DROP_VARIANCE_THRESHOLD_BP must be an int from 0 to 10000, not {value!r}")
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class Variance:
    """``counted - recorded`` and whether it exceeds the threshold."""

    recorded_cents: int
    counted_cents: int
    variance_cents: int
    threshold_bp: int
    flagged: bool

    @property
    def variance_bp(self) -> int | None:
        """|variance| / recorded in basis points (None when nothing was recorded)."""
        if self.recorded_cents == 0:
            return None
        return abs(self.variance_cents) * 10_000 // abs(self.recorded_cents)


def is_flagged(*, recorded_cents: int, counted_cents: int, threshold_bp: int) -> bool:
    """Integer rule: ``|counted - recorded| * 10000 > threshold_bp * |recorded|``. With nothing
    recorded, any counted drop is flagged."""
    variance = abs(counted_cents - recorded_cents)
    return variance * 10_000 > threshold_bp * abs(recorded_cents)


def variance_of(*, recorded_cents: int, counted_cents: int, threshold_bp: int | None = None) -> Variance:
    threshold = variance_threshold_bp() if threshold_bp is None else threshold_bp
    return Variance(
        recorded_cents=recorded_cents,
        counted_cents=counted_cents,
        variance_cents=counted_cents - recorded_cents,
        threshold_bp=threshold,
        flagged=is_flagged(
            recorded_cents=recorded_cents, counted_cents=counted_cents, threshold_bp=threshold
        ),
    )


def recorded_fees(*, table_id: int, shift: Shift) -> int:
    """Cents the ledger recorded into the house collection of the table and shift (sum of the
    account's entries; 0 if the account doesn't exist)."""
    total = Entry.objects.filter(
        account__kind=AccountKind.HOUSE_COLLECTION,
        account__table_id=table_id,
        account__shift_date=shift.business_date,
        account__shift_code=shift.code.value,
    ).aggregate(total=Sum("amount"))["total"]
    return int(total or 0)


def current_count(*, table_id: int, shift: Shift) -> DropCount | None:
    """The count of the table and shift that nothing supersedes, if any."""
    return (
        DropCount.objects.filter(
            table_id=table_id,
            shift_date=shift.business_date,
            shift_code=shift.code.value,
            superseded_by__isnull=True,
        )
        .order_by("-pk")
        .first()
    )


def _user(by: User | AnonymousUser | None) -> User:
    if by is None or not by.is_authenticated or by.pk is None:
        raise RecordNotAllowed("a drop count record needs a signed-in user", code="user_required")
    return by


def _amount(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRecord(
            f"the amount must be an integer number of cents, not {value!r}",
            code="invalid_amount",
            field="amount_cents",
        )
    if not 0 <= value <= MAX_AMOUNT_CENTS:
        raise InvalidRecord(
            f"the amount {value} is out of range", code="invalid_amount", field="amount_cents"
        )
    return value


def _name(value: object, field: str) -> str:
    text = " ".join(str(value or "").split())
    if not text:
        raise InvalidRecord("two counters must be named", code="counter_required", field=field)
    if len(text) > 100:
        raise InvalidRecord(
            "a counter's name is at most 100 characters", code="counter_too_long", field=field
        )
    return text


def _counters(counter_one: object, counter_two: object) -> tuple[str, str]:
    one, two = _name(counter_one, "counter_one"), _name(counter_two, "counter_two")
    if one.casefold() == two.casefold():
        raise InvalidRecord(
            "the two counters must be two different people", code="same_counter", field="counter_two"
        )
    return one, two


def _check_shift_started(shift: Shift) -> None:
    start, _ = shift.bounds()
    if start > timezone.now():
        raise InvalidRecord(f"shift {shift} has not started yet", code="future_shift", field="shift")


@transaction.atomic
def record_drop_count(
    *,
    table: Table,
    shift: Shift,
    amount_cents: int,
    counter_one: str,
    counter_two: str,
    by: User | AnonymousUser | None,
    note: str = "",
) -> DropCount:
    """Record the drop counted for ``table`` and ``shift``. Raises ``InvalidRecord`` (amount,
    counters, a shift not started), ``RecordConflict`` (``already_counted``: correct it instead),
    ``RecordNotAllowed`` (no user)."""
    user = _user(by)
    amount = _amount(amount_cents)
    one, two = _counters(counter_one, counter_two)
    _check_shift_started(shift)
    existing = current_count(table_id=table.pk, shift=shift)
    if existing is not None:
        raise RecordConflict(
            f"table {table.number} shift {shift} was already counted (record {existing.pk}); "
            "enter a correction",
            code="already_counted",
        )
    try:
        with transaction.atomic():
            return DropCount.objects.create(
                table=table,
                shift_date=shift.business_date,
                shift_code=shift.code.value,
                amount_cents=amount,
                counter_one=one,
                counter_two=two,
                note=str(note or "").strip(),
                entered_by=user,
            )
    except IntegrityError:
        raise RecordConflict(
            f"table {table.number} shift {shift} was already counted; enter a correction",
            code="already_counted",
        ) from None


@transaction.atomic
def correct_drop_count(
    *,
    count: DropCount,
    amount_cents: int,
    counter_one: str,
    counter_two: str,
    by: User | AnonymousUser | None,
    reason: str,
    note: str = "",
) -> DropCount:
    """A new count superseding ``count`` (which must be the current one), with ``reason``. Raises
    ``InvalidRecord``, ``RecordConflict`` (``superseded``: correct the current record instead)."""
    user = _user(by)
    amount = _amount(amount_cents)
    one, two = _counters(counter_one, counter_two)
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise InvalidRecord("say why the count is corrected", code="reason_required", field="reason")
    # Two corrections of the same record queue here; the one-to-one `supersedes` is the backstop.
    original = DropCount.objects.select_for_update().get(pk=count.pk)
    newer = DropCount.objects.filter(supersedes=original).first()
    if newer is not None:
        raise RecordConflict(
            f"drop count {original.pk} was already corrected by record {newer.pk}; correct that one",
            code="superseded",
        )
    try:
        with transaction.atomic():
            return DropCount.objects.create(
                table_id=original.table_id,
                shift_date=original.shift_date,
                shift_code=original.shift_code,
                amount_cents=amount,
                counter_one=one,
                counter_two=two,
                note=str(note or "").strip(),
                entered_by=user,
                supersedes=original,
                correction_reason=reason,
            )
    except IntegrityError:
        raise RecordConflict(f"drop count {original.pk} was already corrected", code="superseded") from None


@transaction.atomic
def sign_off_variance(
    *, count: DropCount, explanation: str, by: User | AnonymousUser | None, threshold_bp: int | None = None
) -> VarianceSignOff:
    """Sign off the variance of ``count`` (the current count of its table and shift) with a written
    ``explanation``. The figures are recomputed now and kept on the sign-off.

    Raises ``RecordNotAllowed`` (``same_user``: the user entered the count), ``InvalidRecord``
    (no explanation), ``RecordConflict`` (``superseded``, ``not_flagged``: within the threshold,
    ``already_signed_off``)."""
    user = _user(by)
    explanation = str(explanation or "").strip()
    if not explanation:
        raise InvalidRecord(
            "write what explains the variance", code="explanation_required", field="explanation"
        )
    locked = DropCount.objects.select_for_update().select_related("table").get(pk=count.pk)
    if locked.entered_by_id == user.pk:
        raise RecordNotAllowed(
            "the variance is signed off by someone other than the user who entered the count",
            code="same_user",
        )
    if DropCount.objects.filter(supersedes=locked).exists():
        raise RecordConflict(
            f"drop count {locked.pk} was corrected; sign off the current record", code="superseded"
        )
    if VarianceSignOff.objects.filter(drop_count=locked).exists():
        raise RecordConflict(f"drop count {locked.pk} is already signed off", code="already_signed_off")
    variance = variance_of(
        recorded_cents=recorded_fees(table_id=locked.table_id, shift=locked.shift),
        counted_cents=locked.amount_cents,
        threshold_bp=threshold_bp,
    )
    if not variance.flagged:
        raise RecordConflict(
            f"the variance ({variance.variance_cents} cents) is within the threshold; nothing to sign off",
            code="not_flagged",
        )
    try:
        with transaction.atomic():
            return VarianceSignOff.objects.create(
                drop_count=locked,
                explanation=explanation,
                recorded_cents=variance.recorded_cents,
                counted_cents=variance.counted_cents,
                variance_cents=variance.variance_cents,
                threshold_bp=variance.threshold_bp,
                signed_by=user,
            )
    except IntegrityError:
        raise RecordConflict(
            f"drop count {locked.pk} is already signed off", code="already_signed_off"
        ) from None
