"""A teacher's day with nbgrader: release, collect, autograde, feedback, grades.

    python tools/grading/classroom.py release [ASSIGNMENT|NOTEBOOK ...]
    python tools/grading/classroom.py collect FOLDER
    python tools/grading/classroom.py autograde [ASSIGNMENT ...] [--timeout SECONDS]
    python tools/grading/classroom.py feedback [ASSIGNMENT ...]
    python tools/grading/classroom.py grades

(``--course DIR`` before the step names the course directory; default
``classroom/`` in the project. The make targets of the same names run these.)

Each step runs nbgrader's own command in the course directory, which is laid
out as nbgrader expects:

* ``nbgrader_config.py``: loads the course's settings (tools/grading/nbgrader_config.py);
* ``source/<a>/<a>.ipynb``: the lesson master, copied there by *release*;
* ``release/<a>/<a>.ipynb``: the student version (``nbgrader generate_assignment``);
* ``submitted/<student>/<a>/``: the class's work, copied there by *collect*
  (the released notebooks only, as regular files: nothing else a student leaves);
* ``autograded/<student>/<a>/``: the graded notebooks (``nbgrader autograde``);
* ``feedback/<student>/<a>/<a>.html``: one page per student and notebook
  (``nbgrader generate_feedback``);
* ``gradebook.db``: nbgrader's SQLite gradebook; ``grades.csv`` (``nbgrader export``);
* ``teacher.log``: every line these steps printed, with the time; ``logs/``:
  nbgrader's full output of each run.

An assignment is a lesson: its name is the master's, without ``.ipynb``
(``03_classifying``). By default *release* hands out every lesson whose master
has autograder cells; a notebook path hands out that notebook instead.

Grading a class goes on whatever a submission does. Each student's notebook
is autograded in its own nbgrader run, so one submission can only cost its own
points, and each problem gets one line: a cell stopped by the timeout, a
kernel that died, a flood of output cut, a test cell that was edited
(restored) or deleted (put back), a notebook missing (0 points), a submission
nbgrader could not grade at all (0 points, with the log to read).
"""

import argparse
import copy
import csv
import datetime
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
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
from mcp_lesson._safe import one_line  # noqa: E402
from mcp_lesson.processes import die_with_parent, stop_on_signals  # noqa: E402
from tools.judge.files import QUIET, copy_regular, kind as _kind  # noqa: E402


def _with_our_bin(env):
    """``env`` with this Python's bin folder first on PATH: nbgrader's gradebook runs
    the ``alembic`` command, which must be the one beside this Python."""
    bin_dir = os.path.dirname(sys.executable)
    if bin_dir not in env.get("PATH", "").split(os.pathsep):
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return env

