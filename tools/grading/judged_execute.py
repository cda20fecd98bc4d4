"""nbgrader's Execute step, judged: the student's cells run in the sandbox, the
tests run here (``JudgedExecute``).

nbgrader's own Execute runs the whole notebook, tests included, in one kernel
with the teacher's rights, so a submission can change how its tests run
(an input transformer, a ``repr`` or ``isinstance`` of its own, a liar) or
what they can reach (the gradebook, the masters). Here:

* every code cell that is not one of the release's test cells runs in the
  judge's sandbox (tools/judge), in order, in one namespace, as plain Python
  (IPython magics and shell lines are left out: they are not Python), each
  under ``JudgedExecute.timeout`` seconds. A cell that runs past it costs that cell
  (the sandbox is started again and the cells before it run again); what the
  cell printed (cut at ``JudgedExecute.max_output_chars``) and its error
  become its outputs;
* each test cell of the release (the same ``grade_id`` *and* the same source:
  nbgrader has already restored edited ones) runs in *this* process, which no
  student code touches, with each function the student's cells defined as a
  stand-in that calls it in the sandbox and gives back plain values with
  their exact types. An error there is the test's failure, as nbgrader counts
  it. What the student's code prints during a test is counted and not kept
  (it could show the hidden cases on the feedback page): one line says so. A cell that claims to be a test but is not one of the release's runs in
  the sandbox like any other;
* the course's code is not in the sandbox (tools/judge/stand_in.py). A cell may
  borrow only what the lessons before this one built (``registry.may_borrow``),
  run outside in the course host under the student's own limits; anything
  else of the course's is refused in words, and earns nothing;
* a notebook may hold at most ``JudgedExecute.max_cells`` code cells and print
  at most ``JudgedExecute.max_notebook_output`` characters in all: past either,
  the rest is not run, or not kept, with one line saying so.

A sandbox that cannot start (tools/judge/sandbox.py's ``NotStarted``: the course's
machinery failed on this machine before any of the student's code ran) is the
run's error, never the student's: the notebook is not graded (nbgrader counts it
as an error of the run and records no score), its record says so as data
(``run_error``), and the error says it in one line (:class:`JudgeNotStarted`).

Each incident gets one line in the teacher's log, starting ``[grading]`` (as
before), then the student, the notebook and the cell; whatever a student's
code wrote is quoted there, cut and with its control characters escaped. The
verdicts do not travel through the log: each notebook judged leaves a record
(JSON) in ``JudgedExecute.records`` with its time and incidents, which
classroom.py reads beside nbgrader's gradebook.
"""

import ast
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float, Integer, Unicode

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mcp_lesson.exercises.calling import one_line  # noqa: E402  (after sys.path is set)
from mcp_lesson.exercises.learner_package import python_of  # noqa: E402  (after sys.path is set)
from tools.insight.records import Sheet  # noqa: E402  (each case's verdict, as data)
from tools.judge.learner import DidNotFinish, Submission  # noqa: E402  (after sys.path is set)
from tools.judge.sandbox import NotStarted, note  # noqa: E402  (after sys.path is set)
from tools.judge.wire import CUT, PRINTED_LIMIT  # noqa: E402  (after sys.path is set)

GUARD_LINE = "[grading] "
#: Begins the line that gives the time one notebook took (classroom.py reads it).
TIME_LINE = "[judged] "
_NOTED: list = []


def quoted(text, limit=150):
    """A student's text as the teacher's log shows it: cut, and written as Python
    writes a string (in quotes, with every control and direction character as
    its escape), so it stays on one line and can pass for nothing else."""
    text = one_line(text, 10**9) if type(text) is not str else text
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


class JudgeNotStarted(Exception):
    """The judge's sandbox could not start: the run's error (nbgrader stops grading
    this notebook, records no score for it and ends with an error)."""


def lesson_of(notebook):
    """The lesson a notebook is ("03" for 03_classifying), or None for another notebook."""
    number = str(notebook)[:2]
    return number if number.isdigit() and str(notebook)[2:3] == "_" else None


def _is_test(cell):
    info = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and info.get("grade") and not info.get("solution")


