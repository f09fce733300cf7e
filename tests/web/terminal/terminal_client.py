"""What a dealer terminal sends to deal: the fees it was shown (GET .../fees/), confirmed."""

from __future__ import annotations

from typing import Any


def fees_shown(client: Any, table_number: int) -> dict[str, Any]:
    """The body of a "deal" request: ``expected_fees`` as the fee preview shows them now."""
    preview = client.get(f"/api/terminal/tables/{table_number}/fees/")
    assert preview.status_code == 200, preview.content
    return {"expected_fees": preview.json()["dealt"]}
