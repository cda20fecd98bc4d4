"""A teacher's day with nbgrader: release, collect, autograde, feedback, grades.

    python tools/grading/classroom.py release [ASSIGNMENT|NOTEBOOK ...]
    python tools/grading/classroom.py collect FOLDER
    python tools/grading/classroom.py autograde [ASSIGNMENT ...] [--timeout SECONDS]
    python tools/grading/classroom.py feedback [ASSIGNMENT ...]
    python tools/grading/classroom.py grades

(``--course DIR`` before the step names the course directory; default
``classroom/`` in the project. The make targets of the same names run these.)

Each step runs nbgrader's own command in the course directory, which is laid
out as nbgrader expects:

* ``nbgrader_config.py``: loads the course's settings (tools/grading/nbgrader_config.py);
* ``source/<a>/<a>.ipynb``: the lesson master, copied there by *release*;
* ``release/<a>/<a>.ipynb``: the student version (``nbgrader generate_assignment``);
* ``submitted/<student>/<a>/``: the class's work, copied there by *collect*
  (the released notebooks only, as regular files: nothing else a student leaves);
* ``autograded/<student>/<a>/``: the graded notebooks (``nbgrader autograde``);
* ``feedback/<student>/<a>/<a>.html``: one page per student and notebook
  (``nbgrader generate_feedback``);
* ``gradebook.db``: nbgrader's SQLite gradebook; ``grades.csv`` (``nbgrader export``);
* ``teacher.log``: every line these steps printed, with the time; ``logs/``:
  nbgrader's full output of each run.

An assignment is a lesson: its name is the master's, without ``.ipynb``
(``03_classifying``). By default *release* hands out every lesson whose master
has autograder cells; a notebook path hands out that notebook instead.

Grading a class goes on whatever a submission does. A class is autograded in one
nbgrader run (nbgrader is imported once, not once a student or a lesson; one run a lesson
when the teacher names some of those collected) and each submission's code runs in a
sandbox of its own, so one submission can only cost its
own points, and each problem gets one line: a cell stopped by the timeout, a
kernel that died, a flood of output cut, a test cell that was edited
(restored) or deleted (put back), a notebook missing (0 points), a submission
nbgrader could not grade at all (0 points, with the log to read).
"""

import argparse
import csv
import shutil
import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[2]) not in sys.path:  # run as a script: the project's root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from mcp_lesson.shared.processes import stop_on_signals

# The steps, a module each; their names stay at this module's address (the tests and the
# teacher's scripts read them here).
from tools.grading.autograde import (  # noqa: F401  (re-exported)
    autograde,
    by_student,
    by_submission,
    failure_in,
    judged_records,
    problems_in,
    release_cells,
    restore_renamed,
    score_of,
    tampering,
    zero,
)
from tools.grading.collect import collect
from tools.grading.course_dir import (  # noqa: F401  (re-exported)
    DEFAULT_COURSE,
    DEFAULT_TIMEOUT,
    NOTEBOOK_BYTES,
    NOTEBOOKS,
    SAFE_NAME,
    STUDENT_BYTES,
    Step,
    _first_error,
    _shown,
    gradebook,
    graded_masters,
    has_tests,
    nbgrader,
    prepare,
    released,
)

# --- release ----------------------------------------------------------------------


def release(course, targets=()):
    """Copy the masters into source/ and run ``nbgrader generate_assignment`` on each."""
    course = prepare(course)
    step = Step(course, "release")
    try:
        graded = graded_masters()
        masters = []
        for target in targets:
            path = Path(target)
            if path.suffix == ".ipynb":
                masters.append(path)  # any notebook the teacher names
            elif NOTEBOOKS / f"{target}.ipynb" in graded:
                masters.append(NOTEBOOKS / f"{target}.ipynb")
            else:
                step.say(
                    f"{target} is not a graded lesson; they are: "
                    f"{', '.join(m.stem for m in graded) or 'none yet'}"
                )
                return 1
        masters = masters or graded
        if not masters:
            step.say("no lesson master has autograder cells yet: nothing to release")
            return 1
        failed = 0
        ready = []
        for master in masters:
            if not master.exists():
                step.say(f"{master}: no such notebook")
                failed += 1
                continue
            source = course / "source" / master.stem
            source.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(master, source / master.name)
            ready.append(master)
        # One nbgrader run for them all when they are all that source/ holds (its assignment id
        # is a pattern: "*" is every folder of source/), one each when the teacher names some:
        # nbgrader takes seconds to start, the work itself a fraction of that.
        in_source = {path.name for path in (course / "source").iterdir() if path.is_dir()}
        every = bool(ready) and in_source == {master.stem for master in ready}
        runs = [("*", ready)] if every else [(master.stem, [master]) for master in ready]
        for assignment, these in runs:
            log = f"release-{'all' if assignment == '*' else assignment}"
            code, output = nbgrader(
                course, "generate_assignment", assignment, "--force", log_name=log
            )
            for master in these:
                made = course / "release" / master.stem / master.name
                if code == 0 and made.exists():
                    step.say(f"released {master.stem}: {_shown(made)}")
                else:
                    failed += 1
                    step.say(
                        f"could not release {master.stem}: {_first_error(output)} "
                        f"(see {_shown(course / 'logs' / f'{log}.log')})"
                    )
        return 1 if failed else 0
    finally:
        step.close()


