"""The course's own tools, importable from a checkout (``from tools import make_learner``).

Each module also runs as a script (``python tools/make_learner.py``, as the
Makefile and the README run them). None of them ships with the package
``mcp_lesson``: they make the learner copies, re-execute the lessons, graduate
a package, grade a class (``tools.grading``) and build the JupyterLite site
(``tools.site``).
"""
