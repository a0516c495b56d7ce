"""Batch evaluations from the studio (issue 13 §2): a creator runs a world version against a
list of models, on a fixed route or in automatic games, on Celery, and reads the report.

Modules, one noun each: ``models`` (the rows), ``choices`` (which models a user may pick and how
each is built), ``service`` (start, cancel, progress), ``steps`` (one action: prepare, play,
record), ``reporting`` (the report, the plots, the exports, κ), ``tasks`` (Celery), ``forms``,
``views`` and ``urls``. The engine side is ``engine.evals``.
"""
