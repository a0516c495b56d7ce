"""World tests in the studio (issue 13 §3): the tests a creator writes for a world, their editor,
and runs on Celery whose results show red or green per step."""
