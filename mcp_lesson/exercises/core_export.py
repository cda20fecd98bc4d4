"""The course's own core, mcp_lesson/core/: the exercise cells of the lessons that
mcp_lesson/exercises/lessons.py marks ``core=True``, exported by the exporter that writes a
learner's package (:mod:`.learner_package`), with an ``__init__`` of its own and ``graded.py``,
the masters' graded exercises as data (``make export``)."""

from pathlib import Path

from mcp_lesson.exercises import declared, lessons
from mcp_lesson.exercises.learner_package import export_notebook

#: The lessons whose exercise cells are the core of mcp_lesson (mcp_lesson/core/), from
#: the lessons' table (mcp_lesson/exercises/lessons.py).
CORE_LESSONS = lessons.CORE

CORE_INIT = '''\
"""mcp_lesson.core: the lessons' own code, exported from the masters by ``make export``.

Do not edit these files: they are the exercise cells of the lesson masters
that mcp_lesson/exercises/lessons.py marks ``core=True``, written by the same
exporter that writes a learner's package (one module per lesson, each with the
imports it needs), and graded.py, the graded exercises the masters declare (their
points and visible cases, as data). Edit the master, run ``make export``,
and commit both; tests/exercises/test_core.py fails when they drift apart.
mcp_lesson.rules.messages and mcp_lesson.rules.classification build on these functions.

May import: :mod:`mcp_lesson.protocol` (its codes) only.
"""
'''


#: The core's codes.py: the course's own package has its codes once (mcp_lesson/protocol/codes.py),
#: and the core takes them from there, not from the package's root.
CORE_CODES = '''\
"""The error codes the lessons' cells use, from mcp_lesson/protocol/codes.py (a learner's package
gets a copy of that module instead; the course's own package keeps one)."""

from ..protocol.codes import *  # noqa: F401,F403  (every name of mcp_lesson/protocol/codes.py)
'''


def export_core(masters, core):
    """Write the core package ``core`` (mcp_lesson/core) from the lesson masters in the
    folder ``masters``: the same export as a learner's package, with its own ``__init__``,
    and ``graded.py``, the masters' graded exercises as data (:mod:`mcp_lesson.exercises.declared`)."""
    masters, core = Path(masters), Path(core)
    for lesson in CORE_LESSONS:
        [notebook] = sorted(masters.glob(f"{lesson}_*.ipynb"))
        export_notebook(notebook, core, CORE_CODES)
    (core / "__init__.py").write_text(CORE_INIT, encoding="utf-8")
    declared.write(masters, core / "graded.py")  # the graded exercises, as data (the registry's)
    (core / "_loading.py").unlink(missing_ok=True)  # the core's __init__ imports nothing
    return core
