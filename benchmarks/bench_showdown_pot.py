"""Pot-game showdown throughput: the engine against a pokerkit baseline.

Run from the project root:

    .venv/bin/python benchmarks/bench_showdown_pot.py [--hands N] [--baseline-hands M] [--seed S]

Prints, for 9-handed hold'em with two side pots, 8-handed omaha-hi-lo and 7-handed
stud-hi-lo (seeded random deals):

* full showdowns per second through ``poker.showdown.decide()`` (in process);
* the same hands as JSON Lines through one ``manage.py showdown`` subprocess, end to end
  (interpreter and Django start-up included, so it approaches the in-process figure as N grows);
* the pokerkit baseline: the same parsing, validation, pot and odd-chip logic, with the hand
  strengths (and the five cards shown) from pokerkit's hand classes instead of the engine;
* raw evaluations per second: the engine's 7-card and Omaha readers next to phevaluator's bare
  C functions (which only return a class number: no cards, no names).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from phevaluator import _pheval  # noqa: E402
from pokerkit import (  # noqa: E402
    EightOrBetterLowHand,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    StandardHighHand,
)

from poker.cards import FULL_DECK  # noqa: E402
from poker.hands import LOW_CARD_ORDER, best_high, omaha_high  # noqa: E402
from poker.pots import button_order, settle  # noqa: E402
from poker.showdown import LowRule, decide, parse_pot_request  # noqa: E402

DECK = [str(c) for c in FULL_DECK]


# --------------------------------------------------------------------------------------
# Seeded hands
# --------------------------------------------------------------------------------------


def holdem_9(rng: random.Random) -> dict[str, Any]:
    """9-handed hold'em: two short all-ins make a main pot and two side pots; two folds."""
    deck = DECK[:]
    rng.shuffle(deck)
    puts = [300, 700, 1500, 1500, 1500, 1500, 1500, 100, 200]
    rng.shuffle(puts)
    players = [
        {"seat": i + 1, "cards": deck[2 * i : 2 * i + 2], "put_in": puts[i], "folded": puts[i] < 300}
        for i in range(9)
    ]
    return {
        "game": "holdem",
        "button": rng.randint(1, 9),
        "chip": 100,
        "board": deck[18:23],
        "players": players,
    }


def omaha_hi_lo_8(rng: random.Random) -> dict[str, Any]:
    """8-handed omaha-hi-lo: one short all-in (a side pot), six live hands, two folds."""
    deck = DECK[:]
    rng.shuffle(deck)
    puts = [500, 2000, 2000, 2000, 2000, 2000, 100, 200]
    rng.shuffle(puts)
    players = [
        {"seat": i + 1, "cards": deck[4 * i : 4 * i + 4], "put_in": puts[i], "folded": puts[i] < 500}
        for i in range(8)
    ]
    return {
        "game": "omaha-hi-lo",
        "button": rng.randint(1, 8),
        "chip": 100,
        "board": deck[32:37],
        "players": players,
    }


def stud_hi_lo_7(rng: random.Random) -> dict[str, Any]:
    """7-handed stud-hi-lo: one short all-in, five live hands, two folded (cards not shown)."""
    deck = DECK[:]
    rng.shuffle(deck)
    puts = [400, 1600, 1600, 1600, 1600, 100, 200]
    rng.shuffle(puts)
    players: list[dict[str, Any]] = []
    for i in range(7):
        folded = puts[i] < 400
        player: dict[str, Any] = {"seat": i + 1, "put_in": puts[i], "folded": folded}
        if not folded:
            player["cards"] = deck[7 * i : 7 * i + 7]
        players.append(player)
    return {"game": "stud-hi-lo", "button": rng.randint(1, 7), "chip": 100, "players": players}


# --------------------------------------------------------------------------------------
# The pokerkit baseline: same request parsing and pot logic, pokerkit hand strengths
# --------------------------------------------------------------------------------------


def _ranked(hands: Mapping[int, Any]) -> dict[int, int]:
    """pokerkit hands (ordered by strength) -> integer strengths for settle()."""
    ordered = sorted(hands.values())
    strength: dict[int, int] = {}
    for seat, hand in hands.items():
        strength[seat] = max(i for i, h in enumerate(ordered) if not h > hand)
    return strength


def pokerkit_decide(hand: Mapping[str, Any]) -> dict[str, Any]:
    request = parse_pot_request(hand)
    spec = request.game
    board = "".join(str(c) for c in request.board)
    live = [p for p in request.players if not p.folded]
    highs: dict[int, Any] = {}
    lows: dict[int, Any] = {}
    for p in live:
        hole = "".join(str(c) for c in p.cards)
        if spec.omaha:
            highs[p.seat] = OmahaHoldemHand.from_game(hole, board)
            if spec.low is LowRule.EIGHT:
                with contextlib.suppress(ValueError):
                    lows[p.seat] = OmahaEightOrBetterLowHand.from_game(hole, board)
        else:
            highs[p.seat] = StandardHighHand.from_game(hole, board)
            if spec.low is LowRule.EIGHT:
                with contextlib.suppress(ValueError):
                    lows[p.seat] = EightOrBetterLowHand.from_game(hole, board)
    high_order: Mapping[int, int]
    low_order: Mapping[int, int]
    if spec.stud:
        high_order = {p.seat: -max(c.code for c in p.cards) for p in live}
        low_order = {p.seat: min(LOW_CARD_ORDER[c.code] for c in p.cards) for p in live}
    else:
        assert request.button is not None
        high_order = low_order = button_order([p.seat for p in live], request.button)
    settlement = settle(
        request.players,
        chip=request.chip,
        high=_ranked(highs),
        low=_ranked(lows) if spec.low is not LowRule.NONE else None,
        high_order=high_order,
        low_order=low_order,
    )
    return {
        "pots": [
            {
                "amount": pot.amount,
                "seats": list(pot.seats),
                "awards": [{"seat": a.seat, "amount": a.amount, "share": str(a.share)} for a in pot.awards],
            }
            for pot in settlement.pots
        ],
        "hands": {
            str(seat): {
                "high": str(h),
                "high_cards": [str(c) for c in h.cards],
                "low": str(lows[seat]) if seat in lows else None,
                "low_cards": [str(c) for c in lows[seat].cards] if seat in lows else None,
            }
            for seat, h in highs.items()
        },
        "net": {str(k): v for k, v in settlement.net.items()},
    }


