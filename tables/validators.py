"""Consistency rules of the floor configuration, as functions returning problems by field.

Each ``*_problems`` function returns ``{field: message}`` (empty when all is well), so the
same rule feeds model ``clean()`` (admin and forms show each message by its field) and the
services (which raise a :class:`tables.errors.FloorValidationError` subclass).

Collection rates are checked here and only here, whoever writes them: the services
(:func:`tables.services.build_rates`, :func:`~tables.services.check_rates_against_tables`,
:func:`~tables.services.revise_schedule`), the admin (the rate's ``clean()`` and the version's
formset), the schedule page (through the services) and the API (its cents fields use
:func:`integer_problem`; the rest through the services):

* :func:`rate_problems`: one row on its own, every amount a real ``int`` first;
* :func:`schedule_tables_problems`: a version's rates against the tables on the schedule (1 to 5
  rates apply at each; each applicable fee whole chips of that table);
* :func:`table_problems`: a table against its schedule (the same two rules, from the table's side);
* :func:`fee_warnings`: a fee far outside what its stakes bear, to confirm rather than refuse.
"""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from casino.core.money import format_cents
from tables.choices import (
    BIG_BET_STRUCTURES,
    LIMIT_MIN_BIG_BETS,
    MAX_RATES_PER_TABLE,
    MIN_PLAYERS,
    POINTS_BUY_IN,
    GameKind,
    KillType,
    Payer,
    RateStructure,
    Structure,
)

# The models only as types: they call these rules from their clean(), so the rules take what they
# need from the objects they are given (no import cycle between the models and their rules).
if TYPE_CHECKING:
    from tables.models import CollectionRate, CollectionSchedule, Game, Stakes, Table

_BET_FIELDS = ("small_bet_cents", "big_bet_cents", "alt_small_bet_cents", "alt_big_bet_cents")

#: The whole-number fields of a collection rate (cents, and the players band).
RATE_INTEGER_FIELDS = (
    *_BET_FIELDS,
    "buy_in_min_cents",
    "buy_in_max_cents",
    "point_min_cents",
    "point_max_cents",
    "players_min",
    "players_max",
    "fee_cents",
    "others_fee_cents",
)
#: The fees of a rate: each must be a whole number of the chips of every table it applies to.
FEE_FIELDS = ("fee_cents", "others_fee_cents")

#: A fee above this share of the smallest minimum buy-in its rate covers is "far outside" the
#: schedule's sense (:func:`fee_warnings`; docs/floor.md, "Fees far outside the schedule").
FEE_WARNING_SHARE_OF_BUY_IN = (1, 4)


