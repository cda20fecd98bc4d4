"""A correct submission's feedback page shows no error (issue 43, item 5): the master, which is
a fully correct submission, has each of its own cells (all but the graded tests) run in the
judge's sandbox as grading runs them (tools/grading/judged_execute.py), and none stops with an
error. Lesson 05's cell that shows the learner's own classify in the checker called IPython's
``display``, which plain Python has not: its feedback page showed a NameError.

Not yet here: lesson 01's c01-13 labels a session with the course's classify, which the judge
refuses before lesson 03, and lesson 08's demonstrations ask for by_revision and explain.
"""

from pathlib import Path

import nbformat
import pytest

from mcp_lesson.learner_package import python_of
from tools.grading.judged_execute import _is_test, lesson_of
from tools.judge.learner import Submission

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.mark.parametrize("name", ["02_building_requests", "03_classifying", "04_errors", "05_playground"])
def test_the_master_s_own_cells_run_in_the_sandbox_without_an_error(name):
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    submission = Submission.for_lesson(lesson_of(name), call_limit=60.0, budget=600.0)
    errors = []
    try:
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code" or _is_test(cell):
                continue
            source, _ = python_of(cell.source)
            if source.strip():
                _, error = submission.run_cell(source, f"<cell {index + 1}>", 60.0)
                if error:
                    errors.append((cell.id, error.get("type"), str(error.get("text"))[:100]))
    finally:
        submission.close()
    assert errors == []
