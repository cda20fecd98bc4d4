"""A hostile class, graded end to end: every attack of a red team's table.

Real nbgrader commands, the real sandbox, no mocks. One course directory, lesson
03 (all its points, as its master's nbgrader metadata gives them), one student per
attack, and honest students beside them. Each
attack is written the way a student would write it, with the real paths of
this course directory. Then:

* the honest students keep their exact scores (full marks), the victim of the
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
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell
from processes import descendants, live_processes, patience, run_to_end, wait_for

from mcp_lesson.exercises import declared

ROOT = Path(__file__).resolve().parents[2]
GRADING = ROOT / "tools" / "grading"
LESSON = "03_classifying"
MASTER = ROOT / "notebooks" / f"{LESSON}.ipynb"
#: The lesson's points: its graded cells' (mcp_lesson.exercises.declared reads the masters).
FULL = declared.lesson_points(LESSON)
#: The other lessons of the class (borrowed answers in 04 and 08).
OTHERS = ("04_errors", "08_revisions")
MARKER = f"left-behind-{os.getpid()}"
SCRIPT = '<script>document.title = "pwned"</script>'

from tools.grading import classroom  # noqa: E402  (after the setup above)


def _bench():
    """benchmarks/bench_grading.py, whose red team's third round the class holds too."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_grading", ROOT / "benchmarks" / "bench_grading.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


def nbgrader_info(cell):
    return cell.metadata.get("nbgrader", {})


def solutions(lesson=LESSON):
    master = ROOT / "notebooks" / f"{lesson}.ipynb"
    return {
        nbgrader_info(cell)["grade_id"]: cell.source
        for cell in nbformat.read(str(master), as_version=4).cells
        if nbgrader_info(cell).get("solution")
    }


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
    steal = f"""
import json
for _cell in json.load(open({str(source)!r}))["cells"]:
    if _cell["cell_type"] == "code" and _cell["metadata"].get("nbgrader", {{}}).get("solution"):
        exec("".join(_cell["source"]).replace("#| export", ""), globals())
"""
    transformer = """
def _pass_the_tests(lines):
    return ["pass\\n"] if lines and "Graded tests" in lines[0] else lines
get_ipython().input_transformers_cleanup.append(_pass_the_tests)
"""
    liars = "repr = lambda value: 'anything'\nisinstance = lambda *args: True\n"
    str_liar = """
class Liar(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
repr = lambda value: Liar("")
"""
    zero_victim = f"""
import sqlite3
_db = sqlite3.connect({str(gradebook)!r})
_db.execute("UPDATE grade SET manual_score = 0")
_db.execute("UPDATE grade SET manual_score = 20 WHERE notebook_id IN (SELECT id FROM submitted_notebook)")
_db.commit()
"""
    test_cells = f"""
import sqlite3
_db = sqlite3.connect({str(gradebook)!r})
_db.execute("UPDATE source_cell SET source = 'pass'")
_db.commit()
"""
    config = f"""
with open({str(course / "nbgrader_config.py")!r}, "a") as _config:
    _config.write("\\nprint('the config ran code of a student')\\n")
"""
    left_behind = f"""
import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)  # {MARKER}"])
    os._exit(0)
"""
    third = BENCH.round_three(release, right, round(patience(10)))
    return {
        # The third round (benchmarks/bench_grading.py's, which times them beside an honest class).
        "x_nested_tags": (third["x_nested_tags"], {}, FULL),
        "x_replays_slowly": (third["x_replays_slowly"], {}, FULL),
        "x_inflates_answers": (
            third["x_inflates_answers"],
            {},
            None,
        ),  # its answers come back changed
        "x_prints_hidden": (third["x_prints_hidden"], {}, FULL),
        "honest": (handed_in(release, right), {}, FULL),
        "honest_script": (
            handed_in(release, right, first=f"print({SCRIPT!r})", markdown=f"My notes {SCRIPT}"),
            {},
            FULL,
        ),
        "honest_renamed": (
            handed_in(release, right, rename=("classify-tests", "classify-tests-2")),
            {},
            FULL,
        ),
        "honest_timestamp": (
            handed_in(release, right),
            {"timestamp.txt": "2000-01-01 00:00:00"},
            FULL,
        ),
        "victim": (handed_in(release, right), {}, FULL),
        "x_reads_source": (handed_in(release, last=steal), {}, 0.0),
        "x_transformer": (handed_in(release, first=transformer), {}, 0.0),
        "x_shadow_package": (
            handed_in(release),
            {
                "mcp_lesson/__init__.py": "from mcp_lesson_real import *\n",
                "mcp_lesson/course.py": "def expect(*a, **k):\n    pass\ndef try_it(*a, **k):\n    pass\n",
            },
            0.0,
        ),
        "x_liars": (handed_in(release, first=liars), {}, 0.0),
        "x_str_liar": (
            handed_in(
                release, {"classify": "def classify(msg):\n    return Liar('')\n"}, first=str_liar
            ),
            {},
            0.0,
        ),
        "x_zero_the_victim": (handed_in(release, last=zero_victim), {}, 0.0),
        "x_rewrite_tests": (handed_in(release, last=test_cells), {}, 0.0),
        "x_config": (handed_in(release, last=config), {}, 0.0),
        "x_left_behind": (handed_in(release, last=left_behind), {}, 0.0),
        "x_not_json": (handed_in(release), {f"{LESSON}.ipynb": '{"cells": [oops'}, 0.0),
        "x_borrows_classify": (
            handed_in(
                release,
                {
                    "classify": "def classify(msg):\n    from mcp_lesson import classify as theirs\n"
                    "    return theirs(msg)\n"
                },
                first="",
                last=None,
            ),
            {},
            0.0,
        ),
        # A red team, who had read the judge's code.
        "x_borrows_answers": (
            handed_in(release, {**right, **BORROWED_03}),
            {},
            FULL - declared.lesson_points(LESSON, ("classify", "classify_json")),
        ),
        "x_hangs_the_judge": (handed_in(release, right, last=HANG), {}, FULL),
        "x_forges_the_log": (handed_in(release, right, last=FORGE), {}, FULL),
        "aaron": (handed_in(release, right), {}, FULL),
        "zed": (handed_in(release, right), {}, FULL),
        "x_escapes": (handed_in(release, right, last=ESCAPES), {}, FULL),
        "honest_time_magic": (
            handed_in(release, {**right, "classify": "%%time\n" + right["classify"]}),
            {},
            FULL,
        ),
        "honest_shell_line": (
            handed_in(release, {**right, "classify": right["classify"] + "\n!ls\n"}),
            {},
            FULL,
        ),
        "x_floods": (flooded(handed_in(release, right)), {}, FULL),
        "x_forks_memory": (handed_in(release, right, last=MEMORY), {}, FULL),
        "x_fills_the_disk": (handed_in(release, right, last=DISK), {}, FULL),
    }


