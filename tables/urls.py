"""Page routes of the floor (included from casino/urls.py)."""

from django.urls import path

from tables.views import HomeView

app_name = "tables"

urlpatterns = [
    path("", HomeView.as_view(), name="home"),
]
