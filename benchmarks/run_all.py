"""Run every benchmark in this folder (bench_*.py), one after another, each in its own
process, printing its figures side by side with its named baseline.

    .venv/bin/python benchmarks/run_all.py            # all of them
    .venv/bin/python benchmarks/run_all.py showdown   # those whose file name contains 'showdown'
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    wanted = argv[1:]
    scripts = sorted(p for p in HERE.glob("bench_*.py") if not wanted or any(w in p.name for w in wanted))
    status = 0
    for script in scripts:
        print(f"\n=== {script.name}", flush=True)
        status |= subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
