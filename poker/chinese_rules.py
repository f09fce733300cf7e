"""Chinese poker rule sets as data (RULINGS sections 3-4; docs/chinese-taiwanese.md).

A rule set is one frozen :class:`ChineseRules`: the scoring engine in :mod:`.chinese` has one
code path and reads these options.  The named sets are in :data:`RULE_SETS`; a hand may give
``"rules": "<name>"`` or an inline object ``{"base": "<name>", "<option>": value, ...}`` that
overrides the named set's options (:func:`resolve_rules`).  Unknown names and options are
errors.

Options (JSON names; ``_`` may be written for ``-``):

``button-wins-ties`` (bool)
    The button player (P1) wins every tied segment it is part of (004).
``overall`` (``none`` | ``segments`` | ``net``) and ``overall-points`` (int)
    The extra unit per pair: ``segments`` to the player who won at least two segments (002's
    2-4 "overall unit", 003's Western majority point); ``net`` to the player whose net after
    segments and royalties is positive (001's 4-2 bonus point).
``scoop-points`` (int)
    Extra points for winning all three segments (001's 6-1, 002's 1-6: 3).
``royalties`` (bool), ``bonuses`` (table)
    Whether the bonus/royalty table is paid, and the table: ``{"front": {"three-of-a-kind": 3},
    "middle": {...}, "back": {...}}``.  Paid only to the winner of the segment.
``double-same-type`` (bool)
    003 Eastern: a bonus is doubled when the loser's hand is of the same bonus type and the
    winner's is higher.
``lowball-middle`` (bool), ``lowball-bonuses`` (table)
    001: the middle plays low (see :mod:`.chinese`); only back > front is required; the
    royalty table becomes ``lowball-bonuses``.
``sweeps`` (``{"<kind>": value}``)
    Clean sweeps / naturals that may be declared, with their values; merged into the base
    set's table (a value of 0 removes a kind).
``natural-ties`` (``push`` | ``compare``)
    Two sweeps of equal value push (004), or, for two of the *same kind*, are compared (002:
    six pairs by the pairs, three straights/flushes by back, middle, front).
``surrender-points`` (int or null)
    What a surrendering player pays each opponent; ``null``: surrender is not allowed.
``scoop-double`` (bool)
    002's Taiwanese variant: a scooped player pays the base points (segments, overall unit and
    scoop bonus) double; a player who scoops every opponent (home run) is paid double again.
    Naturals are exempt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any, Final

from .errors import ShowdownError
from .sweeps import SweepKind, parse_sweep_kind

__all__ = [
    "DEFAULT_RULES",
    "RULE_SETS",
    "BonusHand",
    "BonusRow",
    "ChineseRules",
    "NaturalTies",
    "Overall",
    "RulesError",
    "Segment",
    "resolve_rules",
]


class RulesError(ShowdownError):
    """An unknown rule set, an unknown option or a bad option value."""


class Segment(StrEnum):
    FRONT = "front"
    MIDDLE = "middle"
    BACK = "back"


SEGMENTS: Final = (Segment.FRONT, Segment.MIDDLE, Segment.BACK)


class BonusHand(StrEnum):
    """Hands a bonus/royalty row can name."""

    THREE_OF_A_KIND = "three-of-a-kind"
    EIGHTS_OR_BETTER = "eights-or-better"  # three of a kind, eights or higher (001 lowball "888")
    FULL_HOUSE = "full-house"
    FOUR_OF_A_KIND = "four-of-a-kind"
    STRAIGHT_FLUSH = "straight-flush"
    ROYAL_FLUSH = "royal-flush"
    # The best lowball middle. 001 names "23457" (its deuce-to-seven reading); RULINGS 4 reads
    # the middle ace-to-five, where the best hand is the wheel (docs/chinese-taiwanese.md).
    WHEEL_LOW = "5-4-3-2-A"


class Overall(StrEnum):
    NONE = "none"
    SEGMENTS = "segments"
    NET = "net"


class NaturalTies(StrEnum):
    PUSH = "push"
    COMPARE = "compare"


@dataclass(frozen=True, slots=True)
class BonusRow:
    segment: Segment
    hand: BonusHand
    points: int


def _table(rows: Mapping[Segment, Mapping[BonusHand, int]]) -> tuple[BonusRow, ...]:
    return tuple(BonusRow(seg, hand, pts) for seg, row in rows.items() for hand, pts in row.items())


@dataclass(frozen=True, slots=True)
class ChineseRules:
    """One Chinese poker rule set (see the module docstring for each option)."""

    name: str
    button_wins_ties: bool = False
    overall: Overall = Overall.NONE
    overall_points: int = 0
    scoop_points: int = 0
    royalties: bool = False
    bonuses: tuple[BonusRow, ...] = ()
    double_same_type: bool = False
    lowball_middle: bool = False
    lowball_bonuses: tuple[BonusRow, ...] = ()
    sweeps: tuple[tuple[SweepKind, int], ...] = ()
    natural_ties: NaturalTies = NaturalTies.PUSH
    surrender_points: int | None = None
    scoop_double: bool = False

    @property
    def sweep_values(self) -> dict[SweepKind, int]:
        """Declarable kinds and their values (kinds worth 0 are not declarable)."""
        return {k: v for k, v in self.sweeps if v > 0}

    @property
    def bonus_table(self) -> tuple[BonusRow, ...]:
        """The bonus rows in force (none when royalties are off)."""
        if not self.royalties:
            return ()
        return self.lowball_bonuses if self.lowball_middle else self.bonuses

    def to_json(self) -> dict[str, Any]:
        """The effective rules, as the inline JSON object that reproduces them."""

        def table(rows: tuple[BonusRow, ...]) -> dict[str, dict[str, int]]:
            out: dict[str, dict[str, int]] = {}
            for r in rows:
                out.setdefault(str(r.segment), {})[str(r.hand)] = r.points
            return out

        return {
            "name": self.name,
            "button-wins-ties": self.button_wins_ties,
            "overall": str(self.overall),
            "overall-points": self.overall_points,
            "scoop-points": self.scoop_points,
            "royalties": self.royalties,
            "bonuses": table(self.bonuses),
            "double-same-type": self.double_same_type,
            "lowball-middle": self.lowball_middle,
            "lowball-bonuses": table(self.lowball_bonuses),
            "sweeps": {str(k): v for k, v in self.sweeps},
            "natural-ties": str(self.natural_ties),
            "surrender-points": self.surrender_points,
            "scoop-double": self.scoop_double,
        }


F, M, B = Segment.FRONT, Segment.MIDDLE, Segment.BACK
H = BonusHand

#: 004 bonus system = 003 Eastern bonuses (= the royalty structure the project uses for 002).
HOUSE_BONUSES: Final = _table(
    {
        F: {H.THREE_OF_A_KIND: 3},
        M: {H.FULL_HOUSE: 2, H.FOUR_OF_A_KIND: 8, H.STRAIGHT_FLUSH: 10},
        B: {H.FOUR_OF_A_KIND: 4, H.STRAIGHT_FLUSH: 5},
    }
)
#: The house table with the middle rows dropped, for the lowball-middle option.
HOUSE_LOWBALL_BONUSES: Final = _table(
    {F: {H.THREE_OF_A_KIND: 3}, B: {H.FOUR_OF_A_KIND: 4, H.STRAIGHT_FLUSH: 5}}
)
#: 001's standard royalty table.
BLUE_TIKI_ROYALTIES: Final = _table(
    {
        F: {H.THREE_OF_A_KIND: 1},
        M: {H.FULL_HOUSE: 1, H.FOUR_OF_A_KIND: 3, H.STRAIGHT_FLUSH: 4, H.ROYAL_FLUSH: 5},
        B: {H.FOUR_OF_A_KIND: 3, H.STRAIGHT_FLUSH: 4, H.ROYAL_FLUSH: 5},
    }
)
#: 001's royalty table for "lowball in the middle".
BLUE_TIKI_LOWBALL_ROYALTIES: Final = _table(
    {
        F: {H.EIGHTS_OR_BETTER: 1},
        M: {H.WHEEL_LOW: 1},
        B: {H.FOUR_OF_A_KIND: 1, H.STRAIGHT_FLUSH: 2, H.ROYAL_FLUSH: 3},
    }
)

S = SweepKind
#: 004 / RULINGS section 3 clean sweeps.
HOUSE_SWEEPS: Final = ((S.DRAGON, 13), (S.SIX_PAIRS, 3), (S.THREE_STRAIGHTS, 3), (S.THREE_FLUSHES, 3))
#: 003 Eastern clean sweeps.
EASTERN_SWEEPS: Final = (
    (S.DRAGON, 13),
    (S.THIRTEEN_COLOURS, 13),
    (S.TWELVE_COLOURS, 3),
    (S.SIX_PAIRS, 3),
    (S.THREE_STRAIGHTS, 3),
    (S.THREE_FLUSHES, 3),
)
#: 002's naturals (its table of values is not in the seed: values chosen by the project, see
#: docs/chinese-taiwanese.md).  002's "natural variants" (no pictures, all pictures, six and
#: above, 12 or 13 of one colour) are available to inline rules with a value.
ENCYCLOPEDIA_NATURALS: Final = (
    (S.SIX_PAIRS, 3),
    (S.THREE_STRAIGHTS, 3),
    (S.THREE_FLUSHES, 3),
    (S.FOUR_TRIPS, 6),
    (S.THREE_QUADS, 10),
    (S.DRAGON, 13),
    (S.THREE_STRAIGHT_FLUSHES, 20),
)

_BLUE_TIKI: Final = ChineseRules(
    name="blue-tiki",
    royalties=True,
    bonuses=BLUE_TIKI_ROYALTIES,
    lowball_bonuses=BLUE_TIKI_LOWBALL_ROYALTIES,
    surrender_points=3,
)
_ENCYCLOPEDIA: Final = ChineseRules(
    name="002",
    royalties=True,
    bonuses=HOUSE_BONUSES,
    lowball_bonuses=HOUSE_LOWBALL_BONUSES,
    sweeps=ENCYCLOPEDIA_NATURALS,
    natural_ties=NaturalTies.COMPARE,
    surrender_points=3,
)

#: The named rule sets.
RULE_SETS: Final[dict[str, ChineseRules]] = {
    r.name: r
    for r in (
        ChineseRules(
            name="house",
            button_wins_ties=True,
            royalties=True,
            bonuses=HOUSE_BONUSES,
            lowball_bonuses=HOUSE_LOWBALL_BONUSES,
            sweeps=HOUSE_SWEEPS,
            surrender_points=3,
        ),
        replace(_BLUE_TIKI, name="blue-tiki-4-2", overall=Overall.NET, overall_points=1),
        replace(_BLUE_TIKI, name="blue-tiki-6-1", scoop_points=3),
        replace(_ENCYCLOPEDIA, name="2-4", overall=Overall.SEGMENTS, overall_points=1),
        replace(_ENCYCLOPEDIA, name="1-6", scoop_points=3),
        ChineseRules(
            name="eastern",
            royalties=True,
            bonuses=HOUSE_BONUSES,
            lowball_bonuses=HOUSE_LOWBALL_BONUSES,
            double_same_type=True,
            sweeps=EASTERN_SWEEPS,
            surrender_points=3,
        ),
        ChineseRules(name="western", overall=Overall.SEGMENTS, overall_points=1, surrender_points=3),
    )
}
DEFAULT_RULES: Final = RULE_SETS["house"]


# --------------------------------------------------------------------------------------
# Inline rules
# --------------------------------------------------------------------------------------

_FIELD_NAMES: Final = frozenset(f.name for f in fields(ChineseRules)) - {"name"}


def _bool(value: object, option: str) -> bool:
    if value is True or value is False:
        return value
    raise RulesError(f"rules option {option!r} must be true or false, got {value!r}")


def _points(value: object, option: str, *, nullable: bool = False) -> int | None:
    if value is None and nullable:
        return None
    if type(value) is not int or value < 0:
        raise RulesError(f"rules option {option!r} must be a whole number of points >= 0, got {value!r}")
    return value


def _enum[E: StrEnum](cls: type[E], value: object, option: str) -> E:
    try:
        if not isinstance(value, str):
            raise ValueError(value)
        return cls(value)
    except ValueError:
        choices = ", ".join(str(m) for m in cls)
        raise RulesError(f"rules option {option!r} must be one of {choices}; got {value!r}") from None


def _bonus_table(value: object, option: str) -> tuple[BonusRow, ...]:
    if not isinstance(value, Mapping):
        raise RulesError(
            f'rules option {option!r} must be an object like {{"back": {{"four-of-a-kind": 4}}}}'
        )
    rows: list[BonusRow] = []
    for seg_name, row in value.items():
        seg = _enum(Segment, seg_name, f"{option}.{seg_name}")
        if not isinstance(row, Mapping):
            raise RulesError(f"rules option {option!r}: {seg_name!r} must map hands to points")
        for hand_name, pts in row.items():
            hand = _enum(BonusHand, hand_name, f"{option}.{seg_name}.{hand_name}")
            p = _points(pts, f"{option}.{seg_name}.{hand_name}")
            assert p is not None
            rows.append(BonusRow(seg, hand, p))
    return tuple(rows)


def _sweep_table(value: object, base: tuple[tuple[SweepKind, int], ...]) -> tuple[tuple[SweepKind, int], ...]:
    if not isinstance(value, Mapping):
        raise RulesError("rules option 'sweeps' must be an object like {\"dragon\": 13}")
    merged = dict(base)
    for name, pts in value.items():
        kind = parse_sweep_kind(name) if isinstance(name, str) else None
        if kind is None:
            raise RulesError(f"unknown clean sweep {name!r}; known: {', '.join(str(k) for k in SweepKind)}")
        p = _points(pts, f"sweeps.{name}")
        assert p is not None
        merged[kind] = p
    return tuple((k, v) for k, v in merged.items() if v > 0)


def _unknown_set(name: object) -> RulesError:
    return RulesError(f"unknown rule set {name!r}; rule sets are: {', '.join(RULE_SETS)}")


def resolve_rules(value: object) -> ChineseRules:
    """The rule set named by ``value`` (a name, an inline object, or ``None`` for ``house``).

    Raises:
        RulesError: unknown rule set, unknown option, or a bad option value.
    """
    if value is None:
        return DEFAULT_RULES
    if isinstance(value, str):
        rules = RULE_SETS.get(value)
        if rules is None:
            raise _unknown_set(value)
        return rules
    if not isinstance(value, Mapping):
        raise RulesError(f"rules must be a rule set name or an object with 'base', got {value!r}")
    base_name = value.get("base", DEFAULT_RULES.name)
    base = RULE_SETS.get(base_name) if isinstance(base_name, str) else None
    if base is None:
        raise _unknown_set(base_name)
    changes: dict[str, Any] = {}
    for key, raw in value.items():
        if key == "base":
            continue
        attr = key.replace("-", "_") if isinstance(key, str) else ""
        if attr not in _FIELD_NAMES:
            known = ", ".join(sorted(f.replace("_", "-") for f in _FIELD_NAMES))
            raise RulesError(f"unknown rules option {key!r}; options are: base, {known}")
        option = attr.replace("_", "-")
        if attr in ("button_wins_ties", "royalties", "double_same_type", "lowball_middle", "scoop_double"):
            changes[attr] = _bool(raw, option)
        elif attr in ("overall_points", "scoop_points"):
            changes[attr] = _points(raw, option)
        elif attr == "surrender_points":
            changes[attr] = _points(raw, option, nullable=True)
        elif attr == "overall":
            changes[attr] = _enum(Overall, raw, option)
        elif attr == "natural_ties":
            changes[attr] = _enum(NaturalTies, raw, option)
        elif attr in ("bonuses", "lowball_bonuses"):
            changes[attr] = _bonus_table(raw, option)
        else:  # sweeps
            changes[attr] = _sweep_table(raw, base.sweeps)
    if not changes:
        return base
    changed = [k.replace("_", "-") for k in changes if getattr(base, k) != changes[k]]
    if not changed:
        return base
    return replace(base, name="+".join([base.name, *changed]), **changes)
