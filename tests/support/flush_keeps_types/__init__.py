"""The test process's ``flush``: every table emptied but the content types and permissions.

pytest-django flushes the database after each transactional test (every browser and integration
test among them). Django's flush empties all tables, then sends ``post_migrate`` so that the
content types and permissions are created again: ~60 queries, 0.06 s of each test here, for rows
that only migrations make and no test changes. Keeping those two tables makes the signal
unneeded (nothing else in the project listens to it). Only the test settings install this app.
"""