CONFIG_LOADER = '''\
# Written by tools/grading/classroom.py: the course's nbgrader settings are kept
# in the project, so that every nbgrader command run here uses them.
load_subconfig({config!r})  # noqa: F821

# Your own settings go below (for JupyterHub: c.Exchange.root = "...").
c = get_config()  # noqa: F821
'''


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
        print(f"note: {_shown(config)} does not load {ours}, so nbgrader runs without the "
              "course's grading settings (delete the file and it is written again)")
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
    run = subprocess.Popen([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", start_new_session=True, preexec_fn=die_with_parent)
    try:
        output, _ = run.communicate(timeout=limit)
        code = run.returncode
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        output, _ = run.communicate()
        code = None
    except BaseException:  # Ctrl-C, SIGTERM (main): nbgrader runs in its own session, so end it here
        os.killpg(run.pid, signal.SIGKILL)
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
    return {a.name: {p.name for p in a.glob("*.ipynb")}
            for a in sorted(folder.iterdir()) if a.is_dir()}


def graded_masters(folder=NOTEBOOKS):
    """The lesson masters that hold autograder cells (nbgrader grade cells)."""
    import nbformat

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from mcp_lesson.course import LESSONS

    found = []
    for name in LESSONS:
        path = Path(folder) / name
        if path.exists() and has_tests(nbformat.read(str(path), as_version=4)):
            found.append(path)
    return found


def has_tests(nb):
    """True when the notebook has autograder cells (nbgrader grade cells)."""
    return any(cell.metadata.get("nbgrader", {}).get("grade") for cell in nb.cells)


# --- release ----------------------------------------------------------------------

def release(course, targets=()):
    """Copy the masters into source/ and run ``nbgrader generate_assignment`` on each."""
    course = prepare(course)
    step = Step(course, "release")
    try:
        graded = graded_masters()
        masters = []
        for target in targets:
            path = Path(target)
            if path.suffix == ".ipynb":
                masters.append(path)  # any notebook the teacher names
            elif NOTEBOOKS / f"{target}.ipynb" in graded:
                masters.append(NOTEBOOKS / f"{target}.ipynb")
            else:
                step.say(f"{target} is not a graded lesson; they are: "
                         f"{', '.join(m.stem for m in graded) or 'none yet'}")
                return 1
        masters = masters or graded
        if not masters:
            step.say("no lesson master has autograder cells yet: nothing to release")
            return 1
        failed = 0
        ready = []
        for master in masters:
            if not master.exists():
                step.say(f"{master}: no such notebook")
                failed += 1
                continue
            source = course / "source" / master.stem
            source.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(master, source / master.name)
            ready.append(master)
        # One nbgrader run for them all when they are all that source/ holds (its assignment id
        # is a pattern: "*" is every folder of source/), one each when the teacher names some:
        # nbgrader takes seconds to start, the work itself a fraction of that.
        in_source = {path.name for path in (course / "source").iterdir() if path.is_dir()}
        every = ready and (not targets or in_source == {master.stem for master in ready})
        runs = [("*", ready)] if every else [(master.stem, [master]) for master in ready]
        for assignment, these in runs:
            log = f"release-{'all' if assignment == '*' else assignment}"
            code, output = nbgrader(course, "generate_assignment", assignment, "--force", log_name=log)
            for master in these:
                made = course / "release" / master.stem / master.name
                if code == 0 and made.exists():
                    step.say(f"released {master.stem}: {_shown(made)}")
                else:
                    failed += 1
                    step.say(f"could not release {master.stem}: {_first_error(output)} "
                             f"(see {_shown(course / 'logs' / f'{log}.log')})")
        return 1 if failed else 0
    finally:
        step.close()


# --- collect ----------------------------------------------------------------------

def _plain(name):
    """A file name as it can be shown on one line of the log."""
    return name if name.isprintable() else repr(name)


def _size(folder):
    """The bytes of the regular files in ``folder`` (not through links)."""
    total = 0
    for path in Path(folder).rglob("*"):
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            total += info.st_size
    return total


def _collect_one(step, folder, dest, wanted, who):
    """Copy the released notebooks ``wanted`` of one student's ``folder`` into the folder ``dest``.

    Return the names taken, and the names left out (other files and folders).
    Each file that is not a regular file gets a line of its own.
    """
    taken, left_out = set(), []
    with os.scandir(folder) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        if name in QUIET or name == SECRET:
            continue
        path = folder / name
        mode = os.lstat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)) or (name in wanted and stat.S_ISDIR(mode)):
            step.say(f"{who}: skipped {_plain(name)}, {_kind(mode)}: collect takes regular files only")
            continue
        if name.startswith("."):
            continue
        if name not in wanted:
            left_out.append(_plain(name) + ("/" if stat.S_ISDIR(mode) else ""))
            continue
        size = os.lstat(path).st_size
        if size > NOTEBOOK_BYTES:
            step.say(f"{who}: skipped {_plain(name)}, {size / 2**20:.1f} MB: a notebook of over "
                     f"{NOTEBOOK_BYTES // 2**20} MB is not collected")
            continue
        instead = copy_regular(path, dest / name)
        if instead is None:
            taken.add(name)
        else:
            step.say(f"{who}: skipped {_plain(name)}, {instead}: collect takes regular files only")
    return taken, left_out


#: nbgrader's exchange names each submission's feedback by a secret it writes at
#: submit time; release_feedback needs it (a missing one is a FileNotFoundError).
SECRET = "submission_secret.txt"


def _secret(folder, dest):
    """Give the collected submission ``dest`` its ``submission_secret.txt``, as
    ``nbgrader collect`` does: the student's own (from ``nbgrader submit``) when it
    is a regular file of hex digits, else a new one."""
    import secrets

    path = Path(folder) / SECRET
    text = None
    try:
        if stat.S_ISREG(os.lstat(path).st_mode) and os.lstat(path).st_size <= 256:
            with open(path, "rb") as handle:
                text = handle.read().decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = None
    if not text or not re.fullmatch(r"[0-9a-f]{16,256}", text):
        text = secrets.token_hex(64)
    (dest / SECRET).write_text(text, encoding="ascii")


