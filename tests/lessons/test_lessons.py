"""The lesson notebooks as a course: learner copies and the shape of every lesson.

nbval (see pyproject.toml) already runs each master and compares its stored
outputs. These tests check what nbval cannot:

* the committed learner copies in notebooks/learner/ are exactly what
  tools/make_learner.py generates from the masters now (else: `make learner`);
* no learner copy holds solution code;
* every learner copy runs top to bottom with no traceback at all: a call of a
  stub reports "not implemented yet" through the course's helpers;
* every numbered master links to its neighbours, ends with a self-check cell,
  and is stored cleanly executed (counts 1..n, no errors, no stderr);
* every sitting of every lesson fits the half hour the start page promises, by
  the estimate of tools/lesson_time.py.
"""

import json
import re
from pathlib import Path

import nbformat
import pytest
from notebook_runs import run_all

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
LEARNER = NOTEBOOKS / "learner"


from tools import make_learner  # noqa: E402  (after the setup above)

MASTERS = make_learner.masters()
NAMES = [m.name for m in MASTERS]
BEGIN, END = "### BEGIN " + "SOLUTION", "### END " + "SOLUTION"


def read(path):
    return nbformat.read(str(path), as_version=4)


def solution_lines(master_nb):
    """Distinctive lines inside solution regions that appear nowhere else in the master."""
    inside, outside = set(), set()
    for cell in master_nb.cells:
        in_region = False
        for line in cell.source.splitlines():
            text = line.strip()
            if BEGIN in line:
                in_region = True
            elif END in line:
                in_region = False
            elif text:
                (inside if in_region else outside).add(text)
    return {line for line in inside - outside if len(line) >= 12 and not line.startswith("#")}


# --- (a) learner copies are up to date -------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_learner_copy_is_up_to_date(name):
    copy = LEARNER / name
    assert copy.exists(), f"notebooks/learner/{name} is missing: run `make learner`"
    assert copy.read_text(encoding="utf-8") == make_learner.learner_text(NOTEBOOKS / name), (
        f"notebooks/learner/{name} is out of date with its master: run `make learner`"
    )


def test_the_record_of_written_copies_is_current():
    assert make_learner.stale() == [], "run `make learner`"


# --- (b) no solution code in learner copies ---------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_learner_copy_has_no_solution(name):
    master = read(NOTEBOOKS / name)
    copy = read(LEARNER / name)
    text = "\n".join(cell.source for cell in copy.cells)
    assert BEGIN not in text and END not in text
    assert all(
        not cell.get("outputs") and cell.get("execution_count") is None
        for cell in copy.cells
        if cell.cell_type == "code"
    )
    copy_lines = {line.strip() for line in text.splitlines()}
    leaked = sorted(solution_lines(master) & copy_lines)
    assert not leaked, f"solution lines found in the learner copy: {leaked[:3]}"
    regions = sum(cell.source.count(BEGIN) for cell in master.cells if cell.cell_type == "code")
    stubs = text.count("raise NotImplementedError()")
    assert stubs >= regions, f"{regions} solution regions but only {stubs} stubs"


def test_the_spot_check_sees_solutions():
    """The leak check above is not vacuous: lesson 03's classify body is caught."""
    lines = solution_lines(read(NOTEBOOKS / "03_classifying.ipynb"))
    assert "return judge_call(msg)" in lines


# --- (c) learner copies run top to bottom ------------------------------------------


