"""A class for the teacher's page of what the class missed (tools/insight), in two strengths:
the planted mistakes its test grades for real (through nbgrader and the judge's sandbox), and
the same judgement made here, in this process, on the lesson's own cells, which says what the
judge's records must hold (and which the benchmark uses to make a class of 300 in seconds).

A student's lesson is run as a kernel would run it: the lesson master's code cells in order,
with the solution cells replaced by the student's, then each graded cell (its hidden tests
included, as the gradebook holds them) under :meth:`tools.insight.records.Sheet.watching`.
"""

import contextlib
import io
import json
import shutil
import sqlite3
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for _folder in (ROOT, ROOT / "tests"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from mcp_lesson.exercises.learner_package import python_of  # noqa: E402  (after sys.path is set)
from tools.insight.records import FOLDER, Sheet  # noqa: E402  (after sys.path is set)

LESSON = "03_classifying"
MASTER = ROOT / "notebooks" / f"{LESSON}.ipynb"

#: Mistakes a student makes in lesson 03, each a whole solution cell: {name: {grade_id: source}}.
PLANTED = {
    # "jsonrpc": 2.0 (a number) taken for the string "2.0"
    "version_as_number": {
        "has_version": "#| export\ndef has_version(msg):\n"
        '    return msg.get("jsonrpc") in ("2.0", 2.0)\n'
    },
    # a bool taken for an integer error code
    "bool_code": {
        "judge_error": "#| export\ndef judge_error(msg):\n"
        '    error = msg["error"]\n'
        "    if not isinstance(error, dict):\n"
        "        return INVALID\n"
        '    if not isinstance(error.get("code"), int) or not isinstance(error.get("message"), str):\n'
        "        return INVALID\n"
        '    if msg["id"] is None or is_valid_id(msg["id"]):\n'
        "        return RESPONSE\n"
        "    return INVALID\n"
    },
    # text with markup for anything that is not a dict: the page must show it, never run it
    "markup_answer": {
        "is_object": "#| export\ndef is_object(msg):\n"
        "    if isinstance(msg, dict):\n"
        "        return True\n"
        '    return "<script>window.pwned = 1</script><img src=x onerror=\\"window.pwned = 2\\">"\n'
    },
}


def _cells(path=MASTER):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def _info(cell):
    info = cell.get("metadata", {}).get("nbgrader", {})
    return info if isinstance(info, dict) else {}


def solutions(path=MASTER):
    """{grade_id: source} of the master's solution cells."""
    return {
        _info(c)["grade_id"]: "".join(c["source"]) for c in _cells(path) if _info(c).get("solution")
    }


def graded_cells_of(path=MASTER):
    """[(grade_id, source)] of the master's graded test cells, hidden tests included."""
    return [
        (_info(c)["grade_id"], "".join(c["source"]))
        for c in _cells(path)
        if c["cell_type"] == "code" and _info(c).get("grade") and not _info(c).get("solution")
    ]


def points(path=MASTER):
    return {
        _info(c)["grade_id"]: float(_info(c)["points"])
        for c in _cells(path)
        if c["cell_type"] == "code" and _info(c).get("grade") and not _info(c).get("solution")
    }


def judged_here(mistakes, student, course, path=MASTER, wrong=()):
    """Grade ``student``'s lesson (the master's solutions, with the solution cells
    ``mistakes`` gives) in this process, writing the judge's record into ``course`` as
    grading does; returns {test cell: passed}. ``wrong`` are (name, source) of wrong versions
    (tests/wrong_versions.py) put in place of the function ``name`` after the lesson's cells
    ran, with the right one as ``_right_<name>``."""
    namespace = {"__name__": "__main__"}
    quiet = io.StringIO()
    for cell in _cells(path):
        info = _info(cell)
        if cell["cell_type"] != "code" or (info.get("grade") and not info.get("solution")):
            continue
        source = mistakes.get(info.get("grade_id"), "".join(cell["source"]))
        with contextlib.suppress(Exception), contextlib.redirect_stdout(quiet):
            exec(compile(python_of(source)[0], "<cell>", "exec"), namespace)
    for name, source in wrong:
        namespace[f"_right_{name}"] = namespace.get(name)
        exec(compile(source, f"<wrong {name}>", "exec"), namespace)
    sheet = Sheet(student, Path(path).stem, Path(path).stem, Path(course) / FOLDER)
    passed = {}
    for grade_id, source in graded_cells_of(path):
        try:
            with contextlib.redirect_stdout(quiet), sheet.watching(grade_id):
                exec(compile(source, f"<test {grade_id}>", "exec"), dict(namespace))
        except Exception:
            passed[grade_id] = False
        else:
            passed[grade_id] = True
    sheet.save()
    return passed


def add_to_gradebook(course, assignment, notebook, student, passed, cell_points):
    """Record ``student``'s submission in the course's gradebook (as nbgrader's autograde
    leaves it: each graded cell its points when its test passed, else 0), straight into its
    SQLite tables, for a class too large to grade for real in a benchmark."""
    db = sqlite3.connect(Path(course) / "gradebook.db")
    try:
        (assignment_id,) = db.execute(
            "SELECT id FROM assignment WHERE name = ?", (assignment,)
        ).fetchone()
        (notebook_id,) = db.execute(
            "SELECT id FROM notebook WHERE name = ? AND assignment_id = ?",
            (notebook, assignment_id),
        ).fetchone()
        db.execute("INSERT OR IGNORE INTO student (id) VALUES (?)", (student,))
        submission, submitted_nb = uuid.uuid4().hex, uuid.uuid4().hex
        db.execute(
            "INSERT INTO submitted_assignment (id, assignment_id, student_id) VALUES (?, ?, ?)",
            (submission, assignment_id, student),
        )
        db.execute(
            "INSERT INTO submitted_notebook (id, assignment_id, notebook_id, flagged, "
            "late_submission_penalty) VALUES (?, ?, ?, 0, 0)",
            (submitted_nb, submission, notebook_id),
        )
        for cell_id, name in db.execute(
            "SELECT bc.id, bc.name FROM base_cell bc JOIN grade_cells gc "
            "ON gc.id = bc.id WHERE bc.notebook_id = ?",
            (notebook_id,),
        ).fetchall():
            score = cell_points[name] if passed.get(name) else 0.0
            db.execute(
                "INSERT INTO grade (id, notebook_id, cell_id, auto_score, needs_manual_grade) "
                "VALUES (?, ?, ?, ?, 0)",
                (uuid.uuid4().hex, submitted_nb, cell_id, score),
            )
        db.commit()
    finally:
        db.close()


# --- a synthetic class, made from the wrong versions of the lesson's functions ----------------

STUB = "def classify_json(text):\n    raise NotImplementedError\n"


def mistakes_of(i):
    """(solution cells, wrong versions) of synthetic student ``i``: a deterministic mix of the
    wrong versions of classify and classify_json (tests/wrong_versions.py), the planted
    mistakes, and a classify_json not written yet."""
    from wrong_versions import WRONG

    cells, wrong = {}, []
    if i % 4 == 1:
        wrong.append(("classify", WRONG["classify"][(i // 4) % len(WRONG["classify"])][1]))
    if i % 5 == 2:
        wrong.append(
            ("classify_json", WRONG["classify_json"][(i // 5) % len(WRONG["classify_json"])][1])
        )
    if i % 6 == 3:
        cells.update(PLANTED["version_as_number"])
    if i % 7 == 4:
        cells.update(PLANTED["bool_code"])
    if i % 13 == 6:
        cells.update(PLANTED["markup_answer"])
    if i % 11 == 5:
        wrong.append(("classify_json", STUB))
    return cells, wrong


def make_class(base, released, size):
    """A course folder ``base/class-<size>``: a copy of ``released`` (a course folder with the
    lesson released), with ``size`` synthetic students judged here and recorded as autograde
    leaves them (the gradebook's points, the judge's verdicts)."""
    course = base / f"class-{size}"
    shutil.copytree(released, course)
    cell_points = points()
    for i in range(size):
        student = f"student{i:03d}"
        cells, wrong = mistakes_of(i)
        passed = judged_here(cells, student, course, wrong=wrong)
        add_to_gradebook(course, LESSON, LESSON, student, passed, cell_points)
    return course