def collect(course, source):
    """Copy the released notebooks found in ``source/<student>/<assignment>/`` into submitted/.

    Only what nbgrader released is taken: for each assignment, the regular
    files named like its released notebooks. Nothing else a student puts in
    the folder is collected (other files and folders are named in the line
    of that submission), links are never followed, and a named pipe, a
    socket, a device or a link gets one line of its own and is passed over.
    A submission that cannot be read costs only itself: collect goes on with
    the others. Each submission's timestamp.txt is written here, with the time
    it was collected.
    """
    course = prepare(course)
    step = Step(course, f"collect {source}")
    try:
        source = Path(source)
        if (source / "submitted").is_dir():
            source = source / "submitted"
        if not source.is_dir():
            step.say(f"{source} is not a folder: give the folder that holds one folder per "
                     "student (make collect FROM=<folder>)")
            return 1
        known = released(course)
        if not known:
            step.say("nothing has been released yet: run `make release` first")
            return 1
        count = 0
        for student in sorted(p for p in source.iterdir() if p.is_dir() and not p.is_symlink()):
            if student.name.startswith("."):
                continue
            if not SAFE_NAME.fullmatch(student.name):
                step.say(f"skipped the folder {student.name!r}: a student id is letters, digits "
                         "and _ . @ - only")
                continue
            try:
                folders = sorted(p for p in student.iterdir() if p.is_dir() and not p.is_symlink())
            except OSError as exc:
                step.say(f"{student.name}: not collected: the folder cannot be read ({type(exc).__name__})")
                continue
            taken_in_all = 0
            for folder in folders:
                if folder.name.startswith("."):
                    continue
                if folder.name not in known:
                    step.say(f"{student.name}: skipped {_plain(folder.name)}/, which is not a released "
                             "assignment")
                    continue
                who = f"{student.name} {folder.name}"
                dest = course / "submitted" / student.name / folder.name
                again = dest.exists()
                wanted = known[folder.name]
                dest.parent.mkdir(parents=True, exist_ok=True)
                fresh = Path(tempfile.mkdtemp(prefix=".collecting-", dir=dest.parent))
                os.chmod(fresh, 0o755)  # as a folder made by mkdir (mkdtemp's is private)
                try:
                    taken, left_out = _collect_one(step, folder, fresh, wanted, who)
                except OSError as exc:
                    shutil.rmtree(fresh, ignore_errors=True)
                    kept = " (the copy collected before is kept)" if again else ""
                    step.say(f"{who}: not collected: {type(exc).__name__} while reading "
                             f"{_plain(Path(exc.filename or folder).name)}{kept}")
                    continue
                used = _size(fresh)
                if taken_in_all + used > STUDENT_BYTES:
                    shutil.rmtree(fresh, ignore_errors=True)
                    kept = " (the copy collected before is kept)" if again else ""
                    step.say(f"{who}: not collected: the student's submissions come to over "
                             f"{STUDENT_BYTES // 2**20} MB in all{kept}")
                    continue
                taken_in_all += used
                _secret(folder, fresh)
                # The time is collect's own: a timestamp.txt of the student's is never taken.
                (fresh / "timestamp.txt").write_text(
                    datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC"),
                    encoding="utf-8")
                if again:
                    shutil.rmtree(dest)
                fresh.rename(dest)
                count += 1
                line = f"{who}: collected" + (" again (replaced)" if again else "")
                if wanted - taken:
                    line += f"; missing {', '.join(sorted(wanted - taken))}"
                if left_out:
                    line += f"; not part of the assignment: {', '.join(left_out)} (not collected)"
                step.say(line)
        step.say(f"{count} submission{'s' * (count != 1)} in {_shown(course / 'submitted')}")
        return 0
    finally:
        step.close()


# --- autograde ----------------------------------------------------------------------