BORROWED_03 = {  # the course's answers under other names: classify_at, explain_json
    "classify": "#| export\nimport mcp_lesson\n\ndef classify(msg):\n"
    "    return mcp_lesson.classify_at(msg, None)\n",
    "classify_json": "#| export\nimport mcp_lesson\n\ndef classify_json(text):\n"
    "    words = mcp_lesson.explain_json(text)\n"
    "    kind = words.split(':')[0].split(' ')[0].lower()\n"
    "    if kind == 'invalid':\n"
    "        return (kind, int(words.split('(')[1].split(')')[0]))\n"
    "    return (kind, None)\n",
}


def other_lessons(course):
    """{(student, lesson): (notebook, deserved score)} for lessons 04 and 08: an honest
    student and one who hands the graded function to the course's answer under
    another name (reply_for_json; classify with a revision)."""
    found = {}
    for lesson, borrowed, lost in (
        (
            "04_errors",
            {
                "reply_for": "#| export\nimport json\nimport mcp_lesson\n\n"
                "def reply_for(msg):\n"
                "    return mcp_lesson.reply_for_json(json.dumps(msg))\n"
            },
            ("reply_for", "reply_for_json"),
        ),  # their reply_for_json calls it
        (
            "08_revisions",
            {
                "classify_at": "#| export\nimport mcp_lesson\n\n"
                "def classify_at(msg, revision):\n"
                "    return mcp_lesson.classify(msg, revision=revision)\n"
            },
            ("classify_at",),
        ),
    ):
        release = nbformat.read(str(course / "release" / lesson / f"{lesson}.ipynb"), as_version=4)
        right = solutions(lesson)
        full = declared.lesson_points(lesson)
        found[("honest", lesson)] = (handed_in(release, right), full)
        found[("x_borrows_answers", lesson)] = (
            handed_in(release, {**right, **borrowed}),
            full - declared.lesson_points(lesson, lost),
        )
    return found


