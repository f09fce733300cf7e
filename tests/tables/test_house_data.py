"""House data (seed 004): every schedule row loaded equals the seed's printed tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings

from tables.house_data import DATA_FILE, HouseDataError, load_house_data
from tables.models import (
    CollectionRate,
    CollectionSchedule,
    ConfigChange,
    Game,
    GameKind,
    KillType,
    Payer,
    RateStructure,
    Stakes,
    Structure,
)

SEEDS = Path(settings.BASE_DIR).parent / "shared" / "seeds"
SEED_004 = SEEDS / "004_f865bd54140f843d.txt"

Row = tuple[str, tuple[int | None, ...], int, int, int]  # structure, stakes key, players min, max, fee


def _cents(text: str) -> int | None:
    """``\\$20`` -> 2000; ``no max`` -> None."""
    text = text.replace("\\", "").strip()
    if text == "no max":
        return None
    match = re.fullmatch(r"\$(\d+)", text)
    assert match, f"unexpected amount {text!r} in seed 004"
    return int(match.group(1)) * 100


def _pair(text: str) -> tuple[int | None, int | None]:
    low, high = text.split("-", 1)
    return _cents(low), _cents(high)


def parse_seed_schedules(text: str) -> dict[str, list[Row]]:
    """The rows of Collection Rate Schedules A, B and C as 004 prints them."""
    schedules: dict[str, list[Row]] = {}
    current: str | None = None
    section: str | None = None
    stakes_key: tuple[int | None, ...] | None = None
    for line in text.splitlines():
        heading = re.match(r"^#+\s+(.*)$", line)
        if heading:
            title = heading.group(1).strip()
            named = re.fullmatch(r"Schedule ([ABC])", title)
            if named:
                current, section = named.group(1), None
                schedules[current] = []
            elif title == "No-Limit and Pot Limit":
                section = RateStructure.BIG_BET.value
            elif title == "Limit":
                section = RateStructure.LIMIT.value
            elif current is not None:
                current = None  # the next chapter (Chinese Poker) ends the schedules
            continue
        if current is None or section is None or "\t" not in line or line.startswith(("Buy-In", "Betting")):
            continue
        first, band, fee = line.split("\t")
        if first.strip():
            if section == RateStructure.LIMIT:
                parts = [_pair(p) for p in first.split(",")]
                alt = parts[1] if len(parts) > 1 else (None, None)
                stakes_key = (*parts[0], *alt)
            else:
                stakes_key = _pair(first)
        assert stakes_key is not None
        low, high = (int(n) for n in band.split("-"))
        fee_cents = _cents(fee)
        assert fee_cents is not None
        schedules[current].append((section, stakes_key, low, high, fee_cents))
    return schedules


def parse_seed_chinese_fees(text: str) -> dict[str, tuple[int, int, int, int | None]]:
    """Chinese poker fee options: {option: (point min, point max, player #1 fee, player #2 fee)}."""
    fees_part = text.split("## Collection Fees", 1)[1]
    options = {}
    for line in fees_part.splitlines():
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) >= 3 and cells[0].isdigit():
            low, high = (_cents(x) for x in cells[1].replace(" ", "").split("-"))
            assert low is not None
            assert high is not None
            first = _cents(cells[2])
            assert first is not None
            second = _cents(cells[3]) if len(cells) > 3 and cells[3] else None
            options[cells[0]] = (low, high, first, second)
    return options


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


@pytest.fixture(scope="module")
def seed_text() -> str:
    return SEED_004.read_text(encoding="utf-8")


def test_seed_parser_sees_every_printed_row(seed_text: str) -> None:
    parsed = parse_seed_schedules(seed_text)
    assert sorted(parsed) == ["A", "B", "C"]
    # 9 buy-in ranges and 11 betting limits, three player bands each.
    assert {code: len(rows) for code, rows in parsed.items()} == {"A": 60, "B": 60, "C": 60}
    assert parsed["B"][0] == (RateStructure.BIG_BET, (2000, 10000), 1, 4, 200)
    assert (RateStructure.LIMIT, (400, 1000, 400, 2000), 7, 10, 500) in parsed["C"]


@pytest.mark.parametrize("code", ["A", "B", "C"])
def test_loaded_schedule_equals_seed(house: None, seed_text: str, code: str) -> None:
    assert sorted(_loaded_rows(code), key=repr) == sorted(parse_seed_schedules(seed_text)[code], key=repr)


def test_chinese_poker_fee_options_equal_seed(house: None, seed_text: str) -> None:
    seed = parse_seed_chinese_fees(seed_text)
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


def test_betting_limits_and_buy_ins(house: None, seed_text: str) -> None:
    # Every betting limit 004 posts, with each kill type.
    posted = re.findall(r"^\\\$(\d+) - \\\$(\d+)(?:/\\\$(\d+) - \\\$(\d+))?$", seed_text, flags=re.M)
    assert len(posted) == 6
    for small, big, alt_small, alt_big in posted:
        for kill in KillType.values:
            assert Stakes.objects.filter(
                structure=Structure.LIMIT,
                small_bet_cents=int(small) * 100,
                big_bet_cents=int(big) * 100,
                alt_small_bet_cents=int(alt_small) * 100 if alt_small else None,
                alt_big_bet_cents=int(alt_big) * 100 if alt_big else None,
                kill=kill,
            ).exists(), (small, big, alt_small, alt_big, kill)
    # Every buy-in range of the schedules, at pot limit and at no limit, without kill.
    ranges = {
        key
        for row in parse_seed_schedules(seed_text)["A"]
        if row[0] == RateStructure.BIG_BET
        for key in [row[1]]
    }
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
