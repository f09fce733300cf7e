"""What the floor knows of a game that the engine doesn't: the misdeals that fit it, and the name
a card room says it by.

Built on the engine's game descriptor (:func:`poker.games.rules_for`, keyed on ``Game.slug``): a
game is asked what it is (a pot game, a stud game, a game with 004's lowball rules, Chinese poker)
rather than compared by name. The misdeal reasons and their sources are listed in
``docs/misdeals.md``; :func:`misdeal_reasons_for` is the one place that says which apply where,
read by the screen (the reasons offered) and by the service that voids a hand
(:func:`tables.services.check_misdeal_reason`, which refuses any other).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Final

from poker.errors import ShowdownError
from poker.games import EngineKind, GameRules, rules_for
from tables.choices import MisdealReason

__all__ = ["GAME_WORDS", "misdeal_reasons_for", "say_games"]

R = MisdealReason

#: 004, Chinese poker rule 7 a-d and rule 9: the misdeals of a player-dealer game of 13 cards.
CHINESE_POKER_004: Final = (R.EXPOSED_FIVE, R.WRONG_COUNT, R.BOXED_CARDS, R.FOREIGN_CARD, R.DUPLICATE_CARD)
#: 004, lowball rule 13.
LOWBALL_004: Final = (R.SIX_CARDS, R.EXPOSED_UP)
#: Robert's Rules of Poker, Section 3: "Misdeals" 2 a-j, then the defective decks of
#: "Irregularities" 3 and 4 (the pot games).
ROBERTS_RULES: Final = (
    R.FIRST_CARDS_EXPOSED,
    R.TWO_EXPOSED,
    R.TWO_BOXED,
    R.EXTRA_CARDS,
    R.WRONG_NUMBER,
    R.OUT_OF_SEQUENCE,
    R.BUTTON_MISPLACED,
    R.FIRST_CARD_WRONG,
    R.EMPTY_SEAT_DEALT,
    R.PLAYER_DEALT_OUT,
    R.DIFFERENT_BACK,
    R.SAME_CARD_TWICE,
)
#: Only a button game has these: a stud game has no button, and at stud an exposed first or second
#: down card is no misdeal (the player's third card is dealt down: Robert's Rules, seven-card stud).
BUTTON_GAMES_ONLY: Final = frozenset({R.FIRST_CARDS_EXPOSED, R.BUTTON_MISPLACED})
#: Lowball: 004 rule 13 says which exposed and extra cards void the deal (more than one card face
#: up, six cards to two players), in place of Robert's 2a, 2b and 2d.
LOWBALL_004_REPLACES: Final = frozenset({R.FIRST_CARDS_EXPOSED, R.TWO_EXPOSED, R.EXTRA_CARDS})


def _reasons(rules: GameRules) -> tuple[MisdealReason, ...]:
    """The misdeals of one game, ``other`` not included."""
    if rules.dealers_choice:  # each hand is one of its games: any of theirs
        seen: dict[MisdealReason, None] = {}
        for choice in rules.choices:
            seen.update(dict.fromkeys(_reasons(choice)))
        return tuple(seen)
    if rules.engine is EngineKind.CHINESE:
        return CHINESE_POKER_004
    if not rules.is_pot_game:
        return ()  # Taiwanese poker: neither 004 nor Robert's Rules names its misdeals
    stud = rules.odd_chips_by_suit  # the stud games (no button)
    reasons = [r for r in ROBERTS_RULES if not (stud and r in BUTTON_GAMES_ONLY)]
    if rules.sevens:  # the game of 004's lowball rules
        reasons = [*LOWBALL_004, *(r for r in reasons if r not in LOWBALL_004_REPLACES)]
    return tuple(reasons)


@functools.cache
def misdeal_reasons_for(slug: str) -> tuple[MisdealReason, ...]:
    """The misdeal reasons that fit the game named ``slug`` (a ``Game.slug``), in the order the
    screen offers them, ``other`` last (every game has it):

    * Chinese poker: 004's rule 7 a-d and rule 9;
    * the pot games: Robert's Rules of Poker's misdeals and defective decks, but at a stud game
      neither the exposed first or second card nor the button; lowball: 004's rule 13 first, in
      place of Robert's exposed and extra cards;
    * Taiwanese poker, and a game the engine doesn't know: ``other`` alone;
    * dealer's choice: any of its games' (a hand's own game is the one picked).
    """
    try:
        rules = rules_for(slug)
    except ShowdownError:
        return (R.OTHER,)
    return (*_reasons(rules), R.OTHER)


#: How a card room says each game in a sentence (the engine's messages name it by its slug; a
#: slug not listed is left as it is).
GAME_WORDS: Final[Mapping[str, str]] = {
    "holdem": "Hold'em",
    "omaha": "Omaha",
    "omaha-hi-lo": "Omaha hi-lo",
    "stud": "seven card stud",
    "stud-hi-lo": "seven card stud hi-lo",
    "razz": "razz",
    "five-card-stud": "five card stud",
    "five-card-draw": "five card draw",
    "five-card-draw-hi-lo": "five card draw hi-lo",
    "lowball": "lowball",
    "option-alley": "option alley",
    "chinese-poker": "Chinese poker",
    "taiwanese-poker": "Taiwanese poker",
    "dealers-choice": "dealer's choice",
    "stud-choice": "seven card stud choice",
}

#: The slugs that aren't words of their own (``stud``, ``razz``... are: left as they are, so that a
#: message's "stud" or "lowball" is never taken for a game's slug by mistake).
_SLUGS_TO_SAY: Final = sorted((s for s in GAME_WORDS if "-" in s or s == "holdem"), key=len, reverse=True)
_SLUG: Final = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, _SLUGS_TO_SAY)) + r")(?![\w-])")


def say_games(text: str) -> str:
    """``text`` with each game named by its slug (``holdem``, ``chinese-poker``) named as a card
    room says it (``Hold'em``, ``Chinese poker``)."""
    return _SLUG.sub(lambda m: GAME_WORDS[m.group(1)], text)
