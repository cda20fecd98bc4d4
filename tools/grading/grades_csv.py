"""``nbgrader export`` as the course wants it: ``grades.csv`` with one row per
student and assignment, in four columns.

    student,assignment,score,max_score
    alice,03_classifying,12.0,12.0

Every student in the gradebook gets a row for every assignment, in name order;
a student who submitted nothing for an assignment scores 0 (as nbgrader's own
CSV export does). The score is nbgrader's: the autograder's points (or a
grader's manual ones where given) less any late penalty, never below 0.
Written with the csv module, so a student id with a comma stays one field.
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
            found.append({"student": student.id, "assignment": assignment.name,
                          "score": float(score), "max_score": float(assignment.max_score)})
    return sorted(found, key=lambda row: (row["student"], row["assignment"]))


class GradesCsv(ExportPlugin):
    """Write grades.csv (or the file ``--to`` names): student, assignment, score, max_score."""

    def export(self, gradebook):
        dest = self.to or "grades.csv"
        found = rows(gradebook, [str(s) for s in self.student], [str(a) for a in self.assignment])
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(found)
        self.log.info("Wrote %d rows to %s", len(found), dest)
