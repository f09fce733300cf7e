"""The hand API benchmark's server settings: the project's, with the no-op floor route in front of
its URLs (``benchmarks/api_floor_urls.py``). Benchmark code only: ``bench_hand_api.py`` runs the
production server with ``DJANGO_SETTINGS_MODULE=benchmarks.floor_settings``."""

from casino.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.api_floor_urls"
