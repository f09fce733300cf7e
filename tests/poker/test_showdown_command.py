"""``manage.py showdown``: one object or JSON Lines on stdin, exit status 2 on bad input."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from poker.showdown import decide

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE: dict[str, Any] = {
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
}
EXPECTED_NET = {"1": 1200, "2": -2000, "3": 1300, "5": -500}


def run(stdin: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], int]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    code = 0
    try:
        call_command("showdown", stdout=out)
    except SystemExit as exc:
        code = int(exc.code or 0)
    return out.getvalue().splitlines(), code


def test_one_object_in_one_object_out(monkeypatch: pytest.MonkeyPatch) -> None:
    lines, code = run(json.dumps(EXAMPLE, indent=2), monkeypatch)  # spread over many lines
    assert code == 0
    assert len(lines) == 1
    assert json.loads(lines[0]) == decide(json.loads(json.dumps(EXAMPLE)))
    assert json.loads(lines[0])["net"] == EXPECTED_NET


def test_bad_object_exit_2_with_error(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = json.loads(json.dumps(EXAMPLE))
    bad["players"][1]["cards"][0] = "Zz"
    lines, code = run(json.dumps(bad), monkeypatch)
    assert code == 2
    assert json.loads(lines[0]) == {"error": "seat 2: unknown card 'Zz'"}


@pytest.mark.parametrize("stdin", ["", "   \n", "{not json", "[1, 2]"])
def test_empty_or_broken_input_exit_2(stdin: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lines, code = run(stdin, monkeypatch)
    assert code == 2
    assert len(lines) == 1
    assert "error" in json.loads(lines[0])


def test_json_lines_with_one_bad_line(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = json.loads(json.dumps(EXAMPLE))
    bad["players"][2]["cards"][0] = "4c"
    stdin = "\n".join([json.dumps(EXAMPLE), json.dumps(bad), "", json.dumps(EXAMPLE), "{oops"]) + "\n"
    lines, code = run(stdin, monkeypatch)
    assert code == 2
    out = [json.loads(line) for line in lines]
    assert len(out) == 4
    assert out[0]["net"] == out[2]["net"] == EXPECTED_NET
    assert out[1] == {"error": "card 4c is held by seat 1 and seat 3 (misdeal)"}
    assert "not valid JSON" in out[3]["error"]


def test_json_lines_all_good_exit_0(monkeypatch: pytest.MonkeyPatch) -> None:
    lines, code = run(
        json.dumps(EXAMPLE) + "\n" + json.dumps({**EXAMPLE, "game": "omaha"}) + "\n", monkeypatch
    )
    assert code == 0
    assert [json.loads(line)["net"]["3"] for line in lines] == [1300, 4500]


def test_real_process_exit_status_and_stdout() -> None:
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="casino.settings")
    good = subprocess.run(
        [sys.executable, "manage.py", "showdown"],
        input=json.dumps(EXAMPLE),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["net"] == EXPECTED_NET
    bad = subprocess.run(
        [sys.executable, "manage.py", "showdown"],
        input=json.dumps({**EXAMPLE, "game": "poker"}) + "\n" + json.dumps(EXAMPLE) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert bad.returncode == 2
    first, second = (json.loads(line) for line in bad.stdout.splitlines())
    assert "unknown game 'poker'" in first["error"]
    assert second["net"] == EXPECTED_NET
