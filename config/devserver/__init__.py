"""``manage.py runserver`` served by daphne, without daphne's app in INSTALLED_APPS.

Daphne's own app imports ``daphne.server`` (Twisted, autobahn: ~0.14 s) when Django starts, so
every ``manage.py`` step, Celery worker and test process paid for a server it never ran. Listed
before ``django.contrib.staticfiles``, this app's ``runserver`` is daphne's command, and the
import happens only when that command is loaded, still before anything touches the reactor.
"""
