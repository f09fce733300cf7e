"""``flush`` empties the ledger too (on SQLite its triggers are lifted for it), and the ledger is
append-only again afterwards. The teardown of every ``transaction=True`` test relies on this."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from ledger import services
from ledger.models import Account, Entry, JournalTransaction
from tables.models import Player, Table


@pytest.mark.tamper
@pytest.mark.django_db(transaction=True)
def test_flush_empties_the_ledger_and_keeps_it_append_only(
    make_bare_table: Callable[[], Table], make_bare_player: Callable[..., Player]
) -> None:
    services.buy_in(
        table=make_bare_table(), player=make_bare_player(), amount=1_000, user=None, idempotency_key="in"
    )

    call_command("flush", interactive=False, verbosity=0)

    assert not JournalTransaction.objects.exists()
    assert not Entry.objects.exists()
    assert not Account.objects.exists()
    again = services.buy_in(
        table=make_bare_table(), player=make_bare_player(), amount=500, user=None, idempotency_key="in"
    ).transaction
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM ledger_entry WHERE transaction_id = %s", [again.pk])
    assert Entry.objects.filter(transaction=again).count() == 2
