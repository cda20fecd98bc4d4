"""The ``mcp_lesson`` that learner code sees inside the sandbox.

A learner's package says ``from mcp_lesson import PARSE_ERROR``, and a
lesson's cells say ``from mcp_lesson.course import check``; neither may fail
in the sandbox, yet no code of the course's (its reference functions, its
tables, its answers) may be there. So the sandbox gets this stand-in, written
fresh for each submission by :func:`write`:

* the error codes (a copy of ``mcp_lesson/codes.py``), the revisions and their
  switches: facts, not answers;
* for each of the course's functions a lesson may lean on (:data:`COURSE`:
  ``classify``, ``classify_json``, ``create_request``, ``explain``...), a
  function that asks the judge, outside, to run the course's own and waits
  for the answer. The judge refuses a function that the running test grades
  (a ``classify`` that hands its work to the course's gets a ``LookupError``
  in its tests), and answers the others (lesson 03's stream reader may use
  the course's ``classify_json``; lesson 04 builds on a ``classify``);
* anything else, at the root or in any ``mcp_lesson.<module>`` (``check``,
  ``try_it``, the case tables), is :data:`NOTHING`: it can be called,
  iterated, indexed and asked for any attribute, and gives nothing back.
"""

import shutil
from pathlib import Path

from mcp_lesson import registry

PACKAGE = Path(__file__).resolve().parents[2] / "mcp_lesson"

#: The course's functions that learner code may ask the judge to run, beyond
#: those the lessons build (which the registry names).
EXTRAS = ("explain", "explain_json", "by_revision", "revision_note", "rule_of", "broken_rules")
COURSE = tuple(built.name for built in registry.BUILT if built.reference) + EXTRAS

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

from .codes import *  # noqa: F401,F403

REVISIONS = {revisions!r}
Switches = _collections.namedtuple("Switches", "batches error_id_optional")
SWITCHES = {{_k: Switches(*_v) for _k, _v in {switches!r}.items()}}

#: The course's functions the judge runs on request.
COURSE = {course!r}


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


def _lookup(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in COURSE:
        return _course(name)
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
        if name in COURSE:
            namespace[name] = _course(name)


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


def write(folder):
    """Write the stand-in package into ``folder``: ``folder/mcp_lesson``."""
    from mcp_lesson.classification import REVISIONS, SWITCHES

    package = Path(folder) / "mcp_lesson"
    package.mkdir(parents=True)
    shutil.copy2(PACKAGE / "codes.py", package / "codes.py")
    switches = {revision: tuple(value) for revision, value in SWITCHES.items()}
    text = _INIT.format(revisions=REVISIONS, switches=switches, course=COURSE)
    (package / "__init__.py").write_text(text, encoding="utf-8")
    return package


def course_function(name):
    """The course's own function ``name`` (one of :data:`COURSE`), run by the judge."""
    import mcp_lesson
    from mcp_lesson import classification, course

    if name in registry.BY_NAME and registry.reference(name) is not None:
        return registry.reference(name)
    for module in (mcp_lesson, classification, course):
        function = getattr(module, name, None)
        if callable(function):
            return function
    raise LookupError(name)
