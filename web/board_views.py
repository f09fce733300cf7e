"""The room's public board (``/board/``): a page for a TV in the room, no login, read-only.

``/board/`` draws the whole page once; its script (``static/live.js``, from the site: no inline
script) then polls ``/board/panel/`` every :data:`POLL_SECONDS` seconds. Each poll is a
conditional GET: the panel's ETag is :func:`tables.board.board_version` (one query), so while
nothing changed the answer is a ``304 Not Modified`` with no body and nothing is drawn; after a
change the next poll gets the new panel. A poll holds no worker (plain short requests, no
streaming: the production server runs a few sync workers), and a restarted server answers the next
poll as if nothing happened (nothing is kept between requests).

The board shows no player's full name: :attr:`tables.models.Player.board_name` (an alias the
player chose, else first name and initial).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils.cache import patch_cache_control
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.http import condition

from tables.board import board, board_version

#: How often a board asks whether anything changed (a change shows within this, plus a redraw).
POLL_SECONDS = 2


def _etag(request: HttpRequest) -> str:
    return board_version()


def _no_cache[R: HttpResponseBase](response: R) -> R:
    """Stored, but asked about again on every poll (``no-cache``): the ETag answers."""
    patch_cache_control(response, no_cache=True)
    return response


@method_decorator(login_not_required, name="dispatch")
class BoardView(View):
    """``/board/``: the board's page (the panel drawn in, and the script that keeps it current)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        version = board_version()
        response = render(
            request,
            "floor/board.html",
            {"board": board(), "poll_seconds": POLL_SECONDS, "etag": f'"{version}"'},
        )
        return _no_cache(response)


@method_decorator(login_not_required, name="dispatch")
@method_decorator(condition(etag_func=_etag), name="get")
class BoardPanelView(View):
    """``/board/panel/``: the board's content alone, with its ETag (304 while unchanged)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        return _no_cache(render(request, "floor/_board_panel.html", {"board": board()}))

    def dispatch(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponseBase:
        # A 304 from the condition check keeps the same caching rule as a 200.
        return _no_cache(super().dispatch(request, *args, **kwargs))
