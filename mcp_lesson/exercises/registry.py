"""What the lessons build: one row per function, read by every part of the course.

Each function a learner writes into their package has one :class:`Built` row:
the lesson that builds it, the file of the learner's package it goes into, the
course's own version (its reference), the table that checks it (its cases and
how each is judged, :mod:`mcp_lesson.exercises.selfcheck`) and the inputs it is compared
with the course's on (:mod:`mcp_lesson.exercises.agreement`). The
self-checks (:mod:`mcp_lesson.exercises.selfcheck`), the lessons' helpers
(:mod:`mcp_lesson.course`), carry-forward and graduation
(:mod:`mcp_lesson.exercises.learner_package`, ``tests/implementation.py``) all read this
table; none keeps a list of its own.

An exercise is declared once, in its lesson's master, and every row here is derived from it
(:func:`derived`, on mcp_lesson/core/graded.py, which ``make export`` writes from the masters):
no row is typed by hand. Its cases are declared, never guessed: its graded cell's visible cases,
unless a case module declares a table for it by name (a row of a module's ``CHECKS``,
:data:`SHARED`, or of inputs.py's ``AGREES_ON``: shared inputs it answers as the course's version
does). Its reference is declared too: mcp_lesson.rules' ``RICHER`` names the course's richer
versions, and the rest are the master's export. So a new graded function appears here, in the
self-check, in graduation and in the judge's may-borrow list with no other file edited, checked on
the cases its graded cell shows.

It imports the tables it holds (the case modules' CHECKS, judged as tables.py says, and the
shared inputs of inputs.py) and the lessons' table (mcp_lesson/exercises/lessons.py);
:func:`reference` imports a course's version only when asked. selfcheck.py and agreement.py,
which run those tables, import this module.
"""

import importlib
import importlib.util
from typing import NamedTuple

from mcp_lesson import rules as _rules
from mcp_lesson.exercises import cases as _cases
from mcp_lesson.exercises import declared as _declared
from mcp_lesson.exercises import http_cases as _http
from mcp_lesson.exercises import inputs as _agree
from mcp_lesson.exercises import lessons as _lessons
from mcp_lesson.exercises import server_cases as _server
from mcp_lesson.exercises import tables as _check
from mcp_lesson.exercises import traffic_cases as _traffic
from mcp_lesson.exercises.hidden_tests import same as _same_value

try:  # the masters' graded exercises, as data (make export writes it)
    from mcp_lesson.core.graded import EXERCISES as _DECLARED
except ImportError:  # pragma: no cover - a core exported before graded.py existed
    _DECLARED = ()  # type: ignore[assignment]  # none declared
if any(len(entry) != len(_declared.Declared._fields) for entry in _DECLARED):  # pragma: no cover
    _DECLARED = ()  # type: ignore[assignment]  # written by an older make export: the package still imports, so make export can run again


class Built(NamedTuple):
    """One function a lesson builds."""

    name: str
    #: The lesson that builds it ("03" for notebooks/03_classifying.ipynb).
    lesson: str
    #: The module of the learner's package it is exported into (my_mcp/<module>.py).
    module: str
    #: The course's own version, as "module.function" inside mcp_lesson (None
    #: when the course has none, only a table of answers).
    reference: str | None
    #: The table that checks it (``check(fn)``): its cases and how each is judged
    #: (:class:`mcp_lesson.exercises.tables.Table`); None when the course has no case for it
    #: (a graded cell whose visible part shows no call the data can hold).
    table: _check.Table | None
    #: The shared inputs it is declared to answer as its reference does (inputs.py's
    #: ``AGREES_ON``: the case table's messages or texts, a few plain values for a lesson's small
    #: helpers, lesson 08's (message, revision) pairs), which its table then holds, with the
    #: reference's answers; None for the rest, compared on the calls of their table's cases.
    agree_on: _agree.Inputs | None = None
    #: True when graduation runs the course's tests on it (the package's public
    #: functions); False for a lesson's helpers.
    graduates: bool = True

    def inputs(self):
        """The (args, kwargs) pairs it is compared with its reference on (none without a table)."""
        if self.agree_on is not None:
            return self.agree_on.pairs()
        return self.table.calls() if self.table is not None else []


