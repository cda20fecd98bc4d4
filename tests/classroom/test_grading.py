"""Grading a class with nbgrader, end to end (tools/grading, the teacher's make targets).

Real nbgrader commands, real kernels, no mocks. A course directory in a
temporary folder goes through the teacher's whole day with the graded lessons
(01-04 and 08): release, collect, autograde, feedback, grades.csv, for three
synthetic students:

* **complete** hands in the masters' solutions: full marks;
* **partial** makes one or two real mistakes per lesson: an exact score;
* **hostile** does what real classes do: ``classify`` loops forever, megabytes
  of output, a test cell edited to pass and another deleted, a broken import
  and ``sys.exit``, a notebook missing (handed in under another name).

The tests then check grades.csv row by row, read the gradebook back with
nbgrader's own API, read the teacher's log (one clear line per problem; the
endless loop costs one timeout, not one per cell that calls it), and render a
feedback page in Chromium, which must show the failing case in plain words (a
screenshot goes to test-artifacts/, and with UPDATE_SCREENSHOTS=1 to
docs/feedback.png).

The graded lessons themselves are checked too: every exercise is an nbgrader
solution cell followed by a locked test cell with points and hidden tests, the
release is the learner copy (one pipeline), and no learner copy holds a hidden
test.

The cell timeout is GRADING_TEST_TIMEOUT seconds (default 10, times MCP_LESSON_TEST_SLACK). The time each
step and each student took is printed (pytest -s shows it) and written to
test-artifacts/grading-times.txt: a figure to report, never a test's limit.
JudgedExecute's own guards (a process that ends, a loop, sys.exit, no view of
the course or the network) are checked on small notebooks, with a short timeout.
"""

import copy
import csv
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from chromium import find_chromium, launched, missing
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell
from processes import patience, run_to_end

from mcp_lesson.exercises import declared
from tools.grading import classroom
from tools.grading.grades_csv import COLUMNS
from tools.grading.judged_execute import JudgedExecute

ROOT = Path(__file__).resolve().parents[2]
GRADING = ROOT / "tools" / "grading"
ARTIFACTS = ROOT / "test-artifacts"
# 10 s per cell is ample for every cell but the hostile loop, which costs one
# timeout; scaled on a slower machine (MCP_LESSON_TEST_SLACK).
TIMEOUT = int(os.environ.get("GRADING_TEST_TIMEOUT", "0")) or round(patience(10))


# No guard for the whole module: the day's steps take what a busy machine needs,
# and each has a generous hang guard of its own (STEP_LIMITS, scaled by
# MCP_LESSON_TEST_SLACK), which ends the step's whole process tree.
pytestmark = pytest.mark.timeout(0)

#: A hang guard per step of the day, in seconds on an idle machine; none is a
#: speed limit (on an idle 2-core machine the whole day takes about 4 minutes).
STEP_LIMITS = {"release": 600, "collect": 300, "autograde": 3600, "feedback": 900, "grades": 300}

LESSONS = [
    "01_messages",
    "02_building_requests",
    "03_classifying",
    "04_errors",
    "05_playground",
    "06_real_server",
    "08_revisions",
    "09_http",
    "10_live_traffic",
    "11_your_own_server",
]
MASTERS = [ROOT / "notebooks" / f"{name}.ipynb" for name in LESSONS]
HIDDEN = "### BEGIN HIDDEN TESTS"


def read(path):
    return nbformat.read(str(path), as_version=4)


def nbgrader_info(cell):
    return cell.metadata.get("nbgrader", {})


# --- the graded lessons -------------------------------------------------------------------


def test_the_graded_lessons_are_the_ones_classroom_releases():
    graded_masters = classroom.graded_masters

    assert [path.stem for path in graded_masters()] == LESSONS


@pytest.mark.parametrize("master", MASTERS, ids=LESSONS)
def test_every_exercise_is_a_solution_cell_followed_by_locked_tests(master):
    cells = read(master).cells
    exercises = [i for i, cell in enumerate(cells) if "### BEGIN SOLUTION" in cell.source]
    assert exercises
    for i, following in zip(exercises, exercises[1:] + [len(cells)]):
        info = nbgrader_info(cells[i])
        assert info.get("solution") and not info.get("grade") and not info.get("locked"), cells[
            i
        ].source[:80]
        # its tests come after it, before the next exercise (a lesson may try it out first)
        tests = [
            cell
            for cell in cells[i + 1 : following]
            if nbgrader_info(cell).get("grade_id") == f"{info['grade_id']}-tests"
        ]
        assert tests, f"no test cell after {info['grade_id']}, before the next exercise"
        test = nbgrader_info(tests[0])
        assert test["grade"] and test["locked"] and test["points"] > 0
        assert HIDDEN in tests[0].source and "### END HIDDEN TESTS" in tests[0].source


@pytest.mark.parametrize("name", LESSONS)
def test_the_learner_copy_has_the_locked_tests_but_no_hidden_ones(name):
    master = read(ROOT / "notebooks" / f"{name}.ipynb")
    learner = read(ROOT / "notebooks" / "learner" / f"{name}.ipynb")
    text = "\n".join(cell.source for cell in learner.cells)
    assert HIDDEN not in text
    wanted = {nbgrader_info(c)["grade_id"] for c in master.cells if nbgrader_info(c).get("grade")}
    locked = {
        nbgrader_info(c)["grade_id"]
        for c in learner.cells
        if nbgrader_info(c).get("grade") and c.metadata.get("editable") is False
    }
    assert wanted and wanted == locked


