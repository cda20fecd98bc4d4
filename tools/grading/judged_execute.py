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
  it. A cell that claims to be a test but is not one of the release's runs in
  the sandbox like any other;
* the course's functions that the lesson's tests ask for are not in the
  sandbox (tools/judge/stand_in.py): one borrowed from ``mcp_lesson`` returns
  None, and earns nothing.

Each incident gets one line in the teacher's log, starting ``[grading]`` (as
before), then the student, the notebook and the cell.
"""

import ast
import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float, Integer

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mcp_lesson.learner_package import python_of  # noqa: E402
from tools.judge import stand_in  # noqa: E402
from tools.judge.learner import DidNotFinish, Submission  # noqa: E402
from tools.judge.sandbox import note  # noqa: E402
from tools.judge.wire import CUT, PRINTED_LIMIT  # noqa: E402

GUARD_LINE = "[grading] "
#: Begins the line that gives the time one notebook took (classroom.py reads it).
TIME_LINE = "[judged] "
_NOTED = []


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
    except Exception:  # noqa: BLE001 - no such notebook: nothing counts as a test
        return {}


def release_sources(notebook, assignment, course=None):
    """The sources of the released notebook's code cells (empty when unreadable)."""
    import nbformat

    try:
        nb = nbformat.read(str(Path(course or Path.cwd()) / "release" / assignment / f"{notebook}.ipynb"),
                           as_version=4)
    except Exception:  # noqa: BLE001
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

    timeout = Integer(30, help="Seconds each cell (and each call a test makes) may run").tag(config=True)
    max_output_chars = Integer(100_000, help="Characters of output kept per cell").tag(config=True)
    notebook_limit = Float(600.0, help="Seconds the whole notebook may use in the sandbox").tag(config=True)

    def _where(self, index):
        cell = self.nb.cells[index]
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        label = f"cell {index + 1}" + (f" ({grade_id})" if grade_id else "")
        return f"{self.student} {self.notebook}: {label}"

    def _incident(self, index, text):
        self.log.warning("%s%s: %s", GUARD_LINE, self._where(index), text)

    def preprocess(self, nb, resources):
        began = time.monotonic()
        info = resources.get("nbgrader", {})
        self.nb, self.student, self.notebook = nb, info.get("student", "?"), info.get("notebook", "?")
        if not _NOTED:  # once a run (classroom.py says it once a day)
            _NOTED.append(True)
            self.log.info("%s", note())
        tests = release_tests(self.notebook, info.get("assignment", ""))
        self._release_sources = release_sources(self.notebook, info.get("assignment", ""))
        lib = Path(tempfile.mkdtemp(prefix="judge-lib-"))
        stand_in.write(lib)
        submission = Submission(None, lib, call_limit=float(self.timeout),
                                budget=float(self.notebook_limit))
        shutil.rmtree(lib, ignore_errors=True)
        self._errors = []
        try:
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                cell.outputs = []
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                if not _is_test(cell):
                    self._student_cell(index, cell, submission)
                elif grade_id in tests:  # the gradebook's source, whatever the cell says
                    cell.source = tests[grade_id]
                    self._test(index, cell, submission)
                else:
                    self._error(cell, "NotATest", f"{grade_id!r} is not a test of this lesson")
                    self._incident(index, "is marked as a test but is not one of the lesson's: "
                                          "not run, no points")
        finally:
            submission.close()
        self._report_errors()
        self.log.info("%s%s %s: %.1f s", TIME_LINE, self.student, self.notebook, time.monotonic() - began)
        return nb, resources

    def _report_errors(self):
        """A line for each solution cell that stopped with an error, and one for the
        first other cell that did, with a count of the rest."""
        own = [(i, e) for i, e, solution in self._errors if solution]
        # The lesson's own cells may fail in the sandbox (a server, the course's
        # tables): only a cell the student changed is worth a line.
        other = [(i, e) for i, e, solution in self._errors if not solution
                 and self.nb.cells[i].source not in self._release_sources]
        for index, error in own + other[:1]:
            text = f"stopped with {error.get('type')}: {str(error.get('text', ''))[:150]}"
            if other and index == other[0][0] and len(other) > 1:
                text += (f" (and {len(other) - 1} more cell{'s' * (len(other) > 2)} of the lesson "
                         "stopped with an error)")
            self._incident(index, text)

    # --- the student's cells, in the sandbox ---------------------------------------------

    def _student_cell(self, index, cell, submission):
        source, left_out = python_of(cell.source)
        if not source.strip():
            return
        if submission.spent > self.notebook_limit:
            self._error(cell, "NotRun", f"not run: the notebook used up its {self.notebook_limit:g} s")
            return
        printed, error = submission.run_cell(source, f"<cell {index + 1}>", float(self.timeout))
        self._stream(cell, printed)
        if CUT in printed:
            self._incident(index, f"printed more than {PRINTED_LIMIT:,} characters: cut there")
        if error:
            if error.get("type") == "DidNotFinish":
                words = f"this cell gave no answer ({error.get('text')}) and was stopped"
                self._error(cell, "CellTimeoutError", words)
                self._incident(index, words)
                return
            line = f" (line {error['line']})" if error.get("line") else ""
            self._error(cell, error.get("type", "Exception"), f"{error.get('text', '')}{line}")
            self._errors.append((index, error, bool(cell.metadata.get("nbgrader", {}).get("solution"))))

    # --- a test of the release, here --------------------------------------------------

    def _test(self, index, cell, submission):
        printed = _Printed(self.max_output_chars)
        submission.printed_to = printed.write
        namespace = {"__name__": "__graded__"}
        asked = free_names(cell.source)
        submission.refused = asked  # a graded function may not borrow the course's own
        for name in submission.names():
            if name in asked:  # the functions the test calls, never a repr or isinstance
                namespace[name] = submission.function(name)
        started = time.monotonic()
        broken_before = dict(submission.broken)
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                exec(compile(cell.source, f"<test {cell.metadata['nbgrader']['grade_id']}>", "exec"),
                     namespace)
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
        for name, why in submission.broken.items():
            if name not in broken_before:
                self._incident(index, f"{why}; its later calls failed at once")
        self.log.debug("test %s took %.2f s", index, time.monotonic() - started)

    # --- outputs --------------------------------------------------------------------------

    def _stream(self, cell, text):
        if text:  # the sandbox has cut it already, and added a note saying so
            text = text[:self.max_output_chars + 500]
            cell.outputs.append(new_output("stream", name="stdout", text=text))

    @staticmethod
    def _error(cell, name, text):
        text = str(text)[:2_000]
        cell.outputs.append(new_output("error", ename=name, evalue=text,
                                       traceback=[f"{name}: {text}"]))
