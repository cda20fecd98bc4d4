"""How long a lesson takes a learner: a rough estimate, the same for every lesson.

    python tools/lesson_time.py            # a table: each lesson, each sitting, in minutes
    python tools/lesson_time.py --check    # exit 1 when a sitting is over SITTING minutes

The start page promises that a sitting takes half an hour or less. Nobody can time
every learner, so the promise is held to an estimate made from what a lesson
asks of its reader, counted in the master notebook:

* reading: the words of its text cells, at :data:`WORDS_A_MINUTE`;
* code to read and run: the non-blank lines of its code cells that the learner
  does not write (a locked test cell's visible checks included, its hidden
  tests not), at :data:`LINES_READ_A_MINUTE`;
* writing: :data:`MINUTES_AN_EXERCISE` for each exercise (a cell with solution
  regions), plus :data:`MINUTES_A_LINE` for each line inside its regions (the
  lines the learner copy leaves the learner to write; comments and blank lines
  not counted).

The rates were set on what learners measured. First, a learner alone took about
4.5 hours for lessons 00 to 08 as they were at commit 5a1b35c. Then
two learners who worked through every lesson, with novice mistakes on purpose,
estimated 235-255 minutes for lessons 00-05 and 335-450 for 06-11, where the
rates of the time (2 minutes an exercise, 0.6 a line written, 20 lines read a
minute) gave 193 and 316: they took longest where a lesson is dense, over the
exercises and the code to read (04: about 45 minutes against 30; 09: 100-140
against 89). The rates below give 00-05 about 245 minutes and 06-11 about 375.
Lesson by lesson the estimate stays rough, so it is a budget to stay under, not
a forecast.

A lesson too long for one sitting may say where to stop: a text cell that
starts with :data:`STOP` ends a sitting, and each sitting is held to the limit
on its own.
"""

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORDS_A_MINUTE = 120
LINES_READ_A_MINUTE = 14
MINUTES_AN_EXERCISE = 3.0
MINUTES_A_LINE = 0.75
#: The most a sitting may take, in minutes: what the start page promises.
SITTING = 30
#: A text cell that starts with this ends a sitting (the next one starts after it).
STOP = "**A good place to stop.**"

_REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION[^\n]*\n(.*?)^[ \t]*### END SOLUTION", re.S | re.M)
_HIDDEN = re.compile(
    r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.S | re.M
)


def _text(cell):
    """A cell's source as one string (nbformat stores it as a string or a list of lines)."""
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def _lines(text):
    return [line for line in text.splitlines() if line.strip()]


def _written(text):
    """The lines a learner writes: those inside the solution regions, but comments."""
    return [
        line
        for region in _REGION.findall(text)
        for line in _lines(region)
        if not line.strip().startswith("#")
    ]


class Sitting:
    """What one sitting of a lesson asks: words, lines read, exercises, lines written."""

    def __init__(self):
        self.words = self.read = self.exercises = self.written = 0

    def add(self, cell):
        text = _text(cell)
        if cell["cell_type"] == "markdown":
            self.words += len(text.split())
        elif cell["cell_type"] == "code":
            text = _HIDDEN.sub("", text)
            written = _written(text)
            if written:
                self.exercises += 1
                self.written += len(written)
            self.read += len(_lines(_REGION.sub("", text)))

    @property
    def minutes(self):
        return (
            self.words / WORDS_A_MINUTE
            + self.read / LINES_READ_A_MINUTE
            + self.exercises * MINUTES_AN_EXERCISE
            + self.written * MINUTES_A_LINE
        )


def sittings(notebook):
    """The sittings of a notebook (a dict, as nbformat stores it), in order."""
    parts = [Sitting()]
    for cell in notebook["cells"]:
        parts[-1].add(cell)
        if cell["cell_type"] == "markdown" and _text(cell).lstrip().startswith(STOP):
            parts.append(Sitting())
    return [part for part in parts if part.words or part.read]


def estimate(path):
    """The minutes of each sitting of the lesson at ``path``."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    return [round(part.minutes) for part in sittings(notebook)]


def lessons():
    from mcp_lesson.exercises.lessons import FILES as LESSONS

    return [ROOT / "notebooks" / name for name in LESSONS]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 when a sitting is estimated at more than {SITTING} minutes",
    )
    args = parser.parse_args(argv)
    over = []
    for path in lessons():
        minutes = estimate(path)
        print(f"{path.stem:24} {sum(minutes):4} min   sittings: {', '.join(map(str, minutes))}")
        over += [
            f"{path.stem} (sitting {n}: {m} min)" for n, m in enumerate(minutes, 1) if m > SITTING
        ]
    if over:
        print(f"over {SITTING} minutes: {', '.join(over)}")
    return 1 if args.check and over else 0


if __name__ == "__main__":
    sys.exit(main())
