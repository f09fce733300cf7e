"""The room's public board (``/board/``): a page for a TV in the room, no login, read-only.

``/board/`` draws the whole page once; its script (``static/live.js``, from the site: no inline
script) then polls ``/board/panel/`` every :data:`POLL_SECONDS` seconds. Each poll is a
conditional GET: the panel's ETag is :func:`tables.board.board_version` (one query that reads what
the board draws), so while nothing changed the answer is a ``304 Not Modified`` with no body and
nothing is drawn; after any change the next poll gets the new panel. A poll holds no worker (plain
short requests, no streaming: the production server runs a few sync workers), and a restarted
server answers the next poll as if nothing happened (nothing is kept between requests but the
drawing below, which is only a copy).

Each worker keeps the panel it drew last with its version (:class:`_LastDrawn`): the other boards
asking for the same version get that copy, so a change costs a drawing per worker, not per board.
A drawing is kept (and sent with an ETag) only if the version read after drawing it is the one
read before: a change made while it was drawn could otherwise leave a board showing a state that
no longer is under a version that is current again.

The board shows no player's full name: :attr:`tables.models.Player.board_name` (an alias the
player chose, else first name and initial).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.decorators import method_decorator
from django.utils.http import quote_etag
from django.utils.safestring import SafeString
from django.views import View

from tables.board import board, board_version

#: How often a board asks whether anything changed (a change shows within this, plus a redraw).
POLL_SECONDS = 2
PANEL_TEMPLATE = "floor/_board_panel.html"


@dataclass(frozen=True, slots=True)
class Drawn:
    """The panel's HTML and the version it shows (``etag`` None: the state changed while it was
    drawn, so no version names it; the board draws it and asks again without an ETag)."""

    etag: str | None
    html: SafeString


class _LastDrawn:
    """The last panel this worker drew, with its version. Replaced whole (one assignment: threads
    of a worker share it safely); lost on a restart, when the next poll draws it again."""

    drawn: tuple[str, SafeString] | None = None

    @classmethod
    def panel(cls, version: str) -> Drawn:
        """The panel for ``version`` (:func:`board_version`, read just now): this worker's copy, or
        drawn now."""
        last = cls.drawn
        if last is not None and last[0] == version:
            return Drawn(quote_etag(version), last[1])
        html = render_to_string(PANEL_TEMPLATE, {"board": board()})
        if board_version() != version:
            return Drawn(None, html)
        cls.drawn = (version, html)
        return Drawn(quote_etag(version), html)


def _no_cache[R: HttpResponseBase](response: R) -> R:
    """Stored, but asked about again on every poll (``no-cache``): the ETag answers."""
    patch_cache_control(response, no_cache=True)
    return response


@method_decorator(login_not_required, name="dispatch")
class BoardView(View):
    """``/board/``: the board's page (the panel drawn in, and the script that keeps it current)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        drawn = _LastDrawn.panel(board_version())
        response = render(
            request,
            "floor/board.html",
            {"panel": drawn.html, "poll_seconds": POLL_SECONDS, "etag": drawn.etag or ""},
        )
        return _no_cache(response)


@method_decorator(login_not_required, name="dispatch")
class BoardPanelView(View):
    """``/board/panel/``: the board's content alone, with its ETag (304 while unchanged)."""

    def get(self, request: HttpRequest) -> HttpResponseBase:
        version = board_version()
        not_modified = get_conditional_response(request, etag=quote_etag(version))
        if not_modified is not None:
            # A 304 keeps the ETag and the same caching rule as a 200.
            not_modified.headers.setdefault("ETag", quote_etag(version))
            return _no_cache(not_modified)
        drawn = _LastDrawn.panel(version)
        response = HttpResponse(drawn.html)
        if drawn.etag is not None:
            response["ETag"] = drawn.etag
        return _no_cache(response)