# --- what each student hands in -----------------------------------------------------------


def solutions(master):
    """{grade_id: source} of the solution cells of a master."""
    return {
        nbgrader_info(cell)["grade_id"]: cell.source
        for cell in read(master).cells
        if nbgrader_info(cell).get("solution")
    }


def handed_in(release_nb, sources=None, edits=None, deleted=(), first_code=None):
    """A copy of the released notebook as a student saves it: ``sources`` fill solution
    cells, ``edits`` replace (locked) cells, ``deleted`` cells are removed, and
    ``first_code`` replaces the lesson's first code cell."""
    nb = copy.deepcopy(release_nb)
    kept = []
    for cell in nb.cells:
        grade_id = nbgrader_info(cell).get("grade_id")
        if grade_id in deleted:
            continue
        if grade_id in (sources or {}):
            cell.source = sources[grade_id]
        if grade_id in (edits or {}):
            cell.source = edits[grade_id]
        kept.append(cell)
    nb.cells = kept
    if first_code is not None:
        next(cell for cell in nb.cells if cell.cell_type == "code").source = first_code
    return nb


def with_cells(nb, cells):
    """``nb`` with copies of ``cells`` added at its end."""
    nb.cells += copy.deepcopy(cells)
    return nb


def with_string_metadata(nb):
    """``nb`` with its first test cell's ``metadata.nbgrader`` a string."""
    next(cell for cell in nb.cells if nbgrader_info(cell).get("grade")).metadata["nbgrader"] = (
        "a string"
    )
    return nb


def swap_solution(source, body):
    """``source`` with its solution region replaced by ``body`` (indented like the region),
    the way a student fills in the stub and keeps the rest of the cell."""
    lines, out, inside = source.split("\n"), [], False
    for line in lines:
        if "### BEGIN SOLUTION" in line:
            indent = line[: len(line) - len(line.lstrip())]
            out += [indent + part if part else part for part in body.split("\n")]
            inside = True
        elif "### END SOLUTION" in line:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def solution_of(source):
    """The solution region of a cell (dedented to the region's indent), as a student writes it."""
    lines = source.split("\n")
    start = next(i for i, line in enumerate(lines) if "### BEGIN SOLUTION" in line)
    end = next(i for i, line in enumerate(lines) if "### END SOLUTION" in line)
    indent = len(lines[start]) - len(lines[start].lstrip())
    return "\n".join(line[indent:] for line in lines[start + 1 : end])


def _swapped(text, old, new):
    assert old in text, f"the master no longer has {old!r}: change the partial student's mistake"
    return text.replace(old, new)


# The partial student's mistakes (function bodies): each costs exactly its test cell's points.
TRUTHY_SENDER = 'return isinstance(msg, dict) and bool(msg.get("method")) and bool(msg.get("id"))'
UNCHECKED_BUILDER = """\
message = {"jsonrpc": "2.0", "method": method}
if request_id is not None:
    message["id"] = request_id
if params is not None:
    message["params"] = params
return message"""
LENIENT_JSON = """\
try:
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    value = json.loads(text)
except (ValueError, TypeError, RecursionError):
    return ("invalid", PARSE_ERROR)
return classify(value)"""
SPLITLINES_STREAM = (
    "return [package_classify_json(line) for line in text.splitlines() if line.strip()]"
)
FALSY_DATA_DROPPED = """\
if id is not None and not is_valid_id(id):
    raise TypeError("bad id")
if not is_integer(code):
    raise TypeError("bad code")
if not isinstance(message, str):
    raise TypeError("bad message")
error = {"code": code, "message": message}
if data is not OMITTED and data:
    error["data"] = data
return {"jsonrpc": "2.0", "id": id, "error": error}"""
VALID_EVERYWHERE = 'return create_request("ping", request_id=1)'

# The hostile student's acts.
EXIT_FIRST = "import sys\nsys.exit('done')\n"
EMPTY_BUILDER = "return {}"
HANDWRITTEN_HALFWAY = """\
return {"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": "t1", "progress": 50, "total": 100}}"""
LIARS = "\nrepr = lambda value: 'anything'\nisinstance = lambda *args: True\n"
ENDLESS_CLASSIFY = "while True:\n    pass"
# Script for the teacher's browser: in a markdown cell, a raw cell and a cell's outputs.
PAGE_ATTACK = "window.pwned = true; document.title = 'pwned'"
SCRIPT_CELLS = [
    new_markdown_cell(
        f'My notes <img src="x" onerror="{PAGE_ATTACK}"> <script>{PAGE_ATTACK}</script>'
    ),
    new_raw_cell(f'Raw notes <script>{PAGE_ATTACK}</script><img src=x onerror="{PAGE_ATTACK}">'),
    new_code_cell(
        "from IPython.display import HTML, display\n"
        f"display(HTML('Output notes <img src=x onerror=\"{PAGE_ATTACK}\">'))\n"
        f"print('<script>{PAGE_ATTACK}</script>')"
    ),
]
FLOOD = "print('flood ' * 1_000_000)\n"


