"""``python manage.py showdown < hand.json``: decide showdowns from standard input.

One JSON object in -> one JSON object out.  JSON Lines in -> one result line per input line.
Bad input: ``{"error": "..."}`` on standard output and exit status 2 (for JSON Lines, the
other lines are still decided and the status is 2 if any line was bad).  The rules live in
:mod:`poker.showdown`; this command only reads, writes and sets the exit status.
"""

from __future__ import annotations

import gc
import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from poker.showdown import decide_line, decide_value

_NOT_JSON = object()


class Command(BaseCommand):
    help = "Decide showdowns: one JSON hand (or JSON Lines) on stdin, results on stdout."

    def handle(self, *args: Any, **options: Any) -> None:
        # Everything loaded so far (Django, the apps) outlives the command: keep it out of the
        # collector's way while thousands of hands are decided (noticeably faster JSON Lines).
        gc.freeze()
        try:
            all_ok = self._decide_stdin()
        finally:
            gc.unfreeze()
        if not all_ok:
            sys.exit(2)

    def _decide_stdin(self) -> bool:
        text = sys.stdin.read()
        lines = [line for line in text.splitlines() if line.strip()]
        all_ok = True
        try:
            value = json.loads(text)
        except ValueError:
            value = _NOT_JSON
        if value is not _NOT_JSON or len(lines) <= 1:
            # One JSON object (possibly spread over several lines), or one bad line.
            if value is not _NOT_JSON:
                result, all_ok = decide_value(value)
            elif text.strip():
                result, all_ok = decide_line(text)
            else:
                result, all_ok = json.dumps({"error": "no input: expected a JSON object on stdin"}), False
            self.stdout.write(result)
        else:
            results: list[str] = []
            for line in lines:
                result, ok = decide_line(line)
                all_ok = all_ok and ok
                results.append(result)
            self.stdout.write("\n".join(results))
        self.stdout.flush()
        return all_ok
