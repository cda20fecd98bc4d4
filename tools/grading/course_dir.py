"""The course directory of tools/grading/classroom.py, and what every step of a teacher's day
shares: where things are, the lines for the teacher (:class:`Step`), an nbgrader run
(:func:`nbgrader`), the gradebook, what has been released, and the graded masters."""

import datetime
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DEFAULT_COURSE = ROOT / "classroom"
NOTEBOOKS = ROOT / "notebooks"
DEFAULT_TIMEOUT = 30
#: A student id: letters, digits and _ . @ -, matched whole (never a trailing newline).
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]*")
#: The largest notebook collect takes, and the most it takes of one student in one collect.
NOTEBOOK_BYTES = 8 * 1024**2
STUDENT_BYTES = 32 * 1024**2

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from mcp_lesson.exercises.calling import one_line  # noqa: E402  (after sys.path is set)
from mcp_lesson.shared.processes import die_with_parent, signal_group  # noqa: E402  (after sys.path is set)


def _with_our_bin(env):
    """``env`` with this Python's bin folder first on PATH: nbgrader's gradebook runs
    the ``alembic`` command, which must be the one beside this Python."""
    bin_dir = os.path.dirname(sys.executable)
    if bin_dir not in env.get("PATH", "").split(os.pathsep):
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return env


CONFIG_LOADER = """\
# Written by tools/grading/classroom.py: the course's nbgrader settings are kept
# in the project, so that every nbgrader command run here uses them.
load_subconfig({config!r})  # noqa: F821  (given by the config loader)

# Your own settings go below (for JupyterHub: c.Exchange.root = "...").
c = get_config()  # noqa: F821  (given by the config loader)
"""


class Step:
    """Lines for the teacher: printed, and appended to the course's teacher.log."""

    def __init__(self, course, title):
        self.course = Path(course)
        self.course.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().isoformat(timespec="seconds")
        self.log = open(self.course / "teacher.log", "a", encoding="utf-8")
        self.log.write(f"\n== {stamp} {title}\n")

    def say(self, line):
        line = one_line(line, 2_000)  # a student's text never reaches the terminal raw
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def close(self):
        self.log.close()


# --- the course directory -----------------------------------------------------------


def prepare(course):
    """Make the course directory and its nbgrader_config.py (once: a teacher's own
    settings added to it later are kept); return the directory's path."""
    course = Path(course).resolve()
    course.mkdir(parents=True, exist_ok=True)
    ours = str(HERE / "nbgrader_config.py")
    config = course / "nbgrader_config.py"
    if not config.exists():
        config.write_text(CONFIG_LOADER.format(config=ours), encoding="utf-8")
    elif ours not in config.read_text(encoding="utf-8", errors="replace"):
        print(
            f"note: {_shown(config)} does not load {ours}, so nbgrader runs without the "
            "course's grading settings (delete the file and it is written again)"
        )
    return course


def nbgrader(course, *args, log_name=None, limit=None):
    """Run ``nbgrader ARGS`` in ``course``; return (exit code, its output).

    The exit code is None when the run took longer than ``limit`` seconds (a
    last resort: the cell timeout should end any run long before); nbgrader and
    its kernels are then stopped, as they are on Ctrl-C. The kernels nbgrader
    starts ignore Python warnings (a warning on stderr in a test cell would cost
    its points), each student's exported package stays in that student's
    own folder (MCP_LESSON_MY_PACKAGE is not passed on), and a lesson's
    ``graduate()`` cell only says what it would do (MCP_LESSON_NO_NESTED_RUNS:
    no course test run inside a student's notebook).
    """
    env = _with_our_bin(dict(os.environ, PYTHONWARNINGS="ignore", MCP_LESSON_NO_NESTED_RUNS="1"))
    env.pop("MCP_LESSON_MY_PACKAGE", None)
    run = subprocess.Popen(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
        preexec_fn=die_with_parent,
    )
    try:
        output, _ = run.communicate(timeout=limit)
        code = run.returncode
    except subprocess.TimeoutExpired:
        signal_group(run.pid, signal.SIGKILL)
        output, _ = run.communicate()
        code = None
    except (
        BaseException
    ):  # Ctrl-C, SIGTERM (main): nbgrader runs in its own session, so end it here
        signal_group(run.pid, signal.SIGKILL)
        run.wait()
        raise
    if log_name:
        logs = Path(course) / "logs"
        logs.mkdir(exist_ok=True)
        (logs / f"{log_name}.log").write_text(output, encoding="utf-8")
    return code, output


def gradebook(course):
    import warnings

    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    # nbgrader's own queries make SQLAlchemy warn (about its relationships, and for a
    # notebook not handed in): nothing a teacher can act on, so it stays out of their output.
    warnings.filterwarnings("ignore", category=SAWarning)
    _with_our_bin(os.environ)
    return Gradebook(f"sqlite:///{Path(course) / 'gradebook.db'}")


def released(course):
    """{assignment: set of notebook names} of what has been released."""
    folder = Path(course) / "release"
    if not folder.is_dir():
        return {}
    return {
        a.name: {p.name for p in a.glob("*.ipynb")} for a in sorted(folder.iterdir()) if a.is_dir()
    }


def graded_masters(folder=NOTEBOOKS):
    """The lesson masters that hold autograder cells (nbgrader grade cells)."""
    import nbformat

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from mcp_lesson.exercises.lessons import FILES

    found = []
    for name in FILES:
        path = Path(folder) / name
        if path.exists() and has_tests(nbformat.read(str(path), as_version=4)):
            found.append(path)
    return found


def has_tests(nb):
    """True when the notebook has autograder cells (nbgrader grade cells)."""
    return any(cell.metadata.get("nbgrader", {}).get("grade") for cell in nb.cells)


def _first_error(output):
    lines = [line for line in output.splitlines() if "ERROR" in line or "Error" in line]
    text = (lines[0] if lines else (output.strip().splitlines() or ["no output"])[-1]).strip()
    return text[:200]


def _shown(path):
    path = Path(path)
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