def submissions(release):
    """{student: {assignment: {notebook file name: NotebookNode}}} for the three students."""
    released = {name: read(release / name / f"{name}.ipynb") for name in LESSONS}
    right = {master.stem: solutions(master) for master in MASTERS}

    def but(name, **bodies):
        """The master's solutions of lesson ``name``, with some function bodies of the student's."""
        return dict(
            right[name],
            **{
                grade_id: swap_solution(right[name][grade_id], body)
                for grade_id, body in bodies.items()
            },
        )

    partial = {
        "01_messages": but("01_messages", fixed_sender_waits=TRUTHY_SENDER),
        "02_building_requests": but("02_building_requests", create_request=UNCHECKED_BUILDER),
        "03_classifying": but("03_classifying", classify_json=LENIENT_JSON),
        "04_errors": but("04_errors", error_response=FALSY_DATA_DROPPED),
        "05_playground": but("05_playground", fixed_stream=SPLITLINES_STREAM),
        "06_real_server": right["06_real_server"],
        "08_revisions": but("08_revisions", only_one=VALID_EVERYWHERE),
        "09_http": right["09_http"],
        "10_live_traffic": right["10_live_traffic"],
        # call_tool takes a bool for a number: the master's, with isinstance in place of is_number
        "11_your_own_server": but(
            "11_your_own_server",
            call_tool=_swapped(
                solution_of(right["11_your_own_server"]["call_tool"]),
                "is_number(a) and is_number(b)",
                "all(isinstance(x, (int, float)) for x in (a, b))",
            ),
        ),
    }
    first_09 = next(cell.source for cell in released["09_http"].cells if cell.cell_type == "code")
    hostile = {
        # a broken import in the lesson's first cell; sys.exit before rough_kind is defined
        "01_messages": {
            "01_messages.ipynb": handed_in(
                released["01_messages"],
                dict(
                    right["01_messages"], rough_kind=EXIT_FIRST + right["01_messages"]["rough_kind"]
                ),
                first_code="import mcp_lessons",
            )
        },
        # a wrong builder whose test cell is edited to pass; another test cell deleted
        "02_building_requests": {
            "02_building_requests.ipynb": handed_in(
                released["02_building_requests"],
                but(
                    "02_building_requests",
                    create_request=EMPTY_BUILDER,
                    halfway=HANDWRITTEN_HALFWAY,
                ),
                edits={"create_request-tests": "print('all tests pass')"},
                deleted={"is_valid_id-tests"},
            )
        },
        # classify loops forever
        "03_classifying": {
            "03_classifying.ipynb": handed_in(
                released["03_classifying"], but("03_classifying", classify=ENDLESS_CLASSIFY)
            )
        },
        # megabytes of output
        "04_errors": {
            "04_errors.ipynb": handed_in(
                released["04_errors"],
                dict(
                    right["04_errors"], error_response=FLOOD + right["04_errors"]["error_response"]
                ),
            )
        },
        # no work, and a cell whose nbgrader metadata is a string (autograde goes on for the class)
        "05_playground": {
            "05_playground.ipynb": with_string_metadata(handed_in(released["05_playground"]))
        },
        # handed in under another name: the notebook itself is missing
        "08_revisions": {
            "08_revisions-Copy1.ipynb": handed_in(released["08_revisions"], right["08_revisions"])
        },
        # no work, and liars where the tests would use Python's own repr and isinstance; script
        # for the teacher's browser in its notes, a raw cell and an output
        "09_http": {
            "09_http.ipynb": with_cells(
                handed_in(released["09_http"], first_code=first_09 + LIARS), SCRIPT_CELLS
            )
        },
    }
    return {
        "complete": {a: {f"{a}.ipynb": handed_in(released[a], right[a])} for a in LESSONS},
        "partial": {a: {f"{a}.ipynb": handed_in(released[a], partial[a])} for a in LESSONS},
        "hostile": hostile,  # lessons 10 and 11 not handed in at all
    }


