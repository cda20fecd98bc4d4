"""A hostile class, graded end to end: every attack of issue 19's table (SPEC 12).

Real nbgrader commands, the real sandbox, no mocks. One course directory, lesson
03 (14 points), one student per attack, and honest students beside them. Each
attack is written the way a student would write it, with the real paths of
this course directory. Then:

* the honest students keep their exact scores (14/14), the victim of the
  gradebook attack included;
* every attacker gets what the work deserves (0: none of them did any);
* the gradebook's test cells, the course's nbgrader_config.py and the masters
  in source/ are byte for byte what they were before autograde;
* nothing a submission started is still running after autograde;
* no feedback page holds a student's script, and none shows the hidden tests;
* collect stamps the time itself (timestamp.txt of 2000 is not taken).
"""

import copy
import hashlib
import os
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from processes import live_processes, patience, run_to_end

ROOT = Path(__file__).resolve().parent.parent
GRADING = ROOT / "tools" / "grading"
LESSON = "03_classifying"
MASTER = ROOT / "notebooks" / f"{LESSON}.ipynb"
FULL = 14.0
MARKER = f"left-behind-{os.getpid()}"
SCRIPT = '<script>document.title = "pwned"</script>'

from tools.grading import classroom  # noqa: E402


def nbgrader_info(cell):
    return cell.metadata.get("nbgrader", {})


def solutions():
    return {nbgrader_info(cell)["grade_id"]: cell.source
            for cell in nbformat.read(str(MASTER), as_version=4).cells
            if nbgrader_info(cell).get("solution")}


def handed_in(release, sources=None, first=None, last=None, markdown=None, rename=None):
    nb = copy.deepcopy(release)
    for cell in nb.cells:
        info = nbgrader_info(cell)
        if info.get("grade_id") in (sources or {}):
            cell.source = sources[info["grade_id"]]
        if rename and info.get("grade_id") == rename[0]:
            info["grade_id"] = rename[1]
    if first:
        code = next(cell for cell in nb.cells if cell.cell_type == "code")
        code.source += "\n" + first
    if last:
        nb.cells.append(new_code_cell(last))
    if markdown:
        nb.cells.insert(1, new_markdown_cell(markdown))
    return nb


def attacks(course):
    """{student: (notebook, extra files, deserved score)}."""
    release = nbformat.read(str(course / "release" / LESSON / f"{LESSON}.ipynb"), as_version=4)
    right = solutions()
    source = course / "source" / LESSON / f"{LESSON}.ipynb"
    gradebook = course / "gradebook.db"
    steal = f'''
import json
for _cell in json.load(open({str(source)!r}))["cells"]:
    if _cell["cell_type"] == "code" and _cell["metadata"].get("nbgrader", {{}}).get("solution"):
        exec("".join(_cell["source"]).replace("#| export", ""), globals())
'''
    transformer = '''
def _pass_the_tests(lines):
    return ["pass\\n"] if lines and "Graded tests" in lines[0] else lines
get_ipython().input_transformers_cleanup.append(_pass_the_tests)
'''
    liars = "repr = lambda value: 'anything'\nisinstance = lambda *args: True\n"
    str_liar = '''
class Liar(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
repr = lambda value: Liar("")
'''
    zero_victim = f'''
import sqlite3
_db = sqlite3.connect({str(gradebook)!r})
_db.execute("UPDATE grade SET manual_score = 0")
_db.execute("UPDATE grade SET manual_score = 20 WHERE notebook_id IN (SELECT id FROM submitted_notebook)")
_db.commit()
'''
    test_cells = f'''
import sqlite3
_db = sqlite3.connect({str(gradebook)!r})
_db.execute("UPDATE source_cell SET source = 'pass'")
_db.commit()
'''
    config = f'''
with open({str(course / "nbgrader_config.py")!r}, "a") as _config:
    _config.write("\\nprint('the config ran code of a student')\\n")
'''
    left_behind = f'''
import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)  # {MARKER}"])
    os._exit(0)
'''
    return {
        "honest": (handed_in(release, right), {}, FULL),
        "honest_script": (handed_in(release, right, first=f"print({SCRIPT!r})",
                                    markdown=f"My notes {SCRIPT}"), {}, FULL),
        "honest_renamed": (handed_in(release, right, rename=("classify-tests", "classify-tests-2")),
                           {}, FULL),
        "honest_timestamp": (handed_in(release, right), {"timestamp.txt": "2000-01-01 00:00:00"},
                             FULL),
        "victim": (handed_in(release, right), {}, FULL),
        "x_reads_source": (handed_in(release, last=steal), {}, 0.0),
        "x_transformer": (handed_in(release, first=transformer), {}, 0.0),
        "x_shadow_package": (handed_in(release), {
            "mcp_lesson/__init__.py": "from mcp_lesson_real import *\n",
            "mcp_lesson/course.py": "def expect(*a, **k):\n    pass\ndef try_it(*a, **k):\n    pass\n"},
            0.0),
        "x_liars": (handed_in(release, first=liars), {}, 0.0),
        "x_str_liar": (handed_in(release, {"classify": "def classify(msg):\n    return Liar('')\n"},
                                 first=str_liar), {}, 0.0),
        "x_zero_the_victim": (handed_in(release, last=zero_victim), {}, 0.0),
        "x_rewrite_tests": (handed_in(release, last=test_cells), {}, 0.0),
        "x_config": (handed_in(release, last=config), {}, 0.0),
        "x_left_behind": (handed_in(release, last=left_behind), {}, 0.0),
        "x_not_json": (handed_in(release), {f"{LESSON}.ipynb": '{"cells": [oops'}, 0.0),
        "x_borrows_classify": (handed_in(release, {
            "classify": "def classify(msg):\n    from mcp_lesson import classify as theirs\n"
                        "    return theirs(msg)\n"}, first="", last=None), {}, 0.0),
    }


