"""The ``mcp_lesson`` that learner code sees inside the sandbox.

A learner's package says ``from mcp_lesson import PARSE_ERROR``, and a
lesson's cells say ``from mcp_lesson.course import check``; neither may fail
in the sandbox, yet no code of the course's (its reference functions, its
tables, its answers) may be there. So the sandbox gets this stand-in, written
fresh for each submission by :func:`write`:

* the error codes (a copy of ``mcp_lesson/protocol/codes.py``), the revisions and their
  switches: facts, not answers;
* for each course function the lesson may borrow (``borrowable``: what the
  lessons before it built, ``registry.may_borrow``), a function that asks the
  judge, outside, to run the master's export of it and waits for the answer
  (lesson 04 builds on a ``classify``). The judge checks again, and also
  refuses a function the running test grades;
* for every other function of the course's (:data:`KNOWN`: what any lesson
  builds, ``explain``, ``rule_of``...), a function that raises a
  ``LookupError`` naming the rule: a lesson may borrow only what earlier
  lessons built, never what computes the answers it grades;
* anything else, at the root or in any ``mcp_lesson.<module>`` (``check``,
  ``try_it``, the case tables), is :data:`NOTHING`: it can be called,
  iterated, indexed and asked for any attribute, and gives nothing back.
"""

import shutil
from pathlib import Path

from mcp_lesson.exercises import registry

PACKAGE = Path(__file__).resolve().parents[2] / "mcp_lesson"

#: The course's functions, beyond those the lessons build, that give a verdict
#: under another name: never borrowed (the stand-in refuses them in words).
EXTRAS = (
    "explain",
    "explain_json",
    "by_revision",
    "revision_note",
    "rule_of",
    "broken_rules",
    "course_classify",
)
KNOWN = tuple(built.name for built in registry.BUILT) + EXTRAS

_INIT = '''\
"""A stand-in for the course's package, inside the judge's sandbox (see the
judge's stand_in.py): the error codes and revisions; the course's functions,
run by the judge outside when it allows; and for any other name, nothing."""

import builtins as _builtins
import collections as _collections
import importlib.abc as _abc
import importlib.machinery as _machinery
import sys as _sys
import types as _types

from .codes import *  # noqa: F401,F403  (every name of the module)

REVISIONS = {revisions!r}
Switches = _collections.namedtuple("Switches", "batches error_id_optional")
SWITCHES = {{_k: Switches(*_v) for _k, _v in {switches!r}.items()}}

#: The course's functions the judge runs on request (what this lesson may borrow).
COURSE = {course!r}
#: The course's other functions: refused, with the rule in words.
KNOWN = {known!r}
RULE = {rule!r}


class _Nothing:
    """Anything asked of it gives nothing: a call, an attribute, an item, a loop."""

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        return self

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return False

    def __repr__(self):
        return "<nothing: the course is not here>"


NOTHING = _Nothing()


def _course(name):
    def course_function(*args, **kwargs):
        return _builtins.__judge_course__(name, args, kwargs)

    course_function.__name__ = course_function.__qualname__ = name
    return course_function


def _refused(name):
    def refused_function(*args, **kwargs):
        raise LookupError(f"the course's {{name}} is not yours to borrow: " + RULE)

    refused_function.__name__ = refused_function.__qualname__ = name
    return refused_function


def _lookup(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in COURSE:
        return _course(name)
    if name in KNOWN:
        return _refused(name)
    if name == "carry_forward":
        return carry_forward
    if name in ("REVISIONS", "SWITCHES", "Switches"):
        return globals()[name]
    return NOTHING


__getattr__ = _lookup


def carry_forward(namespace, *names, **_):
    """Put the course's version of each of ``names`` into ``namespace`` (run by
    the judge, which refuses the functions a test grades)."""
    for name in names:
        namespace[name] = _course(name) if name in COURSE else _refused(name)


class _Anything(_types.ModuleType):
    def __getattr__(self, name):
        return _lookup(name)


class _Finder(_abc.MetaPathFinder, _abc.Loader):
    """Any ``mcp_lesson.<module>`` but codes is an :class:`_Anything`."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(__name__ + ".") and fullname != __name__ + ".codes":
            return _machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return _Anything(spec.name)

    def exec_module(self, module):
        module.__path__ = []


_sys.meta_path.insert(0, _Finder())
'''


def write(folder, borrowable=(), lesson=None):
    """Write the stand-in package into ``folder``: ``folder/mcp_lesson``, serving the
    course functions ``borrowable`` (for ``lesson``, named in its refusals)."""
    from mcp_lesson.rules.classification import REVISIONS, SWITCHES

    package = Path(folder) / "mcp_lesson"
    package.mkdir(parents=True)
    shutil.copy2(PACKAGE / "protocol" / "codes.py", package / "codes.py")
    switches = {revision: tuple(value) for revision, value in SWITCHES.items()}
    text = _INIT.format(
        revisions=REVISIONS,
        switches=switches,
        course=tuple(borrowable),
        known=KNOWN,
        rule=rule(borrowable, lesson),
    )
    (package / "__init__.py").write_text(text, encoding="utf-8")
    return package


def rule(borrowable, lesson=None):
    """The rule of borrowing, in words, as a refusal gives it."""
    who = f"lesson {lesson}" if lesson else "this work"
    built = ", ".join(borrowable) if borrowable else "nothing yet"
    return (
        f"{who} may call only what the lessons before it built ({built}), "
        "never anything that computes what it grades"
    )
