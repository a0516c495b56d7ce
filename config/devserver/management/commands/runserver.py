"""Daphne's ``runserver``: HTTP and websockets in one process, as ``make run`` serves them."""

from daphne.management.commands.runserver import Command

__all__ = ["Command"]
