"""The test process's ``flush``: every table emptied but the content types and permissions.

pytest-django flushes the database after each transactional test (every browser and integration
test among them). Django's flush empties all tables, then sends ``post_migrate`` so that the
content types and permissions are created again: some 25 ms of each test here (53 transactional
tests of tests/play: 15.7-16.3 s with it, 14.4-15.5 s without), for rows that only migrations
make and no test changes. Keeping those two tables makes the signal
unneeded (nothing else in the project listens to it). Only the test settings install this app.
"""
