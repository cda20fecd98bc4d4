"""A class: nbgrader's day (tools/grading), the judge's sandbox (tools/judge), JupyterHub (tools/hub)."""
