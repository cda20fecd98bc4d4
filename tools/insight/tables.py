"""The page's data for the teacher's own tools (pandas, a spreadsheet), beside the page:

* ``<assignment>-grid.csv``: a row per student and exercise (points, cases passed, failed and
  not written, and whether it was handed in);
* ``<assignment>-rules.csv``: a row per rule the class missed (the exercise, the rule's words,
  how many students, who);
* ``<assignment>-verdicts.jsonl``: every verdict of the judge's records, one JSON object a line.

A text that a spreadsheet would take for a formula (it starts with ``=``, ``+``, ``-`` or
``@`` and is not a number) is written with a ``'`` before it.
"""

import csv
import json
from pathlib import Path

from tools.insight.classdata import missed_rules, rule_of

GRID = (
    "student",
    "name",
    "exercise",
    "handed_in",
    "score",
    "max_score",
    "cases_passed",
    "cases_failed",
    "cases_not_written",
)
RULES = ("exercise", "rule", "students", "who")


def _cell(value):
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


def _write_csv(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row[c]) for c in columns])


def grid_rows(klass):
    for student in klass.students:
        for exercise in klass.exercises:
            handed_in = student in klass.scores
            score, top = klass.scores.get(student, {}).get(exercise.cell, (0.0, exercise.points))
            passed, failed, todo = klass.cases(student, exercise.name)
            yield {
                "student": student,
                "name": klass.students[student],
                "exercise": exercise.name,
                "handed_in": handed_in,
                "score": score if handed_in else "",
                "max_score": top,
                "cases_passed": passed,
                "cases_failed": failed,
                "cases_not_written": todo,
            }


def write(klass, folder):
    """Write the three files into ``folder``; returns [(file name, what it holds)]."""
    folder = Path(folder)
    name = klass.assignment
    grid, rules, verdicts = (f"{name}-grid.csv", f"{name}-rules.csv", f"{name}-verdicts.jsonl")
    _write_csv(folder / grid, GRID, grid_rows(klass))
    _write_csv(
        folder / rules,
        RULES,
        (
            {
                "exercise": m.exercise,
                "rule": m.rule,
                "students": len(m.students),
                "who": " ".join(m.students),
            }
            for m in missed_rules(klass)
        ),
    )
    with open(folder / verdicts, "w", encoding="utf-8") as handle:
        for verdict in klass.verdicts:
            handle.write(
                json.dumps(
                    {"assignment": name, **verdict, "rule_shown": rule_of(verdict)},
                    ensure_ascii=True,
                )
                + "\n"
            )
    return [
        (grid, "points and cases, a row per student and exercise (CSV)"),
        (rules, "every rule missed, with who missed it (CSV)"),
        (verdicts, "every case's verdict, a JSON object a line (JSON Lines)"),
    ]
