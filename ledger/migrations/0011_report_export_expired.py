"""A report export's file is kept for a set time (``settings.EXPORT_RETENTION_DAYS``): the status
``expired`` says it was dropped (``content`` null). A choice only: nothing changes in the database
(no CHECK lists the statuses), so the table isn't rebuilt and its no-DELETE trigger stays as it is.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0010_access_log'),
    ]

    operations = [
        migrations.AlterField(
            model_name='reportexport',
            name='status',
            field=models.CharField(choices=[('pending', 'Queued'), ('running', 'Being built'), ('done', 'Ready'), ('failed', 'Failed'), ('expired', 'Expired (file dropped)')], default='pending', max_length=10),
        ),
    ]