def _as_int(value: object) -> int | None:
    """``value`` when it is a real ``int`` (not a ``bool``), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


#: The largest amount a rate may hold: within the 64-bit columns, so a huge number is refused as
#: input instead of overflowing the database (as the terminals' MAX_CENTS).
MAX_AMOUNT = 2**62


def integer_problem(value: object) -> str | None:
    """Why ``value`` is not a whole number (a real ``int``) a column can hold, or None when it is.

    ``bool`` is an ``int`` to Python but never an amount; a ``float`` (2.5, or 2.0 from a
    careless client), a ``str`` ("150", "5%") or anything else is refused rather than converted,
    so what is stored is exactly what was meant. None (an empty optional field) is the caller's.
    """
    number = _as_int(value)
    if number is None:
        return f"Must be a whole number (an integer), not {value!r}."
    if abs(number) > MAX_AMOUNT:
        return f"{number} is too large."
    return None


def _must_be_empty(obj: object, fields: Iterable[str], why: str, problems: dict[str, str]) -> None:
    for name in fields:
        if getattr(obj, name) is not None:
            problems[name] = f"Leave empty {why}."


def _bets_problems(obj: Stakes | CollectionRate, problems: dict[str, str]) -> None:
    """Limit bets: small and big required, small <= big; the second pair both or neither."""
    for name in ("small_bet_cents", "big_bet_cents"):
        value = getattr(obj, name)
        if value is None:
            problems[name] = "Required for a limit structure."
        elif value <= 0:
            problems[name] = "Must be positive."
    small, big = obj.small_bet_cents, obj.big_bet_cents
    if small and big and small > big:
        problems["big_bet_cents"] = "The big bet can't be smaller than the small bet."
    alt_small, alt_big = obj.alt_small_bet_cents, obj.alt_big_bet_cents
    if (alt_small is None) != (alt_big is None):
        problems["alt_big_bet_cents"] = "Give both bets of the second limit, or neither."
    elif alt_small is not None and alt_big is not None:
        if alt_small <= 0 or alt_big <= 0:
            problems["alt_small_bet_cents"] = "Must be positive."
        elif alt_small > alt_big:
            problems["alt_big_bet_cents"] = "The big bet can't be smaller than the small bet."


def _buy_in_problems(obj: Stakes | CollectionRate, problems: dict[str, str]) -> None:
    low, high = obj.buy_in_min_cents, obj.buy_in_max_cents
    if low is None:
        problems["buy_in_min_cents"] = "Required for pot limit and no limit."
    elif low <= 0:
        problems["buy_in_min_cents"] = "Must be positive."
    if high is not None and low is not None and high < low:
        problems["buy_in_max_cents"] = "The maximum buy-in can't be below the minimum."


def stakes_problems(stakes: Stakes) -> dict[str, str]:
    """What is wrong with ``stakes`` for its structure (see :class:`tables.models.Stakes`)."""
    problems: dict[str, str] = {}
    structure = stakes.structure
    if structure not in Structure.values:
        return {"structure": f"Unknown structure {structure!r}."}
    if stakes.kill not in KillType.values:
        problems["kill"] = f"Unknown kill type {stakes.kill!r}."
    elif stakes.kill != KillType.NONE and structure != Structure.LIMIT:
        # 004: "With the exception of Pot Limit and No Limit, any and all games ... can be played
        # with a half kill or full kill."
        problems["kill"] = (
            f"No kill at {Structure(structure).label.lower()}: kills are for limit games only (004)."
        )
    if structure == Structure.LIMIT:
        _bets_problems(stakes, problems)
        _must_be_empty(stakes, ("point_cents", "buy_in_max_cents"), "at limit", problems)
        if stakes.buy_in_min_cents is not None and stakes.buy_in_min_cents <= 0:
            problems["buy_in_min_cents"] = "Must be positive."
    elif structure in BIG_BET_STRUCTURES:
        _buy_in_problems(stakes, problems)
        _must_be_empty(stakes, (*_BET_FIELDS, "point_cents"), "at pot limit and no limit", problems)
    else:
        if stakes.point_cents is None:
            problems["point_cents"] = "Required for a points game."
        elif stakes.point_cents <= 0:
            problems["point_cents"] = "Must be positive."
        # The buy-in of a points game is 20 points (004 Chinese poker rule 1), not a range.
        _must_be_empty(stakes, (*_BET_FIELDS, "buy_in_min_cents", "buy_in_max_cents"), "for points", problems)
    return problems


def rate_problems(rate: CollectionRate) -> dict[str, str]:
    """What is wrong with one collection rate row on its own.

    Every amount (:data:`RATE_INTEGER_FIELDS`) that is given must be a real ``int``; when one
    isn't, only those are reported (comparing "5%" with 0 means nothing)."""
    wrong_type = {
        name: problem
        for name in RATE_INTEGER_FIELDS
        if getattr(rate, name) is not None and (problem := integer_problem(getattr(rate, name)))
    }
    if wrong_type:
        return wrong_type
    problems: dict[str, str] = {}
    if rate.structure == RateStructure.LIMIT:
        _bets_problems(rate, problems)
        _must_be_empty(
            rate,
            ("buy_in_min_cents", "buy_in_max_cents", "point_min_cents", "point_max_cents"),
            "for a limit rate",
            problems,
        )
    elif rate.structure == RateStructure.BIG_BET:
        _buy_in_problems(rate, problems)
        _must_be_empty(
            rate,
            (*_BET_FIELDS, "point_min_cents", "point_max_cents"),
            "for a no-limit/pot-limit rate",
            problems,
        )
    elif rate.structure == RateStructure.POINTS:
        low, high = rate.point_min_cents, rate.point_max_cents
        if low is None or high is None:
            problems["point_min_cents"] = "A points rate needs the range of point values it covers."
        elif low <= 0 or high < low:
            problems["point_max_cents"] = "The point range must be positive and ascending."
        _must_be_empty(
            rate, (*_BET_FIELDS, "buy_in_min_cents", "buy_in_max_cents"), "for a points rate", problems
        )
    else:
        problems["structure"] = f"Unknown rate structure {rate.structure!r}."
    if rate.players_min is None or rate.players_max is None:
        problems["players_min"] = "Give the band of players (e.g. 1-4)."
    elif not 1 <= rate.players_min <= rate.players_max <= 10:
        problems["players_max"] = "The players band must satisfy 1 <= min <= max <= 10."
    if rate.fee_cents is None or rate.fee_cents < 0:
        problems["fee_cents"] = "The fee must be zero or more cents."
    if rate.payer not in Payer.values:
        problems["payer"] = f"Unknown payer rule {rate.payer!r}."
    elif rate.payer == Payer.BUTTON_AND_OTHERS:
        if rate.others_fee_cents is None or rate.others_fee_cents < 0:
            problems["others_fee_cents"] = "Give the fee each other player pays (button_and_others)."
    elif rate.others_fee_cents is not None:
        problems["others_fee_cents"] = "Only a button_and_others rate has a fee for the other players."
    return problems