#: nbgrader's own warnings about a submission, in the teacher's words.
NBGRADER_SAYS = [
    (re.compile(r"Attribute 'points' for cell (\S+) has changed"),
     "the points of cell {0} were changed: nbgrader restored them"),
    (re.compile(r"Attribute '(locked|cell_type)' for cell (\S+) has changed"),
     "the {0} setting of cell {1} was changed: nbgrader restored it"),
    (re.compile(r"Cell '(\S+)' does not exist in the database"),
     "cell {0} is not in the release (a copied cell?): it is not graded"),
    (re.compile(r"No submitted file: (\S+)"), "{0} is missing: 0 points for it"),
    (re.compile(r"Skipping unknown notebook: (\S+)"), "{0} is not part of the assignment: not graded"),
]


def problems_in(output):
    """nbgrader's own warnings about a submission (its part of nbgrader's output),
    in plain words. The judge's lines are not read here: they come as data, in
    its records (:func:`judged_records`)."""
    found = []
    for line in output.splitlines():
        if "[grading] " in line:
            continue
        for pattern, words in NBGRADER_SAYS:
            match = pattern.search(line)
            if match:
                found.append(words.format(*(_short_path(g) for g in match.groups())))
                break
    return found


def judged_records(course, assignment, student):
    """{notebook: the judge's record} of ``student``'s ``assignment`` (judged_execute.py
    writes one for each notebook it judged); a record that cannot be read is left out."""
    import json

    found = {}
    for path in sorted((Path(course) / RECORDS / assignment / student).glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and record.get("judged") is True and record.get("student") == student:
            found[str(record.get("notebook"))] = record
    return found


def tampering(release_nb, submitted):
    """Lines for the locked cells (tests, read-only) of ``release_nb`` that the notebook
    file ``submitted`` edited or deleted. (nbgrader restores both: its own warning
    cannot tell an edit from the hidden tests it puts back, so the release is compared.)"""
    import nbformat

    try:
        nb = nbformat.read(str(submitted), as_version=4)
        cells = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell for cell in nb.cells}
    except Exception as exc:  # not JSON, not a notebook...
        return [f"{Path(submitted).name} is not a notebook nbgrader can read ({type(exc).__name__})"]
    found = []
    for cell in release_nb.cells:
        info = cell.metadata.get("nbgrader", {})
        if not info.get("locked"):
            continue
        what = "test cell" if info.get("grade") else "read-only cell"
        theirs = cells.get(info.get("grade_id"))
        if theirs is None:
            found.append(f"{what} {info['grade_id']} was deleted: nbgrader put it back")
        elif theirs.source != cell.source:
            found.append(f"{what} {info['grade_id']} was edited: nbgrader restored it from the release")
    return found


def _flags(info):
    return tuple(bool(info.get(key)) for key in ("grade", "solution", "locked"))


def restore_renamed(release_nb, submitted):
    """Give back its ``grade_id`` to each cell of the notebook file ``submitted``
    whose id is not the release's, when it can only be one cell of the release:
    the one with the same source, else the only cell of the release missing
    from the submission with the same kind (test, solution, read-only). The
    file is rewritten (it is the course's copy, in submitted/); returns a line
    for each cell restored."""
    import nbformat

    try:
        nb = nbformat.read(str(submitted), as_version=4)
    except Exception:  # noqa: BLE001 - tampering() says it cannot be read
        return []
    ours = {cell.metadata["nbgrader"]["grade_id"]: cell for cell in release_nb.cells
            if cell.metadata.get("nbgrader", {}).get("grade_id")}
    present = {cell.metadata.get("nbgrader", {}).get("grade_id") for cell in nb.cells}
    found = []
    for cell in nb.cells:
        info = cell.metadata.get("nbgrader", {})
        grade_id = info.get("grade_id")
        if not grade_id or grade_id in ours:
            continue
        missing = [gid for gid in ours if gid not in present]
        same = [gid for gid in missing if ours[gid].source == cell.source] or \
            [gid for gid in missing if _flags(ours[gid].metadata["nbgrader"]) == _flags(info)]
        if len(same) != 1:
            continue
        cell.metadata["nbgrader"] = copy.deepcopy(ours[same[0]].metadata["nbgrader"])
        present.add(same[0])
        found.append(f"cell {same[0]} was renamed {grade_id}: its name was given back")
    if found:
        nbformat.write(nb, str(submitted))
    return found


def _short_path(text):
    return Path(text).name if "/" in text else text


