"""Chinese and Taiwanese poker through the showdown registry and ``manage.py showdown``
(docs/showdown-json.md): the contract's keys, errors as ShowdownError, exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from poker.showdown import ShowdownError, decide, decide_line

ROOT = Path(__file__).resolve().parents[2]

CHINESE: dict[str, Any] = {
    "game": "chinese-poker",
    "rules": "house",
    "point": 500,
    "button": 1,
    "players": [
        {
            "seat": 1,
            "front": ["Jc", "Jd", "Js"],
            "middle": ["Ad", "As", "Ac", "9c", "7c"],
            "back": ["6h", "5h", "4h", "3h", "2h"],
            "stack": 10000,
        },
        {
            "seat": 2,
            "cards": ["2c", "3d", "4d", "5s", "6c", "7d", "8h", "9s", "Tc", "Jh", "Qs", "Kc", "Ah"],
            "declare": "dragon",
            "stack": 10000,
        },
        {
            "seat": 3,
            "front": ["Kd", "Qd", "2d"],
            "middle": ["8c", "8d", "8s", "Th", "Td"],
            "back": ["5c", "5d", "Qh", "Qc", "Ks"],
            "stack": 2000,
        },
        {"seat": 4, "surrender": True, "stack": 10000},
    ],
}
TAIWANESE: dict[str, Any] = {
    "game": "taiwanese-poker",
    "point": 100,
    "chip": 100,
    "button": 1,
    "boards": [["Ac", "Ad", "Kh", "3s", "2d"]],
    "players": [
        {
            "seat": 1,
            "top": ["Qs"],
            "middle": ["As", "Kd"],
            "bottom": ["9c", "9d", "4s", "5s"],
            "stack": 10000,
        },
        {
            "seat": 2,
            "top": ["Qh"],
            "middle": ["Ah", "Kc"],
            "bottom": ["8c", "8d", "4h", "5h"],
            "stack": 10000,
        },
        {
            "seat": 3,
            "top": ["Jh"],
            "middle": ["7c", "7d"],
            "bottom": ["Tc", "Td", "4c", "5c"],
            "stack": 10000,
        },
    ],
}


def test_chinese_contract_keys() -> None:
    r = decide(CHINESE)
    assert set(r) >= {"players", "matchups", "payments"}
    for p in r["players"].values():
        assert set(p) >= {"fouled", "sweep", "segments", "points", "net"}
        assert set(p["segments"]) == {"front", "middle", "back"}
    for m in r["matchups"]:
        assert set(m) >= {"seats", "points", "total"}
        assert set(m["points"]) >= {"front", "middle", "back", "bonus", "overall", "sweep"}
    for pay in r["payments"]:
        assert set(pay) == {"from", "to", "amount", "due", "reason"}
    assert r["players"]["1"]["segments"]["front"] == "Three of a kind, jacks"
    assert r["players"]["2"]["sweep"] == "dragon"
    assert r["players"]["3"]["fouled"]  # eights full in the middle over two pair in the back
    # the dragon collects 13 points (6500) from each, seat 3 only has 2000, seat 4 surrendered
    assert r["payments"][:3] == [
        {"from": 1, "to": 2, "amount": 6500, "due": 6500, "reason": "sweep 2-1"},
        {"from": 3, "to": 2, "amount": 2000, "due": 6500, "reason": "sweep 2-3"},
        {"from": 4, "to": 2, "amount": 1500, "due": 6500, "reason": "sweep 2-4"},  # seat 2's cap: 10000
    ]
    assert sum(p["net"] for p in r["players"].values()) == 0


def test_taiwanese_contract_keys() -> None:
    r = decide(TAIWANESE)
    assert set(r) >= {"players", "positions", "payments"}
    assert set(r["players"]["1"]) >= {"boards", "net"}
    assert set(r["players"]["1"]["boards"][0]) == {"top", "middle", "bottom"}
    for pos in r["positions"]:
        assert set(pos) >= {"board", "position", "winners", "points", "paid"}
    middle = next(p for p in r["positions"] if p["position"] == "middle")
    assert middle["winners"] == [1, 2]


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ({**CHINESE, "rules": "poker"}, "unknown rule set"),
        (
            {**TAIWANESE, "boards": [["Ac", "Ad", "Kh", "3s", "Qs"]]},
            "card Qs is both in seat 1 and on board 1",
        ),
    ],
)
def test_errors_are_showdown_errors(hand: dict[str, Any], message: str) -> None:
    with pytest.raises(ShowdownError, match=message):
        decide(hand)
    out, ok = decide_line(json.dumps(hand))
    assert not ok
    assert message.split()[0] in json.loads(out)["error"]


def test_manage_py_showdown_json_lines() -> None:
    bad = {**CHINESE, "players": CHINESE["players"][:1]}
    lines = [json.dumps(CHINESE), json.dumps(bad), json.dumps(TAIWANESE)]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "showdown"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 3
    assert out[0] == decide(CHINESE)
    assert "2 to 4 hands" in out[1]["error"]
    assert out[2] == decide(TAIWANESE)