def _stakes_key(rate: CollectionRate) -> tuple[object, ...]:
    return (
        rate.structure,
        rate.small_bet_cents,
        rate.big_bet_cents,
        rate.alt_small_bet_cents,
        rate.alt_big_bet_cents,
        rate.buy_in_min_cents,
        rate.buy_in_max_cents,
        rate.point_min_cents,
        rate.point_max_cents,
    )


def rate_row_key(rate: CollectionRate) -> tuple[object, ...]:
    """What a row of a schedule is for: its stakes and its band of players (one fee per key)."""
    return (*_stakes_key(rate), rate.players_min, rate.players_max)


def rates_overlap_problems(rates: Iterable[CollectionRate]) -> list[str]:
    """Rows for the same stakes whose player bands overlap: the fee of a hand would be ambiguous."""
    by_key: dict[tuple[object, ...], list[CollectionRate]] = {}
    for rate in rates:
        by_key.setdefault(_stakes_key(rate), []).append(rate)
    problems = []
    for group in by_key.values():
        bands = sorted(group, key=lambda r: r.players_min)
        for first, second in itertools.pairwise(bands):
            if second.players_min <= first.players_max:
                problems.append(
                    f"{first.limits_label}: players {first.players_min}-{first.players_max} and "
                    f"{second.players_min}-{second.players_max} overlap."
                )
    return problems


def rate_count_problem(count: int, *, where: str) -> str | None:
    """The message when ``count`` rates would apply at one table (allowed: 1 to 5)."""
    if count > MAX_RATES_PER_TABLE:
        return (
            f"{count} collection rates would apply {where}; a table may have at most "
            f"{MAX_RATES_PER_TABLE} (004, RULINGS §3 and §6)."
        )
    if count == 0:
        return f"No collection rate applies {where}: fees are collected before every deal (RULINGS §6)."
    return None


