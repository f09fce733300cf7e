"""The software version printed on every report: the project's version and, when the code runs
from a git checkout, the commit (read from ``.git`` directly; no subprocess).

``SOFTWARE_REVISION`` in the environment (e.g. set by a deployment) overrides the git lookup.
"""

from __future__ import annotations

import functools
import os
import tomllib
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent  # casino/core/version.py -> the checkout


@functools.cache
def software_version() -> str:
    """``"casino 0.1.0 (3534c71)"``; the revision part is left out when it can't be found."""
    try:
        with (BASE_DIR / "pyproject.toml").open("rb") as file:
            project = tomllib.load(file).get("project", {})
        name, version = str(project.get("name", "casino")), str(project.get("version", "unknown"))
    except (OSError, tomllib.TOMLDecodeError):
        name, version = "casino", "unknown"
    revision = os.environ.get("SOFTWARE_REVISION", "").strip() or _git_revision(BASE_DIR / ".git")
    return f"{name} {version}" + (f" ({revision[:12]})" if revision else "")


def _git_revision(git_dir: Path) -> str:
    """The commit ``HEAD`` points at, or ``""`` (not a checkout, detached oddities, unreadable)."""
    try:
        head = (git_dir / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head
        ref = head.removeprefix("ref: ").strip()
        ref_file = git_dir / ref
        if ref_file.is_file():
            return ref_file.read_text().strip()
        packed = git_dir / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1] == ref:
                    return parts[0]
    except OSError:
        return ""
    return ""
