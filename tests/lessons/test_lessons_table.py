"""The lessons' table (mcp_lesson/exercises/lessons.py) against the notebooks themselves: one
table, and it says what the lessons are."""

import json
from pathlib import Path

from mcp_lesson.exercises import lessons

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def test_the_table_is_the_lessons_in_the_notebooks_folder():
    assert list(lessons.FILES) == sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    assert all(lesson.filename.startswith(lesson.number + "_") for lesson in lessons.LESSONS)


def test_a_lesson_has_a_module_exactly_when_it_has_exported_cells():
    for lesson in lessons.LESSONS:
        cells = json.loads((NOTEBOOKS / lesson.filename).read_text(encoding="utf-8"))["cells"]
        exported = any(
            cell["cell_type"] == "code" and "".join(cell["source"]).lstrip().startswith("#| export")
            for cell in cells
        )
        assert exported == (lesson.module is not None), lesson.filename
        assert not lesson.core or lesson.module, lesson.filename  # a core lesson exports


def test_a_lesson_is_local_only_exactly_when_it_starts_a_process():
    for lesson in lessons.LESSONS:
        text = (NOTEBOOKS / lesson.filename).read_text(encoding="utf-8")
        assert ("mcp_lesson.client.stdio" in text) == (lesson.local_only is not None), (
            lesson.filename
        )
