"""Chinese and Taiwanese poker showdown throughput, and clean-sweep verification.

Run from the project root:

    .venv/bin/python benchmarks/bench_showdown_chinese.py [--hands N] [--seed S]

Prints, side by side, for seeded random deals:

* 4-player Chinese poker under the house rules (legal settings found by random splits, a few
  fouls, a declared sweep now and then, stacks that sometimes cap): settlements per second
  through ``poker.showdown.decide()`` in process, and the same hands as JSON Lines through
  one ``manage.py showdown`` subprocess (start-up included, and the rate once started: the
  wall time of a one-hand run taken off); target >= 5,000/s in process;
* 6-player Taiwanese poker on one board, the same two ways;
* clean-sweep verification (the 13 cards summarised and every sweep kind checked, as a
  declaration does): mean microseconds and verifications per second, next to the brute-force
  baseline that tries every 3 + 5 + 5 split (the reference of tests/poker/test_sweeps.py);
  target < 200 us.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from poker.cards import FULL_DECK, Card, parse_cards  # noqa: E402
from poker.chinese import read_setting  # noqa: E402
from poker.showdown import decide  # noqa: E402
from poker.sweeps import SweepKind, find_sweeps, summarise  # noqa: E402

DECK = [c.text for c in FULL_DECK]
SWEEP_HANDS = [
    ("dragon", "2c 3d 4h 5s 6c 7d 8h 9s Tc Jh Qs Kc Ad"),
    ("six-pairs", "2d 2h 3c 3h 4c 4d 5c 5d 6d 6h 7c 7h As"),
    ("three-flushes", "2s 3s 4s 6s 7s 8d 9d Td Jd Kd 8c 9c Jc"),
]


# --------------------------------------------------------------------------------------
# Deals
# --------------------------------------------------------------------------------------


def _set_hand(rng: random.Random, cards: list[str]) -> dict[str, list[str]]:
    """A legal setting found by random splits (the stronger five at the back); after 40 tries
    the last split is kept, fouled."""
    parsed = dict(zip(cards, parse_cards(cards), strict=True))
    split = cards
    for _ in range(40):
        split = rng.sample(cards, 13)
        f, m, b = split[:3], split[3:8], split[8:]
        segs, foul = read_setting([parsed[c] for c in f], [parsed[c] for c in m], [parsed[c] for c in b])
        if segs is not None and segs[1].value > segs[2].value:
            m, b = b, m
            segs, foul = read_setting([parsed[c] for c in f], [parsed[c] for c in m], [parsed[c] for c in b])
        if foul is None:
            return {"front": f, "middle": m, "back": b}
    return {"front": split[:3], "middle": split[3:8], "back": split[8:]}


def chinese_4(rng: random.Random) -> dict[str, Any]:
    deck = DECK[:]
    players: list[dict[str, Any]] = []
    if rng.random() < 0.1:  # a declared sweep now and then
        name, text = rng.choice(SWEEP_HANDS)
        cards = text.split()
        deck = [c for c in deck if c not in cards]
        players.append({"cards": cards, "declare": name})
    rng.shuffle(deck)
    for i in range(4 - len(players)):
        players.append(_set_hand(rng, deck[13 * i : 13 * i + 13]))
    rng.shuffle(players)
    for seat, p in enumerate(players, 1):
        p["seat"] = seat
        p["stack"] = rng.choice([20, 20, 20, 9, 5]) * 500
    return {
        "game": "chinese-poker",
        "rules": "house",
        "point": 500,
        "button": rng.randint(1, 4),
        "players": players,
    }


def taiwanese_6(rng: random.Random) -> dict[str, Any]:
    deck = DECK[:]
    rng.shuffle(deck)
    players = [
        {"seat": s + 1, "top": deck[7 * s : 7 * s + 1], "middle": deck[7 * s + 1 : 7 * s + 3],
         "bottom": deck[7 * s + 3 : 7 * s + 7], "stack": 20_000}
        for s in range(6)
    ]  # fmt: skip
    return {
        "game": "taiwanese-poker",
        "point": 100,
        "chip": 100,
        "button": rng.randint(1, 6),
        "boards": [deck[42:47]],
        "players": players,
    }


def sweep_hands(rng: random.Random, n: int) -> list[list[Card]]:
    """Random 13-card hands, every fourth one a sweep hand (declarations are mostly real)."""
    out: list[list[Card]] = []
    for i in range(n):
        if i % 4 == 3:
            out.append(list(parse_cards(SWEEP_HANDS[(i // 4) % 3][1])))
        else:
            out.append(rng.sample(FULL_DECK, 13))
    return out


# --------------------------------------------------------------------------------------
# Brute-force sweep baseline (every split; what the search replaces)
# --------------------------------------------------------------------------------------


def _straight(cards: Sequence[Card]) -> bool:
    ranks = sorted(c.rank for c in cards)
    if len(set(ranks)) != len(ranks):
        return False
    if ranks[-1] - ranks[0] == len(ranks) - 1:
        return True
    low = sorted(1 if r == 14 else r for r in ranks)
    return low[-1] - low[0] == len(ranks) - 1


def _flush(cards: Sequence[Card]) -> bool:
    return len({c.suit for c in cards}) == 1


def _three_of(cards: Sequence[Card], ok: Callable[[Sequence[Card]], bool]) -> bool:
    for front in combinations(cards, 3):
        if ok(front):
            rest = [c for c in cards if c not in front]
            for middle in combinations(rest, 5):
                if ok(middle) and ok([c for c in rest if c not in middle]):
                    return True
    return False


def brute_force(cards: Sequence[Card]) -> set[str]:
    found: set[str] = set()
    ranks = [c.rank for c in cards]
    if len(set(ranks)) == 13:
        found.add("dragon")
    if sum(ranks.count(r) // 2 for r in set(ranks)) >= 6:
        found.add("six-pairs")
    if _three_of(cards, _straight):
        found.add("three-straights")
    if _three_of(cards, _flush):
        found.add("three-flushes")
    return found


# --------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------


def per_second(fn: Callable[[Any], object], items: Sequence[Any], repeat: int = 3) -> float:
    """Best of ``repeat`` runs of ``fn`` over ``items`` (garbage collector paused)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            for item in items:
                fn(item)
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return len(items) / best


