"""The judge's verdicts, case by case, as data: what the grader decided on each case of each
graded cell, for each student, kept in the teacher's course folder beside the gradebook.

While grading, tools/grading/judged_execute.py holds a :class:`Sheet` for each notebook it
judges and runs each test cell of the release inside :meth:`Sheet.watching`: the lesson's
loop of hidden cases (:func:`mcp_lesson.exercises.hidden_tests.hidden_tests`) tells it each
case's verdict (the rule in the lesson's words, the call, passed or not, and what the learner's
function gave, in Python's words). A graded cell that checks with a loop of its own stops at
its first failure: that failure is its one verdict (its first line is its rule), and a cell
that passes has one passing verdict. Nothing is read from a log.

The records are written by the judge's process alone (the learner's code runs in the sandbox,
which cannot write outside its own folder), one JSON Lines file a notebook (a verdict a line),
beside the judge's record of that notebook (``JudgedExecute.records``)::

    <course>/logs/judged/<assignment>/<student>/<notebook>.verdicts.jsonl

replaced whole (written aside, then renamed) each time the notebook is graded, removed when
grading it could not start, and with the judge's records of the assignment at each autograde
of it. :func:`read` gives them back as one verdict a dict.
"""

import contextlib
import json
import os
import re
from pathlib import Path

#: The folder of the judge's records, in the course folder (JudgedExecute.records, autograde's RECORDS).
FOLDER = Path("logs") / "judged"
#: How a notebook's verdicts file is named after the notebook.
SUFFIX = ".verdicts.jsonl"
#: What a record's texts are cut to (a learner's value is never longer in a record).
TEXT_LIMIT = 300
#: The most verdicts one notebook's record keeps (a cell of cases is some dozens).
MOST = 5_000
#: A name that may be a folder of the records as it is (a student id, an assignment, a notebook).
SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}")
#: The words of a verdict for a function the student has not written (its stub, or no def).
NOT_WRITTEN = "not written yet"


def _cut(text, limit=TEXT_LIMIT):
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: What a case or a cell says of the released stub (it raises NotImplementedError): the hidden
#: tests' loop writes "raised NotImplementedError ...", a cell's own loop "gave NotImplementedError()".
_STUB = re.compile(r"(?:^|\s)(?:raised NotImplementedError\b|gave NotImplementedError\()")


def _not_written(text):
    """True for what the released stub gives."""
    return bool(_STUB.search(str(text)))


class Sheet:
    """The verdicts of one notebook of one student's assignment, as the grader decides them."""

    def __init__(self, student, assignment, notebook, folder=None):
        """``folder``: the judge's records (default: those of the course folder, the current one)."""
        self.student, self.assignment, self.notebook = str(student), str(assignment), str(notebook)
        self.folder = Path.cwd() / (folder if folder is not None else FOLDER)
        self.verdicts = []
        self.discard()  # a record of an earlier grading says nothing of this one

    @property
    def path(self):
        """Where the record goes; None for a name that cannot be a folder (nothing is kept)."""
        if not all(SAFE.fullmatch(name) for name in (self.student, self.assignment, self.notebook)):
            return None
        return self.folder / self.assignment / self.student / f"{self.notebook}{SUFFIX}"

    @contextlib.contextmanager
    def watching(self, cell):
        """Record each verdict of the test cell ``cell`` (its grade_id) while the block runs it;
        the cell's own error, when no case said why, is its one verdict."""
        from mcp_lesson.exercises import hidden_tests

        cell = str(cell)
        exercise = cell[: -len("-tests")] if cell.endswith("-tests") else cell
        before = len(self.verdicts)

        def told(function, why, call, passed, value):
            self._add(cell, exercise, function, why, call, passed, value)

        with hidden_tests.watched(told):
            try:
                yield self
            except BaseException as exc:
                if not any(not v["passed"] for v in self.verdicts[before:]):
                    self._stopped(cell, exercise, exc)
                raise
            else:
                if len(self.verdicts) == before:  # a cell with its own loop, passed
                    self._add(cell, exercise, exercise, None, None, True, None, whole=True)

    def _stopped(self, cell, exercise, exc):
        """The verdict of a test cell that stopped on ``exc`` with no case saying why."""
        try:
            text = str(exc)
        except Exception:
            text = ""
        kind = type(exc).__name__
        if kind in ("NameError", "NotLoaded", "NotImplementedError") or _not_written(text):
            rule, value = NOT_WRITTEN, f"{kind}: {text}"
        elif kind == "AssertionError" and text.strip():
            rule, _, rest = text.strip().partition("\n")
            rule, value = (
                rule.rstrip(":").strip(),
                " ".join(line.strip() for line in rest.splitlines()),
            )
        elif kind == "DidNotFinish":
            rule, value = "gives an answer in time (no endless loop, no exit)", text
        else:
            rule, value = f"the graded cell stopped with {kind}", text
        self._add(cell, exercise, exercise, rule, None, False, value or kind, whole=True)

    def _add(self, cell, exercise, function, why, call, passed, value, whole=False):
        if len(self.verdicts) >= MOST:
            return
        value = None if passed else _cut(value if value is not None else "")
        if not passed and why != NOT_WRITTEN and value and _not_written(value):
            why = NOT_WRITTEN
        if isinstance(value, str) and value.startswith("gave "):
            value = value[len("gave ") :]
        self.verdicts.append(
            {
                "cell": cell,
                "exercise": exercise,
                "function": _cut(function or exercise, 80),
                "rule": None if why is None else _cut(why),
                "call": None if call is None else _cut(call),
                "passed": bool(passed),
                "value": value,
                "whole_cell": bool(whole),
            }
        )

    def save(self):
        """Write the record (aside, then renamed into place)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        who = {"student": self.student, "assignment": self.assignment, "notebook": self.notebook}
        part = self.path.with_name(self.path.name + ".part")
        part.write_text(
            "".join(
                json.dumps({**who, **verdict}, ensure_ascii=True) + "\n"
                for verdict in self.verdicts
            ),
            encoding="utf-8",
        )
        os.replace(part, self.path)

    def discard(self):
        """Remove the record (this notebook's grading has not given one yet)."""
        if self.path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()


def read(course, assignment, folder=None):
    """Every verdict of ``assignment`` kept in the course folder ``course`` (or in the judge's
    records ``folder``): a dict each, with its ``student``, ``assignment``, ``notebook`` and
    the fields :class:`Sheet` writes, in order (by student, notebook, then as the cases ran).
    A line that cannot be read, or that names another student, assignment or notebook than
    its file's place, is left out."""
    folder = (Path(course) / FOLDER if folder is None else Path(folder)) / str(assignment)
    found = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob(f"*/*{SUFFIX}")):
        place = {
            "student": path.parent.name,
            "assignment": str(assignment),
            "notebook": path.name[: -len(SUFFIX)],
        }
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, ValueError):
            continue
        for line in lines:
            try:
                verdict = json.loads(line)
            except ValueError:
                continue
            if (
                isinstance(verdict, dict)
                and all(verdict.get(k) == v for k, v in place.items())
                and isinstance(verdict.get("passed"), bool)
            ):
                found.append(verdict)
    return found
