"""How long grading a class takes, sandbox and all: a benchmark, never a test.

    .venv/bin/python benchmarks/bench_grading.py [--students 30] [--keep DIR]
    .venv/bin/python benchmarks/bench_grading.py --hostile [--students 4]

Makes a course directory in a temporary folder, releases the graded lessons,
hands in work for N synthetic students (every one a mix: the masters'
solutions, with every third student leaving one exercise as released and
every fifth leaving a whole lesson out), collects it and autogrades it with
the course's own steps (tools/grading/classroom.py, as `make autograde`
runs them). Prints the time of each step, the time per student, and the
class's total against the goal (under 8 minutes for 30
students on the course's 2-core machine).

With ``--hostile``: a class of lesson 03, graded twice side by side, once with honest
students only and once with the red team's attackers beside them (:func:`round_three`):
autograde's and feedback's times, and the honest students' own grading times, each with its
ratio (the honest students' should stay near 1).
"""

import argparse
import copy
import re
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
    done = subprocess.run(
        [sys.executable, str(CLASSROOM), "--course", str(course), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode != 0:
        sys.exit(f"{args[0]} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return time.monotonic() - started, done.stdout


def solutions(master):
    nb = nbformat.read(str(master), as_version=4)
    return {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in nb.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }


def hand_in(release_nb, sources, leave=None):
    nb = copy.deepcopy(release_nb)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in sources and grade_id != leave:
            cell.source = sources[grade_id]
    return nb


# --- the red team's third round, on lesson 03 (the class test, test_judge_class.py, uses it too)

#: Formatting tags left open, each with an attribute of its own (the HTML parser's cost grew
#: with their number squared): two markdown cells of 10,000.
NESTED = "".join(f"<b title={n}>" for n in range(10_000)) + "my notes"
NESTED_IN_PARAGRAPHS = "".join(f"<p><b title={n}>x</p>" for n in range(10_000))
#: A cell that sleeps only when it is run again, after the worker was started again.
REPLAYED = (
    "import os, time\n"
    "if os.path.exists('ran-{0}'):\n"
    "    time.sleep({1})\n"
    "open('ran-{0}', 'w').close()\n"
)
#: The worker's encoder swapped: every dict argument comes back "changed" into half a million
#: keys (10 MB once encoded: past the answer's cap of 8, tools/judge/sandbox.py's Limits).
INFLATE = (
    "import sys\n"
    "_wire = sys.modules.get('wire')\n"
    "if _wire is not None:\n"
    "    _honest = _wire.encode\n"
    "    def _inflated(value, *rest, **options):\n"
    "        if type(value) is list and any(type(item) is dict for item in value):\n"
    "            return _honest([{f'key {n}': n for n in range(500_000)}], *rest, **options)\n"
    "        return _honest(value, *rest, **options)\n"
    "    _wire.encode = _inflated\n"
)
#: What the hostile is_object prints of each argument it is given (the hidden cases too).
SEEN = "SEEN-BY-THE-STUDENT:"
PRINTS = (
    "\n_checked = is_object\n"
    "def is_object(msg):\n"
    f"    print({SEEN!r}, repr(msg))\n"
    "    return _checked(msg)\n"
)


def with_cells(nb, before=(), after=(), markdown=()):
    """``nb`` with code cells ``before`` its first cell and ``after`` its last, and markdown
    cells after its first."""
    from nbformat.v4 import new_code_cell, new_markdown_cell

    nb = copy.deepcopy(nb)
    nb.cells[1:1] = [new_markdown_cell(text) for text in markdown]
    nb.cells[:0] = [new_code_cell(source) for source in before]
    nb.cells.extend(new_code_cell(source) for source in after)
    return nb


def round_three(release_nb, right, timeout):
    """{student: notebook} of lesson 03, one attacker per attack of the red team's third round,
    each with the right answers (``right``: the master's solution cells): the markup that cost
    the cleaner its square, cells that sleep only when run again (``timeout`` seconds a cell)
    before a last cell that loops, the encoder that inflates every changed argument, and an
    is_object that prints what it is given (hidden cases included)."""
    answered = hand_in(release_nb, right)
    sleepy = [REPLAYED.format(n, max(timeout - 1, 1)) for n in range(8)]
    return {
        "x_nested_tags": with_cells(answered, markdown=[NESTED, NESTED_IN_PARAGRAPHS]),
        "x_replays_slowly": with_cells(answered, before=sleepy, after=["while True:\n    pass\n"]),
        "x_inflates_answers": with_cells(answered, before=[INFLATE]),
        "x_prints_hidden": hand_in(release_nb, {**right, "is_object": right["is_object"] + PRINTS}),
    }


#: autograde's line for a student: "  name: 14/14 points (3.2 s)".
STUDENT_LINE = re.compile(r"^  (\S+): [\d.]+/[\d.]+ points \(([\d.]+) s\)", re.MULTILINE)


def hostile_class(honest, timeout, attackers):
    """Grade a class of lesson 03 (``honest`` students, and the attackers when asked): the
    seconds of autograde and feedback, and {student: seconds} from autograde's lines."""
    lesson = "03_classifying"
    base = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    course, inbox = base / "classroom", base / "inbox"
    try:
        run(course, "release", lesson)
        release_nb = nbformat.read(
            str(course / "release" / lesson / f"{lesson}.ipynb"), as_version=4
        )
        right = solutions(ROOT / "notebooks" / f"{lesson}.ipynb")
        work = {f"honest{n:02d}": hand_in(release_nb, right) for n in range(honest)}
        if attackers:
            work.update(round_three(release_nb, right, timeout))
        for student, nb in work.items():
            (inbox / student / lesson).mkdir(parents=True)
            nbformat.write(nb, str(inbox / student / lesson / f"{lesson}.ipynb"))
        run(course, "collect", str(inbox))
        graded, said = run(course, "autograde", lesson, "--timeout", str(timeout))
        feedback, _ = run(course, "feedback", lesson)
        each = {name: float(seconds) for name, seconds in STUDENT_LINE.findall(said)}
        return graded, feedback, each
    finally:
        shutil.rmtree(base, ignore_errors=True)


def hostile(students, timeout):
    """The class with and without the attackers, side by side."""
    rows = {}
    for attackers in (False, True):
        rows[attackers] = hostile_class(students, timeout, attackers)
    (plain_grade, plain_feedback, plain_each), (grade, feedback, each) = rows[False], rows[True]
    honest = [name for name in plain_each if name.startswith("honest")]
    before = sum(plain_each[name] for name in honest) / len(honest)
    after = sum(each.get(name, 0.0) for name in honest) / len(honest)
    print(f"lesson 03, {students} honest students, each cell under {timeout} s")
    print(
        f"  autograde: {plain_grade:.1f} s without the attackers, {grade:.1f} s with them "
        f"({grade / plain_grade:.2f}x)"
    )
    print(
        f"  feedback: {plain_feedback:.1f} s without, {feedback:.1f} s with ({feedback / plain_feedback:.2f}x)"
    )
    print(
        f"  an honest student's grading: {before:.1f} s without, {after:.1f} s with "
        f"({after / max(before, 0.1):.2f}x)"
    )
    for name, seconds in sorted(each.items()):
        if name.startswith("x_"):
            print(f"  {name}: {seconds:.1f} s")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=None, help="30 (4 with --hostile)")
    parser.add_argument("--keep", help="make the course directory here (kept afterwards)")
    parser.add_argument(
        "--hostile",
        action="store_true",
        help="lesson 03 with and without the red team's attackers, side by side",
    )
    parser.add_argument("--timeout", type=int, default=30, help="seconds a cell (--hostile)")
    args = parser.parse_args(argv)
    if args.hostile:
        return hostile(args.students or 4, args.timeout)
    args.students = args.students or 30
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
                release_nb = nbformat.read(
                    str(course / "release" / lesson / f"{lesson}.ipynb"), as_version=4
                )
                leave = (
                    sorted(right[lesson])[number % len(right[lesson])] if number % 3 == 2 else None
                )
                folder = inbox / student / lesson
                folder.mkdir(parents=True)
                nbformat.write(
                    hand_in(release_nb, right[lesson], leave), str(folder / f"{lesson}.ipynb")
                )
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
