"""The implementation the course's tests run against.

By default that is :mod:`mcp_lesson`. With ``pytest --graduate DIR`` (``make
graduate PKG=DIR``) it is the package in ``DIR``, a learner's own (see
:mod:`mcp_lesson.learner_package`): the functions the lessons build come from
there, and a function the package lacks is a stand-in that says so. Tests of
what no lesson builds carry the ``course_only`` mark and are skipped then.

Test modules import the functions from here, so one set of tests serves both.
"""

from types import SimpleNamespace

import mcp_lesson
from mcp_lesson.learner_package import BUILT, load

#: None, or the folder of the package being graduated.
GRADUATING = None
#: Why the package could not be read at all (None when it was read).
PROBLEM = None


def _missing(name):
    def missing(*args, **kwargs):
        raise NotImplementedError(f"{name} is not in your package yet (lesson {BUILT[name]} builds it)")

    missing.__name__ = name
    return missing


def _functions(package):
    found = {}
    for name in BUILT:
        fn = getattr(package, name, None) if package is not None else None
        found[name] = fn if callable(fn) else _missing(name)
    return found


def use(folder):
    """Point the names of this module at the package in ``folder`` (None: mcp_lesson)."""
    global GRADUATING, PROBLEM
    GRADUATING, PROBLEM = folder, None
    if folder is None:
        chosen = {name: getattr(mcp_lesson, name) for name in BUILT}
    else:
        package = load(package=folder)
        if package is None:
            PROBLEM = f"no package at {folder} (it has no __init__.py, or it could not be read)"
        elif getattr(package, "PROBLEMS", None):
            PROBLEM = "; ".join(f"{file}: {why}" for file, why in package.PROBLEMS.items())
        chosen = _functions(package)
    globals().update(chosen)
    IMPLEMENTATION.__dict__.update(chosen)


IMPLEMENTATION = SimpleNamespace()
use(None)
