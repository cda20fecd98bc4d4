"""``nbgrader export`` as the course wants it: ``grades.csv`` with one row per
student and assignment, in four columns.

    student,assignment,score,max_score
    alice,03_classifying,12.0,12.0

Every student in the gradebook gets a row for every assignment, in name order;
a student who submitted nothing for an assignment scores 0 (as nbgrader's own
CSV export does). The score is nbgrader's: the autograder's points (or a
grader's manual ones where given) less any late penalty, never below 0.
Written with the csv module, so a student id with a comma stays one field.

Beside it, ``grades-wide.csv`` is the form a gradebook (a spreadsheet, an LMS)
imports: one row per student, one column per assignment, then the total::

    student,01_messages,03_classifying,total
    alice,5.0,12.0,17.0
    bob,,20.0,20.0

There an assignment the student never handed in is blank, not 0 (the total
counts it as 0).
"""

import csv

from nbgrader.api import MissingEntry
from nbgrader.plugins import ExportPlugin

COLUMNS = ("student", "assignment", "score", "max_score")


def rows(gradebook, students=(), assignments=()):
    """The rows of grades.csv as dicts, from an open nbgrader ``Gradebook``."""
    found = []
    for assignment in sorted(gradebook.assignments, key=lambda a: a.name):
        if assignments and assignment.name not in assignments:
            continue
        for student in sorted(gradebook.students, key=lambda s: s.id):
            if students and student.id not in students:
                continue
            try:
                submission = gradebook.find_submission(assignment.name, student.id)
            except MissingEntry:
                score = 0.0
            else:
                score = max(0.0, submission.score - submission.late_submission_penalty)
            found.append(
                {
                    "student": student.id,
                    "assignment": assignment.name,
                    "score": float(score),
                    "max_score": float(assignment.max_score),
                }
            )
    return sorted(found, key=lambda row: (row["student"], row["assignment"]))


def wide_rows(gradebook, students=(), assignments=()):
    """(columns, rows) of grades-wide.csv: a row per student, a column per assignment
    (blank when not handed in), and the total."""
    names = [
        a.name
        for a in sorted(gradebook.assignments, key=lambda a: a.name)
        if not assignments or a.name in assignments
    ]
    found = []
    for student in sorted(gradebook.students, key=lambda s: s.id):
        if students and student.id not in students:
            continue
        row, total = {"student": student.id}, 0.0
        for name in names:
            try:
                submission = gradebook.find_submission(name, student.id)
            except MissingEntry:
                row[name] = ""
                continue
            score = float(max(0.0, submission.score - submission.late_submission_penalty))
            row[name], total = score, total + score
        row["total"] = total
        found.append(row)
    return ["student", *names, "total"], found


def wide_path(dest):
    """Where grades-wide.csv goes: beside ``dest``."""
    import os

    return os.path.join(os.path.dirname(dest), "grades-wide.csv")


class GradesCsv(ExportPlugin):
    """Write grades.csv (or the file ``--to`` names): student, assignment, score,
    max_score; and grades-wide.csv beside it."""

    def export(self, gradebook):
        dest = self.to or "grades.csv"
        found = rows(gradebook, [str(s) for s in self.student], [str(a) for a in self.assignment])
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(found)
        self.log.info("Wrote %d rows to %s", len(found), dest)
        columns, wide = wide_rows(
            gradebook, [str(s) for s in self.student], [str(a) for a in self.assignment]
        )
        with open(wide_path(dest), "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(wide)
        self.log.info("Wrote %d rows to %s", len(wide), wide_path(dest))
