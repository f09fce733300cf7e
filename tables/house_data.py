"""Load the house data (games, stakes, collection schedules of seed 004) from its JSON file.

The data file is the source (``tables/data/house_data.json``); this module only upserts it by
natural key, so loading twice changes nothing:

* games by ``slug`` and stakes by ``code``: created, or updated where the file differs (a choice
  game's ``choice_of`` lists the games its button picks from, by slug; stakes
  already used by a table or hand are never rewritten: give changed stakes a new code);
* collection schedules by ``code``: created with version 1 in force from the moment it is loaded
  (or from ``effective_from`` / the file's optional ``schedules_effective_from``, for a back-dated
  load such as a test's year of hands); when the file's rates differ from the version in force, a
  new version takes effect now (the past is never rewritten).

Every creation or change is written to the configuration history (by the system).

What the floor changed since the last load is the floor's: a game, stakes or schedule whose latest
change in the history (a schedule: also its latest version) is not this load's is left as it is,
and the report names it (``kept``), so running the set-up again never undoes the floor's work.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction
from django.utils import timezone

from tables import services
from tables.history import game_snapshot, record_change, snapshot
from tables.models import CollectionSchedule, ConfigAction, ConfigChange, Game, Hand, Stakes, Table

DATA_FILE = Path(__file__).resolve().parent / "data" / "house_data.json"
GAME_FIELDS = (
    "name",
    "kind",
    "is_button_game",
    "is_stud_game",
    "is_dealers_choice",
    "seat_count",
    "max_hands",
    "sort_order",
)
REASON = "house data (load_house_data)"


class HouseDataError(Exception):
    """The data file can't be loaded as it is (nothing was changed)."""


@dataclass
class LoadReport:
    created: dict[str, int] = field(default_factory=lambda: {"games": 0, "stakes": 0, "schedules": 0})
    updated: dict[str, int] = field(default_factory=lambda: {"games": 0, "stakes": 0, "schedules": 0})
    #: What the file differs on but the floor changed since the last load: left as it is.
    kept: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(self.created.values()) or any(self.updated.values())

    def __str__(self) -> str:
        parts = [
            f"{kind}: {self.created[kind]} created, {self.updated[kind]} updated" for kind in self.created
        ]
        return "; ".join(parts)

    def kept_lines(self) -> list[str]:
        return [f"{what}: changed on the floor since the last load; left as it is." for what in self.kept]


def read_data(path: Path | None = None) -> dict[str, Any]:
    path = path or DATA_FILE
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise HouseDataError(f"can't read {path}: {exc}") from exc
    for key in ("games", "stakes", "collection_schedules"):
        if key not in data:
            raise HouseDataError(f"{path} has no {key!r}")
    return data


def normalise_rate(rate: dict[str, Any]) -> str:
    """A rate as a sortable, comparable string over every rate field (absent fields are None)."""
    full = {name: None for name in services.RATE_FIELDS} | {"payer": "button"} | rate
    return json.dumps([full[name] for name in services.RATE_FIELDS])


def _changed_by_floor(instance: models.Model) -> bool:
    """Whether ``instance``'s latest configuration change was made by someone other than this
    load (the floor, the admin, the API)."""
    latest = (
        ConfigChange.objects.filter(
            content_type=ContentType.objects.get_for_model(instance, for_concrete_model=True),
            object_id=str(instance.pk),
        )
        .order_by("-at", "-pk")
        .first()
    )
    return latest is not None and (latest.by_id is not None or latest.reason != REASON)


def _choices(item: dict[str, Any]) -> list[Game]:
    """The games a choice game's button picks from (the file's ``choice_of`` slugs)."""
    slugs = item.get("choice_of") or []
    found = {game.slug: game for game in Game.objects.filter(slug__in=slugs)}
    missing = [slug for slug in slugs if slug not in found]
    if missing:
        raise HouseDataError(f"game {item['slug']}: choice_of names unknown games {', '.join(missing)}")
    return [found[slug] for slug in slugs]


def _upsert_games(games: list[dict[str, Any]], report: LoadReport) -> None:
    # Two passes: every game exists before a choice game's list of games is set. A game the floor
    # changed since the last load is left as it is (its fields and its list of games alike).
    loaded: list[tuple[Game, dict[str, Any] | None]] = []
    #: pk of each game the floor changed -> whether the file's fields differ from it.
    floors: dict[int, bool] = {}
    for item in games:
        values = {name: item.get(name) for name in GAME_FIELDS}
        game = Game.objects.filter(slug=item["slug"]).first()
        if game is None:
            game = Game(slug=item["slug"], **values)
            game.full_clean()
            game.save()
            loaded.append((game, None))
            continue
        before = game_snapshot(game)
        loaded.append((game, before))
        if _changed_by_floor(game):
            floors[game.pk] = any(getattr(game, name) != value for name, value in values.items())
            continue
        fields_before = snapshot(game)
        for name, value in values.items():
            setattr(game, name, value)
        if snapshot(game) != fields_before:
            game.full_clean()
            game.save()
    for (game, earlier), item in zip(loaded, games, strict=True):
        wanted = _choices(item)
        choices_differ = {g.pk for g in wanted} != {g.pk for g in game.choice_of.all()}
        if game.pk in floors:
            if floors[game.pk] or choices_differ:
                report.kept.append(f"game {game.slug}")
            continue
        if choices_differ:
            game.choice_of.set(wanted)
        after = game_snapshot(game)
        if earlier is None:
            record_change(instance=game, action=ConfigAction.CREATE, by=None, reason=REASON, after=after)
            report.created["games"] += 1
        elif after != earlier:
            record_change(
                instance=game, action=ConfigAction.UPDATE, by=None, reason=REASON, before=earlier, after=after
            )
            report.updated["games"] += 1