def release_tests(notebook, assignment, course=None):
    """{grade_id: source} of the test cells of ``notebook`` as the gradebook holds
    them (the release's, hidden tests included); empty when it cannot be read."""
    from nbgrader.api import Gradebook

    database = Path(course or Path.cwd()) / "gradebook.db"
    if not database.exists():
        return {}
    try:
        with Gradebook(f"sqlite:///{database}") as gb:
            found = gb.find_notebook(notebook, assignment)
            graded = {cell.name for cell in found.grade_cells if cell.cell_type == "code"}
            return {cell.name: cell.source for cell in found.source_cells if cell.name in graded}
    except Exception:
        return {}


def release_sources(notebook, assignment, course=None):
    """The sources of the released notebook's code cells (empty when unreadable)."""
    import nbformat

    try:
        nb = nbformat.read(
            str(Path(course or Path.cwd()) / "release" / assignment / f"{notebook}.ipynb"),
            as_version=4,
        )
    except Exception:
        return set()
    return {cell.source for cell in nb.cells if cell.cell_type == "code"}


def free_names(source):
    """The names a test cell uses without defining them and that are not Python's
    own (``repr``, ``isinstance``): the student's functions it tests."""
    import builtins

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    bound, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return used - bound - set(dir(builtins))


class _Printed(io.StringIO):
    def __init__(self, limit):
        super().__init__()
        self.limit, self.cut = limit, False

    def write(self, text):
        room = self.limit - self.tell()
        if room <= 0:
            self.cut = True
            return len(text)
        if len(text) > room:
            self.cut = True
        return super().write(text[:room])


