"""The access log page (``/reports/access/``): every login, failed login, lock-out, logout, idle session
ended and password set (``ledger.AccessEvent``, docs/security.md), newest first, for an auditor.

Needs ``ledger.view_reports`` like every report page, and is never stored by a browser
(``ReportPermission``). Filters: a period of days on the room's clock (the last 7 by default), a
username, a kind of event. ``?format=csv`` downloads the same rows (all of them, not only the page's
first ``PAGE_ROWS``) as CSV with its ``X-Content-SHA256``. Group and permission changes are in the
configuration change log, which the page links to.
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

from django import forms
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.http import urlencode
from django.views import View

from backoffice.exports import CsvWriter, download_response
from ledger.models import AccessEvent, AccessEventKind
from ledger.shifts import local_midnight, room_zone
from web.reports.views import ReportPermission

PAGE_ROWS = 500
"""Rows shown on the page (the CSV has them all)."""
DEFAULT_DAYS = 7
CSV_COLUMNS = ("at", "kind", "username", "user_id", "address", "path", "user_agent", "detail")


class AccessLogFilterForm(forms.Form):
    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))
    user = forms.CharField(required=False, max_length=150, label="Username")
    kind = forms.ChoiceField(
        required=False, label="Event", choices=[("", "every event"), *AccessEventKind.choices]
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        today = timezone.now().astimezone(room_zone()).date()
        date_to = data.get("date_to") or today
        date_from = data.get("date_from") or date_to - dt.timedelta(days=DEFAULT_DAYS - 1)
        if date_from > date_to:
            raise forms.ValidationError("The period ends before it starts.")
        data["date_from"], data["date_to"] = date_from, date_to
        return data


def access_events(data: dict[str, Any]) -> QuerySet[AccessEvent]:
    """The events of the cleaned filters ``data``, newest first."""
    rows = AccessEvent.objects.filter(
        at__gte=local_midnight(data["date_from"]),
        at__lt=local_midnight(data["date_to"] + dt.timedelta(days=1)),
    )
    if data.get("user"):
        rows = rows.filter(username__iexact=data["user"])
    if data.get("kind"):
        rows = rows.filter(kind=data["kind"])
    return rows.order_by("-at", "-pk")


def access_csv(rows: QuerySet[AccessEvent]) -> bytes:
    """The rows as CSV (UTF-8, a header line, times in ISO 8601 UTC), through the exports' one
    writer: a username or a User-Agent typed like a formula at the login page is text in it."""
    out = io.StringIO()
    writer = CsvWriter(out)
    writer.writerow(CSV_COLUMNS)
    for event in rows.iterator():
        writer.writerow(
            [
                event.at.astimezone(dt.UTC).isoformat(),
                event.kind,
                event.username,
                "" if event.user_id is None else event.user_id,
                event.address or "",
                event.path,
                event.user_agent,
                event.detail or "",
            ]
        )
    return out.getvalue().encode()


class AccessLogView(ReportPermission, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        form = AccessLogFilterForm(request.GET)
        if not form.is_valid():
            return render(request, "reports/access.html", {"form": form, "events": []}, status=400)
        data = form.cleaned_data
        rows = access_events(data)
        if request.GET.get("format") == "csv":
            name = f"access-{data['date_from']:%Y-%m-%d}-{data['date_to']:%Y-%m-%d}.csv"
            return download_response(access_csv(rows), "text/csv; charset=utf-8", name)
        query = {key: str(value) for key, value in request.GET.items() if key != "format"}
        events = list(rows[: PAGE_ROWS + 1])
        context = {
            "form": form,
            "events": events[:PAGE_ROWS],
            "truncated": len(events) > PAGE_ROWS,
            "page_rows": PAGE_ROWS,
            "filters": data,
            "csv_url": "?" + urlencode({**query, "format": "csv"}),
        }
        return render(request, "reports/access.html", context)
