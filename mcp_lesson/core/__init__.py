"""mcp_lesson.core: the lessons' own code, exported from the masters by ``make export``.

Do not edit these files: they are the exercise cells of the lesson masters
that mcp_lesson/exercises/lessons.py marks ``core=True``, written by the same
exporter that writes a learner's package (one module per lesson, each with the
imports it needs). Edit the master, run ``make export``,
and commit both; tests/exercises/test_core.py fails when they drift apart.
mcp_lesson.rules.messages and mcp_lesson.rules.classification build on these functions.

May import: :mod:`mcp_lesson.protocol` (its codes) only.
"""
