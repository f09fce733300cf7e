"""House data (seed 004): every schedule row, betting limit and Chinese poker fee loaded equals
the figures seed 004 prints.

The expected figures are in the repository (``tests/data/seed_004.json``, copied cell for cell
from ``004_f865bd54140f843d.txt``), so these tests run anywhere. When the seed documents are
beside the repository (``../shared/seeds/``), ``test_in_repo_figures_equal_seed_004`` also
checks that file against the seed text; without them it is skipped and says why.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import timezone

from tables.choices import GameKind, KillType, Payer, RateStructure, Structure
from tables.house_data import DATA_FILE, HouseDataError, load_house_data
from tables.models import CollectionRate, CollectionSchedule, ConfigChange, Game, Stakes

FIGURES_FILE = Path(__file__).resolve().parent.parent / "data" / "seed_004.json"
FIGURES: dict[str, Any] = json.loads(FIGURES_FILE.read_text(encoding="utf-8"))
SEEDS = Path(settings.BASE_DIR).parent / "shared" / "seeds"
SEED_004 = SEEDS / "004_f865bd54140f843d.txt"
STRUCTURES = {"No-Limit and Pot Limit": RateStructure.BIG_BET.value, "Limit": RateStructure.LIMIT.value}

Row = tuple[str, tuple[int | None, ...], int, int, int]  # structure, stakes key, players min, max, fee


def _cents(text: str) -> int | None:
    """``$20`` -> 2000; ``no max`` -> None."""
    text = text.strip()
    if text == "no max":
        return None
    match = re.fullmatch(r"\$(\d+)", text)
    assert match, f"unexpected amount {text!r} in seed 004"
    return int(match.group(1)) * 100


def _pair(text: str) -> tuple[int | None, int | None]:
    low, high = text.split("-", 1)
    return _cents(low), _cents(high)


def schedule_rows(code: str) -> list[Row]:
    """The rows of collection rate schedule ``code`` (A, B or C) in the in-repo figures, in cents."""
    rows: list[Row] = []
    for table in FIGURES["collection_rate_schedules"][code]:
        structure = STRUCTURES[table["heading"]]
        stakes_key: tuple[int | None, ...] | None = None
        for first, band, fee in table["rows"]:
            if first:  # a blank first cell continues the stakes above
                if structure == RateStructure.LIMIT:
                    parts = [_pair(p) for p in first.split(",")]
                    alt = parts[1] if len(parts) > 1 else (None, None)
                    stakes_key = (*parts[0], *alt)
                else:
                    stakes_key = _pair(first)
            assert stakes_key is not None
            low, high = (int(n) for n in band.split("-"))
            fee_cents = _cents(fee)
            assert fee_cents is not None
            rows.append((structure, stakes_key, low, high, fee_cents))
    return rows


def betting_limits() -> list[tuple[int, int, int | None, int | None]]:
    """The posted limit stakes, ``$2 - $4/$2 - $8`` -> (200, 400, 200, 800), in cents."""
    limits = []
    for posted in FIGURES["betting_limits"]:
        if posted in ("Pot Limit", "No Limit"):
            continue
        pairs = [_pair(part) for part in posted.split("/")]
        (small, big), (alt_small, alt_big) = pairs[0], pairs[1] if len(pairs) > 1 else (None, None)
        assert small is not None
        assert big is not None
        limits.append((small, big, alt_small, alt_big))
    return limits


def chinese_fees() -> dict[str, tuple[int, int, int, int | None]]:
    """Chinese poker fee options: {option: (point min, point max, player #1 fee, player #2 fee)}."""
    options = {}
    for table in FIGURES["chinese_poker_collection_fees"]:
        for option, limit, first, *second in table["rows"]:
            low, high = _pair(limit)
            first_cents = _cents(first)
            assert low is not None
            assert high is not None
            assert first_cents is not None
            options[option] = (low, high, first_cents, _cents(second[0]) if second else None)
    return options


def _cells(line: str) -> list[str]:
    """A seed table row's cells without Markdown escapes and ``<b>`` tags."""
    return [re.sub(r"</?b>", "", cell.replace("\\", "")).strip() for cell in line.split("\t")]


def parse_seed_004(text: str) -> dict[str, Any]:
    """The figures of the seed text, in the shape of ``tests/data/seed_004.json`` (no ``source``)."""
    schedules: dict[str, list[dict[str, Any]]] = {}
    current: str | None = None
    for line in text.splitlines():
        heading = re.match(r"^#+\s+(.*)$", line)
        if heading:
            title = heading.group(1).strip()
            named = re.fullmatch(r"Schedule ([ABC])", title)
            if named:
                current = named.group(1)
                schedules[current] = []
            elif current is not None and title in STRUCTURES:
                schedules[current].append({"heading": title, "columns": None, "rows": []})
            elif current is not None:
                current = None  # the next chapter (Chinese Poker) ends the schedules
            continue
        if current is not None and schedules[current] and "\t" in line:
            table = schedules[current][-1]
            if table["columns"] is None:
                table["columns"] = _cells(line)
            else:
                table["rows"].append(_cells(line))
    limits_part = text.split("## Betting Limits", 1)[1].split("With the exception", 1)[0]
    posted = [line.strip().replace("\\", "") for line in limits_part.splitlines() if line.strip()]
    assert posted[0].startswith("The following betting limits")
    fees: list[dict[str, Any]] = []
    for line in text.split("## Collection Fees", 1)[1].splitlines():
        if "\t" in line:
            cells = _cells(line)
            if cells[0].isdigit():
                fees[-1]["rows"].append(cells)
            else:
                fees.append({"columns": cells, "rows": []})
    return {
        "collection_rate_schedules": schedules,
        "betting_limits": posted[1:],
        "chinese_poker_collection_fees": fees,
    }


def _loaded_rows(code: str) -> list[Row]:
    version = CollectionSchedule.objects.get(code=code).version_at()
    assert version is not None
    rows = []
    for rate in version.rates.all():
        assert rate.payer == Payer.BUTTON, "004 schedules A-C are paid by the button player (RULINGS §6)"
        if rate.structure == RateStructure.LIMIT:
            key = (rate.small_bet_cents, rate.big_bet_cents, rate.alt_small_bet_cents, rate.alt_big_bet_cents)
        else:
            key = (rate.buy_in_min_cents, rate.buy_in_max_cents)
        rows.append((rate.structure, key, rate.players_min, rate.players_max, rate.fee_cents))
    return rows


@pytest.mark.skipif(
    not SEED_004.exists(),
    reason=f"seed 004 not found at {SEED_004} (the seed documents beside the repository, "
    "../shared/seeds/): tests/data/seed_004.json is not checked against the seed text",
)
@pytest.mark.parametrize(
    "section", ["collection_rate_schedules", "betting_limits", "chinese_poker_collection_fees"]
)
def test_in_repo_figures_equal_seed_004(section: str) -> None:
    seed = parse_seed_004(SEED_004.read_text(encoding="utf-8"))
    assert FIGURES[section] == seed[section]


def test_in_repo_figures_hold_every_printed_row() -> None:
    assert sorted(FIGURES["collection_rate_schedules"]) == ["A", "B", "C"]
    # 9 buy-in ranges and 11 betting limits, three player bands each.
    assert {code: len(schedule_rows(code)) for code in "ABC"} == {"A": 60, "B": 60, "C": 60}
    assert schedule_rows("B")[0] == (RateStructure.BIG_BET, (2000, 10000), 1, 4, 200)
    assert (RateStructure.LIMIT, (400, 1000, 400, 2000), 7, 10, 500) in schedule_rows("C")
    assert betting_limits()[0] == (100, 300, 100, 600)
    assert len(betting_limits()) == 6


@pytest.mark.parametrize("code", ["A", "B", "C"])
def test_loaded_schedule_equals_seed(house: None, code: str) -> None:
    assert sorted(_loaded_rows(code), key=repr) == sorted(schedule_rows(code), key=repr)


def test_chinese_poker_fee_options_equal_seed(house: None) -> None:
    seed = chinese_fees()
    assert seed == {"1": (100, 10000, 100, None), "2": (100, 10000, 200, 100), "3": (100, 10000, 300, 200)}
    for option, (low, high, first, second) in seed.items():
        rates = CollectionSchedule.objects.get(code=f"CP{option}").rates_at()
        assert len(rates) == 1
        rate = rates[0]
        assert (rate.structure, rate.point_min_cents, rate.point_max_cents) == (
            RateStructure.POINTS,
            low,
            high,
        )
        if second is None:
            assert (rate.payer, rate.fee_cents, rate.others_fee_cents) == (Payer.EACH_PLAYER, first, None)
        else:
            assert (rate.payer, rate.fee_cents, rate.others_fee_cents) == (
                Payer.BUTTON_AND_OTHERS,
                first,
                second,
            )


def test_chinese_poker_fees_by_position(house: None) -> None:
    def fees(code: str, players: int) -> list[int]:
        return CollectionSchedule.objects.get(code=code).rates_at()[0].fees_by_position(players)

    assert fees("CP1", 4) == [100, 100, 100, 100]
    assert fees("CP2", 4) == [200, 100, 100, 100]
    assert fees("CP3", 3) == [300, 200, 200]


def test_approved_games(house: None) -> None:
    games = {g.slug: g for g in Game.objects.all()}
    assert set(games) >= {
        "holdem",
        "omaha",
        "omaha-hi-lo",
        "stud",
        "stud-hi-lo",
        "razz",
        "five-card-stud",
        "five-card-draw",
        "five-card-draw-hi-lo",
        "lowball",
        "option-alley",
        "dealers-choice",
        "chinese-poker",
        "taiwanese-poker",
    }
    assert games["dealers-choice"].name == "Dealer's choice"
    assert games["dealers-choice"].is_dealers_choice
    for slug in ("stud", "stud-hi-lo", "razz", "five-card-stud", "option-alley"):
        assert games[slug].is_stud_game
        assert not games[slug].is_button_game
        assert games[slug].seat_count == 8
    for slug in ("holdem", "omaha", "omaha-hi-lo", "five-card-draw", "five-card-draw-hi-lo", "lowball"):
        assert games[slug].is_button_game
        assert games[slug].seat_count == 10
    chinese, taiwanese = games["chinese-poker"], games["taiwanese-poker"]
    assert (chinese.kind, chinese.seat_count, chinese.max_hands) == (GameKind.PLAYER_DEALER, 5, 4)
    assert (taiwanese.kind, taiwanese.seat_count) == (GameKind.PLAYER_DEALER, 6)


def test_betting_limits_and_buy_ins(house: None) -> None:
    # Every betting limit 004 posts, with each kill type.
    for small, big, alt_small, alt_big in betting_limits():
        for kill in KillType.values:
            assert Stakes.objects.filter(
                structure=Structure.LIMIT,
                small_bet_cents=small,
                big_bet_cents=big,
                alt_small_bet_cents=alt_small,
                alt_big_bet_cents=alt_big,
                kill=kill,
            ).exists(), (small, big, alt_small, alt_big, kill)
    # Every buy-in range of the schedules, at pot limit and at no limit, without kill.
    ranges = {row[1] for row in schedule_rows("A") if row[0] == RateStructure.BIG_BET}
    assert len(ranges) == 9
    for low, high in ranges:
        for structure in (Structure.POT_LIMIT, Structure.NO_LIMIT):
            stakes = Stakes.objects.get(structure=structure, buy_in_min_cents=low, buy_in_max_cents=high)
            assert stakes.kill == KillType.NONE
    assert not Stakes.objects.exclude(structure=Structure.LIMIT).exclude(kill=KillType.NONE).exists()
    assert Stakes.objects.get(code="nl-20-nomax").label == "$20-no max no limit"
    assert Stakes.objects.get(code="limit-2-4-2-8-half").label == "$2-$4/$2-$8 limit, half kill"


def test_loading_again_changes_nothing(house: None) -> None:
    counts = (
        Game.objects.count(),
        Stakes.objects.count(),
        CollectionRate.objects.count(),
        ConfigChange.objects.count(),
    )
    report = load_house_data()
    assert not report.changed
    assert counts == (
        Game.objects.count(),
        Stakes.objects.count(),
        CollectionRate.objects.count(),
        ConfigChange.objects.count(),
    )


def test_a_changed_fee_in_the_file_becomes_a_new_version(house: None, tmp_path: Path) -> None:
    data = json.loads(DATA_FILE.read_text())
    schedule_a = next(s for s in data["collection_schedules"] if s["code"] == "A")
    schedule_a["rates"][0]["fee_cents"] = 150
    path = tmp_path / "house.json"
    path.write_text(json.dumps(data))
    old = CollectionSchedule.objects.get(code="A").version_at()
    assert old is not None
    report = load_house_data(path)
    assert report.updated["schedules"] == 1
    schedule = CollectionSchedule.objects.get(code="A")
    new = schedule.version_at()
    assert new is not None
    assert new.number == old.number + 1
    assert new.effective_from > old.effective_from
    # The old version is untouched and still answers for times before the change.
    assert schedule.version_at(old.effective_from) == old
    assert sorted(r.fee_cents for r in old.rates.all())[:3] == [100, 100, 100]
    assert 150 in {r.fee_cents for r in new.rates.all()}


def test_stakes_in_use_are_not_rewritten(make_table: object, tmp_path: Path) -> None:
    make_table(stakes="limit-4-8-half")  # type: ignore[operator]
    data = json.loads(DATA_FILE.read_text())
    next(s for s in data["stakes"] if s["code"] == "limit-4-8-half")["big_bet_cents"] = 900
    path = tmp_path / "house.json"
    path.write_text(json.dumps(data))
    with pytest.raises(HouseDataError, match="in use"):
        load_house_data(path)
    assert Stakes.objects.get(code="limit-4-8-half").big_bet_cents == 800


def test_a_schedule_loaded_for_the_first_time_is_in_force_from_its_load(house: None, tmp_path: Path) -> None:
    """The first version read "in force from 1999-12-31 16:00": a schedule the room never had
    then. Loaded now, it is in force from now; a back-dated load says its moment."""
    data = json.loads(DATA_FILE.read_text())
    assert "schedules_effective_from" not in data
    new = dict(next(s for s in data["collection_schedules"] if s["code"] == "A"), code="NEW", name="New")
    back = dict(new, code="BACK", name="Back-dated")
    path = tmp_path / "house.json"
    path.write_text(json.dumps(data | {"collection_schedules": [new]}))
    before = timezone.now()
    load_house_data(path)
    first = CollectionSchedule.objects.get(code="NEW").versions.get()
    assert before <= first.effective_from <= timezone.now()
    path.write_text(json.dumps(data | {"collection_schedules": [back]}))
    since = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    call_command(
        "load_house_data", "--file", str(path), "--effective-from", since.isoformat(), stdout=StringIO()
    )
    assert CollectionSchedule.objects.get(code="BACK").versions.get().effective_from == since
    with pytest.raises(CommandError, match="time zone"):
        call_command("load_house_data", "--file", str(path), "--effective-from", "2026-01-01T00:00")