#: A course request written straight onto the judge's channel, and then a sleep.
HANG = (
    "import json, os, time\n"
    "os.write(3, (json.dumps({'course': 'create_request', 'args': ['L', 'x' * 2_000_000],"
    " 'kwargs': ['D', 'request_id', 1]}) + '\\n').encode())\n"
    "time.sleep(3600)\n"
)
FORGE = (
    'raise ValueError("\\n[AutogradeApp | ERROR] There was an error processing assignment: "\n'
    '                 "/c/submitted/aaron/03_classifying\\n[AutogradeApp | ERROR] Traceback\\n'
    "[AutogradeApp | INFO] Creating/updating student with ID 'zed': {}\\n"
    '[AutogradeApp | ERROR] There was an error processing assignment: /c/submitted/zed/x\\n")\n'
)
ESCAPES = "raise ValueError('\\x1b[2J\\x1b[H\\x1b[32mesc: 14/14\\x07\\u202e')\n"
MEMORY = (
    "import os, time\n"
    "for _ in range(4):\n"
    "    if os.fork() == 0:\n"
    "        try:\n"
    "            _hold = bytearray(900 * 1024**2)\n"
    "            for _i in range(0, len(_hold), 4096):\n"
    "                _hold[_i] = 1\n"
    "            time.sleep(60)\n"
    "        finally:\n"
    "            os._exit(0)\n"
    "time.sleep(1)\n"
)
DISK = (
    "for _where in ('/tmp/fill', 'fill'):\n"
    "    try:\n"
    "        with open(_where, 'wb') as _f:\n"
    "            for _ in range(1024):\n"
    "                _f.write(b'x' * 1024**2)\n"
    "    except OSError as _exc:\n"
    "        print(_where, type(_exc).__name__)\n"
)


def flooded(nb):
    """6,000 more cells, each printing 100,000 characters."""
    for _ in range(6_000):
        nb.cells.append(new_code_cell('print("x" * 100_000)'))
    return nb


def step(course, *args):
    run = run_to_end(
        [sys.executable, str(GRADING / "classroom.py"), "--course", str(course), *args],
        1800,
        cwd=ROOT,
    )
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
    step(course, "release", LESSON, *OTHERS)
    students = attacks(course)
    others = other_lessons(course)
    inbox = base / "inbox"
    for student, (nb, files, _) in students.items():
        folder = inbox / student / LESSON
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / f"{LESSON}.ipynb"))
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")
    for (student, lesson), (nb, _) in others.items():
        folder = inbox / student / lesson
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / f"{lesson}.ipynb"))
    # A folder named "zed\n": not a student id (a name check must match it whole).
    (inbox / "zed\n" / LESSON).mkdir(parents=True)
    nbformat.write(students["x_reads_source"][0], str(inbox / "zed\n" / LESSON / f"{LESSON}.ipynb"))
    before = {
        "config": digest(course / "nbgrader_config.py"),
        "source": digest(course / "source" / LESSON / f"{LESSON}.ipynb"),
        "tests": gradebook_cells(course),
    }
    collected = step(course, "collect", str(inbox))
    started = time.monotonic()
    said = step(course, "autograde", LESSON, *OTHERS, "--timeout", str(round(patience(10))))
    seconds = time.monotonic() - started
    after = {
        "config": digest(course / "nbgrader_config.py"),
        "source": digest(course / "source" / LESSON / f"{LESSON}.ipynb"),
        "tests": gradebook_cells(course),
    }
    left = still_running(MARKER)
    feedback = step(course, "feedback", LESSON)
    print(f"\nhostile class: {len(students)} students graded in {seconds:.1f} s")
    artifacts = ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    (artifacts / "hostile-class-autograde.txt").write_text(
        f"# {len(students) + len(others)} submissions autograded in {seconds:.1f} s\n" + said,
        encoding="utf-8",
    )
    return {
        "course": course,
        "students": students,
        "before": before,
        "after": after,
        "left": left,
        "autograde": said,
        "collect": collected,
        "feedback": feedback,
        "others": others,
        "seconds": seconds,
    }


