"""Showdown inputs of every kind the engine decides, for the tests of the typed reading, the
postings and the reading in words: one generator per engine kind over a ``random.Random`` (so a
seeded corpus and hypothesis, through ``st.randoms()``, draw from the same hands), and the worked
examples of docs/showdown-json.md.

The generators make hands the engine accepts (the few it refuses are dropped by :func:`corpus`):
every pot game with folds, side pots, odd chips below a chip, hands won without a showdown,
lowball with and without the joker and with the sevens rule; Chinese poker under every rule set
with set, fouled (by the order, by the house), declared (true and false) and surrendered hands,
with and without all-in caps; Taiwanese poker with two to six players and one to three boards.
"""

from __future__ import annotations

import json
import random
from typing import Any

from poker.cards import FULL_DECK
from poker.chinese_rules import RULE_SETS
from poker.errors import ShowdownError
from poker.showdown import POT_GAMES, decide

DECK = [c.text for c in FULL_DECK]
POT_GAME_NAMES = list(POT_GAMES)
CHINESE_RULES = list(RULE_SETS)
# Three disjoint clean sweeps, dealt to some players so that sweeps meet sweeps and set hands.
SWEEP_HANDS = [
    ("dragon", ["2c", "3d", "4h", "5s", "6c", "7d", "8h", "9s", "Tc", "Jh", "Qs", "Kc", "Ad"]),
    ("six-pairs", ["2d", "2h", "3c", "3h", "4c", "4d", "5c", "5d", "6d", "6h", "7c", "7h", "As"]),
    ("three-flushes", ["2s", "3s", "4s", "6s", "7s", "8d", "9d", "Td", "Jd", "Kd", "8c", "9c", "Jc"]),
]
SEVEN_OR_BETTER_RANKS = "A234567"


def _rank(card: str) -> int:
    return "23456789TJQKA".index(card[0])


