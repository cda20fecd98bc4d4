"""A correct submission's feedback page shows no error: the master, which is
a fully correct submission, has each of its own cells (all but the graded tests) run in the
judge's sandbox as grading runs them (tools/grading/judged_execute.py), and none stops with an
error. Lesson 05's cell that shows the learner's own classify in the checker called IPython's
``display``, which plain Python has not: its feedback page showed a NameError; and lesson 01's
session (c01-13) was labelled by the course's classify, which the judge refuses before lesson
03: its kinds are now written in the cell, and held here to classify's.

Lesson 08's demonstrations ask for the course's by_revision and explain, which the judge does
not serve: grading shows those cells of the lesson as a line saying so, never as an error.
"""

from pathlib import Path

import nbformat
import pytest

from mcp_lesson.exercises.learner_package import python_of
from tools.grading.judged_execute import _is_test, lesson_of
from tools.judge.learner import Submission

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.mark.parametrize(
    "name", ["01_messages", "02_building_requests", "03_classifying", "04_errors", "05_playground"]
)
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


def test_lesson_01_s_session_has_the_kinds_classify_gives():
    import json

    import mcp_lesson

    notebook = nbformat.read(NOTEBOOKS / "01_messages.ipynb", as_version=4)
    namespace = {"json": json}
    for cell in notebook.cells:
        if cell.cell_type == "code" and not _is_test(cell) and "session = [" not in cell.source:
            if any(
                f"{name} =" in cell.source
                for name in ("initialize", "progress", "tools_answer", "odd")
            ):
                exec(cell.source, namespace)
    session_cell = next(cell.source for cell in notebook.cells if cell.id == "c01-13")
    exec(session_cell.split("for sender")[0], namespace)
    assert [kind for _, kind, _ in namespace["session"]] == [
        mcp_lesson.classify(message)[0] for _, _, message in namespace["session"]
    ]


def test_a_lesson_s_demonstration_of_the_course_s_functions_is_a_line_not_an_error(tmp_path):
    """Lesson 08, graded as a fully correct submission (its master): no cell of the lesson's
    own shows an error on the feedback page; those that show the course's functions say so."""
    import logging

    from tools.grading import judged_execute

    notebook = nbformat.read(NOTEBOOKS / "08_revisions.ipynb", as_version=4)
    released = {cell.source for cell in notebook.cells if cell.cell_type == "code"}
    step = judged_execute.JudgedExecute(records=str(tmp_path))
    step.log = logging.getLogger("judged-execute-test")
    original = judged_execute.release_sources
    judged_execute.release_sources = lambda *args, **kwargs: released
    try:
        step.preprocess(
            notebook,
            {
                "nbgrader": {
                    "student": "s",
                    "notebook": "08_revisions",
                    "assignment": "08_revisions",
                }
            },
        )
    finally:
        judged_execute.release_sources = original
    errors = [
        (cell.id, out.ename)
        for cell in notebook.cells
        if cell.cell_type == "code" and not _is_test(cell)
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert errors == []
    said = [
        cell.id
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "stream" and "grading does not run" in out.text
    ]
    assert said
