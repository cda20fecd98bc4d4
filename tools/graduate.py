"""Graduation: run the course's own tests against a package of the learner's.

    python tools/graduate.py                     # the learner's package, notebooks/learner/my_mcp
    python tools/graduate.py PATH/TO/my_mcp      # any package folder
    python tools/graduate.py --all PATH          # list every failure, not only the first few
    python tools/graduate.py --export notebooks  # export the marked cells of a folder's
                                                 # lessons first (make test does this
                                                 # with the masters), then graduate that

    python tools/graduate.py --every-lesson PATH # pass only when every lesson is written (CI)

Prints "your package passes N/M of the course's tests", then the first real
failures in plain words (what was called, what was expected, what came back),
then the functions not written yet. Exits 0 when everything the package has
written passes and it is complete up to a lesson (lesson 04 invites a learner
to graduate with lessons 01 to 04 written); 1 when a function it has written
fails (or it cannot be read); with --every-lesson, 0 only when every test of
every lesson passes. When the judge's sandbox cannot start here (the course's
failure, never the package's), it says so in one line and exits 2, and nothing
is graded.
"""

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from mcp_lesson.exercises.graduation import graduate  # noqa: E402  (after sys.path is set)
from mcp_lesson.exercises.learner_package import NO_NESTED_RUNS, PACKAGE, export_notebook  # noqa: E402  (after sys.path is set)
from mcp_lesson.exercises.lessons import FILES as LESSONS  # noqa: E402  (after sys.path is set)


def judge_fails_to_start():
    """None when the judge's sandbox starts here; else why not, in one line."""
    from tools.judge.sandbox import NotStarted, Sandbox

    try:
        with Sandbox():
            return None
    except NotStarted as failed:
        return str(failed)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "package",
        nargs="?",
        default=str(ROOT / "notebooks" / "learner" / PACKAGE),
        help="the package folder (default: the learner's, notebooks/learner/my_mcp)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="list every failure (by default, the first few and a count)",
    )
    parser.add_argument(
        "--every-lesson",
        action="store_true",
        help="pass only when every lesson's functions are written and pass (for CI)",
    )
    parser.add_argument(
        "--export",
        metavar="NOTEBOOKS",
        help="export the lessons of this folder into a fresh package first",
    )
    parser.add_argument(
        "pytest_args",
        nargs=argparse.REMAINDER,
        help="after --: more pytest arguments (say, -k bool)",
    )
    args = parser.parse_args(argv)
    os.environ.pop(NO_NESTED_RUNS, None)  # asked for by name: always a real graduation
    if not args.export:
        return _graduate(Path(args.package), args)
    folder = Path(tempfile.mkdtemp(prefix="graduate-"))
    try:  # (the exported package is this run's alone: removed after it)
        package = folder / PACKAGE
        for name in LESSONS:
            if (Path(args.export) / name).exists():
                export_notebook(Path(args.export) / name, package)
        print(f"exported the lessons of {args.export} into a package of this run's")
        return _graduate(package, args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _graduate(package, args):
    failed = judge_fails_to_start()
    if failed:  # the run's error: no test would be the package's fault
        print(f"graduation did not run: {failed}")
        return 2
    extra = [arg for arg in args.pytest_args if arg != "--"]
    if args.all:
        extra.append("--all-failures")  # tests/conftest.py
    if args.every_lesson:
        extra.append("--every-lesson")  # tests/conftest.py
    return 0 if graduate(package, quiet=False, extra=extra) else 1


if __name__ == "__main__":
    sys.exit(main())