def step(course, *args):
    run = run_to_end([sys.executable, str(GRADING / "classroom.py"), "--course", str(course), *args],
                     1800, cwd=ROOT)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    return run.stdout


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def gradebook_cells(course):
    with classroom.gradebook(course) as gb:
        notebook = gb.find_notebook(LESSON, LESSON)
        return sorted((cell.name, cell.source, cell.checksum) for cell in notebook.source_cells)


def still_running(marker):
    return [process.pid for process in live_processes() if marker in process.command]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile-class")
    course = base / "classroom"
    step(course, "release", LESSON)
    students = attacks(course)
    inbox = base / "inbox"
    for student, (nb, files, _) in students.items():
        folder = inbox / student / LESSON
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / f"{LESSON}.ipynb"))
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")
    before = {"config": digest(course / "nbgrader_config.py"),
              "source": digest(course / "source" / LESSON / f"{LESSON}.ipynb"),
              "tests": gradebook_cells(course)}
    collected = step(course, "collect", str(inbox))
    started = time.monotonic()
    said = step(course, "autograde", LESSON, "--timeout", str(round(patience(10))))
    seconds = time.monotonic() - started
    after = {"config": digest(course / "nbgrader_config.py"),
             "source": digest(course / "source" / LESSON / f"{LESSON}.ipynb"),
             "tests": gradebook_cells(course)}
    left = still_running(MARKER)
    feedback = step(course, "feedback", LESSON)
    print(f"\nhostile class: {len(students)} students graded in {seconds:.1f} s")
    artifacts = ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    (artifacts / "hostile-class-autograde.txt").write_text(said, encoding="utf-8")
    return {"course": course, "students": students, "before": before, "after": after,
            "left": left, "autograde": said, "collect": collected, "feedback": feedback}


def test_every_student_gets_what_the_work_deserves(graded):
    course = graded["course"]
    wrong = {}
    for student, (_, _, deserved) in graded["students"].items():
        score, most = classroom.score_of(course, LESSON, student)
        if (score, most) != (deserved, FULL):
            wrong[student] = (score, deserved)
    assert not wrong, (wrong, graded["autograde"])


def test_the_log_names_each_cause(graded):
    lines = {}
    student = None
    for line in graded["autograde"].splitlines():
        if line.startswith("  ") and not line.startswith("    "):
            student = line.split(":")[0].strip()
        elif line.startswith("    ") and student:
            lines.setdefault(student, []).append(line.strip())
    assert any("is not a notebook nbgrader can read" in line or "could not grade it (" in line
               for line in lines.get("x_not_json", [])), graded["autograde"]
    assert "cell classify-tests was renamed classify-tests-2: its name was given back" in \
        lines.get("honest_renamed", []), graded["autograde"]
    assert not lines.get("honest") and not lines.get("victim"), graded["autograde"]


def test_no_submission_changed_the_teachers_files(graded):
    assert graded["after"] == graded["before"]


def test_nothing_a_submission_started_outlives_grading(graded):
    for pid in graded["left"]:
        os.kill(pid, 9)
    assert graded["left"] == []


def test_feedback_runs_no_script_and_shows_no_hidden_test(graded):
    pages = list((graded["course"] / "feedback").rglob("*.html"))
    # every student has one, but the notebook that is not JSON (nothing could be graded)
    assert len(pages) == len(graded["students"]) - 1, graded["feedback"]
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert SCRIPT not in html, page
        assert "BEGIN HIDDEN TESTS" not in html and "hidden = [" not in html, page


def test_collect_stamps_the_time_itself(graded):
    with classroom.gradebook(graded["course"]) as gb:
        stamp = gb.find_submission(LESSON, "honest_timestamp").timestamp
    assert stamp is not None and stamp.year >= 2026, stamp
