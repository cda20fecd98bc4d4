"""mcp_lesson.core: the lessons' own code, exported from the masters by ``make export``.

Do not edit these files: they are the exercise cells of the lesson masters
(notebooks/02_building_requests.ipynb, 03_classifying.ipynb, 04_errors.ipynb,
08_revisions.ipynb, 09_http.ipynb, 10_live_traffic.ipynb),
written by the same exporter that writes a learner's package (one module per
lesson, each with the imports it needs). Edit the master, run ``make export``,
and commit both; tests/test_core.py fails when they drift apart.
mcp_lesson.rules.messages and mcp_lesson.rules.classification build on these functions.

May import: :mod:`mcp_lesson.protocol` (its codes) only.
"""
