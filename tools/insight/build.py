"""Writes the teacher's page of an assignment and its data into ``<course>/insight/``:
``<assignment>.html`` (tools/insight/page.py) beside the CSV and JSON Lines files
(tools/insight/tables.py), each written aside and then renamed into place."""

import argparse
import os
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.insight import classdata, page, records, tables  # noqa: E402  (after sys.path is set)

FOLDER = "insight"


def build(course, assignment):
    """Write the page and its data for ``assignment``; returns the page's path."""
    course = Path(course)
    klass = classdata.load(course, assignment)
    folder = course / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    files = tables.write(klass, folder)
    path = folder / f"{assignment}.html"
    part = path.with_suffix(".part")
    part.write_text(page.build(klass, files), encoding="utf-8")
    os.replace(part, path)
    return path


def graded(course):
    """The assignments that have verdicts in the judge's records."""
    folder = Path(course) / records.FOLDER
    if not folder.is_dir():
        return []
    return sorted(
        p.name for p in folder.iterdir() if p.is_dir() and any(p.glob(f"*/*{records.SUFFIX}"))
    )


def main(argv=None):
    parser = argparse.ArgumentParser(prog="make insight", description=__doc__)
    parser.add_argument("--course", default=str(ROOT / "classroom"), help="the course folder")
    parser.add_argument("assignments", nargs="*", help="assignments (default: every one graded)")
    args = parser.parse_args(argv)
    course = Path(args.course)
    wanted = args.assignments or graded(course)
    if not wanted:
        print(
            f"no verdicts in {course / records.FOLDER} yet: grade the class first (make autograde)"
        )
        return 1
    failed = 0
    for assignment in wanted:
        began = time.monotonic()
        if not records.SAFE.fullmatch(assignment):
            print(f"{assignment!r} is not an assignment's name (letters, digits and _ . @ -)")
            failed += 1
            continue
        try:
            path = build(course, assignment)
        except LookupError as exc:
            print(f"{assignment}: {exc}")
            failed += 1
            continue
        except ImportError as exc:  # matplotlib, for the charts
            print(
                f"{assignment}: {exc.name or exc} is not installed here: make venv installs it "
                "(or: pip install matplotlib)"
            )
            return 1
        except sqlite3.Error as exc:
            print(f"{assignment}: the gradebook could not be read ({exc})")
            failed += 1
            continue
        print(f"{assignment}: {path} ({time.monotonic() - began:.1f} s)")
    return 1 if failed else 0


if (
    __name__ == "__main__"
):  # python <checkout>/tools/insight/build.py --course ~/course 03_classifying
    sys.exit(main())
