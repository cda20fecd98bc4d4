"""Adding a graded exercise is one place: on a copy of the course, lesson 04
gets ``is_reserved_code(code)`` the way docs/maintaining.md's "Adding a graded exercise" says
(the master's solution cell and graded cell, then ``make lessons NB=...``'s commands), and the
self-check (its saved output, after one run), the grader's points, graduation's cases, the
judge's may-borrow list, the start page's table, the package's root and the learner copy all
have it, with one file edited by hand: the master.

Full tier: it copies the course and runs a lesson in a kernel and graduation in a pytest of
the copy's own (a minute or more on a busy machine)."""

import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell
from processes import run_to_end

pytestmark = pytest.mark.full

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "maintaining.md"
#: What the copy needs: the package, the masters, the tools that make lessons, the tests
#: graduation runs, and the settings pytest reads.
COPIED = ("mcp_lesson", "notebooks", "tools", "tests", "conftest.py", "pyproject.toml", "Makefile")
POINTS = 1

SOLUTION = '''\
#| export
def is_reserved_code(code):
    """True for an error code JSON-RPC 2.0 keeps for itself: -32768 to -32000."""
    ### BEGIN SOLUTION
    return is_integer(code) and -32768 <= code <= -32000
    ### END SOLUTION'''
TESTS = f"""\
# Graded tests for is_reserved_code ({POINTS} point). This cell is locked. When your work is graded,
# it also runs hidden tests: codes that are in none of the lesson's tables.
from mcp_lesson.course import expect

expect(is_reserved_code, [(-32700, True), (-32000, True), (404, False)])
### BEGIN HIDDEN TESTS
hidden = [
    (-32768, True, "the lowest reserved code"),
    (-32769, False, "one below the range"),
    (-31999, False, "one above the range"),
    (True, False, "a bool is not a code"),
    (-32600.0, False, "a float is not a code"),
]
from mcp_lesson.exercises.hidden_tests import hidden_tests

hidden_tests(is_reserved_code, hidden)
### END HIDDEN TESTS"""


def _ignore(folder, names):
    return [
        name for name in names if name in ("node_modules", "__pycache__", ".pytest_cache", "my_mcp")
    ]


def snapshot(root):
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def add_the_exercise(copy):
    """The guide's steps 1 and 2: the two cells in the master (the one file edited by hand)."""
    master = copy / "notebooks" / "04_errors.ipynb"
    nb = nbformat.read(master, as_version=4)
    after = next(
        i
        for i, cell in enumerate(nb.cells)
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "reply_for_json-tests"
    )
    nb.cells[after + 1 : after + 1] = [
        new_markdown_cell(
            "## Exercise: a reserved code\n\nJSON-RPC keeps the codes -32768 to -32000 "
            "for itself. Write `is_reserved_code(code)`.",
            id="c04-reserved-intro",
        ),
        new_code_cell(
            SOLUTION,
            id="c04-reserved",
            metadata={
                "nbgrader": {
                    "grade": False,
                    "grade_id": "is_reserved_code",
                    "locked": False,
                    "schema_version": 3,
                    "solution": True,
                    "task": False,
                }
            },
        ),
        new_code_cell(
            TESTS,
            id="t04-reserved",
            metadata={
                "nbgrader": {
                    "grade": True,
                    "grade_id": "is_reserved_code-tests",
                    "locked": True,
                    "points": POINTS,
                    "schema_version": 3,
                    "solution": False,
                    "task": False,
                }
            },
        ),
    ]
    nbformat.write(nb, master)
    return {"notebooks/04_errors.ipynb"}


def make_lessons(copy, nb, env):
    """Step 3, ``make lessons NB=...``: the commands of the Makefile's lessons recipe (and of the
    export it ends with), run in the copy with this test's Python (make itself would check
    .venv, which the copy shares with the checkout)."""
    makefile = (copy / "Makefile").read_text(encoding="utf-8")

    def recipe(target):
        block = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
        return [line.strip().lstrip("@") for line in block.splitlines()]

    commands = []
    for line in recipe("lessons"):
        if "$(MAKE)" in line and line.endswith(" export"):
            commands += recipe("export")
        else:
            commands.append(line)
    assert len(commands) == 3, commands
    for command in commands:
        command = command.replace("$(BIN)/python", shlex.quote(sys.executable)).replace("$(NB)", nb)
        run = run_to_end(["bash", "-c", command], 600, cwd=copy, env=env)
        assert run.returncode == 0, (command, run.stdout[-2000:], run.stderr[-2000:])