def fee_chip_problems(rate: CollectionRate, *, chip_unit_cents: int, where: str) -> dict[str, str]:
    """The fees of ``rate`` (``fee_cents``, ``others_fee_cents``) that are not a whole number of
    chips of ``chip_unit_cents`` (a table the rate applies to, named by ``where``).

    004 rule 12: chips below the table's denomination don't play, and a player's chips are whole
    chips (buy-ins, put-ins and table changes are refused otherwise, docs/hand-flow.md); a fee of
    $1.50 at a table of $1 chips could be neither posted by the player nor taken by the dealer.
    """
    problems: dict[str, str] = {}
    for name in FEE_FIELDS:
        fee = getattr(rate, name)
        if isinstance(fee, int) and fee % chip_unit_cents:
            problems[name] = (
                f"{'The fee' if name == 'fee_cents' else 'The others fee'} {format_cents(fee)} "
                f"({rate.limits_label}, {rate.players_min}-{rate.players_max} players) is not a whole "
                f"number of {where}'s {format_cents(chip_unit_cents)} chips."
            )
    return problems


def schedule_tables_problems(rates: Sequence[CollectionRate], tables: Iterable[Table]) -> dict[str, str]:
    """What a schedule version of ``rates`` (its complete set, in order) would break at ``tables``
    (the tables on the schedule, with their stakes).

    At each table: 1 to 5 of the rates apply (key ``rates``: :func:`rate_count_problem`), and
    every fee of a rate that applies is a whole number of the table's chips (key
    ``rates[i].fee_cents`` / ``rates[i].others_fee_cents``: :func:`fee_chip_problems`). The first
    table at fault is named in each message.
    """
    problems: dict[str, str] = {}
    for table in tables:
        where = f"table {table.number}"
        applying = [(i, rate) for i, rate in enumerate(rates) if rate.matches_stakes(table.stakes)]
        count = rate_count_problem(len(applying), where=f"at {where} ({table.stakes.label})")
        if count:
            problems.setdefault("rates", count)
        for i, rate in applying:
            for name, message in fee_chip_problems(
                rate, chip_unit_cents=table.chip_unit_cents, where=where
            ).items():
                problems.setdefault(f"rates[{i}].{name}", message)
    return problems


def fee_warnings(rate: CollectionRate) -> dict[str, str]:
    """Each fee of ``rate`` far outside what its stakes bear, by field: a warning to confirm, not a
    refusal (pure; docs/floor.md, "Fees far outside the schedule").

    "Far outside": above a quarter (:data:`FEE_WARNING_SHARE_OF_BUY_IN`) of the smallest minimum
    buy-in the rate covers, as :mod:`tables.chip_rules` sets it: ten big bets of the limit (the
    larger big bet of a second limit pair), the bottom of a no-limit/pot-limit buy-in range, 20
    points at the smallest point value of a points rate. A player paying such a fee loses a
    minimum buy-in to fees within four hands. Every fee 004 prints is at most a quarter (schedule
    C's $5 at $20-$100 no limit, 7-10 players, is the largest: exactly a quarter of $20).
    """
    minimum = _smallest_minimum_buy_in(rate)
    if minimum is None:
        return {}
    share, of = FEE_WARNING_SHARE_OF_BUY_IN
    warnings: dict[str, str] = {}
    for name in FEE_FIELDS:
        fee = getattr(rate, name)
        if isinstance(fee, int) and fee * of > minimum * share:
            if name == "others_fee_cents":
                who = "each other player"
            else:
                who = "each player" if rate.payer == Payer.EACH_PLAYER else "the button"
            band = f"{rate.players_min}-{rate.players_max} players"
            warnings[name] = (
                f"{format_cents(fee)} from {who} at {rate.limits_label} ({band}) is more than "
                f"{share}/{of} of the minimum buy-in ({format_cents(minimum)}): far above what the "
                "schedule charges such stakes. Check the amount."
            )
    return warnings


def rates_fee_warnings(rates: Sequence[CollectionRate]) -> dict[str, str]:
    """:func:`fee_warnings` of each of ``rates`` (a version's set, in order), keyed
    ``rates[i].fee_cents`` / ``rates[i].others_fee_cents``."""
    return {
        f"rates[{i}].{name}": message
        for i, rate in enumerate(rates)
        for name, message in fee_warnings(rate).items()
    }


