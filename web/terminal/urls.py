"""The dealer terminal's routes: its pages (in the ``tables`` namespace) and its API's (included
from casino/urls.py)."""

from django.urls import path
from rest_framework.viewsets import ViewSetMixin

from web.terminal import api, views

urlpatterns = [
    path("tables/<int:number>/", views.TerminalView.as_view(), name="terminal"),
    path("tables/<int:number>/start/", views.StartHandView.as_view(), name="start-hand"),
    path("tables/<int:number>/clock/", views.ClockView.as_view(), name="clock"),
    path("hands/<int:pk>/sweep/", views.DeclareSweepView.as_view(), name="declare-sweep"),
    path("hands/<int:pk>/showdown/", views.ShowdownView.as_view(), name="showdown"),
    path("hands/<int:pk>/confirm/", views.ConfirmView.as_view(), name="confirm"),
    path("hands/<int:pk>/misdeal/", views.MisdealView.as_view(), name="misdeal"),
]

#: ``/api/`` routes of the terminals: chips, fees, hands and their money (handflow.services).
api_routes: list[tuple[str, type[ViewSetMixin], str]] = [
    ("terminal/tables", api.TerminalTableViewSet, "terminal-table"),
    ("terminal/hands", api.TerminalHandViewSet, "terminal-hand"),
]
