"""The class graded on a teacher's own account: the full tier.

One course, lesson 03, one honest student (14/14 deserved), graded three ways:

* by ``make autograde``'s command (tools/grading/classroom.py autograde), and by
  formgrader's Autograde button (nbgrader's API call its handler makes), each run
  by a teacher who is not root (a uid of no account, through ``setpriv``) and who
  already runs 20 processes (a terminal, a kernel, JupyterLab): the honest
  student gets 14/14, where the process limit on the teacher's uid gave every
  student 0;
* by the same command with a sandbox that cannot start (bubblewrap failing as
  it failed then): the run fails, exit status not 0, in one line naming the
  course's judge, and nothing is recorded for the student (no 0);
* by formgrader's Autograde button (nbgrader's API call its handler makes), with
  the same failing sandbox: the button reports a failure, and nothing is
  recorded for the student.
"""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from processes import patience, run_to_end

from classroom.test_judge_class import FULL, LESSON, handed_in, solutions
from classroom.test_judge_teacher import failing_bwrap, teacher  # noqa: F401 - fixtures
from tools.grading import classroom

# Full tier; no per-test hang guard of pytest-timeout: the users' environment may be made
# first (minutes, as in test_hub), and every command here runs under run_to_end's own.
pytestmark = [pytest.mark.full, pytest.mark.timeout(0)]

ROOT = Path(__file__).resolve().parents[2]
CLASSROOM = ROOT / "tools" / "grading" / "classroom.py"
STUDENT = "honest"


def step(course, *args, python=sys.executable, check=True, env=None):
    run = run_to_end(
        [python, str(CLASSROOM), "--course", str(course), *args], 1800, cwd=ROOT, env=env
    )
    if check:
        assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    return run


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """A course with lesson 03 released and the honest student's work collected."""
    base = tmp_path_factory.mktemp("teacher-class")
    course = base / "classroom"
    step(course, "release", LESSON)
    release = nbformat.read(str(course / "release" / LESSON / f"{LESSON}.ipynb"), as_version=4)
    folder = base / "inbox" / STUDENT / LESSON
    folder.mkdir(parents=True)
    nbformat.write(handed_in(release, solutions()), str(folder / f"{LESSON}.ipynb"))
    step(course, "collect", str(base / "inbox"))
    return course


@pytest.fixture
def course(collected, tmp_path):
    """A fresh copy of the collected course, for one way of grading it."""
    copy = tmp_path / "classroom"
    shutil.copytree(collected, copy, symlinks=True)
    (copy / "nbgrader_config.py").write_text(
        (collected / "nbgrader_config.py").read_text().replace(str(collected), str(copy))
    )
    return copy


def recorded(course):
    """The scores recorded for the student's cells: auto or manual, None where none is."""
    with classroom.gradebook(course) as gb:
        try:
            submission = gb.find_submission(LESSON, STUDENT)
        except Exception:
            return []
        return [
            grade.auto_score if grade.manual_score is None else grade.manual_score
            for notebook in submission.notebooks
            for grade in notebook.grades
        ]


BUTTON = """
import json, sys
from nbgrader.apps.api import NbGraderAPI
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader

# What formgrader's Autograde button runs: its handler calls the API's autograde.
config = PyFileConfigLoader("nbgrader_config.py", path=sys.argv[1]).load_config()
coursedir = CourseDirectory(config=config, root=sys.argv[1])
api = NbGraderAPI(coursedir, Authenticator(config=config), config=config)
print(json.dumps(api.autograde(sys.argv[2], sys.argv[3])))
"""


def users_python():
    """A Python with nbgrader that any account can run (the class's own environment,
    tools/hub/environment.py: the course's .venv may live in root's home)."""
    from tools.hub import environment
    from tools.hub.settings import Settings

    if not Path(environment.SYSTEM_PYTHON).exists():
        pytest.skip(
            f"{environment.SYSTEM_PYTHON} is missing: the users' environment is made from it"
        )
    return environment.build(Settings().env) / "bin" / "python"