def release_cells(course, assignment, name):
    """The code cells of a released notebook (none when it cannot be read)."""
    import nbformat

    try:
        nb = nbformat.read(str(Path(course) / "release" / assignment / name), as_version=4)
    except Exception:  # noqa: BLE001 - a missing or broken release counts as empty
        return []
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def zero(course, assignment, student):
    """Record ``student``'s ``assignment`` in the gradebook with 0 points in every cell
    (what nbgrader itself records for a notebook that was not submitted)."""
    with gradebook(course) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.needs_manual_grade = False
        gb.db.commit()


def score_of(course, assignment, student):
    """(score, max score) of a submission, from the gradebook."""
    with gradebook(course) as gb:
        submission = gb.find_submission(assignment, student)
        score = max(0.0, submission.score - submission.late_submission_penalty)
        return float(score), float(submission.max_score)


def autograde(course, assignments=(), timeout=DEFAULT_TIMEOUT):
    """Autograde every collected submission of ``assignments`` (default: all released)."""
    course = prepare(course)
    step = Step(course, f"autograde (each cell under {timeout} s)")
    try:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from tools.judge.sandbox import note

        step.say(note())
        known = released(course)
        wanted = list(assignments) or sorted(known)
        unknown = [a for a in wanted if a not in known]
        if unknown:
            step.say(f"not released: {', '.join(unknown)} (released: {', '.join(sorted(known)) or 'none'})")
            return 1
        submitted = course / "submitted"
        graded = 0
        for assignment in wanted:
            students = sorted(p.parent.name for p in submitted.glob(f"*/{assignment}") if p.is_dir())
            if not students:
                step.say(f"{assignment}: no submissions collected")
                continue
            step.say(f"{assignment}:")
            graded += len(students)
            _grade_assignment(course, step, assignment, students, known[assignment], timeout)
        step.say(f"{graded} submission{'s' * (graded != 1)} graded into "
                 f"{_shown(course / 'gradebook.db')}")
        return 0
    finally:
        step.close()


def _before_grading(course, assignment, student, notebooks):
    """What to say about a submission before nbgrader sees it (a renamed cell is
    given back here); None when it holds none of the assignment's notebooks."""
    import nbformat

    folder = course / "submitted" / student / assignment
    present = {p.name for p in folder.glob("*.ipynb")}
    if not present & notebooks:
        return None
    said = []
    for name in sorted(present & notebooks):
        release_nb = nbformat.read(str(course / "release" / assignment / name), as_version=4)
        said += restore_renamed(release_nb, folder / name)
        said += tampering(release_nb, folder / name)
    return said


_ABOUT = re.compile(r"(?:/(?:submitted|autograded)/([^/\s]+)/|student with ID '([^']+)')")
#: Where the judge's records are, in the course folder (JudgedExecute.records).
RECORDS = Path("logs") / "judged"
_FAILED = re.compile(r"There was an error processing assignment: \S*/submitted/([^/\s]+)/")


def _teachers_files(course, assignment):
    """What a submission must never change: the course's nbgrader_config.py and the
    gradebook's copy of the lesson's cells (its tests). (The sandbox keeps them out
    of reach; this is the check that it did.)"""
    config = course / "nbgrader_config.py"
    with gradebook(course) as gb:
        cells = {}
        for notebook in gb.find_assignment(assignment).notebooks:
            for cell in notebook.source_cells:
                cells[(notebook.name, cell.name)] = (cell.source, cell.checksum)
    return {"config": config.read_bytes() if config.exists() else None, "cells": cells}


def _restore_teachers_files(course, assignment, kept):
    """Put back what changed since :func:`_teachers_files`; a line for each change."""
    said = []
    config = course / "nbgrader_config.py"
    if kept["config"] is not None and (not config.exists() or config.read_bytes() != kept["config"]):
        config.write_bytes(kept["config"])
        said.append(f"{_shown(config)} had changed during grading: put back as it was")
    with gradebook(course) as gb:
        for notebook in gb.find_assignment(assignment).notebooks:
            for cell in notebook.source_cells:
                before = kept["cells"].get((notebook.name, cell.name))
                if before is not None and (cell.source, cell.checksum) != before:
                    cell.source, cell.checksum = before
                    said.append(f"the gradebook's copy of cell {cell.name} had changed during "
                                "grading: put back as it was")
        gb.db.commit()
    return said


