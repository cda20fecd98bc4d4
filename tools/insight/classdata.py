"""What the class did in one assignment, put together for the teacher's page: the exercises
(the release's graded cells, in order, with their points and the lesson's section that
teaches each), each student's points from the gradebook, and each case's verdict from the
judge's records (tools/insight/records.py).

The gradebook is read as the SQLite file it is (read only, one query for the whole class):
nbgrader's own objects take a query per submission, which a class of 300 feels.
"""

import collections
import contextlib
import json
import sqlite3
from pathlib import Path
from typing import NamedTuple

from tools.insight import records

#: A visible case's words in a graded cell (the rule is the case itself: its call names it).
VISIBLE = "a visible case above"


class Exercise(NamedTuple):
    notebook: str
    #: The test cell's grade_id ("is_object-tests") and the exercise it grades ("is_object").
    cell: str
    name: str
    points: float
    #: Where the lesson teaches it: the master's file in the course (relative to the course
    #: folder), the heading of its section, that heading's anchor and the solution cell's id.
    source: str = ""
    heading: str = ""
    anchor: str = ""
    cell_id: str = ""


class Missed(NamedTuple):
    """A rule some students missed."""

    exercise: str
    rule: str
    #: The calls that checked it (a rule may have several cases).
    calls: tuple
    students: tuple
    #: The answers given instead, most common first: ((value, how many students), ...).
    values: tuple


class Class:
    """One assignment's class: its exercises, students, points and verdicts."""

    def __init__(self, assignment, exercises, students, scores, verdicts):
        self.assignment, self.exercises, self.verdicts = assignment, exercises, verdicts
        #: Every student of the gradebook, by id, with the name the roster gives (may be "").
        self.students = students
        #: {student: {cell: (score, max)}} of the students who handed the assignment in.
        self.scores = scores
        self._counts = {}
        for v in verdicts:
            key = (v["student"], v["exercise"])
            passed, failed, todo = self._counts.get(key, (0, 0, 0))
            if v["passed"]:
                passed += 1
            elif v.get("rule") == records.NOT_WRITTEN:
                todo += 1
            else:
                failed += 1
            self._counts[key] = (passed, failed, todo)

    def cases(self, student, exercise):
        """(passed, failed, not written) of ``student``'s verdicts on ``exercise``."""
        return self._counts.get((student, exercise), (0, 0, 0))


def rule_of(verdict):
    """The words a verdict's rule is shown by (a visible case is named by its call)."""
    rule = verdict.get("rule") or ""
    if rule == VISIBLE and verdict.get("call"):
        return f"the visible case {verdict['call']}"
    return rule


def missed_rules(klass):
    """The rules the class missed, most students first: a :class:`Missed` each (a function not
    written yet misses no rule: it is counted apart)."""
    grouped = collections.defaultdict(lambda: (set(), set(), collections.defaultdict(set)))
    for v in klass.verdicts:
        if v["passed"] or v.get("rule") == records.NOT_WRITTEN or v["student"] not in klass.scores:
            continue
        students, calls, values = grouped[(v["exercise"], rule_of(v))]
        students.add(v["student"])
        if v.get("call"):
            calls.add(v["call"])
        values[v.get("value") or ""].add(v["student"])
    found = []
    for (exercise, rule), (students, calls, values) in grouped.items():
        common = sorted(
            ((value, len(who)) for value, who in values.items()), key=lambda p: (-p[1], p[0])
        )
        found.append(
            Missed(exercise, rule, tuple(sorted(calls)), tuple(sorted(students)), tuple(common))
        )
    order = {e.name: i for i, e in enumerate(klass.exercises)}
    return sorted(found, key=lambda m: (-len(m.students), order.get(m.exercise, 999), m.rule))


def _connect(course):
    path = Path(course) / "gradebook.db"
    if not path.is_file():
        raise LookupError(
            f"there is no gradebook in {course} yet: grade the class first (make autograde)"
        )
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _sections(master):
    """{solution cell's grade_id: (heading, anchor, cell id)} of a master (read as JSON)."""
    try:
        nb = json.loads(Path(master).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found, heading = {}, ("", "")
    for cell in nb.get("cells", []):
        source = (
            "".join(cell.get("source", ""))
            if isinstance(cell.get("source"), list)
            else str(cell.get("source", ""))
        )
        if cell.get("cell_type") == "markdown":
            for line in source.splitlines():
                if line.startswith("#"):
                    text = line.lstrip("#").strip().replace("`", "").replace("**", "")
                    # JupyterLab's anchor of a heading: its text, spaces as hyphens
                    heading = (text, text.replace(" ", "-"))
        info = cell.get("metadata", {}).get("nbgrader", {})
        if isinstance(info, dict) and info.get("solution") and info.get("grade_id"):
            found[info["grade_id"]] = (*heading, str(cell.get("id", "")))
    return found


def exercises(course, assignment):
    """The graded cells of ``assignment``, in the order of its released notebooks."""
    course = Path(course)
    with contextlib.closing(_connect(course)) as db:
        rows = db.execute(
            "SELECT n.name, bc.name, gc.max_score FROM grade_cells gc JOIN base_cell bc ON gc.id = bc.id "
            "JOIN notebook n ON n.id = bc.notebook_id JOIN assignment a ON a.id = n.assignment_id "
            "WHERE a.name = ? AND gc.cell_type = 'code'",
            (assignment,),
        ).fetchall()
    if not rows:
        raise LookupError(
            f"{assignment} has no graded cells in the gradebook (is it released and graded?)"
        )
    found = []
    for notebook in sorted({row[0] for row in rows}):
        order = _release_order(course / "release" / assignment / f"{notebook}.ipynb")
        master = Path("source") / assignment / f"{notebook}.ipynb"
        sections = _sections(course / master)
        cells = sorted(
            (row for row in rows if row[0] == notebook), key=lambda r: (order.get(r[1], 999), r[1])
        )
        for _, cell, points in cells:
            name = cell[: -len("-tests")] if cell.endswith("-tests") else cell
            heading, anchor, cell_id = sections.get(name, ("", "", ""))
            found.append(
                Exercise(
                    notebook, cell, name, float(points), master.as_posix(), heading, anchor, cell_id
                )
            )
    return found


def _release_order(path):
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    ids = [
        cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") for cell in nb.get("cells", [])
    ]
    return {grade_id: i for i, grade_id in enumerate(ids) if grade_id}


def load(course, assignment):
    """The :class:`Class` of ``assignment`` in the course folder ``course``."""
    course = Path(course)
    found = exercises(course, assignment)
    with contextlib.closing(_connect(course)) as db:
        students = {
            sid: " ".join(part for part in (first, last) if part)
            for sid, first, last in db.execute("SELECT id, first_name, last_name FROM student")
        }
        scores = collections.defaultdict(dict)
        for sid, cell, top, auto, manual, extra in db.execute(
            "SELECT sa.student_id, bc.name, gc.max_score, g.auto_score, g.manual_score, g.extra_credit "
            "FROM grade g JOIN submitted_notebook sn ON g.notebook_id = sn.id "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "JOIN assignment a ON sa.assignment_id = a.id JOIN base_cell bc ON g.cell_id = bc.id "
            "JOIN grade_cells gc ON gc.id = bc.id WHERE a.name = ? AND gc.cell_type = 'code'",
            (assignment,),
        ):
            score = manual if manual is not None else (auto or 0.0)
            scores[sid][cell] = (float(score) + float(extra or 0.0), float(top))
    verdicts = [v for v in records.read(course, assignment) if v["student"] in scores]
    return Class(assignment, found, dict(sorted(students.items())), dict(scores), verdicts)
