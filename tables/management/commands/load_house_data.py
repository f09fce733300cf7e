"""``manage.py load_house_data``: upsert the games, stakes and collection schedules (seed 004)."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.errors import FloorError
from tables.house_data import DATA_FILE, HouseDataError, load_house_data


def _moment(text: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO time: {text!r}") from None
    if moment.tzinfo is None:
        raise argparse.ArgumentTypeError(f"give a time zone: {text!r}")
    return moment


class Command(BaseCommand):
    help = (
        "Load the house data (approved games, stakes, collection schedules) from its JSON file; idempotent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--file", type=Path, default=DATA_FILE, help=f"data file (default {DATA_FILE})")
        parser.add_argument(
            "--effective-from",
            type=_moment,
            default=None,
            help="a back-dated load: new schedules in force from this ISO time with zone "
            "(default: now, the moment they are loaded)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = load_house_data(options["file"], effective_from=options["effective_from"])
        except (HouseDataError, FloorError) as exc:
            raise CommandError(f"house data not loaded: {exc}") from exc
        if report.changed:
            self.stdout.write(self.style.SUCCESS(f"House data loaded: {report}"))
        else:
            self.stdout.write("House data already up to date; nothing loaded.")
        for line in report.kept_lines():  # the floor's changes: never undone by a re-run
            self.stdout.write(self.style.WARNING(line))
