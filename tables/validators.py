"""Consistency rules of the floor configuration, as functions returning problems by field.

Each ``*_problems`` function returns ``{field: message}`` (empty when all is well), so the
same rule feeds model ``clean()`` (admin and forms show each message by its field) and the
services (which raise a :class:`tables.errors.FloorValidationError` subclass).
"""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Iterable

from tables.models import (
    BIG_BET_STRUCTURES,
    MAX_RATES_PER_TABLE,
    MIN_PLAYERS,
    CollectionRate,
    CollectionSchedule,
    Game,
    GameKind,
    KillType,
    Payer,
    RateStructure,
    Stakes,
    Structure,
    format_cents,
)
from tables.selectors import applicable_rates, future_and_current_versions

_BET_FIELDS = ("small_bet_cents", "big_bet_cents", "alt_small_bet_cents", "alt_big_bet_cents")


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
    """What is wrong with one collection rate row on its own."""
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
      now and in every version already scheduled for later.
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
    if seat_count is None or not MIN_PLAYERS <= seat_count <= game.seat_count:
        problems["seat_count"] = (
            f"{game.name} is dealt at {MIN_PLAYERS} to {game.seat_count} seats, not {seat_count}."
        )
    if chip_unit_cents is None or chip_unit_cents <= 0:
        problems["chip_unit_cents"] = "The chip unit must be a positive number of cents."
    elif stakes.structure == Structure.POINTS and stakes.point_cents and stakes.point_cents % chip_unit_cents:
        # Points games pay every settlement in points (004 rule 12: chips below the table's
        # denomination don't play), so a point must be whole chips; the engine would refuse each
        # showdown of such a table instead.
        problems["chip_unit_cents"] = (
            f"At {stakes.label} a point ({format_cents(stakes.point_cents)}) must be a whole number of the "
            f"table's chips ({format_cents(chip_unit_cents)})."
        )
    if "stakes" not in problems:
        versions = future_and_current_versions(schedule, at=at)
        if not versions:
            problems["collection_schedule"] = f"Schedule {schedule.code} has no version in force."
        for version in versions:
            count = len(applicable_rates(version.rates.all(), stakes))
            problem = rate_count_problem(
                count, where=f"to {stakes.label} under schedule {schedule.code} v{version.number}"
            )
            if problem:
                problems["collection_schedule"] = problem
                break
    return problems