#: Each lesson's points, as its master's graded cells declare them (nbgrader's metadata).
MAX = declared.points()
#: The exact score of each student in each lesson: full marks, less the points of the
#: exercises whose graded cells fail (declared.lesson_points reads them from the masters).
LOST = declared.lesson_points
SCORES = {
    "complete": dict(MAX),
    "partial": {
        "01_messages": MAX["01_messages"]
        - LOST("01_messages", ("fixed_sender_waits",)),  # tests truth, not presence
        "02_building_requests": MAX["02_building_requests"]
        - LOST("02_building_requests", ("create_request",)),
        # (create_request refuses nothing)
        "03_classifying": MAX["03_classifying"]
        - LOST("03_classifying", ("classify_json",)),  # takes -Infinity
        "04_errors": MAX["04_errors"] - LOST("04_errors", ("error_response",)),  # drops falsy data
        "05_playground": MAX["05_playground"]
        - LOST("05_playground", ("fixed_stream",)),  # uses splitlines
        "06_real_server": MAX["06_real_server"],  # the solution, untouched
        "08_revisions": MAX["08_revisions"]
        - LOST("08_revisions", ("only_one",)),  # valid under every revision
        "09_http": MAX["09_http"],  # the solutions, untouched
        "10_live_traffic": MAX["10_live_traffic"],
        "11_your_own_server": MAX["11_your_own_server"]
        - LOST("11_your_own_server", ("call_tool",)),  # adds bools
    },
    "hostile": {
        # rough_kind is never defined; the broken import costs nothing graded
        "01_messages": MAX["01_messages"] - LOST("01_messages", ("rough_kind",)),
        # create_request wrong, its edited test restored; the deleted test cell is put back, and passes
        "02_building_requests": MAX["02_building_requests"]
        - LOST("02_building_requests", ("create_request",)),
        # classify loops, classify_json calls it
        "03_classifying": MAX["03_classifying"]
        - LOST("03_classifying", ("classify", "classify_json")),
        "04_errors": MAX["04_errors"],  # the flood is cut and costs nothing
        "05_playground": 0.0,  # no work; a cell's metadata.nbgrader is a string
        "06_real_server": 0.0,  # not handed in at all (blank in grades-wide.csv)
        "08_revisions": 0.0,  # no 08_revisions.ipynb
        "09_http": 0.0,  # no work: the liars are never asked
        "10_live_traffic": 0.0,  # not handed in at all (blank in grades-wide.csv)
        "11_your_own_server": 0.0,  # not handed in at all (blank in grades-wide.csv)
    },
}
EXPECTED = {
    (student, lesson): (score, MAX[lesson])
    for student, scores in SCORES.items()
    for lesson, score in scores.items()
}


# --- the teacher's day, run once for the module -------------------------------------------


def step(course, *args):
    """Run one step of tools/grading/classroom.py; return its output (it must succeed).
    The step and everything it starts end with the test run, however the run ends."""
    run = run_to_end(
        [sys.executable, str(GRADING / "classroom.py"), "--course", str(course), *args],
        STEP_LIMITS.get(args[0], 900),
        cwd=ROOT,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    assert "Traceback" not in run.stdout, run.stdout[-3000:]
    return run.stdout


class Day:
    """What the teacher's day left behind, and how long each part took."""

    def __init__(self, course, outputs, seconds):
        self.course, self.outputs, self.seconds = course, outputs, seconds

    def student_seconds(self):
        """{student: seconds}, summed over the assignments, from autograde's lines."""
        found = {}
        for student, seconds in re.findall(
            r"^  (\w+): [\d.]+/[\d.]+ points \(([\d.]+) s\)",
            self.outputs["autograde"],
            re.MULTILINE,
        ):
            found[student] = found.get(student, 0.0) + float(seconds)
        return found


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    base = tmp_path_factory.mktemp("grading")
    course = base / "classroom"
    outputs, seconds = {}, {}
    started = time.monotonic()

    def timed(name, *args):
        begin = time.monotonic()
        outputs[name] = step(course, *args)
        seconds[name] = time.monotonic() - begin

    timed("release", "release")  # every lesson with test cells: the graded ones
    inbox = base / "inbox"  # what the students handed in, one folder each
    for student, assignments in submissions(course / "release").items():
        for assignment, notebooks in assignments.items():
            folder = inbox / student / assignment
            folder.mkdir(parents=True)
            for name, nb in notebooks.items():
                nbformat.write(nb, str(folder / name))
    timed("collect", "collect", str(inbox))
    timed("autograde", "autograde", "--timeout", str(TIMEOUT))
    timed("feedback", "feedback")
    timed("grades", "grades")
    seconds["whole day"] = time.monotonic() - started
    result = Day(course, outputs, seconds)
    report = [f"{name}: {value:.1f} s" for name, value in seconds.items()]
    report += [
        f"autograde {student} ({len(LESSONS)} lessons): {value:.1f} s"
        for student, value in result.student_seconds().items()
    ]
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "grading-times.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    (ARTIFACTS / "grading-teacher.log").write_text(
        (course / "teacher.log").read_text(encoding="utf-8"), encoding="utf-8"
    )
    print("\n" + "\n".join(report))
    return result


# --- grades.csv and the gradebook ---------------------------------------------------------