#: The module of the learner's package each lesson exports into, by lesson, in
#: the order the lessons come (a module may import from those before it): the
#: lessons' table, mcp_lesson/exercises/lessons.py.
MODULES = _lessons.MODULES


def module_of(lesson):
    """The module (file name without .py) lesson ``lesson`` exports into."""
    return MODULES.get(lesson, f"lesson_{lesson}")


class _Visible:
    """Cases a row declares, as a table's cases: each call with the value the graded cell's
    ``expect`` gives, or the course's own answer to it (a ``try_it`` call, or a shared input of
    inputs.py's ``AGREES_ON``), made when first asked for: the course's version is imported
    then. ``calls`` is a list of ``(args, kwargs, expected)``, or a function that gives one."""

    def __init__(self, name, reference, calls, called="visible case"):
        self.name, self.reference, self.calls, self.called = name, reference, calls, called
        self._cases = None

    def __eq__(self, other):  # (the same declared cases: two derivations of one row agree)
        if not isinstance(other, _Visible):
            return NotImplemented
        return (self.name, self.reference, self.calls, self.called) == (
            other.name,
            other.reference,
            other.calls,
            other.called,
        )

    __hash__ = None  # type: ignore[assignment]  # equal by value, so not hashable

    def _made(self):
        if self._cases is None:
            cases = []
            calls = self.calls() if callable(self.calls) else self.calls
            for place, (args, kwargs, expected) in enumerate(calls, 1):
                reason = "as the lesson's graded cell shows it"
                if expected == _AS_THE_COURSE:
                    if self.reference is None:
                        continue
                    module, _, function = self.reference.rpartition(".")
                    course = getattr(importlib.import_module(f"mcp_lesson.{module}"), function)
                    try:
                        expected = course(*args, **kwargs)
                    except _check.REFUSES:
                        expected = _check.REFUSES
                    except Exception:
                        continue
                    reason = f"the course's {self.name} answers so"
                cases.append(
                    _cases.Build(
                        f"{self.called} {place}", tuple(args), dict(kwargs), expected, reason
                    )
                )
            self._cases = cases
        return self._cases

    def __len__(self):
        return len(self._made())

    def __getitem__(self, place):
        return self._made()[place]

    def __iter__(self):
        return iter(self._made())


_AS_THE_COURSE = "as the course's"


def _same_answer(got, want):
    ok = _same_value(got, want)
    return ok, "" if ok else "the same value, written the same way"


def course_reference(name, lesson):
    """Where the course's own version of ``name`` is (a row's ``reference``), as a declaration
    says: the richer version mcp_lesson.rules' ``RICHER`` names for it, else the master's export
    in mcp_lesson/core/ when the lesson's cells are the core; else None. (A function of the same
    name elsewhere in mcp_lesson/rules/ is never taken for it: only ``RICHER`` says so.)"""
    if name in _rules.RICHER:
        return f"rules.{_rules.RICHER[name]}.{name}"
    return f"core.{module_of(lesson)}.{name}" if lesson in _lessons.CORE else None


#: The rows of the shared case table, by the function each checks: ``(how, cases)`` (the case
#: modules' CHECKS; :func:`mcp_lesson.exercises.tables.shared` makes the table).
SHARED = {**_cases.CHECKS, **_http.CHECKS, **_traffic.CHECKS, **_server.CHECKS}


