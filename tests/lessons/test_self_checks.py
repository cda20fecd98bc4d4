"""Each lesson's self-check is derived from the exercises its master declares: its last cell
calls ``check_lesson("NN")``, which checks every function the lesson writes into the package,
and lists none by hand (a new exercise is then in it with no cell edited)."""

import json
import re
from pathlib import Path

import pytest

from mcp_lesson.course import lesson_functions
from mcp_lesson.exercises import lessons

MASTERS = Path(__file__).resolve().parents[2] / "notebooks"
WRITING = [lesson for lesson in lessons.LESSONS if lesson_functions(lesson.number)]


def self_check_cell(filename):
    """The code cell below the master's "## Self-check" heading that checks the lesson's work
    (the first that calls a check; an exercise may come between)."""
    cells = json.loads((MASTERS / filename).read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells]
    start = next(
        i
        for i, source in enumerate(sources)
        if cells[i]["cell_type"] == "markdown" and "## Self-check" in source
    )
    return next(
        cell
        for cell, source in zip(cells[start:], sources[start:])
        if cell["cell_type"] == "code" and re.search(r"\bcheck\w*\(", source)
    )


def test_the_lessons_that_write_into_the_package_are_found():
    assert {lesson.number for lesson in WRITING} >= {"02", "03", "04", "06", "08", "09", "10", "11"}


@pytest.mark.parametrize("lesson", WRITING, ids=[lesson.number for lesson in WRITING])
def test_a_lesson_s_self_check_is_derived_from_its_exercises(lesson):
    cell = self_check_cell(lesson.filename)
    source = "".join(cell["source"])
    assert f'check_lesson("{lesson.number}")' in source
    assert "check_mine" not in source and not re.search(r"\bself_check\(", source), source
    printed = "".join("".join(output.get("text", "")) for output in cell.get("outputs", ()))
    for name in lesson_functions(lesson.number):
        assert re.search(rf"^{name}(:| agrees)", printed, re.M), (name, printed)
