"""Querysets compiled to SQL once per process, then run with new parameter values.

Why: a turn makes about twenty queries, and Django compiles each one to SQL afresh: for a
model of 25 columns that took 300-500 µs of the play process's CPU against 40-50 µs for
SQLite to run it (``SQLCompiler.as_sql``; py-spy on ``bench/relay.py``). The turns' database
trips run on one thread per process, so under load that compiling is what queues the turn
starts and takes the GIL from the streaming sockets.

How: the queryset is built once with a ``Slot`` in place of each value that changes per call
(``q.session_id``); the compiled SQL holds a marker parameter for each. A call copies the
parameters, puts each value, converted as the field it is compared with would convert it, in
its slot, and lets Django's own iterable (models, ``values()``, ``values_list()``) read the rows
through the compiler kept from the first compile, so converters, ``select_related`` and
deferred fields behave as they do for the plain queryset. Only comparisons (=, <, <=, >, >=)
and ``update()`` values take slots; anything else raises at the first call.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Expression, Field, QuerySet
from django.db.models.lookups import (
    Exact,
    GreaterThan,
    GreaterThanOrEqual,
    LessThan,
    LessThanOrEqual,
)
from django.db.models.sql.compiler import SQLCompiler
from django.db.models.sql.where import WhereNode

T = TypeVar("T")


class Slot(Expression):
    """A parameter of a prepared queryset: compiles to a marker that each call replaces."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def as_sql(self, compiler: Any, connection: Any) -> Any:
        return "%s", [_Marker(self.name)]


@dataclass(frozen=True)
class _Marker:
    name: str


class _Slots:
    """What the builder receives: ``q.name`` is the slot called ``name``."""

    def __getattr__(self, name: str) -> Slot:
        return Slot(name)


@dataclass
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: list[tuple[int, str, Callable[[Any, Any], Any]]]  # position, name, to the database
    db: str
    template: Any  # the queryset built with the slots
    compiler: Any = None  # a select's, its columns set up (ModelIterable reads them)


class Prepared(Generic[T]):
    """``Prepared(lambda q: Message.objects.filter(session_id=q.session_id))(session_id=x)``.

    Returns the list the queryset would give (models, dicts or tuples); ``first`` its first.
    """

    def __init__(self, build: Callable[[Any], QuerySet[Any, T]]) -> None:
        self._build = build
        self._compiled: _Compiled | None = None
        self._lock = threading.Lock()

    def __call__(self, **values: Any) -> list[T]:
        compiled = self._compiled or self._compile()
        connection = connections[compiled.db]
        compiler = copy.copy(compiled.compiler)
        compiler.connection = connection
        params = _fill(compiled, connection, values)
        compiler.as_sql = lambda *_a, **_k: (compiled.sql, params)
        template = compiled.template
        rows: list[T] = list(template._iterable_class(_Run(template, compiler)))
        return rows

    def first(self, **values: Any) -> T | None:
        rows = self(**values)
        return rows[0] if rows else None

    def plain(self, **values: Any) -> list[T]:
        """The same rows through the queryset built with the values, compiled afresh: what a
        call saves (bench/turn_trips.py) and what it must equal (tests/play/test_prepared.py)."""
        return list(self._build(SimpleNamespace(**values)))

    def _compile(self) -> _Compiled:
        with self._lock:
            if self._compiled is None:
                queryset = self._build(_Slots())
                compiler = queryset.query.get_compiler(using=queryset.db)
                sql, params = compiler.as_sql()
                slots = _slots(params, _lookup_fields(queryset.query.where))
                self._compiled = _Compiled(sql, tuple(params), slots, queryset.db, queryset)
                self._compiled.compiler = compiler
            return self._compiled