def pot_hand(rng: random.Random, game: str | None = None) -> dict[str, Any]:
    """A pot game's hand: 2 to 8 players, some folded, put-ins on a few levels (side pots, uncalled
    chips, now and then an amount below a chip), the button a player's seat (stud games may go
    without); lowball with or without the joker, and now and then the sevens rule."""
    name = game or rng.choice(POT_GAME_NAMES)
    spec = POT_GAMES[name]
    hand: dict[str, Any] = {"game": name}
    deck = list(DECK)
    if spec.joker:
        joker = rng.choice([None, None, True, False])
        if joker is not None:
            hand["joker"] = joker
        if joker is not False:
            deck.append("JK")
    rng.shuffle(deck)
    most = min(8, (len(deck) - spec.board) // spec.hole)
    n = rng.randint(2, most)
    seats = sorted(rng.sample(range(1, 11), n))
    chip = rng.choice([25, 100, 500])
    hand["chip"] = chip
    folded = [rng.random() < 0.3 for _ in seats]
    if all(folded):
        folded[rng.randrange(n)] = False
    levels = sorted(rng.sample(range(1, 40), rng.randint(1, 3)))
    put_ins = []
    for _ in seats:
        amount = chip * rng.choice(levels)
        if rng.random() < 0.1:
            amount += rng.randint(1, chip - 1)  # an all-in below a whole chip
        put_ins.append(amount)
    top_live = max(p for p, f in zip(put_ins, folded, strict=True) if not f)
    put_ins = [min(p, top_live) if f else p for p, f in zip(put_ins, folded, strict=True)]
    live = [i for i in range(n) if not folded[i]]
    marked: int | None = None
    if spec.sevens and rng.random() < 0.4:
        marked = rng.choice(live)
    marked_cards = _seven_or_better(rng, deck) if marked is not None else []
    players: list[dict[str, Any]] = []
    no_showdown = len(live) == 1 and rng.random() < 0.5
    for i, seat in enumerate(seats):
        player: dict[str, Any] = {"seat": seat, "put_in": put_ins[i]}
        if folded[i]:
            player["folded"] = True
        cards = marked_cards if i == marked else [deck.pop() for _ in range(spec.hole)]
        if (folded[i] and rng.random() < 0.5) or (no_showdown and not folded[i] and i != marked):
            pass  # a folded hand (or the one live hand that won uncontested) needn't be shown
        else:
            player["cards"] = cards
        players.append(player)
    if marked is not None:
        for i, player in enumerate(players):
            if not folded[i] or rng.random() < 0.5:
                player["put_in_after_draw"] = rng.randint(0, player["put_in"] // chip) * chip
        players[marked]["checked_seven"] = True
    hand["players"] = players
    if spec.board:
        hand["board"] = [] if no_showdown else [deck.pop() for _ in range(spec.board)]
    if not spec.stud or rng.random() < 0.5:
        hand["button"] = rng.choice(seats)
    return hand


def _seven_or_better(rng: random.Random, deck: list[str]) -> list[str]:
    """Five cards of five different ranks, seven or lower (ace low), taken out of ``deck``."""
    ranks = rng.sample(SEVEN_OR_BETTER_RANKS, 5)
    cards = []
    for rank in ranks:
        card = rng.choice([c for c in deck if c[0] == rank])
        deck.remove(card)
        cards.append(card)
    return cards


def chinese_hand(rng: random.Random, rules: str | None = None) -> dict[str, Any]:
    """A Chinese poker hand: 2 to 4 players under a rule set (now and then with an option), each
    hand set (sorted or not), declared (a true sweep, or any sweep, which most hands don't hold),
    surrendered or fouled by the house; stacks now and then small enough to cap payments."""
    n = rng.randint(2, 4)
    seats = sorted(rng.sample(range(1, 10), n))
    rule_name = rules or rng.choice(CHINESE_RULES)
    rule_set = RULE_SETS[rule_name]
    sweeps_here = [s for s in SWEEP_HANDS if s[0] in {str(k) for k in rule_set.sweep_values}]
    k = rng.randint(0, min(2, len(sweeps_here)))
    sweepers = rng.sample(sweeps_here, k)
    fixed = {c for _, cards in sweepers for c in cards}
    rest = [c for c in DECK if c not in fixed]
    rng.shuffle(rest)
    rule: Any = rule_name
    if rules is None and rng.random() < 0.3:
        rule = {"base": rule_name, "scoop-double": True}
    point = rng.choice([100, 500])
    players = []
    for i, seat in enumerate(seats):
        player: dict[str, Any] = {"seat": seat}
        if rng.random() < 0.8:
            player["stack"] = rng.randint(0, 40) * point // 2
        if i < k:
            name, cards = sweepers[i]
            player["cards"] = cards
            player["declare"] = rng.choice([name, True])
            players.append(player)
            continue
        cards = rest[13 * (i - k) : 13 * (i - k) + 13]
        mode = rng.choice(["sorted", "sorted", "sorted", "random", "declare", "surrender", "fouled"])
        if mode == "surrender" and rule_set.surrender_points is not None:
            player["surrender"] = True
            if rng.random() < 0.5:
                player["cards"] = cards
        elif mode == "declare" and rule_set.sweep_values:
            player["cards"] = cards
            player["declare"] = True  # any sweep: most hands foul
        elif mode == "fouled":
            player["fouled"] = True
            player["front"], player["middle"] = cards[:2], cards[2:7]  # a wrong count, fouled by the house
        else:
            if mode == "sorted":  # high cards at the back: legal more often than not
                cards = sorted(cards, key=_rank, reverse=True)
            player["back"], player["middle"], player["front"] = cards[:5], cards[5:10], cards[10:]
        players.append(player)
    return {
        "game": "chinese-poker",
        "rules": rule,
        "point": point,
        "button": rng.choice(seats),
        "players": players,
    }


def taiwanese_hand(rng: random.Random) -> dict[str, Any]:
    """A Taiwanese poker hand: 2 to 6 players, as many boards (1 to 3) as the deck allows, stacks
    now and then small enough to cap payments."""
    n = rng.randint(2, 6)
    boards = rng.randint(1, min(3, (52 - 7 * n) // 5))
    order = list(DECK)
    rng.shuffle(order)
    seats = sorted(rng.sample(range(1, 10), n))
    chip = rng.choice([25, 100])
    players = []
    for i, seat in enumerate(seats):
        cards = order[7 * i : 7 * i + 7]
        player: dict[str, Any] = {"seat": seat, "top": cards[:1], "middle": cards[1:3], "bottom": cards[3:]}
        if rng.random() < 0.5:
            player["stack"] = rng.randint(0, 60) * chip
        players.append(player)
    used = 7 * n
    board_cards = [order[used + 5 * b : used + 5 * b + 5] for b in range(boards)]
    hand: dict[str, Any] = {
        "game": "taiwanese-poker",
        "point": chip * rng.randint(1, 4),
        "chip": chip,
        "button": rng.randint(1, 9),
        "players": players,
    }
    if boards == 1 and rng.random() < 0.5:
        hand["board"] = board_cards[0]
    else:
        hand["boards"] = board_cards
    return hand


def any_hand(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(["pot", "pot", "chinese", "taiwanese"])
    if kind == "pot":
        return pot_hand(rng)
    return chinese_hand(rng) if kind == "chinese" else taiwanese_hand(rng)


#: The worked examples of docs/showdown-json.md, and a few hands every reader must word.
WORKED: list[dict[str, Any]] = [
    {
        "game": "omaha-hi-lo",
        "button": 3,
        "chip": 100,
        "board": ["6c", "8c", "6d", "3h", "6s"],
        "players": [
            {"seat": 1, "cards": ["2s", "4c", "Jd", "9h"], "put_in": 2000},
            {"seat": 2, "cards": ["Tc", "5c", "Qc", "Ah"], "put_in": 2000},
            {"seat": 3, "cards": ["Kh", "Kd", "7h", "Jh"], "put_in": 2000},
            {"seat": 5, "put_in": 500, "folded": True},
        ],
    },
    {
        "game": "lowball",
        "button": 3,
        "chip": 100,
        "players": [
            {
                "seat": 1,
                "cards": ["7c", "5d", "4c", "3h", "2h"],
                "put_in": 1800,
                "put_in_after_draw": 800,
                "checked_seven": True,
            },
            {"seat": 2, "put_in": 1400, "folded": True, "put_in_after_draw": 400},
            {"seat": 3, "cards": ["8c", "6d", "4d", "3c", "2d"], "put_in": 1800, "put_in_after_draw": 800},
        ],
    },
    {  # the board plays: a three-way split, the odd chip first clockwise from the button
        "game": "holdem",
        "button": 2,
        "chip": 100,
        "board": ["As", "Ks", "Qs", "Js", "Ts"],
        "players": [
            {"seat": 1, "cards": ["2c", "3d"], "put_in": 500},
            {"seat": 2, "cards": ["4c", "5d"], "put_in": 500},
            {"seat": 4, "cards": ["6c", "7d"], "put_in": 500},
            {"seat": 6, "cards": ["8c", "9d"], "put_in": 100, "folded": True},
        ],
    },
    {  # everyone else folded: no showdown, no hand read
        "game": "holdem",
        "button": 1,
        "chip": 100,
        "board": [],
        "players": [{"seat": 1, "put_in": 400}, {"seat": 2, "put_in": 200, "folded": True}],
    },
    {  # a dragon, a set hand, a surrender and a house foul; the dragon capped by a short stack
        "game": "chinese-poker",
        "rules": "house",
        "point": 500,
        "button": 1,
        "players": [
            {"seat": 1, "cards": SWEEP_HANDS[0][1], "declare": "dragon", "stack": 10000},
            {
                "seat": 2,
                "front": ["Jc", "Js", "2h"],
                "middle": ["Ac", "As", "3c", "3h", "4d"],
                "back": ["Kd", "Kh", "Ks", "5c", "5h"],
                "stack": 2000,
            },
            {"seat": 3, "surrender": True, "stack": 10000},
            {"seat": 4, "fouled": True, "front": ["9c", "9h"], "stack": 10000},
        ],
    },
    {  # two boards, a scoop somewhere or not, one short stack
        "game": "taiwanese-poker",
        "point": 100,
        "chip": 100,
        "button": 2,
        "boards": [["Ac", "Ad", "Kh", "3s", "2d"], ["7c", "8c", "9d", "Ts", "4h"]],
        "players": [
            {
                "seat": 1,
                "top": ["Qs"],
                "middle": ["As", "Kd"],
                "bottom": ["9c", "9h", "4s", "5s"],
                "stack": 500,
            },
            {"seat": 2, "top": ["2c"], "middle": ["3d", "4d"], "bottom": ["6h", "6s", "Jc", "Jd"]},
            {"seat": 3, "top": ["Ks"], "middle": ["Qd", "Qh"], "bottom": ["Th", "Td", "8h", "8s"]},
        ],
    },
]


def decided(hand: dict[str, Any]) -> dict[str, Any] | None:
    """The engine's reading of ``hand``, or None when it refuses it."""
    try:
        return decide(hand)
    except ShowdownError:
        return None


def corpus(
    seed: int, *, pot: int, chinese: int, taiwanese: int
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``(input, reading)`` pairs: the worked examples, then ``pot`` pot-game hands (the games in
    turn), ``chinese`` Chinese and ``taiwanese`` Taiwanese poker hands, from ``seed``."""
    rng = random.Random(seed)
    hands = list(WORKED)
    hands += [pot_hand(rng, POT_GAME_NAMES[i % len(POT_GAME_NAMES)]) for i in range(pot)]
    hands += [chinese_hand(rng, CHINESE_RULES[i % len(CHINESE_RULES)]) for i in range(chinese)]
    hands += [taiwanese_hand(rng) for _ in range(taiwanese)]
    out = []
    for hand in hands:
        reading = decided(hand)
        if reading is not None:
            out.append((hand, reading))
    return out


#: Values to put where a reading (or postings) has another: each of a JSON type, ``...`` deletes.
JUNK: list[Any] = [None, True, 0, -1, 1.5, "", "x", "7", [], [1], {}, {"x": 1}, ...]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


def corrupt(value: dict[str, Any], rng: random.Random, junk: Any, *, rename: bool) -> None:
    """Change one place of ``value`` (a JSON object) in place: rename a key (``rename``), delete
    an item (``junk`` is ``...``) or put ``junk`` there."""
    where = rng.choice(_paths(value))
    node: Any = value
    for part in where[:-1]:
        node = node[part]
    last = where[-1]
    if rename and isinstance(node, dict):
        node[f"{last}x" if rng.random() < 0.5 else str(last).upper()] = node.pop(last)
    elif junk is ...:
        del node[last]
    else:
        node[last] = json.loads(json.dumps(junk))
