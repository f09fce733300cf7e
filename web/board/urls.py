"""The public board's routes (in the ``tables`` namespace, included from casino/urls.py)."""

from django.urls import path

from web.board import views

urlpatterns = [
    path("board/", views.BoardView.as_view(), name="board"),
    path("board/panel/", views.BoardPanelView.as_view(), name="board-panel"),
]