# --- feedback and grades ----------------------------------------------------------------


def feedback(course, assignments=(), student=None):
    """``nbgrader generate_feedback`` for each assignment: an HTML page per student and notebook
    (``student``'s only, when given: formgrader's button for one student)."""
    course = prepare(course)
    step = Step(course, "feedback")
    try:
        autograded = course / "autograded"
        wanted = list(assignments) or sorted({p.name for p in autograded.glob("*/*") if p.is_dir()})
        if not wanted:
            step.say("nothing has been autograded yet: run `make autograde` first")
            return 1
        failed = 0
        done = {}
        only = [f"--student={student}"] if student else []
        if not assignments:  # one nbgrader run for every assignment ("*"), as release does
            done = dict.fromkeys(
                wanted,
                nbgrader(
                    course, "generate_feedback", "*", "--force", *only, log_name="feedback-all"
                ),
            )
        for assignment in wanted:
            code, output = done.get(assignment) or nbgrader(
                course,
                "generate_feedback",
                assignment,
                "--force",
                *only,
                log_name=f"feedback-{assignment}",
            )
            pages = sorted((course / "feedback").glob(f"*/{assignment}/*.html"))
            if code != 0:
                failed += 1
                step.say(f"{assignment}: feedback failed: {_first_error(output)}")
            step.say(f"{assignment}: {len(pages)} feedback page{'s' * (len(pages) != 1)}")
            for page in pages:
                step.say(f"  {_shown(page)}")
            with_pages = {page.parent.parent.name for page in pages}
            for folder in sorted((course / "submitted").glob(f"*/{assignment}")):
                if folder.parent.name not in with_pages and student in (None, folder.parent.name):
                    step.say(f"  {folder.parent.name}: no page (nothing of theirs could be graded)")
        return 1 if failed else 0
    finally:
        step.close()


def grades(course):
    """``nbgrader export`` to grades.csv (student, assignment, score, max_score)."""
    course = prepare(course)
    step = Step(course, "grades")
    try:
        if not (course / "gradebook.db").exists():
            step.say("there is no gradebook yet: run `make release` first")
            return 1
        code, output = nbgrader(course, "export", "--to=grades.csv", log_name="export")
        if code != 0:
            step.say(f"export failed: {_first_error(output)}")
            return 1
        with open(course / "grades.csv", encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        for row in rows:
            step.say(
                f"{row['student']:<16} {row['assignment']:<24} "
                f"{float(row['score']):g}/{float(row['max_score']):g}"
            )
        step.say(
            f"{len(rows)} row{'s' * (len(rows) != 1)} in {_shown(course / 'grades.csv')}; "
            f"one row per student in {_shown(course / 'grades-wide.csv')}"
        )
        return 0
    finally:
        step.close()


def student_id(text):
    """A student's id as a command's argument: letters, digits and _ . @ - only."""
    if not SAFE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError("a student id is letters, digits and _ . @ - only")
    return text


def main(argv=None):
    stop_on_signals()  # SIGTERM or SIGHUP end nbgrader and its sandboxes, as Ctrl-C does
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--course",
        default=str(DEFAULT_COURSE),
        help="the nbgrader course directory (default: classroom/)",
    )
    steps = parser.add_subparsers(dest="step", required=True)
    p = steps.add_parser("release", help="generate_assignment into release/")
    p.add_argument("targets", nargs="*", help="lesson names (03_classifying) or notebook paths")
    p = steps.add_parser("collect", help="copy FOLDER/<student>/<assignment>/ into submitted/")
    p.add_argument("source", nargs="?", help="the folder with one folder per student")
    p = steps.add_parser("autograde", help="autograde into gradebook.db")
    p.add_argument("assignments", nargs="*")
    p.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds per cell")
    p.add_argument("--student", type=student_id, help="this student's submission only")
    p = steps.add_parser("feedback", help="an HTML page per student and notebook")
    p.add_argument("assignments", nargs="*")
    p.add_argument("--student", type=student_id, help="this student's pages only")
    steps.add_parser("grades", help="export grades.csv")
    args = parser.parse_args(argv)
    if args.step == "release":
        return release(args.course, args.targets)
    if args.step == "collect":
        if not args.source:
            print(
                "say where the submissions are: make collect FROM=<folder>, which holds "
                "one folder per student, each with one folder per assignment"
            )
            return 1
        return collect(args.course, args.source)
    if args.step == "autograde":
        if args.timeout <= 0:
            print("the timeout is a number of seconds above 0")
            return 1
        return autograde(args.course, args.assignments, args.timeout, args.student)
    if args.step == "feedback":
        return feedback(args.course, args.assignments, args.student)
    return grades(args.course)


if __name__ == "__main__":
    sys.exit(main())