class JudgedExecute(NbGraderPreprocessor):
    """Run a submission's cells in the sandbox and its tests outside it."""

    timeout = Integer(30, help="Seconds each cell (and each call a test makes) may run").tag(
        config=True
    )
    max_output_chars = Integer(100_000, help="Characters of output kept per cell").tag(config=True)
    notebook_limit = Float(600.0, help="Seconds the whole notebook may use in the sandbox").tag(
        config=True
    )
    max_cells = Integer(500, help="Code cells of a notebook that are run; the rest are not").tag(
        config=True
    )
    max_notebook_output = Integer(
        2_000_000, help="Characters of output kept for a whole notebook"
    ).tag(config=True)
    records = Unicode(
        "logs/judged",
        help="Folder (relative to the course) of the judge's records: "
        "<assignment>/<student>/<notebook>.json",
    ).tag(config=True)

    def _where(self, index):
        cell = self.nb.cells[index]
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        return f"cell {index + 1}" + (f" ({grade_id})" if grade_id else "")

    def _incident(self, index, text):
        """One line for the teacher (``text`` in the judge's words, with any of the
        student's text already quoted by :func:`quoted`): in the record, and in
        the log after the student and the notebook."""
        line = one_line(f"{self._where(index)}: {text}", 600)
        self._incidents.append(line)
        self.log.warning("%s%s %s: %s", GUARD_LINE, one_line(self.student, 80), self.notebook, line)

    def preprocess(self, nb, resources):
        began = time.monotonic()
        info = resources.get("nbgrader", {})
        self.nb, self.student, self.notebook = (
            nb,
            info.get("student", "?"),
            info.get("notebook", "?"),
        )
        if not _NOTED:  # once a run (classroom.py says it once a day)
            _NOTED.append(True)
            self.log.info("%s", note())
        assignment = info.get("assignment", "")
        tests = release_tests(self.notebook, assignment)
        self._release_sources = release_sources(self.notebook, assignment)
        self._errors, self._incidents, self._printed, self._cuts = [], [], 0, []
        self._sheet = Sheet(self.student, assignment, self.notebook, self.records)
        try:
            self._judge(nb, tests)
        except NotStarted as failed:  # the course's failure: no verdict at all
            self.log.error("%s", failed)
            self._record(assignment, time.monotonic() - began, run_error=str(failed))
            raise JudgeNotStarted(str(failed)) from None
        if self._cuts:  # one line, however many cells printed too much
            more = len(self._cuts) - 1
            self._incident(
                self._cuts[0],
                f"printed more than {PRINTED_LIMIT:,} characters: cut there"
                + (f" (and {more:,} more cell{'s' * (more > 1)})" if more else ""),
            )
        self._report_errors()
        seconds = time.monotonic() - began
        self.log.info(
            "%s%s %s: %.1f s", TIME_LINE, one_line(self.student, 80), self.notebook, seconds
        )
        self._record(assignment, seconds)
        self._sheet.save()
        return nb, resources

    def _judge(self, nb, tests):
        """Run the cells in the sandbox and the tests here (raises the sandbox's
        ``NotStarted`` when it could not start, however a test took it)."""
        submission = Submission.for_lesson(
            lesson_of(self.notebook),
            call_limit=float(self.timeout),
            budget=float(self.notebook_limit),
        )
        code_cells = 0
        try:
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                cell.outputs = []
                code_cells += 1
                if code_cells == self.max_cells + 1:
                    self._incident(
                        index,
                        f"the notebook has more than {self.max_cells:,} code cells: "
                        "the cells from here on were not run",
                    )
                if code_cells > self.max_cells and not _is_test(cell):
                    continue
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                if not _is_test(cell):
                    self._student_cell(index, cell, submission)
                elif grade_id in tests:  # the gradebook's source, whatever the cell says
                    cell.source = tests[grade_id]
                    self._test(index, cell, submission)
                else:
                    self._error(cell, "NotATest", f"{grade_id!r} is not a test of this lesson")
                    self._incident(
                        index,
                        "is marked as a test but is not one of the lesson's: not run, no points",
                    )
                if submission.sandbox.failed is not None:  # even if a test's own code caught it
                    raise submission.sandbox.failed
        finally:
            submission.close()

    def _record(self, assignment, seconds, run_error=None):
        """The judge's record of this notebook, as data: who, which notebook, how long,
        and each incident (classroom.py reads it; nothing reads the log for verdicts);
        or, with ``run_error``, why it was not judged at all (the run's failure)."""
        folder = Path(self.records)
        if not folder.is_absolute():
            folder = Path.cwd() / folder
        folder = folder / assignment / self.student
        folder.mkdir(parents=True, exist_ok=True)
        record = {
            "student": self.student,
            "assignment": assignment,
            "notebook": self.notebook,
            "seconds": round(seconds, 3),
            "incidents": self._incidents,
            "judged": True,
        }
        if run_error is not None:
            record.update(judged=False, run_error=run_error)
        path = folder / f"{self.notebook}.json"
        part = path.with_suffix(".part")
        part.write_text(json.dumps(record, ensure_ascii=True), encoding="utf-8")
        os.replace(part, path)

    def _report_errors(self):
        """A line for each solution cell that stopped with an error, and one for the
        first other cell that did, with a count of the rest."""
        own = [(i, e) for i, e, solution in self._errors if solution and not self._given_refused(e)]
        # The lesson's own cells may fail in the sandbox (a server, the course's
        # tables): only a cell the student changed is worth a line.
        other = [
            (i, e)
            for i, e, solution in self._errors
            if not solution and self.nb.cells[i].source not in self._release_sources
        ]
        for index, error in own + other[:1]:
            text = (
                f"stopped with {one_line(error.get('type'), 60)}: {quoted(error.get('text', ''))}"
            )
            if other and index == other[0][0] and len(other) > 1:
                text += (
                    f" (and {len(other) - 1} more cell{'s' * (len(other) > 2)} of the lesson "
                    "stopped with an error)"
                )
            self._incident(index, text)

    def _given_refused(self, error):
        """True for a refusal of the course's (a function this lesson may not borrow)
        met inside the lesson's own given code, a check helper of an unchanged cell
        (lesson 08's exactly_one asks for by_revision): the lesson's, not the student's."""
        return error.get("type") == "LookupError" and self._given_code(error)

    # --- the student's cells, in the sandbox ---------------------------------------------

    def _student_cell(self, index, cell, submission):
        source, left_out = python_of(cell.source)
        if not source.strip():
            return
        if submission.spent > self.notebook_limit:
            self._error(
                cell, "NotRun", f"not run: the notebook used up its {self.notebook_limit:g} s"
            )
            return
        for number, line in left_out:  # a shell line or a magic: that line only, not the cell
            self._stream(
                cell,
                f"{GUARD_LINE}line {number} not run while grading: "
                f"{quoted(line, 80)} is IPython's syntax, not Python\n",
            )
        printed, error = submission.run_cell(source, f"<cell {index + 1}>", float(self.timeout))
        self._stream(cell, printed)
        if CUT in printed:
            self._cuts.append(index)
        if error:
            if error.get("type") == "DidNotFinish":
                words = f"this cell gave no answer ({error.get('text')}) and was stopped"
                self._error(cell, "CellTimeoutError", words)
                self._incident(index, words)
                return
            if self._shown_not_run(cell, error):
                return
            line = f" (line {error['line']})" if error.get("line") else ""
            self._error(cell, error.get("type", "Exception"), f"{error.get('text', '')}{line}")
            self._errors.append(
                (index, error, bool(cell.metadata.get("nbgrader", {}).get("solution")))
            )

    def _shown_not_run(self, cell, error):
        """An error raised in the lesson's own code as released (a demonstration of the course's
        functions that the judge does not serve: lesson 08 shows ``by_revision``, ``explain``,
        ``classify`` under a revision): the cell's feedback says so in a line, not as an error
        the learner never made. An error raised in the learner's own code is shown as it is.
        True when said."""
        if not self._given_code(error):
            return False
        self._stream(
            cell,
            f"{GUARD_LINE}this cell uses the lesson's own demonstration code, which needs "
            "the course's functions that grading does not run: its output is in the "
            "lesson (" + quoted(f"{error.get('type')}: {error.get('text', '')}", 100) + ")\n",
        )
        return True

    def _given_code(self, error):
        """True when ``error`` was raised in a cell of the lesson as released (not a solution
        cell, and unchanged)."""
        file = str(error.get("cell") or "")
        if not (file.startswith("<cell ") and file.endswith(">")):
            return False
        try:
            cell = self.nb.cells[int(file[6:-1]) - 1]
        except (ValueError, IndexError):
            return False
        return cell.source in self._release_sources and not cell.metadata.get("nbgrader", {}).get(
            "solution"
        )

    # --- a test of the release, here --------------------------------------------------

    def _test(self, index, cell, submission):
        printed = _Printed(self.max_output_chars)
        unseen = []  # what the student's code printed during the test: counted, never shown
        submission.printed_to = lambda text: unseen.append(len(text))
        namespace = {"__name__": "__graded__"}
        asked = free_names(cell.source)
        submission.refused = asked  # a graded function may not borrow the course's own
        for name in submission.names():
            if name in asked:  # the functions the test calls, never a repr or isinstance
                namespace[name] = submission.function(name)
        started = time.monotonic()
        broken_before = dict(submission.broken)
        try:
            with (
                contextlib.redirect_stdout(printed),
                contextlib.redirect_stderr(printed),
                self._sheet.watching(cell.metadata["nbgrader"]["grade_id"]),
            ):
                exec(
                    compile(cell.source, f"<test {cell.metadata['nbgrader']['grade_id']}>", "exec"),
                    namespace,
                )
        except DidNotFinish as exc:
            self._stream(cell, printed.getvalue())
            self._error(cell, "CellTimeoutError", str(exc))
            self._incident(index, str(exc))
        except Exception as exc:  # the test failed: nbgrader counts the error
            self._stream(cell, printed.getvalue())
            self._error(cell, type(exc).__name__, str(exc))
        else:
            self._stream(cell, printed.getvalue())
        finally:
            submission.printed_to = None
            submission.refused = set()
            if unseen:
                self._stream(
                    cell,
                    f"{GUARD_LINE}what your code printed during this test ({sum(unseen):,} "
                    "characters) is not shown: it could show the test's hidden cases\n",
                )
        for name, why in submission.broken.items():
            if name not in broken_before:
                self._incident(index, f"{why}; its later calls failed at once")
        self.log.debug("test %s took %.2f s", index, time.monotonic() - started)

    # --- outputs --------------------------------------------------------------------------

    def _stream(self, cell, text):
        """Keep ``text`` as the cell's output (the sandbox has cut it already, and
        added a note saying so), while the notebook's output in all has room."""
        if not text:
            return
        text = text[: self.max_output_chars + 500]
        room = self.max_notebook_output - self._printed
        if room <= 0:
            return
        if len(text) > room:
            text = text[:room] + (
                f"\n{CUT}this notebook printed more than "
                f"{self.max_notebook_output:,} characters in all; the rest of its "
                "output was dropped while grading\n"
            )
            self._incident(
                self.nb.cells.index(cell),
                f"the notebook printed more than "
                f"{self.max_notebook_output:,} characters in all: "
                "its later output was dropped",
            )
        self._printed += len(text)
        cell.outputs.append(new_output("stream", name="stdout", text=text))

    @staticmethod
    def _error(cell, name, text):
        text = str(text)[:2_000]
        cell.outputs.append(
            new_output("error", ename=name, evalue=text, traceback=[f"{name}: {text}"])
        )
