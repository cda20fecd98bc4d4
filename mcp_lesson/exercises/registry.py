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
no row is typed by hand. What a master does not say is found by the function's name (its row of
the shared case table, :data:`SHARED`) or its parameters' names (the shared inputs it agrees on);
so a new graded function appears here, in the self-check, in graduation and in the judge's
may-borrow list with no other file edited.

It imports the tables it holds (the case modules' CHECKS, judged as tables.py says, compared
on the inputs of inputs.py), the lessons' table (mcp_lesson/exercises/lessons.py) and the
modules of mcp_lesson/rules/ (where the course's richer versions are); :func:`reference`
imports a course's version only when asked. selfcheck.py and agreement.py, which run those
tables, import this module.
"""

import importlib
import importlib.util
from typing import NamedTuple, Optional

from mcp_lesson.exercises import inputs as _agree
from mcp_lesson.exercises import cases as _cases
from mcp_lesson.exercises import http_cases as _http
from mcp_lesson.exercises import server_cases as _server
from mcp_lesson.exercises import traffic_cases as _traffic
from mcp_lesson.exercises import declared as _declared
from mcp_lesson.exercises import lessons as _lessons
from mcp_lesson.exercises import tables as _check
from mcp_lesson.exercises.hidden_tests import same as _same_value

try:  # the masters' graded exercises, as data (make export writes it)
    from mcp_lesson.core.graded import EXERCISES as _DECLARED
except ImportError:  # pragma: no cover - a core exported before graded.py existed
    _DECLARED = ()
if any(len(entry) != len(_declared.Declared._fields) for entry in _DECLARED):  # pragma: no cover
    _DECLARED = ()  # written by an older make export: the package still imports, so make export can run again


class Built(NamedTuple):
    """One function a lesson builds."""

    name: str
    #: The lesson that builds it ("03" for notebooks/03_classifying.ipynb).
    lesson: str
    #: The module of the learner's package it is exported into (my_mcp/<module>.py).
    module: str
    #: The course's own version, as "module.function" inside mcp_lesson (None
    #: when the course has none, only a table of answers).
    reference: Optional[str]
    #: The table that checks it (``check(fn)``): its cases and how each is judged
    #: (:class:`mcp_lesson.exercises.tables.Table`); None when it is checked by agreeing
    #: with its reference instead.
    table: Optional[_check.Table]
    #: What it is compared with its reference on (:func:`mcp_lesson.course.agree`) when
    #: it has no table (:class:`mcp_lesson.exercises.inputs.Inputs`): the case table's messages
    #: or texts, a few plain values for a lesson's small helpers (``SAMPLE_VALUES``), or
    #: lesson 08's (message, revision) pairs; None for a row with a table, which is
    #: compared on the calls of its table's cases.
    agree_on: Optional[_agree.Inputs] = None
    #: True when graduation runs the course's tests on it (the package's public
    #: functions); False for a lesson's helpers.
    graduates: bool = True

    def inputs(self):
        """The (args, kwargs) pairs it is compared with its reference on."""
        return self.agree_on.pairs() if self.agree_on is not None else self.table.calls()


#: The module of the learner's package each lesson exports into, by lesson, in
#: the order the lessons come (a module may import from those before it): the
#: lessons' table, mcp_lesson/exercises/lessons.py.
MODULES = _lessons.MODULES


def module_of(lesson):
    """The module (file name without .py) lesson ``lesson`` exports into."""
    return MODULES.get(lesson, f"lesson_{lesson}")


class _Visible:
    """The visible cases of a graded cell (mcp_lesson/core/graded.py), as a table's cases: each
    call with the value the cell's ``expect`` gives, or the course's own answer to a ``try_it``
    call (made when first asked for: the course's version is imported then)."""

    def __init__(self, name, reference, calls):
        self.name, self.reference, self.calls, self._cases = name, reference, calls, None

    def __eq__(self, other):  # (the same graded cell's cases: two derivations of one row agree)
        if not isinstance(other, _Visible):
            return NotImplemented
        return (self.name, self.reference, self.calls) == (other.name, other.reference, other.calls)

    __hash__ = None

    def _made(self):
        if self._cases is None:
            cases = []
            for place, (args, kwargs, expected) in enumerate(self.calls, 1):
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
                    except Exception:  # noqa: BLE001 - a call the course itself cannot answer
                        continue
                    reason = f"the course's {self.name} answers so"
                cases.append(_cases.Build(f"visible case {place}", tuple(args), dict(kwargs), expected, reason))
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


def _rules():
    """The modules of mcp_lesson/rules/ (the course's richer versions of the lessons' functions)."""
    import pkgutil

    from mcp_lesson import rules

    return [importlib.import_module(f"mcp_lesson.rules.{found.name}")
            for found in pkgutil.iter_modules(rules.__path__)]


def course_reference(name, lesson):
    """Where the course's own version of ``name`` is (a row's ``reference``): the function of that
    name a module of mcp_lesson/rules/ has, as the module that defines it (a rule's richer version,
    or the lesson's export it passes on), else the master's export in mcp_lesson/core/ when the
    lesson's cells are the core; else None."""
    for module in _rules():
        function = getattr(module, name, None)
        if callable(function) and getattr(function, "__name__", "") == name:
            return f"{function.__module__.removeprefix('mcp_lesson.')}.{name}"
    return f"core.{module_of(lesson)}.{name}" if lesson in _lessons.CORE else None


#: The rows of the shared case table, by the function each checks: ``(how, cases)`` (the case
#: modules' CHECKS; :func:`mcp_lesson.exercises.tables.shared` makes the table).
SHARED = {**_cases.CHECKS, **_http.CHECKS, **_traffic.CHECKS, **_server.CHECKS}


def derived(exercises):
    """A row for each function the masters declare (``exercises``, as mcp_lesson/core/graded.py
    holds them, :class:`mcp_lesson.exercises.declared.Declared`) in a lesson that writes into
    the package. Nothing of a row is typed by hand:

    * its module is its lesson's (lessons.py), its reference :func:`course_reference`;
    * it is checked on its row of the shared case table when it has one (:data:`SHARED`, found
      by its name); else, when the course has a version of it and its parameters are those of
      a shared input (inputs.py's BY_PARAMETERS), by agreeing with the course's on those; else
      on its graded cell's visible cases;
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
        elif reference is not None and tuple(declared.parameters) in _agree.BY_PARAMETERS:
            agree_on = _agree.BY_PARAMETERS[tuple(declared.parameters)]
        else:
            table = _check.judged(_Visible(name, reference, declared.calls), _same_answer)
        rows.append(Built(name, lesson, module_of(lesson), reference, table, agree_on, declared.step_of is None))
    return rows


#: Every function a lesson builds, in the order the lessons build them, each derived from its master.
BUILT = tuple(sorted(derived(_DECLARED), key=lambda built: built.lesson))

#: The rows by name.
BY_NAME = {built.name: built for built in BUILT}

#: The functions graduation runs the course's tests on, by name, with their lesson.
GRADUATED = {built.name: built.lesson for built in BUILT if built.graduates}


#: The names of the functions that :func:`mcp_lesson.exercises.selfcheck.check` checks on a table.
CHECKED = tuple(built.name for built in BUILT if built.table)


def may_borrow(lesson):
    """The course's functions that the cells of lesson ``lesson`` may call, by name:
    those the lessons before it built, in the form those lessons' masters export
    (:func:`borrowed`). Never a function the lesson itself builds, and never one of
    the course's richer functions (``explain``, ``classify`` with a ``revision``,
    ``rule_of``...), which give the answers a later lesson grades under another
    name. The judge serves only these to graded work (tools/judge)."""
    return tuple(built.name for built in BUILT if built.lesson < str(lesson) and _core(built.name))


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
    function = getattr(importlib.import_module(f"mcp_lesson.{where}"), name, None) if where else None
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