# (The learner copies that start servers are in the full tier: conftest.py's FULL_TIER.)
@pytest.mark.parametrize("name", NAMES)
def test_learner_copy_runs(name, tmp_path, monkeypatch):
    from mcp_lesson.exercises.learner_package import ENVIRONMENT

    monkeypatch.setenv(ENVIRONMENT, str(tmp_path / "my_mcp"))  # never a real learner's package
    nb = run_all(read(LEARNER / name), LEARNER)
    errors = [
        (i, out.ename, out.evalue)
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert not errors, f"cells that stop Run All with a traceback: {errors}"


# --- (d) the shape of every master ---------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+?\.ipynb)(#[^)]*)?\)")
CHECK_CALL = re.compile(r"\b(\w*check\w*|agree|quiz)\(")


def _markdown(nb):
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


@pytest.mark.parametrize("index", range(len(NAMES)), ids=NAMES)
def test_master_links_to_neighbours(index):
    nb = read(MASTERS[index])
    links = set(m.group(1) for m in LINK.finditer(_markdown(nb)))
    wanted = []
    if index > 0:
        wanted.append(NAMES[index - 1])
    if index + 1 < len(NAMES):
        wanted.append(NAMES[index + 1])
    missing = [name for name in wanted if name not in links]
    assert not missing, f"{NAMES[index]} does not link to {missing}"
    broken = sorted(link for link in links if not (NOTEBOOKS / link).exists())
    assert not broken, f"{NAMES[index]} links to notebooks that do not exist: {broken}"


@pytest.mark.parametrize("name", NAMES)
def test_master_ends_with_a_self_check(name):
    last = read(NOTEBOOKS / name).cells[-1]
    assert last.cell_type == "code" and CHECK_CALL.search(last.source), (
        f"{name} must end with a code cell that runs a self-check"
    )
    assert last.outputs, f"the self-check of {name} has no stored output"


@pytest.mark.parametrize("name", NAMES)
def test_master_is_stored_cleanly_executed(name):
    nb = read(NOTEBOOKS / name)
    assert nb.metadata.kernelspec.name == "python3"
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    counts = [cell.execution_count for cell in code]
    assert counts == list(range(1, len(code) + 1)), f"execution counts {counts}"
    for i, cell in enumerate(code, 1):
        for out in cell.outputs:
            assert out.output_type != "error", f"code cell {i} stored an error"
            assert out.get("name") != "stderr", f"code cell {i} stored stderr: {out.text[:80]!r}"


# --- (e) every sitting fits the half hour the start page promises ----------------------

from tools import lesson_time  # noqa: E402  (after the setup above)


@pytest.mark.parametrize("name", NAMES)
def test_every_sitting_of_the_lesson_fits_the_half_hour(name):
    minutes = lesson_time.estimate(NOTEBOOKS / name)
    assert max(minutes) <= lesson_time.SITTING, (
        f"{name}: sittings of {minutes} minutes (tools/lesson_time.py); trim it, or say where to stop"
    )


def test_the_start_page_names_the_lessons_that_say_where_to_stop():
    longer = [
        path.name[:2] for path in lesson_time.lessons() if len(lesson_time.estimate(path)) > 1
    ]
    named = ", ".join(longer[:-1]) + " and " + longer[-1]
    text = " ".join(_markdown(read(NOTEBOOKS / NAMES[0])).split())
    assert f"the longer ones ({named}) say where *a good place to stop* is" in text


def _notebook(*cells):
    return {"cells": [{"cell_type": kind, "source": text} for kind, text in cells]}


def test_the_estimate_counts_reading_running_and_writing():
    words = " ".join(["word"] * lesson_time.WORDS_A_MINUTE * 10)  # ten minutes of reading
    code = "\n".join(
        f"x{n} = {n}" for n in range(lesson_time.LINES_READ_A_MINUTE * 5)
    )  # five of code
    exercise = (
        "def f():\n    ### BEGIN SOLUTION\n    # a comment is not written\n"
        + "    y = 1\n" * 10
        + "    ### END SOLUTION\n"
    )
    tests = "check(f)\n### BEGIN HIDDEN TESTS\n" + "assert f()\n" * 500 + "### END HIDDEN TESTS\n"
    [one] = lesson_time.sittings(
        _notebook(("markdown", words), ("code", code), ("code", exercise), ("code", tests))
    )
    # read: the lines of code, "def f():" and "check(f)"; the hidden tests are no reading
    read = lesson_time.LINES_READ_A_MINUTE * 5 + 2
    assert (one.words, one.read, one.exercises, one.written) == (
        lesson_time.WORDS_A_MINUTE * 10,
        read,
        1,
        10,
    )
    assert one.minutes == pytest.approx(
        10
        + read / lesson_time.LINES_READ_A_MINUTE
        + lesson_time.MINUTES_AN_EXERCISE
        + 10 * lesson_time.MINUTES_A_LINE
    )


def test_a_place_to_stop_ends_a_sitting_and_a_long_one_is_seen(tmp_path):
    twenty = " ".join(["word"] * lesson_time.WORDS_A_MINUTE * 20)  # twenty minutes of reading
    stop = lesson_time.STOP + " Come back later."
    path = tmp_path / "99_long.ipynb"
    path.write_text(
        json.dumps(_notebook(("markdown", twenty), ("markdown", stop), ("markdown", twenty)))
    )
    assert lesson_time.estimate(path) == [20, 20]
    path.write_text(json.dumps(_notebook(("markdown", twenty), ("markdown", twenty))))
    assert lesson_time.estimate(path) == [40]  # one sitting, over the limit


# --- the tool never destroys a learner's work ---------------------------------------


@pytest.fixture
def course_dirs(tmp_path):
    """A master folder with two lessons and a learner folder made from it."""
    masters, learner = tmp_path / "masters", tmp_path / "learner"
    masters.mkdir()
    for master in MASTERS[1:4]:
        (masters / master.name).write_text(master.read_text(encoding="utf-8"), encoding="utf-8")
    make_learner.write_all(learner, master_folder=masters)
    return masters, learner


def _edit_master(masters, name):
    nb = read(masters / name)
    nb.cells[0].source += "\n\nA new paragraph in the lesson."
    nbformat.write(nb, str(masters / name))


def _learner_edits(path, run_it):
    """A learner fills in a code cell; with ``run_it`` the cell also prints."""
    nb = read(path)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.source += "\n# my own code"
    if run_it:
        cell.outputs = [nbformat.v4.new_output("stream", text="mine\n")]
    nbformat.write(nb, str(path))


@pytest.mark.parametrize("run_it", [False, True], ids=["no outputs", "with outputs"])
def test_a_changed_copy_is_never_overwritten(course_dirs, run_it, capsys):
    masters, learner = course_dirs
    name = MASTERS[3].name
    _learner_edits(learner / name, run_it)
    _edit_master(masters, name)
    make_learner.write_all(learner, master_folder=masters)
    assert "# my own code" in (learner / name).read_text()
    side = learner / make_learner.beside(name)
    assert "A new paragraph" in side.read_text()
    assert f"went beside it, as {side}" in capsys.readouterr().out


def test_cleared_outputs_do_not_make_a_copy_fresh(course_dirs):
    masters, learner = course_dirs
    name = MASTERS[2].name
    _learner_edits(learner / name, run_it=True)
    nb = read(learner / name)
    for cell in nb.cells:  # "Clear All Outputs", then save
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, str(learner / name))
    _edit_master(masters, name)
    make_learner.write_all(learner, master_folder=masters)
    assert "# my own code" in (learner / name).read_text()


