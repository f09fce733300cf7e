# The API's replay records (IdempotentRequest) are the web's model now (web 0001_initial, which has
# it in its state under the same table): out of the floor's state, and nothing done to the
# database, so the table and its rows stay as they are.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0008_misdeal_reasons_by_game'),
        # The web's state has the model first, so no state between the two lacks it.
        ('web', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='IdempotentRequest'),
            ],
            database_operations=[],
        ),
    ]
