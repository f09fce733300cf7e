"""Read-only admin for the ledger: nothing can be added, changed or deleted here.

Money moves only through ``ledger.services`` (and a mistake is undone by a reversal), so the admin
is a window onto the books for auditors and floor managers with the ``view`` permissions.
"""

from __future__ import annotations

from django.contrib import admin

from casino.core.admin import NoWrites, ReadOnlyAdmin
from ledger.models import (
    AccessEvent,
    Account,
    AuthChange,
    ChainHead,
    DropCount,
    Entry,
    FeeWaiver,
    IntegrityCheck,
    JournalTransaction,
    ReportExport,
    ShiftClose,
    VarianceSignOff,
)


class EntryInline(NoWrites, admin.TabularInline):
    model = Entry
    fields = ("line", "account", "amount")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("line",)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "kind",
        "table",
        "player",
        "hand",
        "shift_date",
        "shift_code",
        "balance",
        "created_at",
    )
    list_filter = ("kind", "shift_code", "shift_date")
    search_fields = ("player__name", "player__member_number")
    list_select_related = ("table", "player", "hand__table")
    raw_id_fields = ("table", "player", "hand")


@admin.register(JournalTransaction)
class JournalTransactionAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "created_at",
        "kind",
        "table",
        "hand",
        "created_by",
        "idempotency_key",
        "reverses",
        "chain",
        "sequence",
    )
    list_filter = ("kind", "chain")
    search_fields = ("idempotency_key", "memo", "hash")
    date_hierarchy = "created_at"
    list_select_related = ("table", "hand__table", "created_by", "reverses")
    raw_id_fields = ("table", "hand", "created_by", "reverses")
    inlines = (EntryInline,)


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "transaction", "line", "account", "amount")
    list_filter = ("account__kind", "transaction__kind")
    list_select_related = ("transaction", "account")
    raw_id_fields = ("transaction", "account")
    search_fields = ("transaction__idempotency_key",)


@admin.register(ChainHead)
class ChainHeadAdmin(ReadOnlyAdmin):
    list_display = ("chain", "sequence", "hash")
    search_fields = ("chain",)


# --- Report records: read-only here too (written by the report pages, the API and the jobs) ---------


@admin.register(FeeWaiver)
class FeeWaiverAdmin(ReadOnlyAdmin):
    list_display = ("id", "hand", "player", "amount_cents", "reason", "created_by", "created_at")
    list_select_related = ("hand__table", "player", "created_by")
    raw_id_fields = ("hand", "player", "created_by")
    search_fields = ("reason", "player__name")
    date_hierarchy = "created_at"


@admin.register(DropCount)
class DropCountAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "table",
        "shift_date",
        "shift_code",
        "amount_cents",
        "counter_one",
        "counter_two",
        "entered_by",
        "entered_at",
        "supersedes",
    )
    list_filter = ("shift_code", "shift_date")
    list_select_related = ("table", "entered_by", "supersedes")
    raw_id_fields = ("table", "entered_by", "supersedes")


@admin.register(VarianceSignOff)
class VarianceSignOffAdmin(ReadOnlyAdmin):
    list_display = ("id", "drop_count", "variance_cents", "threshold_bp", "signed_by", "signed_at")
    list_select_related = ("drop_count__table", "signed_by")
    raw_id_fields = ("drop_count", "signed_by")


@admin.register(ShiftClose)
class ShiftCloseAdmin(ReadOnlyAdmin):
    list_display = ("id", "shift_date", "shift_code", "closed_at", "closed_by", "report_sha256")
    list_filter = ("shift_code",)
    date_hierarchy = "closed_at"
    raw_id_fields = ("closed_by",)


@admin.register(IntegrityCheck)
class IntegrityCheckAdmin(ReadOnlyAdmin):
    list_display = ("id", "started_at", "source", "ok", "transactions", "entries", "accounts")
    list_filter = ("ok", "source")
    date_hierarchy = "started_at"
    raw_id_fields = ("triggered_by",)


@admin.register(ReportExport)
class ReportExportAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "format", "status", "requested_by", "requested_at", "size", "sha256")
    list_filter = ("kind", "format", "status")
    exclude = ("content",)
    raw_id_fields = ("requested_by",)


@admin.register(AuthChange)
class AuthChangeAdmin(ReadOnlyAdmin):
    list_display = ("id", "at", "action", "subject_type", "subject_repr", "detail")
    list_filter = ("action", "subject_type")
    date_hierarchy = "at"


@admin.register(AccessEvent)
class AccessEventAdmin(ReadOnlyAdmin):
    list_display = ("id", "at", "kind", "username", "address", "path")
    list_filter = ("kind",)
    search_fields = ("username", "address")
    date_hierarchy = "at"