def test_an_untouched_copy_is_updated_and_its_side_copy_goes(course_dirs):
    masters, learner = course_dirs
    name = MASTERS[1].name
    _edit_master(masters, name)
    make_learner.write_all(learner, master_folder=masters)
    assert "A new paragraph" in (learner / name).read_text()
    assert not (learner / make_learner.beside(name)).exists()


def test_files_the_tool_did_not_write_are_never_removed(course_dirs, capsys):
    masters, learner = course_dirs
    theirs = {
        "04_errors_mine.ipynb": MASTERS[3],
        "08_scratch.ipynb": MASTERS[2],
        "08_my_notes.ipynb": MASTERS[1],
        "03_classifying-Copy1.ipynb": MASTERS[3],
    }
    for name, like in theirs.items():
        nbformat.write(make_learner.learner_copy(like), str(learner / name))
    gone = MASTERS[1].name
    (masters / gone).unlink()  # a lesson leaves the course
    (masters / "08_my_notes.ipynb").write_text(MASTERS[1].read_text())  # not in the list
    make_learner.write_all(learner, master_folder=masters)
    for name in theirs:
        assert (learner / name).exists(), f"{name} was removed"
    assert not (learner / gone).exists()  # ours and untouched: removed
    assert "08_my_notes" not in capsys.readouterr().out


def test_force_is_the_explicit_way_out(course_dirs):
    masters, learner = course_dirs
    name = MASTERS[3].name
    _learner_edits(learner / name, run_it=False)
    _edit_master(masters, name)
    make_learner.write_all(learner, force=True, master_folder=masters)
    assert "# my own code" not in (learner / name).read_text()
    assert "A new paragraph" in (learner / name).read_text()


def test_lessons_are_known_by_the_list(tmp_path):
    from mcp_lesson import course

    for name in ["00_start_here.ipynb", "08_my_notes.ipynb", "99_extra.ipynb"]:
        nbformat.write(make_learner.learner_copy(MASTERS[0]), str(tmp_path / name))
    assert [lesson.filename for lesson in course.headings(tmp_path)] == ["00_start_here.ipynb"]
    assert "08_my_notes" not in course.contents(tmp_path)
    assert [m.name for m in make_learner.masters(tmp_path)] == ["00_start_here.ipynb"]


