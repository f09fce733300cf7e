"""Without Chromium or the playwright package the browser tests are skipped, and ``pytest -rs``
says what is missing and how to install it (no error, no silent pass).

Each case runs the browser test modules (``test_pages_in_chromium.py``,
``test_terminal_in_chromium.py``) in a child pytest with the piece taken away: Chromium by pointing
``CHROMIUM`` at a path that doesn't exist, the package by a stand-in ``playwright`` that fails to
import put first on ``PYTHONPATH``. No browser is started and no database is made
(skipped tests take no fixtures), so this runs everywhere, with Chromium installed or not.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings

HERE = Path(__file__).resolve().parent
BROWSER_TESTS = [HERE / "test_pages_in_chromium.py", HERE / "test_terminal_in_chromium.py"]


def run_browser_tests(**env: str) -> str:
    """``pytest -rs`` of the browser tests with ``env`` added; its output (every test skipped)."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", *map(str, BROWSER_TESTS)],
        cwd=settings.BASE_DIR,
        env={name: value for name, value in os.environ.items() if name != "PYTEST_ADDOPTS"} | env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert re.search(r"^\d+ skipped(, \d+ warnings?)? in ", output, flags=re.M), output
    return output


def test_without_chromium_the_browser_tests_say_how_to_install_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir" / "chromium"
    output = run_browser_tests(CHROMIUM=str(missing))
    assert f"Chromium not found at {missing}: apt-get install chromium" in output


def test_without_the_playwright_package_the_browser_tests_say_so(tmp_path: Path) -> None:
    stand_in = tmp_path / "playwright"
    stand_in.mkdir()
    (stand_in / "__init__.py").write_text('raise ImportError("no playwright here")\n')
    pythonpath = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    output = run_browser_tests(PYTHONPATH=pythonpath)
    assert "the playwright package can't be imported (no playwright here)" in output
    assert "requirements.lock" in output