def test_grades_csv_has_one_exact_row_per_student_and_assignment(day):
    with open(day.course / "grades.csv", newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == COLUMNS
        rows = list(reader)
    got = {
        (row["student"], row["assignment"]): (float(row["score"]), float(row["max_score"]))
        for row in rows
    }
    assert len(rows) == len(EXPECTED)
    wrong = {key: (got.get(key), want) for key, want in EXPECTED.items() if got.get(key) != want}
    assert not wrong, f"(grades.csv, expected): {wrong}\n{day.outputs['autograde']}"


def test_grades_wide_has_a_row_per_student_a_column_per_lesson_and_the_total(day):
    with open(day.course / "grades-wide.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["student", *LESSONS, "total"]
    assert [row["student"] for row in rows] == sorted(SCORES)
    for row in rows:
        scores = SCORES[row["student"]]
        handed = {lesson for lesson in LESSONS if lesson in submissions_of(day, row["student"])}
        assert {lesson: float(row[lesson]) for lesson in handed} == {
            name: scores[name] for name in handed
        }
        assert all(row[lesson] == "" for lesson in set(LESSONS) - handed)  # blank, not 0
        assert float(row["total"]) == sum(scores.values())
    assert "10_live_traffic" not in submissions_of(day, "hostile")


def submissions_of(day, student):
    """The lessons ``student`` handed in (a folder in submitted/)."""
    return {p.name for p in (day.course / "submitted" / student).iterdir() if p.is_dir()}


def test_not_handed_in_is_blank_in_the_wide_form(tmp_path):
    from tools.grading.grades_csv import wide_rows

    with classroom.gradebook(tmp_path) as gb:
        gb.add_assignment("01_messages")
        gb.add_assignment("03_classifying")
        gb.add_student("alice")
        gb.add_submission("03_classifying", "alice")
        columns, rows = wide_rows(gb)
    assert columns == ["student", "01_messages", "03_classifying", "total"]
    assert rows == [{"student": "alice", "01_messages": "", "03_classifying": 0.0, "total": 0.0}]


def test_the_gradebook_is_sqlite_that_nbgrader_reads_back(day):
    from nbgrader.api import Gradebook, MissingEntry

    path = day.course / "gradebook.db"
    assert path.read_bytes()[:16] == b"SQLite format 3\x00"
    with sqlite3.connect(path) as db:
        tables = {
            name for (name,) in db.execute("select name from sqlite_master where type='table'")
        }
    assert {"assignment", "student", "submitted_assignment", "grade"} <= tables
    with Gradebook(f"sqlite:///{path}") as gb:
        assert sorted(s.id for s in gb.students) == ["complete", "hostile", "partial"]
        assert sorted(a.name for a in gb.assignments) == LESSONS
        for (student, assignment), (score, most) in EXPECTED.items():
            if assignment not in submissions_of(day, student):  # never handed in: no submission
                with pytest.raises(MissingEntry):
                    gb.find_submission(assignment, student)
                continue
            submission = gb.find_submission(assignment, student)
            assert (submission.score, submission.max_score) == (score, most), (student, assignment)
        # the hidden tests are what nbgrader stored, and what it graded with
        cell = gb.find_source_cell("classify-tests", "03_classifying", "03_classifying")
        assert HIDDEN in cell.source and cell.locked
        assert (
            gb.find_grade("classify-tests", "03_classifying", "03_classifying", "partial").score
            == 4
        )


# --- the teacher's log: one clear line per problem ------------------------------------------


def autograde_lines(day, student, assignment):
    """The lines autograde printed for ``student`` under ``assignment``."""
    lines, current, inside = [], None, False
    for line in day.outputs["autograde"].splitlines():
        if not line.startswith(" "):
            current, inside = line.rstrip(":"), False
        elif not line.startswith("    "):
            inside = current == assignment and line.strip().startswith(f"{student}:")
        if inside:
            lines.append(line.strip())
    return lines


def test_the_endless_loop_costs_one_timeout(day):
    lines = autograde_lines(day, "hostile", "03_classifying")
    stopped = [line for line in lines if "did not finish within" in line]
    assert len(stopped) == 1, lines
    assert f"classify gave no answer: it did not finish within {TIMEOUT} s" in stopped[0]
    assert "its later calls failed at once" in stopped[0]
    assert day.outputs["autograde"].count("did not finish within") == 1, "a second timeout"
    assert stopped[0] in (day.course / "teacher.log").read_text(encoding="utf-8")


def test_each_hostile_act_has_a_clear_line(day):
    said = {lesson: "\n".join(autograde_lines(day, "hostile", lesson)) for lesson in LESSONS}
    assert "(rough_kind): stopped with SystemExit: 'done'" in said["01_messages"]
    assert (
        "stopped with ModuleNotFoundError: \"No module named 'mcp_lessons'\"" in said["01_messages"]
    )
    assert (
        "test cell create_request-tests was edited: nbgrader restored it from the release"
        in said["02_building_requests"]
    )
    assert (
        "test cell is_valid_id-tests was deleted: nbgrader put it back"
        in said["02_building_requests"]
    )
    assert "printed more than 100,000 characters: cut there" in said["04_errors"]
    # collect takes the released notebooks only, so the copy under another name stays behind
    assert "0 points: no 08_revisions.ipynb in the submission" in said["08_revisions"]
    # a string for a cell's nbgrader metadata costs its own notebook, graded with the others
    assert said["05_playground"].startswith(f"hostile: 0/{MAX['05_playground']:g} points"), said[
        "05_playground"
    ]
    assert (
        "hostile 08_revisions: collected; missing 08_revisions.ipynb; not part of the "
        "assignment: 08_revisions-Copy1.ipynb"
    ) in day.outputs["collect"]
    for student in ("complete", "partial"):
        for lesson in LESSONS:
            assert len(autograde_lines(day, student, lesson)) == 1, autograde_lines(
                day, student, lesson
            )


def test_the_flood_is_cut_in_the_graded_notebook(day):
    graded = day.course / "autograded" / "hostile" / "04_errors" / "04_errors.ipynb"
    assert graded.stat().st_size < 1_000_000
    text = "".join(
        out.get("text", "")
        for cell in read(graded).cells
        if cell.cell_type == "code"
        for out in cell.outputs
    )
    assert "output cut: this cell printed more than 100,000 characters" in text


def test_the_broken_import_and_sys_exit_cost_only_their_cells(day):
    graded = read(day.course / "autograded" / "hostile" / "01_messages" / "01_messages.ipynb")
    errors = [
        out.ename
        for cell in graded.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert "ModuleNotFoundError" in errors and "SystemExit" in errors


# --- one pipeline: the release is the learner copy -------------------------------------------


def test_the_release_is_the_learner_copy(day):
    for name in LESSONS:
        released = read(day.course / "release" / name / f"{name}.ipynb")
        learner = read(ROOT / "notebooks" / "learner" / f"{name}.ipynb")
        assert learner.cells[0].id == "learner-copy-note"
        assert [(c.cell_type, c.source, c.metadata) for c in released.cells] == [
            (c.cell_type, c.source, c.metadata) for c in learner.cells[1:]
        ], name


# --- a feedback page in Chromium -------------------------------------------------------------

FAILING_CASE = "-Infinity is not JSON, even deep inside"


def test_a_feedback_page_shows_the_failing_case_in_plain_words(day):
    page_file = day.course / "feedback" / "partial" / "03_classifying" / "03_classifying.html"
    assert page_file.exists(), sorted(p.name for p in (day.course / "feedback").rglob("*.html"))
    chromium = find_chromium()
    if chromium is None:
        missing("Chromium was not found (Debian/Ubuntu: sudo apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("Python Playwright is not installed (make venv)")
    outside = []
    with sync_playwright() as playwright, launched(playwright, chromium) as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 1040})

        def only_local(route):
            if route.request.url.startswith("file://"):
                route.continue_()
            else:  # the page's MathJax comes from a CDN: never fetched here
                outside.append(route.request.url)
                route.abort()

        page.route("**/*", only_local)
        page.goto(page_file.as_uri())
        text = page.inner_text("body")
        from nbgrader.api import Gradebook

        score, most = EXPECTED["partial", "03_classifying"]
        assert f"03_classifying (Score: {score} / {most})" in text
        with Gradebook(f"sqlite:///{day.course / 'gradebook.db'}") as gb:
            cell = gb.find_grade(
                "classify_json-tests", "03_classifying", "03_classifying", "partial"
            )
            cell_score, cell_most = cell.score, cell.max_score
        assert cell_score == 0 < cell_most  # the partial student's one mistake in lesson 03
        assert "classify_json-tests" in text and f"Score: {cell_score} / {cell_most}" in text
        assert "AssertionError" in text
        failing = page.get_by_text(FAILING_CASE).last
        assert failing.is_visible()
        line = failing.inner_text()
        assert "gave ('request', None),\n  but it should be ('invalid', -32700)" in line
        # the picture: the failing test cell, from its score to the case in words
        page.get_by_text("Grade cell: classify_json-tests").first.evaluate(
            "element => element.scrollIntoView({block: 'start'})"
        )
        page.evaluate("window.scrollBy(0, -16)")
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "feedback.png"
        page.screenshot(path=str(shot))
        if os.environ.get("UPDATE_SCREENSHOTS") == "1":
            shutil.copyfile(shot, ROOT / "docs" / "feedback.png")
    assert all("mathjax" in url.lower() for url in outside), outside


def test_a_submissions_script_runs_in_no_page(day):
    """The hostile student's notes, raw cell and output carry script: the feedback page and
    formgrader's manual grading page of that notebook have no script or handler beyond the
    honest student's, show the words as text, and Chromium runs nothing of it."""
    from classroom.test_sanitize import active, exporter, resources_for

    for template in ("feedback", "formgrade"):
        if template == "feedback":  # the pages generate_feedback wrote
            pages = {
                student: (day.course / "feedback" / student / "09_http" / "09_http.html").read_text(
                    encoding="utf-8"
                )
                for student in ("complete", "hostile")
            }
        else:  # rendered as formgrader renders the autograded notebook
            made = exporter("formgrade", day.course)
            pages = {
                student: made.from_filename(
                    str(day.course / "autograded" / student / "09_http" / "09_http.ipynb"),
                    resources=resources_for("formgrade"),
                )[0]
                for student in ("complete", "hostile")
            }
        honest, hostile = active(pages["complete"]), active(pages["hostile"])
        extra = [item for item in hostile.found if item not in honest.found]
        assert not extra, (template, extra)
        text = "".join(hostile.text)
        for words in ("My notes", "Raw notes", f"<script>{PAGE_ATTACK}</script>", "Output notes"):
            assert words in text, (template, words)
    chromium = find_chromium()
    if chromium is None:
        missing("Chromium was not found (Debian/Ubuntu: sudo apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    page_file = day.course / "feedback" / "hostile" / "09_http" / "09_http.html"
    with sync_playwright() as playwright, launched(playwright, chromium) as browser:
        page = browser.new_page()
        page.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith("file://") else route.abort()
            ),
        )
        page.goto(page_file.as_uri())
        assert page.get_by_text("My notes").first.is_visible()
        assert page.evaluate("window.pwned === undefined && document.title !== 'pwned'")


# --- collect, on a small folder (no nbgrader run) ---------------------------------------------


def test_collect_takes_only_the_released_notebooks_and_skips_special_files(tmp_path, capsys):
    """A named pipe or a symbolic link in one student's folder costs the others nothing: collect
    names it in one line and goes on. Only regular files named like a released notebook are
    taken, and links are never followed."""

    course = tmp_path / "classroom"
    for assignment in ("01_messages", "03_classifying"):
        (course / "release" / assignment).mkdir(parents=True)
        (course / "release" / assignment / f"{assignment}.ipynb").write_text("{}", encoding="utf-8")
    secret = tmp_path / "secret.ipynb"  # outside every student's folder
    secret.write_text("the teacher's secret", encoding="utf-8")
    inbox = tmp_path / "inbox"
    alice, bob = inbox / "alice" / "03_classifying", inbox / "bob" / "03_classifying"
    for folder in (alice, bob, inbox / "alice" / "01_messages"):
        folder.mkdir(parents=True)
    (alice / "03_classifying.ipynb").write_text('{"by": "alice"}', encoding="utf-8")
    os.mkfifo(alice / "pipe")
    (alice / "link.ipynb").symlink_to(secret)
    os.mkfifo(
        inbox / "alice" / "01_messages" / "01_messages.ipynb"
    )  # a pipe in place of the notebook
    (bob / "03_classifying.ipynb").write_text('{"by": "bob"}', encoding="utf-8")
    (bob / "notes.txt").write_text("not a notebook", encoding="utf-8")
    (bob / "03_classifying-Copy1.ipynb").write_text("{}", encoding="utf-8")

    assert classroom.collect(course, inbox) == 0
    said = capsys.readouterr().out
    submitted = course / "submitted"
    assert (
        submitted / "alice" / "03_classifying" / "03_classifying.ipynb"
    ).read_text() == '{"by": "alice"}'
    assert (
        submitted / "bob" / "03_classifying" / "03_classifying.ipynb"
    ).read_text() == '{"by": "bob"}'
    assert sorted(p.name for p in submitted.rglob("*")) == [
        "01_messages",
        "03_classifying",
        "03_classifying",
        "03_classifying.ipynb",
        "03_classifying.ipynb",
        "alice",
        "bob",
        *["submission_secret.txt"] * 3,  # what nbgrader's release_feedback needs
        "timestamp.txt",
        "timestamp.txt",
        "timestamp.txt",
    ]  # collect's own times
    secrets = {
        p.parent.parent.name + "/" + p.parent.name: p.read_text()
        for p in submitted.rglob("submission_secret.txt")
    }
    assert all(re.fullmatch(r"[0-9a-f]{128}", text) for text in secrets.values()), secrets
    assert len(set(secrets.values())) == 3  # one of its own each
    lines = said.splitlines()
    assert (
        "alice 03_classifying: skipped pipe, a named pipe: collect takes regular files only"
        in lines
    )
    assert (
        "alice 03_classifying: skipped link.ipynb, a symbolic link: collect takes regular files only"
        in lines
    )
    assert (
        "alice 01_messages: skipped 01_messages.ipynb, a named pipe: collect takes regular files only"
        in lines
    )
    assert "alice 01_messages: collected; missing 01_messages.ipynb" in lines
    assert "alice 03_classifying: collected" in lines
    assert (
        "bob 03_classifying: collected; not part of the assignment: 03_classifying-Copy1.ipynb, "
        "notes.txt (not collected)"
    ) in lines
    assert lines[-1].startswith("3 submissions in ")
    log = (course / "teacher.log").read_text(encoding="utf-8")
    assert "alice 03_classifying: skipped pipe, a named pipe" in log and "Traceback" not in said

    assert (
        classroom.collect(course, inbox) == 0
    )  # again: each submission is replaced, none is left over
    lines = capsys.readouterr().out.splitlines()
    assert (
        "bob 03_classifying: collected again (replaced); not part of the assignment: "
        "03_classifying-Copy1.ipynb, notes.txt (not collected)" in lines
    )
    assert len(list(submitted.rglob("*"))) == 13


# --- one nbgrader run for a class: its output cut by student ------------------------------

RUN = """\
[AutogradeApp | INFO] Creating/updating student with ID 'alice': {}
[AutogradeApp | INFO] Sanitizing /c/submitted/alice/03_classifying/03_classifying.ipynb
[AutogradeApp | WARNING] [grading] alice 03_classifying: cell 4 (classify): stopped with KeyError: 'id'
[AutogradeApp | INFO] [judged] alice 03_classifying: 0.4 s
[AutogradeApp | INFO] Creating/updating student with ID 'bob': {}
[AutogradeApp | ERROR] There was an error processing assignment: /c/submitted/bob/03_classifying
[AutogradeApp | ERROR] Traceback (most recent call last):
      File "nbformat/reader.py", line 80, in reads
    nbformat.reader.NotJSONError: Notebook does not appear to be JSON: '{oops'
[AutogradeApp | INFO] Creating/updating student with ID 'carol': {}
[AutogradeApp | INFO] [judged] carol 03_classifying: 0.3 s
[AutogradeApp | ERROR] There was an error processing the following assignments:
    /c/submitted/bob/03_classifying
"""


def test_one_run_for_a_class_is_cut_by_student():
    sections = classroom.by_student(RUN)
    assert sorted(sections) == ["alice", "bob", "carol"]
    # the judge's own lines are not read from the log (its records carry them, as data)
    assert classroom.problems_in(sections["alice"]) == []
    assert classroom.failure_in(sections["alice"]) is None
    assert classroom.failure_in(sections["bob"]).startswith(
        "nbformat.reader.NotJSONError: Notebook"
    )
    assert classroom.failure_in(sections["carol"]) is None


#: One run over two assignments ("*"): nbgrader takes the folders of submitted/ in order,
#: a student's assignments one after the other.
RUN_OF_TWO = """\
[AutogradeApp | INFO] Copying /c/submitted/alice/03_classifying/timestamp.txt -> /c/autograded/alice/03_classifying/timestamp.txt
[AutogradeApp | INFO] Creating/updating student with ID 'alice': {}
[AutogradeApp | INFO] SubmittedAssignment<03_classifying for alice> submitted at 2026-12-06 17:24:55
[AutogradeApp | WARNING] Attribute 'points' for cell classify-tests has changed! (should be: 2, got: 9)
[AutogradeApp | INFO] Sanitizing /c/submitted/alice/03_classifying/03_classifying.ipynb
[AutogradeApp | INFO] Creating/updating student with ID 'alice': {}
[AutogradeApp | INFO] Sanitizing /c/submitted/alice/04_errors/04_errors.ipynb
[AutogradeApp | WARNING] [grading] alice 04_errors: cell 2: stopped with ValueError: '\\n[AutogradeApp | INFO] Sanitizing /c/submitted/bob/03_classifying/x.ipynb'
[AutogradeApp | INFO] Creating/updating student with ID 'bob': {}
[AutogradeApp | ERROR] There was an error processing assignment: /c/submitted/bob/04_errors
[AutogradeApp | ERROR] Traceback (most recent call last):
    nbformat.reader.NotJSONError: Notebook does not appear to be JSON: '{oops'
"""


def test_one_run_over_several_assignments_is_cut_by_student_and_assignment():
    sections = classroom.by_submission(RUN_OF_TWO)
    assert sorted(sections) == [
        ("alice", "03_classifying"),
        ("alice", "04_errors"),
        ("bob", "04_errors"),
    ]
    assert classroom.problems_in(sections["alice", "03_classifying"]) == [
        "the points of cell classify-tests were changed: nbgrader restored them"
    ]
    assert classroom.problems_in(sections["alice", "04_errors"]) == []  # (the judge's line: data)
    assert classroom.failure_in(sections["alice", "04_errors"]) is None
    assert classroom.failure_in(sections["bob", "04_errors"]).startswith(
        "nbformat.reader.NotJSONError: Notebook"
    )


# --- JudgedExecute on small notebooks: the student's cells in the sandbox ---------------------


def run_judged(*sources, timeout=3):
    nb = new_notebook(cells=[new_code_cell(source) for source in sources])
    records = Path(tempfile.mkdtemp(prefix="judged-records-"))  # never the checkout's own folder
    judge = JudgedExecute(timeout=round(patience(timeout)), records=str(records))
    try:
        nb, _ = judge.preprocess(
            nb, {"nbgrader": {"student": "s", "notebook": "n", "assignment": "a"}}
        )
        record = json.loads((records / "a" / "s" / "n.json").read_text(encoding="utf-8"))
        assert record["judged"] is True and record["student"] == "s", record  # verdicts as data
    finally:
        shutil.rmtree(records, ignore_errors=True)
    return nb


def outputs_of(cell):
    return [
        (out.output_type, out.get("ename"), out.get("text") or out.get("evalue") or "")
        for out in cell.outputs
    ]


def test_a_cell_that_ends_its_process_costs_that_cell_and_the_notebook_goes_on():
    nb = run_judged("x = 1", "import os; os._exit(1)", "print('x' in dir())")
    ((kind, name, words),) = outputs_of(nb.cells[1])
    assert (kind, name) == ("error", "CellTimeoutError") and "os._exit() or a crash" in words
    assert outputs_of(nb.cells[2]) == [("stream", None, "True\n")]  # the cells before ran again


def test_a_loop_costs_one_time_limit_and_sys_exit_its_cell():
    nb = run_judged("while True:\n    pass", "import sys\nsys.exit('done')", "print('after')")
    assert [name for _, name, _ in outputs_of(nb.cells[0])] == ["CellTimeoutError"]
    assert [name for _, name, _ in outputs_of(nb.cells[1])] == ["SystemExit"]
    assert outputs_of(nb.cells[2]) == [("stream", None, "after\n")]


def test_the_sandbox_cannot_see_the_course_nor_the_network():
    nb = run_judged(
        f"import os\nprint(os.path.exists({str(ROOT / 'notebooks')!r}))",
        "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)",
        "import mcp_lesson\nprint(mcp_lesson.__file__.startswith('/judge/'))",
    )
    assert outputs_of(nb.cells[0]) == [("stream", None, "False\n")]
    assert outputs_of(nb.cells[1])[0][0] == "error"
    assert outputs_of(nb.cells[2]) == [("stream", None, "True\n")]  # the judge's stand-in
