"""The floor's vocabulary: choices and limits shared by the models, the validators and the chip
rules (plain values, no models: the validators and chip rules need them without the models)."""

from __future__ import annotations

from django.db import models

from poker.kill import KillKind

MAX_SEATS = 10  # the largest table 004 deals (its fee bands stop at 10 players)
MIN_PLAYERS = 2  # no hand is dealt to fewer than two players
MAX_RATES_PER_TABLE = 5  # 004 Chinese poker collection procedure; RULINGS §3 and §6

# The chip rules' numbers (:mod:`tables.chip_rules` applies them; the validators' fee warnings
# measure a fee against the same minimum buy-in, so both read them here).
LIMIT_MIN_BIG_BETS = 10  # a limit table's minimum buy-in, when its stakes state none
POINTS_BUY_IN = 20  # 004 Chinese poker rule 1
POINTS_SHORT_REBUY = 10  # 004 Chinese poker rule 1
POINTS_TO_PLAY = 9  # 004 Chinese poker rule 2; RULINGS §3


class GameKind(models.TextChoices):
    POT = "pot", "Pot game"
    PLAYER_DEALER = "player_dealer", "Player-dealer game"


class Structure(models.TextChoices):
    LIMIT = "limit", "Limit"
    POT_LIMIT = "pot_limit", "Pot limit"
    NO_LIMIT = "no_limit", "No limit"
    POINTS = "points", "Points"


POT_GAME_STRUCTURES = frozenset({Structure.LIMIT, Structure.POT_LIMIT, Structure.NO_LIMIT})
BIG_BET_STRUCTURES = frozenset({Structure.POT_LIMIT, Structure.NO_LIMIT})


class KillType(models.TextChoices):
    NONE = "none", "No kill"
    HALF = "half", "Half kill"
    FULL = "full", "Full kill"

    @property
    def multiplier_pct(self) -> int:
        """The stakes of a kill hand in percent: x1.5 half kill, x2 full kill (004 rule 2; the
        engine's :attr:`poker.kill.KillKind.multiplier_pct`)."""
        return KillKind(self.value).multiplier_pct


class RateStructure(models.TextChoices):
    LIMIT = "limit", "Limit"
    BIG_BET = "nl_pl", "No-limit and pot limit"
    POINTS = "points", "Points"


class Payer(models.TextChoices):
    """Who pays a rate's fee before the deal (RULINGS §6: by default the button player)."""

    BUTTON = "button", "The button player"
    EACH_PLAYER = "each_player", "Each player dealt in"
    BUTTON_AND_OTHERS = "button_and_others", "The button player, and each other player"


class MisdealReason(models.TextChoices):
    """Why a hand was void: the misdeals 004 names, and ``other`` (which needs the dealer's words).

    Chinese poker rule 7 a-d and rule 9; lowball rule 13. A code may carry text as well.
    """

    EXPOSED_FIVE = (
        "exposed_five",
        "Five or more cards of one player's hand exposed by the dealer (004 Chinese poker 7a)",
    )
    WRONG_COUNT = "wrong_count", "A player dealt the wrong number of cards (004 Chinese poker 7b)"
    BOXED_CARDS = "boxed_cards", "Five or more boxed cards in the deck (004 Chinese poker 7c)"
    FOREIGN_CARD = "foreign_card", "A foreign card in the deck (004 Chinese poker 7d)"
    DUPLICATE_CARD = "duplicate_card", "The same card in two players' hands (004 Chinese poker 9)"
    SIX_CARDS = "six_cards", "Six cards dealt to two players (004 lowball 13)"
    EXPOSED_UP = "exposed_up", "More than one card exposed face up by the dealer (004 lowball 13)"
    OTHER = "other", "Other (say what happened)"


class HandStatus(models.TextChoices):
    """Where a hand stands (the moves allowed between them: :data:`tables.models.HAND_TRANSITIONS`).

    Here rather than beside :class:`tables.models.Hand`: a table asks for its hand in progress by
    these, and the hand's model points at the table's.
    """

    OPEN = "open", "Open"  # created, fees due; cards not yet dealt
    DEALT = "dealt", "Dealt"
    SHOWDOWN = "showdown", "Showdown"
    SETTLED = "settled", "Settled"
    VOID = "void", "Void"  # misdeal: nothing settled, fees returned unless the table keeps them

    @classmethod
    def in_progress(cls) -> list[str]:
        return [cls.OPEN, cls.DEALT, cls.SHOWDOWN]

    @classmethod
    def before_showdown(cls) -> list[str]:
        """A hand in these has no reading: the showdown that makes one moves it on for good."""
        return [cls.OPEN, cls.DEALT]