def in_the_copy(copy, env, code):
    """Run ``code`` with the copy's package; its last line printed is JSON."""
    run = run_to_end([sys.executable, "-c", code], 300, cwd=copy, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_the_guide_s_new_exercise_is_picked_up_everywhere(tmp_path):
    assert "## Adding a graded exercise" in GUIDE.read_text(encoding="utf-8")
    copy = tmp_path / "course"
    copy.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=_ignore, symlinks=True)
        else:
            shutil.copy2(source, copy / name)
    env = dict(os.environ, PYTHONPATH=str(copy), MCP_LESSON_MY_PACKAGE=str(tmp_path / "my_mcp"))
    before_points = in_the_copy(
        copy,
        env,
        "import json; from mcp_lesson.exercises import declared; "
        "print(json.dumps(declared.points()))",
    )
    before = snapshot(copy)

    by_hand = add_the_exercise(copy)
    assert len(by_hand) == 1  # the files touched by hand: the master alone
    make_lessons(copy, "notebooks/04_errors.ipynb", env)

    # no other file was edited by hand: what changed besides the master is what the tools write
    after = snapshot(copy)
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    generated = {
        "notebooks/00_start_here.ipynb",
        "notebooks/learner/04_errors.ipynb",
        "notebooks/learner/00_start_here.ipynb",
        "notebooks/learner/.written.json",
        "mcp_lesson/core/errors.py",
        "mcp_lesson/core/graded.py",
    }
    assert by_hand <= changed and changed - by_hand <= generated, sorted(changed)
    # one make lessons leaves the saved outputs right: it exports before it runs the lesson, so
    # the lesson's self-check (derived from its exercises) already checks the new one
    master = nbformat.read(copy / "notebooks" / "04_errors.ipynb", as_version=4)
    [self_check] = [cell for cell in master.cells if 'check_lesson("04")' in cell.source]
    printed = "".join(output.get("text", "") for output in self_check.outputs)
    assert "is_reserved_code: 3/3 cases pass" in printed, printed
    for page in ("notebooks/00_start_here.ipynb", "notebooks/learner/00_start_here.ipynb"):
        start = nbformat.read(copy / page, as_version=4)
        [table] = [cell.source for cell in start.cells if cell.get("id") == "c00-what-you-write"]
        [row] = [line for line in table.splitlines() if line.startswith("| [04 ")]
        assert (
            "`is_reserved_code(code)`" in row
            and f"| {before_points['04_errors'] + POINTS:g} |" in row
        ), row

    found = in_the_copy(
        copy,
        env,
        """
import json, sys
sys.path.insert(0, "tests")
from graded_cells import graded_cases
from mcp_lesson.exercises.hidden_tests import hidden_tests
from mcp_lesson.core.errors import is_reserved_code
from mcp_lesson.exercises import declared, registry
from mcp_lesson.exercises.selfcheck import run_check
row = registry.BY_NAME["is_reserved_code"]
right = run_check(is_reserved_code, "is_reserved_code")
wrong = run_check(lambda code: -32768 <= code < -32000, "is_reserved_code")
# a wrong version the visible cases pass: graduation's hidden cases (read from the master) catch it
def almost(code):
    return code <= -32000
graded = graded_cases({"is_reserved_code": "04"}, lambda name: is_reserved_code)["is_reserved_code"]
try:
    for case, options in graded.cases:
        hidden_tests(almost, [case], **options)
    caught = None
except AssertionError as exc:
    caught = str(exc)
import contextlib, io, mcp_lesson
from mcp_lesson.exercises.selfcheck import check
said = io.StringIO()
with contextlib.redirect_stdout(said):
    check(is_reserved_code)
print(json.dumps({"row": [row.lesson, row.module, row.reference, row.graduates],
                  "check": said.getvalue(), "root": mcp_lesson.is_reserved_code is is_reserved_code
                  and "is_reserved_code" in mcp_lesson.__all__,
                  "right": [right.passed, right.total], "wrong": wrong.passed,
                  "points": declared.points(), "borrow": "is_reserved_code" in registry.may_borrow("05"),
                  "hidden": len(graded.cases), "caught": caught,
                  "almost": run_check(almost, "is_reserved_code").all_pass}))
""",
    )
    assert found["row"] == ["04", "errors", "core.errors.is_reserved_code", True]
    assert found["right"] == [3, 3] and found["wrong"] < 3  # the self-check: the visible cases
    assert found["check"] == "is_reserved_code: 3/3 cases pass\n"  # its own cases, by its name
    assert found["root"]  # mcp_lesson.is_reserved_code, with no line of the root's written
    assert found["points"] == dict(
        before_points, **{"04_errors": before_points["04_errors"] + POINTS}
    )
    assert found["borrow"]
    assert found["hidden"] == 5 and found["almost"] and "almost(-32769)" in (found["caught"] or "")

    # graduation runs its visible and hidden cases, and all pass on the master's export
    run = run_to_end(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "0",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "tests/exercises/test_each_case.py",
            "-k",
            "is_reserved_code",
        ],
        600,
        cwd=copy,
        env=env,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    assert re.search(r"\b8 passed\b", run.stdout), run.stdout[-2000:]  # 3 visible, 5 hidden

    # the learner copy: the stub, and the locked tests without the hidden ones
    learner = nbformat.read(copy / "notebooks" / "learner" / "04_errors.ipynb", as_version=4)
    [stub] = [
        cell
        for cell in learner.cells
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "is_reserved_code"
    ]
    [tests] = [
        cell
        for cell in learner.cells
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "is_reserved_code-tests"
    ]
    assert "NotImplementedError" in stub.source and "<= code <=" not in stub.source
    assert "BEGIN HIDDEN TESTS" not in tests.source and "expect(is_reserved_code" in tests.source
