"""The ``mcp_lesson`` that learner code sees inside the sandbox.

A learner's package says ``from mcp_lesson import PARSE_ERROR``, and a
lesson's cells say ``from mcp_lesson.course import check``; neither must fail
in the sandbox, yet the course itself (its reference functions, its tables,
its answers) must not be there. So the sandbox gets this stand-in, written
fresh for each submission by :func:`write`:

* the error codes (a copy of ``mcp_lesson/codes.py``), the revisions and their
  switches: facts, not answers;
* the course's versions of functions that *earlier* lessons built, when the
  lesson being graded may use them (lesson 04 builds on a ``classify``; lesson
  08 on ``classify`` and ``create_request``): copies of ``mcp_lesson/core``'s
  modules, given by ``from mcp_lesson import NAME`` and by ``carry_forward``.
  A name that the graded lesson itself asks for is never given;
* anything else, at the root or in any ``mcp_lesson.<module>``, is a function
  that does nothing and returns None, whatever it is called with. A graded
  function that hands its work to the course's ``classify`` gets None back,
  and so gets nothing for it.
"""

import shutil
from pathlib import Path

from mcp_lesson import registry

PACKAGE = Path(__file__).resolve().parents[2] / "mcp_lesson"

_INIT = '''\
"""A stand-in for the course's package, inside the judge's sandbox (see the
judge's stand_in.py): the error codes and revisions, {given_words}, and for
any other name a function that does nothing and returns None."""

import collections as _collections
import importlib.abc as _abc
import importlib.machinery as _machinery
import sys as _sys
import types as _types

from .codes import *  # noqa: F401,F403

REVISIONS = {revisions!r}
Switches = _collections.namedtuple("Switches", "batches error_id_optional")
SWITCHES = {switches!r}

#: The course's functions of earlier lessons that this lesson may use.
GIVEN = {given!r}


def _nothing(name):
    def nothing(*args, **kwargs):
        return None

    nothing.__name__ = nothing.__qualname__ = name
    return nothing


def _given(name):
    import importlib

    return getattr(importlib.import_module(GIVEN[name], __name__), name)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in GIVEN:
        return _given(name)
    return _nothing(name)


def carry_forward(namespace, *names, **_):
    """Put the course's version of each of ``names`` that this lesson may use
    into ``namespace``; the other names stay what the notebook defined."""
    for name in names:
        if name in GIVEN:
            namespace[name] = _given(name)


class _Anything(_types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "carry_forward":
            return carry_forward
        if name in ("REVISIONS", "SWITCHES", "Switches"):
            return globals()[name]
        return __getattr__(name)


class _Finder(_abc.MetaPathFinder, _abc.Loader):
    """Any ``mcp_lesson.<module>`` without a file here is an :class:`_Anything`."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(__name__ + "."):
            return None
        for finder in _sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            try:
                if finder.find_spec(fullname, path, target) is not None:
                    return None  # a real file of the stand-in (codes, core)
            except Exception:
                continue
        return _machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return _Anything(spec.name)

    def exec_module(self, module):
        module.__path__ = []


_sys.meta_path.insert(0, _Finder())
'''


def write(folder, given=()):
    """Write the stand-in package into ``folder`` (made fresh): ``folder/mcp_lesson``.

    ``given``: the names of functions the course's core may give (each must be
    a function some lesson builds, found in ``mcp_lesson/core``)."""
    from mcp_lesson.classification import REVISIONS, SWITCHES

    package = Path(folder) / "mcp_lesson"
    package.mkdir(parents=True)
    shutil.copy2(PACKAGE / "codes.py", package / "codes.py")
    where = {}
    if given:
        core = package / "core"
        core.mkdir()
        for source in sorted((PACKAGE / "core").glob("*.py")):
            shutil.copy2(source, core / source.name)
        for name in given:
            module = registry.BY_NAME[name].module
            where[name] = f".core.{module}" if (core / f"{module}.py").exists() else None
        where = {name: module for name, module in where.items() if module}
    switches = {revision: tuple(value) for revision, value in SWITCHES.items()}
    text = _INIT.format(
        revisions=REVISIONS, switches=switches, given=where,
        given_words=("the course's " + ", ".join(sorted(where)) + " from earlier lessons")
        if where else "no function of the course's")
    text = text.replace(f"SWITCHES = {switches!r}",
                        "SWITCHES = {k: Switches(*v) for k, v in " + repr(switches) + ".items()}")
    (package / "__init__.py").write_text(text, encoding="utf-8")
    return package


def given_for(lesson, asked):
    """The course's functions a submission of ``lesson`` may use: those of
    earlier lessons, except any name in ``asked`` (the names the lesson's graded
    tests use)."""
    return sorted(built.name for built in registry.BUILT
                  if built.lesson < lesson and built.name not in asked and built.reference)
