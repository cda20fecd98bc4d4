"""How long grading a class takes, sandbox and all: a benchmark, never a test.

    .venv/bin/python benchmarks/bench_grading.py [--students 30] [--keep DIR]

Makes a course directory in a temporary folder, releases the graded lessons,
hands in work for N synthetic students (every one a mix: the masters'
solutions, with every third student leaving one exercise as released and
every fifth leaving a whole lesson out), collects it and autogrades it with
the course's own steps (tools/grading/classroom.py, as `make autograde`
runs them). Prints the time of each step, the time per student, and the
class's total against the goal (under 8 minutes for 30
students on the course's 2-core machine).
"""

import argparse
import copy
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
CLASSROOM = ROOT / "tools" / "grading" / "classroom.py"
GOAL_MINUTES = 8


def run(course, *args):
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(CLASSROOM), "--course", str(course), *args],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"{args[0]} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return time.monotonic() - started, done.stdout


def solutions(master):
    nb = nbformat.read(str(master), as_version=4)
    return {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("solution")}


def hand_in(release_nb, sources, leave=None):
    nb = copy.deepcopy(release_nb)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in sources and grade_id != leave:
            cell.source = sources[grade_id]
    return nb


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--keep", help="make the course directory here (kept afterwards)")
    args = parser.parse_args(argv)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-grading-"))
    course, inbox = base / "classroom", base / "inbox"
    try:
        seconds = {}
        seconds["release"], _ = run(course, "release")
        lessons = sorted(p.name for p in (course / "release").iterdir() if p.is_dir())
        right = {name: solutions(ROOT / "notebooks" / f"{name}.ipynb") for name in lessons}
        for number in range(args.students):
            student = f"student{number:02d}"
            for index, lesson in enumerate(lessons):
                if number % 5 == 4 and index == number % len(lessons):
                    continue  # this lesson is not handed in
                release_nb = nbformat.read(str(course / "release" / lesson / f"{lesson}.ipynb"),
                                           as_version=4)
                leave = sorted(right[lesson])[number % len(right[lesson])] if number % 3 == 2 else None
                folder = inbox / student / lesson
                folder.mkdir(parents=True)
                nbformat.write(hand_in(release_nb, right[lesson], leave), str(folder / f"{lesson}.ipynb"))
        seconds["collect"], _ = run(course, "collect", str(inbox))
        seconds["autograde"], said = run(course, "autograde")
        total = seconds["autograde"]
        print(f"{args.students} students, {len(lessons)} graded lessons ({', '.join(lessons)})")
        for name, value in seconds.items():
            print(f"  {name}: {value:.1f} s")
        print(f"  autograde per student: {total / args.students:.1f} s")
        verdict = "meets" if total < GOAL_MINUTES * 60 else "misses"
        print(f"  the class: {total / 60:.1f} min ({verdict} the goal of {GOAL_MINUTES} min)")
        print("  " + (said.strip().splitlines() or [""])[-1])
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