def derived(exercises):
    """A row for each function the masters declare (``exercises``, as mcp_lesson/core/graded.py
    holds them, :class:`mcp_lesson.exercises.declared.Declared`) in a lesson that writes into
    the package. Nothing of a row is typed by hand, and nothing is guessed from a name:

    * its module is its lesson's (lessons.py), its reference :func:`course_reference`'s;
    * it is checked on the cases declared for it: its row of the shared case table when a case
      module's ``CHECKS`` names it (:data:`SHARED`), else the shared inputs inputs.py's
      ``AGREES_ON`` names it with, answered as its reference answers, else its graded cell's
      visible cases; with none of them (its graded cell shows no call the data can hold) it has
      no table, and ``check`` says the course has no check for it;
    * it graduates unless its graded cell says it is a step of another function (declared.STEP:
      lesson 02's is_integer and is_valid_id, lesson 03's rule helpers), which graduation judges
      through that one."""
    rows = []
    for entry in exercises:
        declared = _declared.Declared(*entry)
        if declared.lesson not in MODULES:
            continue
        name, lesson = declared.name, declared.lesson
        reference = course_reference(name, lesson)
        table, agree_on = None, None
        if name in SHARED:
            table = _check.shared(*SHARED[name])
        elif name in _agree.AGREES_ON and reference is not None:
            agree_on = _agree.AGREES_ON[name]
            table = _check.judged(
                _Visible(name, reference, _AsTheCourse(agree_on), agree_on.name), _same_answer
            )
        else:
            # (made when first asked for: the course's answers need its version imported)
            visible = _Visible(name, reference, declared.calls)
            table = _check.judged(visible, _same_answer) if declared.calls else None
        rows.append(
            Built(
                name,
                lesson,
                module_of(lesson),
                reference,
                table,
                agree_on,
                declared.step_of is None,
            )
        )
    return rows


class _AsTheCourse:
    """The calls of shared inputs, each expecting the course's answer (a table's declared calls)."""

    def __init__(self, inputs):
        self.inputs = inputs

    def __eq__(self, other):
        return isinstance(other, _AsTheCourse) and other.inputs is self.inputs

    __hash__ = None  # type: ignore[assignment]  # equal by value, so not hashable

    def __call__(self):
        return [(args, kwargs, _AS_THE_COURSE) for args, kwargs in self.inputs.pairs()]


#: Every function a lesson builds, in the order the lessons build them, each derived from its master.
BUILT = tuple(sorted(derived(_DECLARED), key=lambda built: built.lesson))

#: The rows by name.
BY_NAME = {built.name: built for built in BUILT}

#: The functions graduation runs the course's tests on, by name, with their lesson.
GRADUATED = {built.name: built.lesson for built in BUILT if built.graduates}


#: The names of the functions that :func:`mcp_lesson.exercises.selfcheck.check` checks on a table.
CHECKED = tuple(built.name for built in BUILT if built.table)


def may_borrow(lesson):
    """The course's functions that the cells of lesson ``lesson`` (its number, "05") may call, by
    name: those the lessons before it built, in the form those lessons' masters export
    (:func:`borrowed`). Never a function the lesson itself builds, and never one of the course's
    richer functions (``explain``, ``classify`` with a ``revision``, ``rule_of``...), which give
    the answers a later lesson grades under another name. The judge serves only these to graded
    work (tools/judge). A ``ValueError`` for anything but a lesson's number as its file name
    starts (an int 5 would compare as "5", after every lesson)."""
    if not (type(lesson) is str and lesson in _NUMBERS):
        raise ValueError(
            f"may_borrow takes a lesson's number, one of {', '.join(_NUMBERS)}; got {lesson!r}"
        )
    return tuple(built.name for built in BUILT if built.lesson < lesson and _core(built.name))


_NUMBERS = tuple(lesson.number for lesson in _lessons.LESSONS)


def _core(name):
    """Where the master's export of ``name`` lives ("core.<module>"), or None."""
    built = BY_NAME[name]
    if importlib.util.find_spec(f"mcp_lesson.core.{built.module}") is None:
        return None
    return f"core.{built.module}"


def borrowed(name):
    """The master's export of ``name`` (mcp_lesson/core/), the version a later lesson
    may borrow (:func:`may_borrow`); a ``LookupError`` when there is none."""
    where = _core(name)
    function = (
        getattr(importlib.import_module(f"mcp_lesson.{where}"), name, None) if where else None
    )
    if not callable(function):
        raise LookupError(f"no lesson exports {name}")
    return function


def reference(name):
    """The course's own version of the function ``name``: None when the course
    has none, a ``KeyError`` for a name no lesson builds."""
    if BY_NAME[name].reference is None:
        return None
    module, _, function = BY_NAME[name].reference.rpartition(".")
    return getattr(importlib.import_module(f"mcp_lesson.{module}"), function)


def lesson_of(name):
    """The lesson that builds ``name``, or None when no lesson does."""
    built = BY_NAME.get(name)
    return built.lesson if built else None