# --------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------


def timed(fn: Callable[[Any], object], items: Sequence[Any]) -> float:
    """Seconds for one run of ``fn`` over ``items`` (garbage collector paused)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for item in items:
            fn(item)
        return time.perf_counter() - start
    finally:
        gc.enable()


def per_second(fn: Callable[[Any], object], items: Sequence[Any], repeat: int = 3) -> float:
    """Best of ``repeat`` runs of ``fn`` over ``items``."""
    return len(items) / min(timed(fn, items) for _ in range(repeat))


def engine_and_baseline(
    hands: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]], rounds: int
) -> tuple[float, float]:
    """Showdowns per second of the engine and of the pokerkit baseline, measured in alternating
    rounds (best of each), so that a change in machine load affects both alike."""
    ours = theirs = float("inf")
    for _ in range(rounds):
        ours = min(ours, timed(decide, hands))
        theirs = min(theirs, timed(pokerkit_decide, baseline))
    return len(hands) / ours, len(baseline) / theirs


def command_seconds(hands: Sequence[Mapping[str, Any]]) -> float:
    """Wall time of one ``manage.py showdown`` process deciding ``hands`` as JSON Lines."""
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


def command_per_second(hands: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """JSON Lines through ``manage.py showdown``: showdowns per second end to end (start-up
    included), and once started (the wall time of a two-hand run taken off)."""
    total = command_seconds(hands)
    start_up = min(command_seconds(hands[:2]) for _ in range(2))
    return len(hands) / total, (len(hands) - 2) / max(total - start_up, 1e-9)


def check_same_awards(hands: Sequence[Mapping[str, Any]]) -> None:
    """The baseline must decide the same pots as the engine, or the comparison is meaningless."""
    for h in hands:
        ours, theirs = decide(h), pokerkit_decide(h)
        if ours["pots"] != theirs["pots"] or ours["net"] != theirs["net"]:
            raise SystemExit(f"engine and pokerkit baseline disagree on {json.dumps(h)}")


def raw_rates(rng: random.Random, n: int) -> list[tuple[str, float, float]]:
    seven = [rng.sample(FULL_DECK, 7) for _ in range(n)]
    seven_codes = [[c.code for c in cards] for cards in seven]
    omaha = [rng.sample(FULL_DECK, 9) for _ in range(n)]
    omaha_split = [(cards[:4], cards[4:]) for cards in omaha]
    omaha_codes = [[c.code for c in cards[4:]] + [c.code for c in cards[:4]] for cards in omaha]
    e7, eo = _pheval.evaluate_7cards, _pheval.evaluate_omaha_cards
    return [
        (
            "7-card high",
            per_second(best_high, seven),
            per_second(lambda codes: e7(*codes), seven_codes),
        ),
        (
            "Omaha high",
            per_second(lambda hb: omaha_high(*hb), omaha_split),
            per_second(lambda codes: eo(*codes), omaha_codes),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=20000, help="showdowns per game for the engine")
    parser.add_argument("--baseline-hands", type=int, default=200, help="showdowns per game for pokerkit")
    parser.add_argument("--rounds", type=int, default=3, help="alternating timing rounds (best is kept)")
    parser.add_argument("--evals", type=int, default=100000, help="hands for the raw evaluation rates")
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    print(f"Pot-game showdowns, seed {args.seed}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    head = ("decide()/s", "manage.py/s", "(started)/s", "pokerkit/s", "x pokerkit")
    print(f"{'game':<34}" + "".join(f"{h:>13}" for h in head))
    for label, make in (
        ("holdem, 9 seats, 2 side pots", holdem_9),
        ("omaha-hi-lo, 8 seats, 1 side pot", omaha_hi_lo_8),
        ("stud-hi-lo, 7 seats, 1 side pot", stud_hi_lo_7),
    ):
        hands = [make(rng) for _ in range(args.hands)]
        baseline = hands[: args.baseline_hands]
        check_same_awards(baseline[:100])
        engine, kit = engine_and_baseline(hands, baseline, args.rounds)
        command, started = command_per_second(hands)
        figures = [f"{x:>13,.0f}" for x in (engine, command, started, kit)]
        print(f"{label:<34}" + "".join(figures) + f"{engine / kit:>12,.0f}x")
    print()
    print(f"{'raw evaluations':<34}{'engine/s':>13}{'phevaluator/s':>15}")
    for label, ours, bare in raw_rates(rng, args.evals):
        print(f"{label:<34}{ours:>13,.0f}{bare:>15,.0f}")
    print("(engine: best hand with its five cards and name; phevaluator: class number only)")


if __name__ == "__main__":
    main()