def by_student(output):
    """nbgrader's output of one run over a class, cut into {student: its lines}:
    a line belongs to the student it names, and to the one named last before it."""
    sections, current = {}, None
    for line in output.splitlines():
        if "[grading] " in line:  # the judge's lines, with a student's text quoted in them
            continue
        match = _ABOUT.search(line)
        if match and "processing the following" not in line:
            current = match.group(1) or match.group(2)
        if current is not None:
            sections.setdefault(current, []).append(line)
    return {student: "\n".join(lines) for student, lines in sections.items()}


def failure_in(section):
    """Why nbgrader could not grade a submission (the error its traceback ends
    with), or None when it graded it."""
    lines = section.splitlines()
    start = next((i for i, line in enumerate(lines) if _FAILED.search(line)), None)
    if start is None:
        return None
    cause = None
    for line in lines[start + 1:]:
        text = line.strip()
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b", text):
            cause = text
        elif line.startswith("[") and cause:
            break
    return (cause or "an error in nbgrader")[:300]


def _grade_assignment(course, step, assignment, students, notebooks, timeout):
    """Autograde every collected submission of ``assignment`` in one nbgrader run
    (nbgrader is imported once, not once a student; the sandbox keeps each
    submission to itself), then say one line per student."""
    before, ready = {}, []
    for student in students:
        said = _before_grading(course, assignment, student, notebooks)
        if said is None:
            before[student] = None
        else:
            before[student] = said
            ready.append(student)
    cells = sum(len(release_cells(course, assignment, name)) for name in notebooks)
    # A last resort, never reached in practice (a day at most: poll() takes no longer wait).
    limit = min(300 + len(ready) * cells * (timeout + 10), 86_400)
    log_name = f"autograde-{assignment}"
    log = _shown(course / "logs" / f"{log_name}.log")
    code, output = (0, "")
    shutil.rmtree(course / RECORDS / assignment, ignore_errors=True)  # this run's records only
    for student in ready:  # what nbgrader writes is this run's too
        shutil.rmtree(course / "autograded" / student / assignment, ignore_errors=True)
    if ready:
        kept = _teachers_files(course, assignment)
        code, output = nbgrader(course, "autograde", assignment, "--force",
                                f"--JudgedExecute.timeout={timeout}", limit=limit, log_name=log_name)
        for line in _restore_teachers_files(course, assignment, kept):
            step.say(f"  {line}")
        if "Exception while loading config file" in output:
            step.say(f"  nbgrader could not load the course's settings, so nothing of this run "
                     f"was judged: {_first_error(output)}; see {log}")
    sections = by_student(output)
    for student in students:
        if before[student] is None:
            zero(course, assignment, student)
            present = sorted(p.name for p in (course / "submitted" / student / assignment).glob("*.ipynb"))
            found = f" (found {', '.join(present)})" if present else ""
            step.say(f"  {student}: 0 points: no {', '.join(sorted(notebooks))} in the submission{found}")
            continue
        section = sections.get(student, "")
        present = {p.name for p in (course / "submitted" / student / assignment).glob("*.ipynb")} & notebooks
        # Verdicts come as data: the judge's records and what nbgrader wrote, never the log.
        records = judged_records(course, assignment, student)
        judged = all(Path(name).stem in records for name in present)
        autograded = all((course / "autograded" / student / assignment / name).is_file() for name in present)
        problems = before[student] + problems_in(section)
        for name, record in records.items():
            shown_name = "" if name == assignment else f"{name}: "
            problems += [shown_name + str(line) for line in record.get("incidents", [])][:50]
        seconds = sum(float(record.get("seconds", 0)) for record in records.values())
        if code is None and not autograded:
            zero(course, assignment, student)
            problems.append(f"nbgrader did not finish within {limit} s and was stopped: 0 points; "
                            f"see {log}")
        elif not autograded:
            zero(course, assignment, student)
            cause = failure_in(section)
            problems.append(f"nbgrader could not grade it ({cause or 'it was not graded'}): 0 points; "
                            f"see {log}")
        elif not judged:  # graded, but not by the judge: never trusted
            zero(course, assignment, student)
            problems.append(f"it was not judged in the sandbox (the course's settings were not "
                            f"used): 0 points; see {log}")
        score, most = score_of(course, assignment, student)
        step.say(f"  {student}: {score:g}/{most:g} points ({seconds:.1f} s)")
        for problem in problems:
            step.say(f"    {problem}")