def _smallest_minimum_buy_in(rate: CollectionRate) -> int | None:
    """The minimum buy-in (cents) of the smallest stakes ``rate`` covers (None: not computable)."""
    if rate_problems(rate):
        return None
    if rate.structure == RateStructure.LIMIT:
        return LIMIT_MIN_BIG_BETS * max(rate.big_bet_cents or 0, rate.alt_big_bet_cents or 0)
    if rate.structure == RateStructure.BIG_BET:
        return rate.buy_in_min_cents
    return POINTS_BUY_IN * (rate.point_min_cents or 0)


def table_problems(
    *,
    game: Game,
    stakes: Stakes,
    seat_count: int | None,
    chip_unit_cents: int | None,
    schedule: CollectionSchedule,
    at: datetime.datetime | None = None,
) -> dict[str, str]:
    """What is wrong with a table of ``game`` at ``stakes`` with ``schedule``.

    * the stakes' structure fits the game (pot games: limit/pot limit/no limit; Chinese and
      Taiwanese poker: points);
    * the seat count is within 2..the game's seats;
    * the chip unit is positive and, at points stakes, divides the point's value;
    * between one and five rates of the schedule apply to the stakes, in the version in force
      now and in every version already scheduled for later, and each of their fees is a whole
      number of the table's chips (:func:`fee_chip_problems`: a schedule is shared by tables with
      chips of their own, so this is checked from each side).
    """
    problems: dict[str, str] = {}
    if game.kind == GameKind.POT and stakes.structure == Structure.POINTS:
        problems["stakes"] = (
            f"{stakes.label} is a points stakes; {game.name} is a pot game (limit, pot or no limit)."
        )
    elif game.kind == GameKind.PLAYER_DEALER and stakes.structure != Structure.POINTS:
        problems["stakes"] = f"{game.name} is played for points; {stakes.label} is not a points stakes."
    stakes_issues = stakes_problems(stakes)
    if stakes_issues and "stakes" not in problems:
        problems["stakes"] = f"{stakes.code} is inconsistent: " + "; ".join(stakes_issues.values())
    seats = _as_int(seat_count)
    if seats is None or not MIN_PLAYERS <= seats <= game.seat_count:
        problems["seat_count"] = (
            f"{game.name} is dealt at {MIN_PLAYERS} to {game.seat_count} seats, not {seat_count}."
        )
    chip = _as_int(chip_unit_cents)
    if chip is None or chip <= 0:
        chip = None
        problems["chip_unit_cents"] = "The chip unit must be a positive whole number of cents."
    elif stakes.structure == Structure.POINTS and stakes.point_cents and stakes.point_cents % chip:
        # Points games pay every settlement in points (004 rule 12: chips below the table's
        # denomination don't play), so a point must be whole chips; the engine would refuse each
        # showdown of such a table instead.
        problems["chip_unit_cents"] = (
            f"At {stakes.label} a point ({format_cents(stakes.point_cents)}) must be a whole number of the "
            f"table's chips ({format_cents(chip)})."
        )
    if "stakes" not in problems:
        versions = schedule.versions_from(at)
        if not versions:
            problems["collection_schedule"] = f"Schedule {schedule.code} has no version in force."
        for version in versions:
            applying = [rate for rate in version.rates.all() if rate.matches_stakes(stakes)]
            where = f"{stakes.label} under schedule {schedule.code} v{version.number}"
            problem = rate_count_problem(len(applying), where=f"to {where}")
            if problem is None and chip is not None:
                chips = [
                    message
                    for rate in applying
                    for message in fee_chip_problems(rate, chip_unit_cents=chip, where="the table").values()
                ]
                if chips:
                    problem = f"Schedule {schedule.code} v{version.number}: {chips[0]}"
            if problem:
                problems["collection_schedule"] = problem
                break
    return problems
