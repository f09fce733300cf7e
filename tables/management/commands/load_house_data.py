"""``manage.py load_house_data``: upsert the games, stakes and collection schedules (seed 004)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.errors import FloorError
from tables.house_data import DATA_FILE, HouseDataError, load_house_data


class Command(BaseCommand):
    help = (
        "Load the house data (approved games, stakes, collection schedules) from its JSON file; idempotent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--file", type=Path, default=DATA_FILE, help=f"data file (default {DATA_FILE})")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = load_house_data(options["file"])
        except (HouseDataError, FloorError) as exc:
            raise CommandError(f"house data not loaded: {exc}") from exc
        if report.changed:
            self.stdout.write(self.style.SUCCESS(f"House data loaded: {report}"))
        else:
            self.stdout.write("House data already up to date; nothing loaded.")