def test_every_student_gets_what_the_work_deserves(graded):
    course = graded["course"]
    wrong = {}
    for student, (_, _, deserved) in graded["students"].items():
        if deserved is None:
            continue
        score, most = classroom.score_of(course, LESSON, student)
        if (score, most) != (deserved, FULL):
            wrong[student] = (score, deserved)
    assert not wrong, (wrong, graded["autograde"])


def test_other_lessons_get_what_the_work_deserves(graded):
    course = graded["course"]
    wrong = {}
    for (student, lesson), (_, deserved) in graded["others"].items():
        score, _ = classroom.score_of(course, lesson, student)
        if score != deserved:
            wrong[(student, lesson)] = (score, deserved)
    assert not wrong, (wrong, graded["autograde"])


def test_a_name_that_is_not_a_student_id_is_not_collected(graded):
    assert "skipped the folder 'zed\\n'" in graded["collect"], graded["collect"]
    with classroom.gradebook(graded["course"]) as gb:
        assert sorted(s.id for s in gb.students if s.id.startswith("zed")) == ["zed"]


def test_nothing_a_student_wrote_reaches_the_teacher_raw(graded):
    """Terminal escapes, direction marks and forged log lines stay quoted."""
    said = graded["autograde"]
    assert not any(char in said for char in "\x1b\x07\u202e"), said
    assert "esc: 14/14" in said  # shown, escaped
    assert not any(line.startswith("[AutogradeApp") for line in said.splitlines())


def test_a_flood_of_cells_is_bounded(graded):
    notebook = graded["course"] / "autograded" / "x_floods" / LESSON / f"{LESSON}.ipynb"
    assert notebook.stat().st_size < 8 * 1024**2, notebook.stat().st_size
    assert "code cells: the cells from here on were not run" in graded["autograde"]


def test_the_class_is_graded_in_bounded_time(graded):
    """One hang, one slow flood, the memory and the disk attacks: each costs its own
    student at most a time limit or two, never the class."""
    students = len(graded["students"]) + len(graded["others"])
    assert graded["seconds"] < patience(60 + 10 * students), graded["seconds"]


def test_the_log_names_each_cause(graded):
    lines = {}
    student = None
    for line in graded["autograde"].splitlines():
        if line.startswith("  ") and not line.startswith("    "):
            student = line.split(":")[0].strip()
        elif line.startswith("    ") and student:
            lines.setdefault(student, []).append(line.strip())
    assert any(
        "is not a notebook nbgrader can read" in line or "could not grade it (" in line
        for line in lines.get("x_not_json", [])
    ), graded["autograde"]
    assert "cell classify-tests was renamed classify-tests-2: its name was given back" in lines.get(
        "honest_renamed", []
    ), graded["autograde"]
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


def test_nothing_printed_during_the_tests_reaches_a_feedback_page(graded):
    """The hostile is_object prints each argument it is given: what it printed in the student's
    own cells is theirs to see, what it printed during the tests (hidden cases) is on no page."""
    course = graded["course"]
    notebook = nbformat.read(
        str(course / "autograded" / "x_prints_hidden" / LESSON / f"{LESSON}.ipynb"), as_version=4
    )
    in_tests, elsewhere = [], []
    for cell in notebook.cells:
        text = "".join(str(output.get("text", "")) for output in cell.get("outputs", []))
        info = nbgrader_info(cell)
        (in_tests if info.get("grade") and not info.get("solution") else elsewhere).append(text)
    assert not any(BENCH.SEEN in text for text in in_tests)
    assert any("[grading] " in text for text in in_tests)  # a line says something was printed
    said = BENCH.SEEN + " "  # as it prints, before what it was given
    shown = {line.strip() for text in elsewhere for line in text.splitlines() if said in line}
    import html
    import re

    for page in (course / "feedback").rglob("*.html"):
        text = html.unescape(re.sub(r"<[^>]*>", "", page.read_text(encoding="utf-8")))
        lines = {line.strip() for line in text.replace("&#10;", "\n").splitlines() if said in line}
        assert lines <= shown, (page, lines - shown)