class PreparedUpdate:
    """``PreparedUpdate(lambda q: Session.objects.filter(pk=q.pk), lambda q: {...})(pk=x, ...)``.

    The ``UPDATE`` that ``queryset.update(**values(q))`` makes, compiled once; returns the
    number of rows changed.
    """

    def __init__(
        self, build: Callable[[Any], QuerySet[Any]], values: Callable[[Any], dict[str, Any]]
    ) -> None:
        self._build, self._values = build, values
        self._compiled: _Compiled | None = None
        self._lock = threading.Lock()

    def plain(self, **values: Any) -> int:
        """The same ``UPDATE`` compiled afresh (see ``Prepared.plain``)."""
        given = SimpleNamespace(**values)
        return self._build(given).update(**self._values(given))

    def __call__(self, **values: Any) -> int:
        compiled = self._compiled or self._compile()
        connection = connections[compiled.db]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, _fill(compiled, connection, values))
            return int(cursor.rowcount)

    def _compile(self) -> _Compiled:
        from django.db.models.sql.subqueries import UpdateQuery

        with self._lock:
            if self._compiled is None:
                queryset = self._build(_Slots())
                query: Any = queryset.query.chain(klass=UpdateQuery)
                query.add_update_values(self._values(_Slots()))
                if query.related_updates:
                    raise ValueError("a prepared update writes one table")
                saved = {
                    value.name: _saved_as(field)
                    for field, _model, value in query.values
                    if isinstance(value, Slot)
                }
                sql, params = query.get_compiler(queryset.db).as_sql()
                slots = _slots(params, _lookup_fields(query.where) | saved)
                self._compiled = _Compiled(sql, tuple(params), slots, queryset.db, queryset)
            return self._compiled


class PreparedSave:
    """``PreparedSave(Message)(reply)``: the ``UPDATE`` that ``reply.save()`` makes, compiled
    once (``fields``: as ``save(update_fields=...)``); returns the number of rows changed.

    For a row that exists (it is not inserted) of a model nothing listens to: Django's
    ``pre_save``/``post_save`` signals are not sent. Fields are read as ``save`` reads them
    (``pre_save``: ``auto_now`` stamps the time) and converted as it converts them.
    """

    def __init__(self, model: Any, fields: tuple[str, ...] | None = None) -> None:
        meta = model._meta
        chosen = [meta.get_field(name) for name in fields] if fields else meta.concrete_fields
        self._fields = [f for f in chosen if not f.primary_key]
        names = [f.attname for f in self._fields]
        self._update = PreparedUpdate(
            lambda q: model._base_manager.filter(pk=q.pk),
            lambda q: {name: getattr(q, name) for name in names},
        )

    def __call__(self, instance: Any) -> int:
        values = {f.attname: f.pre_save(instance, False) for f in self._fields}
        return self._update(pk=instance.pk, **values)


_COMPARISONS = (Exact, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual)


def _lookup_fields(node: Any) -> dict[str, Callable[[Any, Any], Any]]:
    """Each slot's conversion: as the field on the left of the comparison it stands in."""
    found: dict[str, Callable[[Any, Any], Any]] = {}
    for child in node.children if isinstance(node, WhereNode) else ():
        if isinstance(child, WhereNode):
            found |= _lookup_fields(child)
        elif isinstance(getattr(child, "rhs", None), Slot):
            if not isinstance(child, _COMPARISONS):
                raise ValueError(f"a slot stands only in a comparison (=, <, >), not {child!r}")
            found[child.rhs.name] = _compared_as(child.lhs.output_field)
    return found


def _compared_as(field: Field[Any, Any]) -> Callable[[Any, Any], Any]:
    return lambda value, connection: field.get_db_prep_value(value, connection, prepared=False)


def _saved_as(field: Field[Any, Any]) -> Callable[[Any, Any], Any]:
    return lambda value, connection: field.get_db_prep_save(value, connection)


def _slots(params: Any, fields: dict[str, Callable[[Any, Any], Any]]) -> list[Any]:
    slots = []
    for position, param in enumerate(params):
        if isinstance(param, _Marker):
            if param.name not in fields:
                raise ValueError(f"slot {param.name!r} is not compared with nor saved to a field")
            slots.append((position, param.name, fields[param.name]))
    return slots


def _fill(compiled: _Compiled, connection: Any, values: dict[str, Any]) -> tuple[Any, ...]:
    params = list(compiled.params)
    for position, name, to_database in compiled.slots:
        params[position] = to_database(values[name], connection)
    return tuple(params)


class _Run:
    """What Django's iterables read from a queryset, with the prepared compiler."""

    def __init__(self, template: Any, compiler: SQLCompiler) -> None:
        self.db = template.db
        self.model = template.model
        self.query = _RunQuery(template.query, compiler)
        self._known_related_objects: dict[Any, Any] = {}
        self._fields = template._fields


class _RunQuery:
    def __init__(self, query: Any, compiler: SQLCompiler) -> None:
        self._query, self._compiler = query, compiler

    def get_compiler(self, *_args: Any, **_kwargs: Any) -> SQLCompiler:
        return self._compiler

    def __getattr__(self, name: str) -> Any:
        return getattr(self._query, name)
