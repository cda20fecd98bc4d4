"""Grading a class with nbgrader, end to end (tools/grading, the teacher's make targets).

Real nbgrader commands, real kernels, no mocks. A course directory in a
temporary folder goes through the teacher's whole day: release, collect,
autograde, feedback, grades.csv, for three synthetic students:

* **complete** fills in every solution: full marks;
* **partial** gets some exercises right and others wrong: an exact score;
* **hostile** does what real classes do: a function that loops forever, a
  flood of output, test cells edited and deleted, a broken import and
  ``sys.exit``, a notebook missing (handed in under another name).

The tests then check grades.csv row by row, read the gradebook back with
nbgrader's own API, read the teacher's log (one clear line per problem; the
endless loop costs one timeout, not one per cell that calls the loop), and
render a feedback page in Chromium, which must show the failing case in plain
words (a screenshot goes to test-artifacts/, and with UPDATE_SCREENSHOTS=1 to
docs/feedback.png).

The cell timeout is GRADING_TEST_TIMEOUT seconds (default 30). The time each
step and each student took is printed (pytest -s shows it) and written to
test-artifacts/grading-times.txt: a figure to report, never a test's limit.

GuardedExecute's own guards (dead kernel, a kernel deaf to the interrupt) are
checked on small notebooks first, with a short timeout.
"""

import copy
import csv
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
GRADING = ROOT / "tools" / "grading"
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT = int(os.environ.get("GRADING_TEST_TIMEOUT", "30"))

sys.path.insert(0, str(GRADING))
from execute_guard import GuardedExecute  # noqa: E402
from grades_csv import COLUMNS  # noqa: E402

pytestmark = pytest.mark.timeout(900)  # a hang guard for the whole class, not a speed limit


# --- a small course to grade (the throwaway assignments) ---------------------------------

def solution_cell(grade_id, source):
    cell = new_code_cell(source)
    cell.metadata.nbgrader = {"grade": False, "grade_id": grade_id, "locked": False,
                              "schema_version": 3, "solution": True, "task": False}
    return cell


def grade_cell(grade_id, points, source):
    cell = new_code_cell(source)
    cell.metadata.nbgrader = {"grade": True, "grade_id": grade_id, "locked": True,
                              "points": points, "schema_version": 3, "solution": False,
                              "task": False}
    return cell


def lesson(*cells):
    nb = new_notebook(cells=list(cells))
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


IS_ID = '''\
def is_id(value):
    """True for a str, or an int that is not a bool."""
    ### BEGIN SOLUTION
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
    ### END SOLUTION'''

IS_ID_TESTS = '''\
expect(is_id, [(7, True), ("a", True), (True, False), (None, False)])
### BEGIN HIDDEN TESTS
for value, want in [(0, True), ("", True), (-3, True), (2.0, False), ([1], False), (False, False)]:
    got = is_id(value)
    assert got is want, f"is_id({value!r}) gave {got!r}; it should be {want!r}"
### END HIDDEN TESTS'''

CLASSIFY = '''\
def classify(msg):
    """Return (kind, code) for a parsed message."""
    ### BEGIN SOLUTION
    from mcp_lesson import classify as course_classify
    return course_classify(msg)
    ### END SOLUTION'''

CLASSIFY_TESTS = '''\
check(classify)
### BEGIN HIDDEN TESTS
for msg, want, why in [
    ({"jsonrpc": "2.0", "id": -5, "method": "resources/read"}, ("request", None),
     "a negative integer id is still an integer"),
    ({"jsonrpc": "2.0", "id": "x", "method": "ping", "params": []}, ("invalid", -32600),
     "params must be an object"),
]:
    got = classify(msg)
    assert got == want, f"classify({msg!r}) gave {got!r}; it should be {want!r}: {why}"
### END HIDDEN TESTS'''

PING = '''\
def ping(request_id):
    """A ping request with this id."""
    ### BEGIN SOLUTION
    return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}
    ### END SOLUTION'''