def test_markup_past_the_cleaners_caps_is_shown_as_text(graded):
    from tools.grading.sanitize import CUT_WORDS

    page = next((graded["course"] / "feedback" / "x_nested_tags").rglob("*.html")).read_text(
        encoding="utf-8"
    )
    assert CUT_WORDS.split(":")[0] in page and "title=9999" in page


def with_a_sleeper(graded, tmp_path):
    """A copy of the graded class's course, with one more submission collected: a student
    whose last cell sleeps for an hour."""
    course = tmp_path / "classroom"
    shutil.copytree(graded["course"], course, symlinks=True)
    release = nbformat.read(str(course / "release" / LESSON / f"{LESSON}.ipynb"), as_version=4)
    folder = tmp_path / "inbox" / "sleeper" / LESSON
    folder.mkdir(parents=True)
    nbformat.write(
        handed_in(release, solutions(), last="import time\ntime.sleep(3600)\n"),
        str(folder / f"{LESSON}.ipynb"),
    )
    step(course, "collect", str(tmp_path / "inbox"))
    return course


def autograde_in_the_background(course, **output):
    """`classroom.py autograde` of the lesson, started (cells may take 600 s each)."""
    command = [sys.executable, str(GRADING / "classroom.py"), "--course", str(course)]
    return subprocess.Popen(command + ["autograde", LESSON, "--timeout", "600"], cwd=ROOT, **output)


def test_a_grading_process_that_dies_is_the_runs_error(graded, tmp_path):
    """nbgrader ended from outside (as a memory limit ends it) while it grades one submission:
    autograde fails (exit status not 0) and says the submissions it did not finish are not
    graded; none of them gets a 0 for it (their scores stay what they were)."""
    course = with_a_sleeper(graded, tmp_path)
    before = {student: classroom.score_of(course, LESSON, student) for student in ("victim", "zed")}
    run = autograde_in_the_background(
        course, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        grader = []

        def nbgrader_of_the_sleeper():
            found = live_processes()
            mine = set(descendants(run.pid, found))
            if any("worker.py" in p.command and p.pid in mine for p in found):
                grader.extend(
                    p.pid
                    for p in found
                    if p.pid in mine and "nbgrader" in p.command and "autograde" in p.command
                )
            return bool(grader)

        wait_for(nbgrader_of_the_sleeper, "the sleeping cell in the sandbox", limit=600)
        os.kill(grader[0], signal.SIGKILL)
        said, _ = run.communicate(timeout=patience(120))
    finally:
        run.kill()
        run.wait()
    assert run.returncode != 0, said
    lines = said.splitlines()
    assert any(line.strip().startswith("sleeper: not graded") for line in lines), said
    for student, score in before.items():
        assert any(line.strip().startswith(f"{student}: not graded") for line in lines), said
        assert classroom.score_of(course, LESSON, student) == score


def test_collect_stamps_the_time_itself(graded):
    with classroom.gradebook(graded["course"]) as gb:
        stamp = gb.find_submission(LESSON, "honest_timestamp").timestamp
    assert stamp is not None and stamp.year >= 2026, stamp


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_stopped_autograde_leaves_nothing_running(graded, tmp_path, how):
    """Autograde ended from outside (a signal, or killed) takes nbgrader and
    every sandbox with it, whatever a submission is doing."""
    course = with_a_sleeper(graded, tmp_path)
    run = autograde_in_the_background(course, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tree = set()

    def worker_runs():
        found = live_processes()
        mine = {p.pid for p in found if p.pid in set(descendants(run.pid, found))}
        tree.update(mine)
        return any("worker.py" in p.command and p.pid in mine for p in found)

    try:
        wait_for(worker_runs, "the sleeping cell in the sandbox", limit=300)
        run.send_signal(how)
        run.wait(timeout=patience(60))
        wait_for(
            lambda: not tree & {p.pid for p in live_processes()},
            "nbgrader and the sandbox to end with autograde",
            limit=60,
        )
    finally:
        for pid in tree & {p.pid for p in live_processes()}:
            os.kill(pid, signal.SIGKILL)
        run.kill()
        run.wait()
