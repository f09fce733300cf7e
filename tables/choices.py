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
    """Why a hand was void: the misdeals 004 names (Chinese poker rule 7 a-d and rule 9; lowball
    rule 13), the misdeals of Robert's Rules of Poker for the pot games (Section 3, "Misdeals" 2
    a-j, and the defective decks of "Irregularities" 3 and 4), and ``other`` (which needs the
    dealer's words). A code may carry text as well.

    Which codes fit which game is said once, in :func:`tables.games.misdeal_reasons_for`; the list
    and its sources are in ``docs/misdeals.md``. Codes are at most 20 characters (the column).
    """

    # 004, Chinese poker
    EXPOSED_FIVE = (
        "exposed_five",
        "Five or more cards of one player's hand exposed by the dealer (004 Chinese poker 7a)",
    )
    WRONG_COUNT = "wrong_count", "A player dealt the wrong number of cards (004 Chinese poker 7b)"
    BOXED_CARDS = "boxed_cards", "Five or more boxed cards in the deck (004 Chinese poker 7c)"
    FOREIGN_CARD = "foreign_card", "A foreign card in the deck (004 Chinese poker 7d)"
    DUPLICATE_CARD = "duplicate_card", "The same card in two players' hands (004 Chinese poker 9)"
    # 004, lowball
    SIX_CARDS = "six_cards", "Six cards dealt to two players (004 lowball 13)"
    EXPOSED_UP = "exposed_up", "More than one card exposed face up by the dealer (004 lowball 13)"
    # Robert's Rules of Poker, the pot games
    FIRST_CARDS_EXPOSED = (
        "first_cards_exposed",
        "The first or second card of the hand exposed by the dealer (Robert's Rules, misdeal 2a)",
    )
    TWO_EXPOSED = "two_exposed", "Two or more cards exposed by the dealer (Robert's Rules, misdeal 2b)"
    TWO_BOXED = "two_boxed", "Two or more boxed cards found (Robert's Rules, misdeal 2c)"
    EXTRA_CARDS = (
        "extra_cards",
        "Two or more extra cards dealt in the starting hands (Robert's Rules, misdeal 2d)",
    )
    WRONG_NUMBER = "wrong_number", "A player dealt a wrong number of cards (Robert's Rules, misdeal 2e)"
    OUT_OF_SEQUENCE = "out_of_sequence", "A card dealt out of sequence (Robert's Rules, misdeal 2f)"
    BUTTON_MISPLACED = "button_misplaced", "The button out of position (Robert's Rules, misdeal 2g)"
    FIRST_CARD_WRONG = (
        "first_card_wrong",
        "The first card dealt to the wrong seat (Robert's Rules, misdeal 2h)",
    )
    EMPTY_SEAT_DEALT = (
        "empty_seat_dealt",
        "Cards dealt to an empty seat or a player not entitled to a hand (Robert's Rules, misdeal 2i)",
    )
    PLAYER_DEALT_OUT = (
        "player_dealt_out",
        "A player entitled to a hand dealt out (Robert's Rules, misdeal 2j)",
    )
    DIFFERENT_BACK = (
        "different_back",
        "A card with a different back in the hand (Robert's Rules, irregularities 3)",
    )
    SAME_CARD_TWICE = (
        "same_card_twice",
        "Two cards of the same rank and suit found (Robert's Rules, irregularities 4)",
    )
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