@pytest.fixture
def teachers_course(course, teacher, readable_checkout):  # noqa: F811  (a fixture)
    """(a copy of the course that is the teacher's, ``run(*args)``: the users' Python run
    with ``args`` as the teacher): a teacher who is not root and already runs 20
    processes of their own."""
    python = users_python()
    theirs = Path(
        tempfile.mkdtemp(prefix="mcp-lesson-teacher-", dir="/tmp")
    )  # pytest's is root's only
    home, their_course = theirs / "home", theirs / "classroom"
    home.mkdir()
    shutil.copytree(course, their_course, symlinks=True)
    for path in [theirs, home, *theirs.rglob("*")]:
        os.lchown(path, teacher, teacher)
    # (the checkout may sit in a folder only its owner can enter: the teacher runs a copy)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(readable_checkout),
    }

    def run(*args, cwd=home):
        args = [
            readable_checkout / CLASSROOM.relative_to(ROOT) if arg == CLASSROOM else arg
            for arg in args
        ]
        return run_to_end(
            [
                "setpriv",
                f"--reuid={teacher}",
                f"--regid={teacher}",
                "--clear-groups",
                "env",
                "-i",
                *(f"{key}={value}" for key, value in env.items()),
                str(python),
                *map(str, args),
            ],
            1800,
            cwd=str(cwd),
        )

    try:
        yield their_course, run
    finally:
        shutil.rmtree(theirs, ignore_errors=True)


def test_a_teacher_with_a_terminal_and_a_kernel_open_grades_the_class(teachers_course):
    """Make autograde's command, run by a teacher who is not root with 20
    processes of their own: the honest student's 14/14, nothing blamed on them."""
    course, as_teacher = teachers_course
    run = as_teacher(
        CLASSROOM, "--course", course, "autograde", LESSON, "--timeout", round(patience(10))
    )
    said = run.stdout + run.stderr
    assert run.returncode == 0, said[-3000:]
    assert f"{STUDENT}: {FULL:g}/{FULL:g} points" in said, said[-3000:]
    assert sum(score or 0 for score in recorded(course)) == FULL


def test_formgraders_button_for_a_teacher_with_a_terminal_open(teachers_course):
    """Formgrader's Autograde button (in the teacher's own server, as the
    teacher), with 20 processes of theirs running: success, and the honest 14/14."""
    course, as_teacher = teachers_course
    run = as_teacher("-c", BUTTON, course, LESSON, STUDENT, cwd=course)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["success"] is True, result
    assert sum(score or 0 for score in recorded(course)) == FULL, result


def test_a_sandbox_that_cannot_start_fails_the_run_and_scores_no_one(course, failing_bwrap):  # noqa: F811  (a fixture)
    """Make autograde's command with a sandbox that cannot start: exit
    status not 0, one line naming the course's judge, no score for the student."""
    run = step(
        course,
        "autograde",
        LESSON,
        "--timeout",
        str(round(patience(10))),
        check=False,
        env=dict(os.environ),
    )
    said = run.stdout + run.stderr
    assert run.returncode != 0, said[-3000:]
    failed = [line for line in run.stdout.splitlines() if "could not start its sandbox" in line]
    assert len(failed) == 1 and "course" in failed[0], said[-3000:]
    assert f"{STUDENT}: 0" not in said and "Traceback" not in run.stdout, said[-3000:]
    assert all(score is None for score in recorded(course)), recorded(course)


def test_formgraders_button_with_a_sandbox_that_cannot_start_scores_no_one(course, failing_bwrap):  # noqa: F811  (a fixture)
    """Formgrader's Autograde button with a sandbox that cannot start
    reports a failure naming the course's judge, and records no score."""
    run = run_to_end(
        [sys.executable, "-c", BUTTON, str(course), LESSON, STUDENT],
        900,
        cwd=str(course),
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["success"] is False, result
    assert "could not start its sandbox" in result.get("log", "") + result.get("error", ""), result
    assert all(score is None for score in recorded(course)), recorded(course)