def _upsert_stakes(stakes_list: list[dict[str, Any]], report: LoadReport) -> None:
    for item in stakes_list:
        values = {name: item.get(name) for name in services.STAKES_FIELDS} | {
            "kill": item.get("kill") or "none"
        }
        stakes = Stakes.objects.filter(code=item["code"]).first()
        if stakes is None:
            services.create_stakes(code=item["code"], by=None, reason=REASON, **values)
            report.created["stakes"] += 1
            continue
        before = snapshot(stakes)
        for name, value in values.items():
            setattr(stakes, name, value)
        if snapshot(stakes) == before:
            continue
        if _changed_by_floor(stakes):
            report.kept.append(f"stakes {stakes.code}")
            continue
        if Table.objects.filter(stakes=stakes).exists() or Hand.objects.filter(stakes=stakes).exists():
            raise HouseDataError(
                f"stakes {stakes.code} are in use and the file changes them; give the new stakes a new code"
            )
        stakes.full_clean()
        stakes.save()
        record_change(
            instance=stakes,
            action=ConfigAction.UPDATE,
            by=None,
            reason=REASON,
            before=before,
            after=snapshot(stakes),
        )
        report.updated["stakes"] += 1


def _upsert_schedules(schedules: list[dict[str, Any]], since: datetime.datetime, report: LoadReport) -> None:
    for item in schedules:
        schedule = CollectionSchedule.objects.filter(code=item["code"]).first()
        if schedule is None:
            services.create_schedule(
                code=item["code"],
                name=item["name"],
                description=item.get("description", ""),
                rates=item["rates"],
                by=None,
                reason=REASON,
                effective_from=since,
                allow_past=True,
            )
            report.created["schedules"] += 1
            continue
        changed = False
        latest = schedule.versions.order_by("-effective_from").first()
        if _changed_by_floor(schedule) or (
            latest is not None and (latest.created_by_id is not None or latest.reason != REASON)
        ):
            if _schedule_differs(schedule, latest, item):
                report.kept.append(f"schedule {schedule.code}")
            continue
        if (schedule.name, schedule.description) != (item["name"], item.get("description", "")):
            services.rename_schedule(
                schedule=schedule,
                by=None,
                reason=REASON,
                name=item["name"],
                description=item.get("description", ""),
            )
            changed = True
        if _rates(latest) != sorted(normalise_rate(r) for r in item["rates"]):
            services.revise_schedule(schedule=schedule, rates=item["rates"], by=None, reason=REASON)
            changed = True
        report.updated["schedules"] += int(changed)


def _rates(version: Any) -> list[str]:
    """A schedule version's rates as :func:`normalise_rate` strings, sorted ([] for none)."""
    if version is None:
        return []
    return sorted(
        normalise_rate({name: getattr(r, name) for name in services.RATE_FIELDS}) for r in version.rates.all()
    )


def _schedule_differs(schedule: CollectionSchedule, latest: Any, item: dict[str, Any]) -> bool:
    """Whether the file's entry differs from ``schedule`` as it stands (name, description, rates)."""
    return (schedule.name, schedule.description) != (item["name"], item.get("description", "")) or _rates(
        latest
    ) != sorted(normalise_rate(r) for r in item["rates"])


@transaction.atomic
def load_house_data(
    path: Path | None = None, *, effective_from: datetime.datetime | None = None
) -> LoadReport:
    """Upsert the house data file; all or nothing. Returns what was created and updated.

    A schedule loaded for the first time is in force from now: its first version can't claim to
    have been in force before the room had it (issue: "in force from 1999-12-31"). A back-dated
    load names its moment: ``effective_from``, else the file's ``schedules_effective_from``."""
    data = read_data(path)
    since = effective_from
    if since is None and "schedules_effective_from" in data:
        try:
            since = datetime.datetime.fromisoformat(data["schedules_effective_from"])
        except (TypeError, ValueError) as exc:
            raise HouseDataError(f"schedules_effective_from: {exc}") from None
    if since is None:
        since = timezone.now()
    if timezone.is_naive(since):
        raise HouseDataError("schedules_effective_from needs a time zone")
    report = LoadReport()
    _upsert_games(data["games"], report)
    _upsert_stakes(data["stakes"], report)
    _upsert_schedules(data["collection_schedules"], since, report)
    return report