# --- feedback and grades ----------------------------------------------------------------

def feedback(course, assignments=()):
    """``nbgrader generate_feedback`` for each assignment: an HTML page per student and notebook."""
    course = prepare(course)
    step = Step(course, "feedback")
    try:
        autograded = course / "autograded"
        wanted = list(assignments) or sorted({p.name for p in autograded.glob("*/*") if p.is_dir()})
        if not wanted:
            step.say("nothing has been autograded yet: run `make autograde` first")
            return 1
        failed = 0
        done = {}
        if not assignments:  # one nbgrader run for every assignment ("*"), as release does
            done = dict.fromkeys(wanted, nbgrader(course, "generate_feedback", "*", "--force",
                                                  log_name="feedback-all"))
        for assignment in wanted:
            code, output = done.get(assignment) or nbgrader(course, "generate_feedback", assignment, "--force",
                                                            log_name=f"feedback-{assignment}")
            pages = sorted((course / "feedback").glob(f"*/{assignment}/*.html"))
            if code != 0:
                failed += 1
                step.say(f"{assignment}: feedback failed: {_first_error(output)}")
            step.say(f"{assignment}: {len(pages)} feedback page{'s' * (len(pages) != 1)}")
            for page in pages:
                step.say(f"  {_shown(page)}")
            with_pages = {page.parent.parent.name for page in pages}
            for folder in sorted((course / "submitted").glob(f"*/{assignment}")):
                if folder.parent.name not in with_pages:
                    step.say(f"  {folder.parent.name}: no page (nothing of theirs could be graded)")
        return 1 if failed else 0
    finally:
        step.close()


def grades(course):
    """``nbgrader export`` to grades.csv (student, assignment, score, max_score)."""
    course = prepare(course)
    step = Step(course, "grades")
    try:
        if not (course / "gradebook.db").exists():
            step.say("there is no gradebook yet: run `make release` first")
            return 1
        code, output = nbgrader(course, "export", "--to=grades.csv", log_name="export")
        if code != 0:
            step.say(f"export failed: {_first_error(output)}")
            return 1
        with open(course / "grades.csv", encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        for row in rows:
            step.say(f"{row['student']:<16} {row['assignment']:<24} "
                     f"{float(row['score']):g}/{float(row['max_score']):g}")
        step.say(f"{len(rows)} row{'s' * (len(rows) != 1)} in {_shown(course / 'grades.csv')}; "
                 f"one row per student in {_shown(course / 'grades-wide.csv')}")
        return 0
    finally:
        step.close()


# --- helpers and the command line ----------------------------------------------------------

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


def main(argv=None):
    stop_on_signals()  # SIGTERM or SIGHUP end nbgrader and its sandboxes, as Ctrl-C does
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", default=str(DEFAULT_COURSE),
                        help="the nbgrader course directory (default: classroom/)")
    steps = parser.add_subparsers(dest="step", required=True)
    p = steps.add_parser("release", help="generate_assignment into release/")
    p.add_argument("targets", nargs="*", help="lesson names (03_classifying) or notebook paths")
    p = steps.add_parser("collect", help="copy FOLDER/<student>/<assignment>/ into submitted/")
    p.add_argument("source", nargs="?", help="the folder with one folder per student")
    p = steps.add_parser("autograde", help="autograde into gradebook.db")
    p.add_argument("assignments", nargs="*")
    p.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds per cell")
    p = steps.add_parser("feedback", help="an HTML page per student and notebook")
    p.add_argument("assignments", nargs="*")
    steps.add_parser("grades", help="export grades.csv")
    args = parser.parse_args(argv)
    if args.step == "release":
        return release(args.course, args.targets)
    if args.step == "collect":
        if not args.source:
            print("say where the submissions are: make collect FROM=<folder>, which holds "
                  "one folder per student, each with one folder per assignment")
            return 1
        return collect(args.course, args.source)
    if args.step == "autograde":
        if args.timeout <= 0:
            print("the timeout is a number of seconds above 0")
            return 1
        return autograde(args.course, args.assignments, args.timeout)
    if args.step == "feedback":
        return feedback(args.course, args.assignments)
    return grades(args.course)


if __name__ == "__main__":
    sys.exit(main())
