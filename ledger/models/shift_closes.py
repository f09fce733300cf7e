"""Closed shifts: the collection report frozen at the close, sealed with checksums and anchors."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from ledger.models.base import AppendOnlyModel
from ledger.shifts import Shift, ShiftCode


class ShiftClose(AppendOnlyModel):
    """A closed shift: its collection report frozen as it stood at the close, with checksums.

    ``report`` is the report's JSON (``CollectionReport.as_dict()``), ``report_sha256`` the
    sha256 of its canonical data (filters and figures, not the time it was made); ``anchors`` the
    ledger's chain heads at the close, signed (``ledger.anchors``). The sealed record is the
    report's CSV export made at the close, with the signed anchor as two more tables:
    ``export_zip``, a zip of one CSV per table (the form every report downloads in), or, for a
    close made before ledger migration 0009, ``export_csv``, one CSV with a ``section`` row before
    each table (``export_zip`` is then null). ``export_sha256`` is the sha256 of the sealed file's
    bytes, whichever form it has (:meth:`sealed_export`). One per shift: closing again returns the
    first (``backoffice.closing.close_shift``)."""

    shift_date = models.DateField()
    shift_code = models.CharField(max_length=8, choices=ShiftCode.choices)
    closed_at = models.DateTimeField(default=timezone.now)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    report = models.JSONField()
    report_sha256 = models.CharField(max_length=64)
    export_csv = models.TextField(
        blank=True, help_text="The sealed CSV of a close made before the zip; else empty."
    )
    export_zip = models.BinaryField(
        null=True, blank=True, help_text="The sealed export: a zip of one CSV per table (null: export_csv)."
    )
    export_sha256 = models.CharField(max_length=64)
    software_version = models.CharField(max_length=100)
    last_transaction_id = models.BigIntegerField(
        null=True, blank=True, help_text="The ledger's last transaction when the shift was closed."
    )
    anchors = models.JSONField(
        default=dict, blank=True, help_text="Signed chain heads at the close (ledger.anchors)."
    )

    class Meta:
        ordering = ["-shift_date", "-shift_code", "-pk"]
        permissions = [("view_reports", "Can view the regulator reports and request their exports")]
        constraints = [
            models.UniqueConstraint(fields=["shift_date", "shift_code"], name="ledger_shiftclose_once"),
            models.CheckConstraint(
                name="ledger_shiftclose_shift_code_valid", condition=Q(shift_code__in=ShiftCode.values)
            ),
        ]

    def __str__(self) -> str:
        return f"close of shift {self.shift}"

    @property
    def shift(self) -> Shift:
        return Shift(business_date=self.shift_date, code=ShiftCode(self.shift_code))

    def sealed_export(self) -> tuple[bytes, str, str]:
        """The sealed record as ``(bytes, content type, file name)``: the zip of CSVs
        (``application/zip``, ``shift-close-2030-01-02_day.zip``), or a close's single CSV from
        before the zip (``text/csv``, ``....csv``). ``export_sha256`` is the sha256 of these bytes."""
        name = f"shift-close-{self.shift_date.isoformat()}_{self.shift_code}"
        if self.export_zip is not None:
            return bytes(self.export_zip), "application/zip", f"{name}.zip"
        return self.export_csv.encode(), "text/csv; charset=utf-8", f"{name}.csv"
