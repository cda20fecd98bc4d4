"""An exercise is declared once, in its lesson's master: its points, its
registry row, its self-check table and the start page's list are read from there
(mcp_lesson/exercises/declared.py, mcp_lesson/core/graded.py), and a test fails where
something typed elsewhere disagrees."""

import json
import re
from pathlib import Path

import pytest

from mcp_lesson.core import graded
from mcp_lesson.exercises import declared, lessons, registry
from mcp_lesson.exercises.selfcheck import run_check

ROOT = Path(__file__).resolve().parents[2]
MASTERS = ROOT / "notebooks"
CELLS = list(declared.graded_cells(MASTERS))


@pytest.mark.parametrize("notebook, grade_id, points, source", CELLS, ids=[f"{c[0]}:{c[1]}" for c in CELLS])
def test_each_graded_cell_says_the_points_its_metadata_gives(notebook, grade_id, points, source):
    said = declared.said_points(source)
    assert said is not None, f"{notebook}, {grade_id}: its first line names no points"
    assert said == points, f"{notebook}, {grade_id}: its comment says {said:g} points, nbgrader's metadata {points:g}"
    assert re.search(rf"\({points:g} points?\)", source.split("\n", 1)[0]), "1 point, 2 points"


def test_a_comment_that_disagrees_is_found():
    assert declared.said_points("# Graded tests for x (3 points). This cell is locked.") == 3
    assert declared.said_points("# Graded tests for x (1 point).") == 1
    assert declared.said_points("x = 1") is None


def test_the_lessons_points_are_nbgrader_s_metadata_summed(tmp_path):
    points = declared.points(MASTERS)
    assert points == graded.POINTS
    assert sum(points.values()) == sum(p for _, _, p, _ in CELLS)
    # a point more in one graded cell's metadata is a point more for its lesson, and nothing else
    nb = json.loads((MASTERS / "04_errors.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "reply_for-tests")
    cell["metadata"]["nbgrader"]["points"] += 1
    for name in lessons.FILES:
        if (MASTERS / name).exists():
            (tmp_path / name).write_text((MASTERS / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "04_errors.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    changed = declared.points(tmp_path)
    assert changed == dict(points, **{"04_errors": points["04_errors"] + 1})


def test_every_exported_graded_function_has_a_registry_row_from_its_lesson():
    exported = [e for e in declared.read(MASTERS) if e.exported]
    assert exported
    for exercise in exported:
        assert registry.lesson_of(exercise.name) == exercise.lesson, (exercise.name, exercise.notebook)
        assert registry.BY_NAME[exercise.name].module == registry.module_of(exercise.lesson)


def test_the_committed_declaration_is_what_the_masters_declare():
    exercises, points = declared.table(MASTERS)
    assert (graded.EXERCISES, graded.POINTS) == (exercises, points), "run `make export`"


def test_a_graded_function_no_row_names_is_derived_with_its_visible_cases():
    """A master's new exported function (here a copy of lesson 04's reply_for under another
    name) gets a row: its lesson's module, the core's reference, and a self-check table of its
    graded cell's visible cases that the course's version passes and a wrong one fails."""
    [reply_for] = [e for e in graded.EXERCISES if e[0] == "reply_for"]
    rows = registry.derived([("reply_for", *reply_for[1:])], written=())
    [row] = rows
    assert (row.name, row.lesson, row.module, row.reference) == ("reply_for", "04", "errors", "core.errors.reply_for")
    assert row.graduates and len(row.table.cases) == len(reply_for[4])
    assert all(r.ok for r in row.table.rows(registry.reference("reply_for"), _printed()))
    assert not any(r.ok for r in row.table.rows(lambda msg: {"wrong": True}, _printed()))
    # rows written by hand (richer tables) are kept, and a function not exported gets none
    assert registry.derived([("reply_for", *reply_for[1:])]) == []
    assert registry.derived([("x", "04", False, 1.0, [])], written=()) == []


def test_a_derived_row_is_checked_and_borrowed_like_any_other(monkeypatch):
    [reply_for] = [e for e in graded.EXERCISES if e[0] == "reply_for"]
    [row] = registry.derived([("reply_for", *reply_for[1:])], written=())
    row = row._replace(name="reply_again")
    monkeypatch.setitem(registry.BY_NAME, "reply_again", row)
    monkeypatch.setattr(registry, "BUILT", registry.BUILT + (row,))
    monkeypatch.setattr("mcp_lesson.exercises.selfcheck.CHECKED", registry.CHECKED + ("reply_again",))
    report = run_check(registry.reference("reply_for"), "reply_again")
    assert report.all_pass and report.total == len(reply_for[4])


def _printed():
    from mcp_lesson.exercises.calling import PrintedOutput

    return PrintedOutput()


def test_the_start_page_names_every_exported_graded_function_in_its_lesson_s_row():
    nb = json.loads((MASTERS / "00_start_here.ipynb").read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| \[(\d\d) [^\]]*\]\([^)]*\) \|(.*)\|$", text, re.M)}
    assert rows, "the start page's table of what you write is not found"
    missing = [f"{exercise.name} (lesson {exercise.lesson})" for exercise in declared.read(MASTERS)
               if exercise.exported and f"`{exercise.name}" not in rows.get(exercise.lesson, "")]
    assert not missing, "the start page's 'what you write' does not name: " + ", ".join(missing)
