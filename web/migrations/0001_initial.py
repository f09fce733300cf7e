# The API's replay records (IdempotentRequest) move from the floor's app to the web's, keeping their
# table: made by tables 0002_hand_money, it is already there. This migration only tells Django's
# state that the model is the web's now (tables 0009_idempotent_request_to_web takes it out of the
# floor's state); the database is not touched.

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        # The migration that made the table (and its user column).
        ('tables', '0002_hand_money'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='IdempotentRequest',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('key', models.CharField(max_length=100, unique=True)),
                        ('method', models.CharField(max_length=10)),
                        ('path', models.CharField(max_length=300)),
                        ('request_digest', models.CharField(max_length=64)),
                        ('status_code', models.PositiveSmallIntegerField()),
                        ('response', models.JSONField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'tables_idempotentrequest',
                        'ordering': ('-created_at',),
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
