"""The misdeal codes of Robert's Rules of Poker for the pot games, beside 004's (docs/misdeals.md):
the field's choices and its CHECK constraint list them.

On SQLite a CHECK constraint is changed by rebuilding ``tables_hand`` (copy, drop, rename), and the
rebuilt table keeps only what Django knows of: the ledger's guards on it, made by raw SQL (the
triggers of ledger migration 0006: a hand is dealt only with its fees, settled and void are final;
the report index of 0005), would be gone. As ledger 0008 did after floor 0004, they are put back
here, from the ledger's frozen SQL, when those migrations have run (else they make them later);
nothing to do on PostgreSQL, whose ALTER TABLE keeps them.
``tests/ledger/test_hand_dealt_only_with_fees.py`` fails without it.
"""

import importlib

from django.db import migrations, models
from django.db.migrations.recorder import MigrationRecorder

_GUARDS = ("ledger", "0006_hand_dealt_only_with_fees")
_INDEXES = ("ledger", "0005_report_indexes")


def restore_ledger_guards(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    applied = MigrationRecorder(schema_editor.connection).applied_migrations()
    if _GUARDS in applied:
        guards = importlib.import_module("ledger.migrations." + _GUARDS[1])
        for statement in [*guards.SQLITE_REVERSE, *guards.SQLITE_FORWARD]:
            schema_editor.execute(statement, params=None)
    if _INDEXES in applied:
        indexes = importlib.import_module("ledger.migrations." + _INDEXES[1])
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {indexes.HAND_INDEX} ON tables_hand (created_at)", params=None
        )


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0007_showdown_drafts'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='hand',
            name='hand_misdeal_reason_valid',
        ),
        migrations.AlterField(
            model_name='hand',
            name='misdeal_reason',
            field=models.CharField(blank=True, choices=[('exposed_five', "Five or more cards of one player's hand exposed by the dealer (004 Chinese poker 7a)"), ('wrong_count', 'A player dealt the wrong number of cards (004 Chinese poker 7b)'), ('boxed_cards', 'Five or more boxed cards in the deck (004 Chinese poker 7c)'), ('foreign_card', 'A foreign card in the deck (004 Chinese poker 7d)'), ('duplicate_card', "The same card in two players' hands (004 Chinese poker 9)"), ('six_cards', 'Six cards dealt to two players (004 lowball 13)'), ('exposed_up', 'More than one card exposed face up by the dealer (004 lowball 13)'), ('first_cards_exposed', "The first or second card of the hand exposed by the dealer (Robert's Rules, misdeal 2a)"), ('two_exposed', "Two or more cards exposed by the dealer (Robert's Rules, misdeal 2b)"), ('two_boxed', "Two or more boxed cards found (Robert's Rules, misdeal 2c)"), ('extra_cards', "Two or more extra cards dealt in the starting hands (Robert's Rules, misdeal 2d)"), ('wrong_number', "A player dealt a wrong number of cards (Robert's Rules, misdeal 2e)"), ('out_of_sequence', "A card dealt out of sequence (Robert's Rules, misdeal 2f)"), ('button_misplaced', "The button out of position (Robert's Rules, misdeal 2g)"), ('first_card_wrong', "The first card dealt to the wrong seat (Robert's Rules, misdeal 2h)"), ('empty_seat_dealt', "Cards dealt to an empty seat or a player not entitled to a hand (Robert's Rules, misdeal 2i)"), ('player_dealt_out', "A player entitled to a hand dealt out (Robert's Rules, misdeal 2j)"), ('different_back', "A card with a different back in the hand (Robert's Rules, irregularities 3)"), ('same_card_twice', "Two cards of the same rank and suit found (Robert's Rules, irregularities 4)"), ('other', 'Other (say what happened)')], max_length=20),
        ),
        migrations.AddConstraint(
            model_name='hand',
            constraint=models.CheckConstraint(condition=models.Q(('misdeal_reason', ''), ('misdeal_reason__in', ['exposed_five', 'wrong_count', 'boxed_cards', 'foreign_card', 'duplicate_card', 'six_cards', 'exposed_up', 'first_cards_exposed', 'two_exposed', 'two_boxed', 'extra_cards', 'wrong_number', 'out_of_sequence', 'button_misplaced', 'first_card_wrong', 'empty_seat_dealt', 'player_dealt_out', 'different_back', 'same_card_twice', 'other']), _connector='OR'), name='hand_misdeal_reason_valid'),
        ),
        migrations.RunPython(restore_ledger_guards, migrations.RunPython.noop, elidable=False),
    ]
