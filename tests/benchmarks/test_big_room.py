"""The big-room benchmark's pure functions (benchmarks/bench_big_room.py): the window it measures, the
figures it prints from latencies, and the dealer's pauses between taps."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_big_room


def test_the_window_keeps_the_answers_started_in_it() -> None:
    timeline = bench_big_room.Timeline()
    now = time.perf_counter()
    timeline.add("deal", 0.040)  # started 40 ms ago
    timeline.add("read", 0.500)  # started 500 ms ago
    later = time.perf_counter()
    assert timeline.window(now - 0.1, later + 1) == {"deal": [0.040]}
    assert timeline.window(now - 1, later + 1) == {"deal": [0.040], "read": [0.500]}
    assert timeline.window(later + 1, later + 2) == {}
    assert timeline.latencies == {"deal": [0.040], "read": [0.500]}  # bench_terminal's view too


def test_summary_in_milliseconds() -> None:
    values = [i / 1000 for i in range(1, 101)]  # 1..100 ms
    count, p50, p95, p99, top = bench_big_room.summary(values)
    assert count == 100
    assert (p50, p95, p99, top) == pytest.approx((51.0, 96.0, 100.0, 100.0))
    assert bench_big_room.summary([]) == (0, 0.0, 0.0, 0.0, 0.0)


def test_the_dealer_pauses_as_a_dealer_does(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(bench_big_room.time, "sleep", slept.append)
    think = bench_big_room.dealer_think(random.Random(1), play=20, confirm_after=3)
    for tap in ("read", "reread", "confirm") * 200:
        think(tap)
    reads, rereads, confirms = slept[0::3], slept[1::3], slept[2::3]
    assert min(reads) >= 10
    assert max(reads) <= 30
    assert min(rereads) >= 2
    assert max(rereads) <= 5
    assert min(confirms) >= 1.5
    assert max(confirms) <= 4.5
    assert sum(reads) / len(reads) == pytest.approx(20, rel=0.1)