def command_seconds(hands: Sequence[Mapping[str, Any]]) -> float:
    """Wall time of one ``manage.py showdown`` process deciding all ``hands`` as JSON Lines."""
    payload = "".join(json.dumps(h) + "\n" for h in hands).encode()
    env = dict(os.environ, DJANGO_SETTINGS_MODULE=os.environ.get("DJANGO_SETTINGS_MODULE", "casino.settings"))
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "showdown"],
        input=payload,
        capture_output=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    elapsed = time.perf_counter() - start
    lines = proc.stdout.decode().splitlines()
    if proc.returncode != 0 or len(lines) != len(hands):
        raise SystemExit(f"manage.py showdown failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4000, help="deals per game (default 4000)")
    parser.add_argument("--sweeps", type=int, default=4000, help="13-card hands to verify (default 4000)")
    parser.add_argument(
        "--baseline-sweeps", type=int, default=60, help="hands for the brute force (default 60)"
    )
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    print(
        f"Chinese / Taiwanese showdowns, seed {args.seed},"
        f" Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
    )
    print(f"{'game':<40}{'decide()/s':>12}{'manage.py/s':>13}{'w/o start-up':>14}{'target':>12}")
    games = [
        ("chinese-poker house, 4 players", chinese_4, ">= 5,000/s"),
        ("taiwanese-poker, 6 players, 1 board", taiwanese_6, ""),
    ]
    for label, make, target in games:
        hands = [make(rng) for _ in range(args.hands)]
        for h in hands[:200]:
            decide(h)  # warm the readers' caches as a long-running process has them
        engine = per_second(decide, hands)
        start_up = min(command_seconds(hands[:1]) for _ in range(2))  # start-up and one hand
        total = command_seconds(hands)
        command, steady = len(hands) / total, (len(hands) - 1) / max(total - start_up, 1e-9)
        print(f"{label:<40}{engine:>12,.0f}{command:>13,.0f}{steady:>14,.0f}{target:>12}")

    kinds = tuple(SweepKind)
    house = (SweepKind.DRAGON, SweepKind.SIX_PAIRS, SweepKind.THREE_STRAIGHTS, SweepKind.THREE_FLUSHES)
    hands13 = sweep_hands(rng, args.sweeps)
    for cards in hands13[: args.baseline_sweeps]:  # the search and the baseline agree
        ours = {str(k) for k in find_sweeps(summarise(cards), house)}
        if ours != brute_force(cards):
            raise SystemExit(f"search and brute force disagree on {' '.join(map(str, cards))}")
    all_rate = per_second(lambda c: find_sweeps(summarise(c), kinds), hands13)
    house_rate = per_second(lambda c: find_sweeps(summarise(c), house), hands13)
    brute_rate = per_second(brute_force, hands13[: args.baseline_sweeps], repeat=1)
    print()
    print(f"{'sweep verification (13 cards)':<40}{'per second':>12}{'mean us':>13}{'':>14}{'target':>12}")
    target = "< 200 us"
    print(f"{'search, all 12 kinds':<40}{all_rate:>12,.0f}{1e6 / all_rate:>13,.1f}{'':>14}{target:>12}")
    print(
        f"{'search, house kinds (4)':<40}{house_rate:>12,.0f}{1e6 / house_rate:>13,.1f}{'':>14}{target:>12}"
    )
    print(
        f"{'brute force, house kinds (baseline)':<40}{brute_rate:>12,.0f}{1e6 / brute_rate:>13,.1f}{'':>12}"
    )


if __name__ == "__main__":
    main()