PING_TESTS = '''\
try_it(ping, 1)
### BEGIN HIDDEN TESTS
for request_id in (1, "a-7", 0):
    got = ping(request_id)
    want = {"jsonrpc": "2.0", "id": request_id, "method": "ping"}
    assert got == want, f"ping({request_id!r}) gave {got!r}; it should be {want!r}"
### END HIDDEN TESTS'''

IMPORTS = "from mcp_lesson.course import check, expect, try_it"


def toy_masters(folder):
    """Three small lessons in the course's style; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    lessons = {
        "toy_a": lesson(new_markdown_cell("# Toy A"), new_code_cell(IMPORTS),
                        solution_cell("is_id", IS_ID), grade_cell("is_id-tests", 1, IS_ID_TESTS),
                        solution_cell("classify", CLASSIFY),
                        grade_cell("classify-tests", 3, CLASSIFY_TESTS),
                        solution_cell("ping", PING), grade_cell("ping-tests", 1, PING_TESTS),
                        new_code_cell("check(classify)")),
        "toy_b": lesson(new_markdown_cell("# Toy B"), new_code_cell(IMPORTS),
                        solution_cell("ping", PING), grade_cell("ping-tests", 2, PING_TESTS),
                        solution_cell("is_id", IS_ID), grade_cell("is_id-tests", 1, IS_ID_TESTS)),
        "toy_c": lesson(new_markdown_cell("# Toy C"), new_code_cell(IMPORTS),
                        solution_cell("ping", PING), grade_cell("ping-tests", 2, PING_TESTS)),
    }
    paths = []
    for name, nb in lessons.items():
        nbformat.write(nb, str(folder / f"{name}.ipynb"))
        paths.append(folder / f"{name}.ipynb")
    return paths


# --- what each student hands in -----------------------------------------------------------

def solutions(master):
    """{grade_id: source} of the solution cells of a master."""
    nb = nbformat.read(str(master), as_version=4)
    return {cell.metadata.nbgrader["grade_id"]: cell.source for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("solution")}


def handed_in(release_nb, sources=None, edits=None, deleted=(), first_cell=None):
    """A copy of the released notebook as a student saves it: ``sources`` fill solution
    cells, ``edits`` replace (locked) cells, ``deleted`` cells are removed, and
    ``first_cell`` replaces the first code cell (the lesson's imports)."""
    nb = copy.deepcopy(release_nb)
    kept = []
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in deleted:
            continue
        if grade_id in (sources or {}):
            cell.source = sources[grade_id]
        if grade_id in (edits or {}):
            cell.source = edits[grade_id]
        kept.append(cell)
    nb.cells = kept
    if first_cell is not None:
        next(cell for cell in nb.cells if cell.cell_type == "code").source = first_cell
    return nb


LOOPING_CLASSIFY = "def classify(msg):\n    while True:\n        pass"
FLOODING_IS_ID = ("print('x' * 3_000_000)\n\ndef is_id(value):\n"
                  "    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))")
WRONG_PING = "def ping(request_id):\n    return {'jsonrpc': '2.0', 'method': 'ping'}"
EXITING_PING = "import sys\nsys.exit('bye')\n" + WRONG_PING


def submissions(release, masters):
    """{student: {assignment: {notebook file name: NotebookNode}}} for the three students."""
    read = {m.stem: nbformat.read(str(release / m.stem / m.name), as_version=4) for m in masters}
    right = {m.stem: solutions(m) for m in masters}
    partial_a = dict(right["toy_a"], classify="def classify(msg):\n    return ('request', None)")
    return {
        "complete": {a: {f"{a}.ipynb": handed_in(read[a], right[a])} for a in read},
        "partial": {
            "toy_a": {"toy_a.ipynb": handed_in(read["toy_a"], partial_a)},
            "toy_b": {"toy_b.ipynb": handed_in(read["toy_b"], dict(right["toy_b"], ping=WRONG_PING))},
            "toy_c": {"toy_c.ipynb": handed_in(read["toy_c"], right["toy_c"])},
        },
        "hostile": {
            # loops, floods, edits a test cell to pass and deletes another
            "toy_a": {"toy_a.ipynb": handed_in(
                read["toy_a"], dict(right["toy_a"], classify=LOOPING_CLASSIFY, is_id=FLOODING_IS_ID,
                                    ping=WRONG_PING),
                edits={"ping-tests": "print('all tests pass')"}, deleted={"is_id-tests"})},
            # the imports fail, and a solution calls sys.exit
            "toy_b": {"toy_b.ipynb": handed_in(read["toy_b"], dict(right["toy_b"], ping=EXITING_PING),
                                               first_cell="import mcp_lessons")},
            # handed in under another name: the notebook itself is missing
            "toy_c": {"toy_c-Copy1.ipynb": handed_in(read["toy_c"], right["toy_c"])},
        },
    }


#: The exact scores: (score, max score) per student and assignment.
EXPECTED = {
    ("complete", "toy_a"): (5.0, 5.0), ("complete", "toy_b"): (3.0, 3.0),
    ("complete", "toy_c"): (2.0, 2.0),
    ("partial", "toy_a"): (2.0, 5.0), ("partial", "toy_b"): (1.0, 3.0),
    ("partial", "toy_c"): (2.0, 2.0),
    # is_id floods but is right (1); classify loops (0); ping is wrong, its edited test restored (0)
    ("hostile", "toy_a"): (1.0, 5.0),
    # nothing runs without the imports; the exiting cell defines nothing
    ("hostile", "toy_b"): (0.0, 3.0),
    ("hostile", "toy_c"): (0.0, 2.0),
}


# --- the teacher's day, run once for the module -------------------------------------------

def step(course, *args):
    """Run one step of tools/grading/classroom.py; return its output (it must succeed)."""
    run = subprocess.run([sys.executable, str(GRADING / "classroom.py"), "--course", str(course),
                          *args], capture_output=True, text=True, cwd=ROOT)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    assert "Traceback" not in run.stdout, run.stdout[-3000:]
    return run.stdout


class Day:
    """What the teacher's day left behind, and how long each part took."""

    def __init__(self, course, masters, outputs, seconds):
        self.course, self.masters, self.outputs, self.seconds = course, masters, outputs, seconds

    def student_seconds(self):
        """{student: seconds}, summed over the assignments, from autograde's lines."""
        found = {}
        for student, seconds in re.findall(r"^  (\w+): [\d.]+/[\d.]+ points \(([\d.]+) s\)",
                                           self.outputs["autograde"], re.MULTILINE):
            found[student] = found.get(student, 0.0) + float(seconds)
        return found


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    base = tmp_path_factory.mktemp("grading")
    masters = toy_masters(base / "masters")
    course = base / "classroom"
    outputs, seconds = {}, {}
    started = time.monotonic()

    def timed(name, *args):
        begin = time.monotonic()
        outputs[name] = step(course, *args)
        seconds[name] = time.monotonic() - begin

    timed("release", "release", *map(str, masters))
    inbox = base / "inbox"  # what the students handed in, one folder each
    for student, assignments in submissions(course / "release", masters).items():
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
    result = Day(course, masters, outputs, seconds)
    report = [f"{name}: {value:.1f} s" for name, value in seconds.items()]
    report += [f"autograde {student}: {value:.1f} s" for student, value in result.student_seconds().items()]
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "grading-times.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    print("\n" + "\n".join(report))
    return result


# --- grades.csv and the gradebook ---------------------------------------------------------

def test_grades_csv_has_one_exact_row_per_student_and_assignment(day):
    with open(day.course / "grades.csv", newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == COLUMNS
        rows = list(reader)
    got = {(row["student"], row["assignment"]): (float(row["score"]), float(row["max_score"]))
           for row in rows}
    assert len(rows) == len(EXPECTED)
    for key, want in EXPECTED.items():
        assert got.get(key) == want, f"{key}: grades.csv says {got.get(key)}, expected {want}"


def test_the_gradebook_is_sqlite_that_nbgrader_reads_back(day):
    from nbgrader.api import Gradebook

    path = day.course / "gradebook.db"
    assert path.read_bytes()[:16] == b"SQLite format 3\x00"
    with sqlite3.connect(path) as db:
        tables = {name for (name,) in db.execute("select name from sqlite_master where type='table'")}
    assert {"assignment", "student", "submitted_assignment", "grade"} <= tables
    with Gradebook(f"sqlite:///{path}") as gb:
        assert sorted(s.id for s in gb.students) == ["complete", "hostile", "partial"]
        assert sorted(a.name for a in gb.assignments) == sorted(m.stem for m in day.masters)
        for (student, assignment), (score, most) in EXPECTED.items():
            submission = gb.find_submission(assignment, student)
            assert (submission.score, submission.max_score) == (score, most), (student, assignment)
        # hidden tests are part of what nbgrader stored, and they graded
        cell = gb.find_source_cell("classify-tests", "toy_a", "toy_a")
        assert "### BEGIN HIDDEN TESTS" in cell.source and cell.locked


# --- the teacher's log: one clear line per problem ------------------------------------------

def autograde_lines(day, student, assignment):
    """The lines autograde printed for ``student`` under ``assignment``."""
    lines, current, inside = [], None, False
    for line in day.outputs["autograde"].splitlines():
        if not line.startswith(" "):
            current = line.rstrip(":")
            inside = False
        elif line.startswith("  ") and not line.startswith("    "):
            inside = current == assignment and line.strip().startswith(f"{student}:")
        if inside:
            lines.append(line.strip())
    return lines


def test_the_endless_loop_costs_one_timeout(day):
    lines = autograde_lines(day, "hostile", "toy_a")
    stopped = [line for line in lines if "ran past the" in line]
    assert len(stopped) == 1, lines
    assert f"ran past the {TIMEOUT} s limit" in stopped[0]
    assert "classify was switched off" in stopped[0]
    assert "ran past" not in day.outputs["autograde"].replace(stopped[0], ""), "a second timeout"
    log = (day.course / "teacher.log").read_text(encoding="utf-8")
    assert stopped[0] in log


def test_each_hostile_act_has_a_clear_line(day):
    a = "\n".join(autograde_lines(day, "hostile", "toy_a"))
    assert "printed more than 100,000 characters: cut there" in a
    assert "test cell ping-tests was edited: nbgrader restored it from the release" in a
    assert "test cell is_id-tests was deleted: nbgrader put it back" in a
    c = "\n".join(autograde_lines(day, "hostile", "toy_c"))
    assert "0 points: no toy_c.ipynb in the submission (found toy_c-Copy1.ipynb)" in c
    assert ("hostile toy_c: collected; missing toy_c.ipynb; not part of the assignment: "
            "toy_c-Copy1.ipynb") in day.outputs["collect"]
    for student in ("complete", "partial"):
        for assignment in ("toy_a", "toy_b", "toy_c"):
            assert len(autograde_lines(day, student, assignment)) == 1, (student, assignment)


def test_the_flood_is_cut_in_the_graded_notebook(day):
    graded = day.course / "autograded" / "hostile" / "toy_a" / "toy_a.ipynb"
    assert graded.stat().st_size < 400_000
    nb = nbformat.read(str(graded), as_version=4)
    text = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                   for out in cell.outputs)
    assert "output cut: this cell printed more than 100,000 characters" in text


def test_the_broken_imports_and_sys_exit_cost_only_that_notebook(day):
    nb = nbformat.read(str(day.course / "autograded" / "hostile" / "toy_b" / "toy_b.ipynb"), as_version=4)
    errors = [out.ename for cell in nb.cells if cell.cell_type == "code"
              for out in cell.outputs if out.output_type == "error"]
    assert "ModuleNotFoundError" in errors and "SystemExit" in errors


# --- the release is the learner copy's pipeline ----------------------------------------------

def test_the_release_and_the_student_version_are_the_same(day):
    from student_version import student_notebook

    for master in day.masters:
        released = nbformat.read(str(day.course / "release" / master.stem / master.name), as_version=4)
        ours = student_notebook(master)
        assert [(c.cell_type, c.source, c.metadata) for c in released.cells] == \
               [(c.cell_type, c.source, c.metadata) for c in ours.cells]
        text = json.dumps(released.dict())
        assert "BEGIN HIDDEN TESTS" not in text and "BEGIN SOLUTION" not in text


# --- a feedback page in Chromium -------------------------------------------------------------

def find_chromium():
    candidates = [os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                  shutil.which("chromium-browser")]
    return next((p for p in candidates if p and os.path.isfile(p) and os.access(p, os.X_OK)), None)


def missing(reason):
    """Fail in CI, skip (with the reason) anywhere else."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


CHROMIUM_ARGS = ["--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"] + (
    ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [])


def test_a_feedback_page_shows_the_failing_case_in_plain_words(day):
    page_file = day.course / "feedback" / "partial" / "toy_a" / "toy_a.html"
    assert page_file.exists(), sorted(p.name for p in (day.course / "feedback").rglob("*.html"))
    chromium = find_chromium()
    if chromium is None:
        missing("Chromium was not found (Debian/Ubuntu: sudo apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("Python Playwright is not installed (make venv)")
    outside = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})

            def only_local(route):
                if route.request.url.startswith("file://"):
                    route.continue_()
                else:  # the page's MathJax comes from a CDN: never fetched here
                    outside.append(route.request.url)
                    route.abort()

            page.route("**/*", only_local)
            page.goto(page_file.as_uri())
            text = page.inner_text("body")
            assert "classify" in text
            assert "should be ('invalid', -32600): params must be an object" in text
            assert "AssertionError" in text
            assert re.search(r"2\.0\s*/\s*5\.0|Score: 2", text), text[:500]
            failing = page.get_by_text("params must be an object").first
            failing.scroll_into_view_if_needed()
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / "feedback.png"
            page.screenshot(path=str(shot))
            if os.environ.get("UPDATE_SCREENSHOTS") == "1":
                shutil.copyfile(shot, ROOT / "docs" / "feedback.png")
        finally:
            browser.close()
    assert all("mathjax" in url.lower() for url in outside), outside


# --- GuardedExecute's own guards, on small notebooks -------------------------------------------

def run_guarded(*sources, timeout=3):
    nb = lesson(*(new_code_cell(source) for source in sources))
    guard = GuardedExecute(timeout=timeout, config=Config(
        {"KernelManager": {"transport_encryption": "auto"}}))
    nb, _ = guard.preprocess(nb, {"nbgrader": {"student": "s", "notebook": "n"}})
    return nb


def outputs_of(cell):
    return [(out.output_type, out.get("ename"), out.get("text") or out.get("evalue") or "")
            for out in cell.outputs]


def test_a_dead_kernel_is_restarted_and_the_notebook_goes_on():
    nb = run_guarded("x = 1", "import os; os._exit(1)", "print('x' in dir())")
    (kind, name, words), = outputs_of(nb.cells[1])
    assert (kind, name) == ("error", "KernelRestarted") and "the kernel died" in words
    assert outputs_of(nb.cells[2]) == [("stream", None, "False\n")]  # a fresh kernel


def test_a_kernel_deaf_to_the_interrupt_is_restarted():
    nb = run_guarded("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                     "while True:\n    time.sleep(0.01)", "print('after')")
    (kind, name, words), = outputs_of(nb.cells[0])
    assert name == "KernelRestarted" and "did not answer the interrupt" in words
    assert outputs_of(nb.cells[1]) == [("stream", None, "after\n")]


def test_a_looping_function_is_switched_off_after_one_timeout():
    nb = run_guarded("def spin():\n    while True:\n        pass", "spin()", "spin()", "print('on')")
    names = [name for _, name, _ in outputs_of(nb.cells[1])]
    assert "CellTimeoutError" in names
    assert any("spin was switched off" in words for _, _, words in outputs_of(nb.cells[1]))
    assert [name for _, name, _ in outputs_of(nb.cells[2])] == ["TimeoutError"]
    assert outputs_of(nb.cells[3]) == [("stream", None, "on\n")]


def test_a_huge_error_message_is_cut_line_by_line():
    nb = run_guarded("raise ValueError('v' * 50_000)")
    (kind, name, words), = outputs_of(nb.cells[0])
    assert name == "ValueError" and len(words) < 3_000 and "more characters cut" in words