CTRL_C_SUITE = """
import sys, pathlib, nbformat
sys.path.insert(0, {tests!r})
from notebook_runs import run_all

def test_a_long_notebook():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import pathlib; pathlib.Path({started!r}).touch()"),
        nbformat.v4.new_code_cell("import time; time.sleep(60)")])
    nb.metadata.kernelspec = {{"name": "python3", "display_name": "Python 3", "language": "python"}}
    run_all(nb, {folder!r})

def test_after_it():
    pathlib.Path({after!r}).touch()
"""


@pytest.mark.full  # a pytest run inside this one
def test_one_ctrl_c_ends_the_run_while_a_notebook_runs(tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group) stops pytest, kernel and all."""
    import os
    import signal
    import subprocess
    import sys
    import time

    started, after = tmp_path / "started", tmp_path / "after"
    suite = tmp_path / "test_ctrl_c.py"
    suite.write_text(
        CTRL_C_SUITE.format(
            tests=str(ROOT / "tests"), started=str(started), after=str(after), folder=str(tmp_path)
        )
    )
    from processes import patience, start_guarded

    # In a session of its own, under a guard (which also gives it the default
    # Ctrl-C handling, whatever this process has).
    run = start_guarded(
        [
            sys.executable,
            "-m",
            "pytest",
            str(suite),
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "--rootdir",
            str(tmp_path),
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + patience(120)  # a kernel start on a busy machine
        while not started.exists() and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert started.exists(), "the notebook never started"
        os.killpg(run.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        output, _ = run.communicate(timeout=patience(60))  # a hang guard, not a speed limit
    finally:
        run.end(grace=1)
    assert "KeyboardInterrupt" in output, output[-800:]
    assert not after.exists(), "the suite ran on after Ctrl-C"


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
@pytest.mark.parametrize("lesson_changed", [False, True], ids=["same lesson", "new lesson"])
def test_a_copy_in_another_encoding_is_kept(course_dirs, encoding, lesson_changed, capsys):
    """Another editor saved the copy as Latin-1 or UTF-16: it is the learner's work."""
    masters, learner = course_dirs
    name = MASTERS[3].name
    text = (learner / name).read_text(encoding="utf-8").replace("# YOUR CODE HERE", "# mine: café")
    (learner / name).write_bytes(text.encode(encoding))
    saved = (learner / name).read_bytes()
    if lesson_changed:
        _edit_master(masters, name)
    make_learner.write_all(learner, master_folder=masters)
    assert (learner / name).read_bytes() == saved
    out = capsys.readouterr().out
    assert f"kept {learner / name}: it is not UTF-8 text" in out
    side = learner / make_learner.beside(name)
    assert side.exists() == lesson_changed
    if lesson_changed:
        assert "A new paragraph" in side.read_text(encoding="utf-8")
        assert f"went beside it, as {side}" in out
    assert name in make_learner.stale(learner, masters)


def test_an_edited_copy_of_an_unchanged_lesson_gets_no_side_copy(course_dirs, capsys):
    masters, learner = course_dirs
    name = MASTERS[3].name
    _learner_edits(learner / name, run_it=True)
    make_learner.write_all(learner, master_folder=masters)
    assert "# my own code" in (learner / name).read_text()
    assert not (learner / make_learner.beside(name)).exists()
    assert "beside" not in capsys.readouterr().out


def test_re_executing_an_unchanged_notebook_changes_no_byte(tmp_path):
    """`make lessons` stores what a cell prints in several writes as one output,
    and leaves a notebook whose outputs did not change (as nbval reads them) alone."""
    from tools import execute_lessons

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import sys, tempfile\n"
            "for part in range(5):\n"
            "    print('part', part, end=' ')\n"
            "    sys.stdout.flush()\n"
            "print(tempfile.mkdtemp(), id(object()) and hex(id(object())))"
        )
    ]
    path = tmp_path / "99_demo.ipynb"
    nbformat.write(nb, str(path))
    assert execute_lessons.execute(path) is True
    outputs = nbformat.read(str(path), as_version=4).cells[0].outputs
    assert [o.output_type for o in outputs] == ["stream"]  # one output, not one per flush
    assert outputs[0].text.startswith("part 0 part 1 part 2 part 3 part 4 /tmp/")
    before = path.read_bytes()
    assert execute_lessons.execute(path) is False  # a new temp path and address: nbval ignores both
    assert path.read_bytes() == before
