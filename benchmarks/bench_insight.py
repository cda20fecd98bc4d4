"""How long the teacher's page of what the class missed takes, for a class of 30 and of 300,
side by side: a benchmark, never a test.

    .venv/bin/python benchmarks/bench_insight.py [--classes 30 300] [--turns 3] [--keep DIR]

Setup (not timed): lesson 03 released into a course folder of its own for each class size,
then the synthetic students judged in this process on the lesson's own cells (as the judge
does, without its sandbox: tests/classroom/insight_class.py), each with some wrong versions of
the lesson's graded functions (tests/wrong_versions.py, and the planted mistakes of the
insight test) or a stub, and recorded in the gradebook and the judge's records as autograde
leaves them.

Timed, in turns that alternate the sizes: ``python -m tools.insight`` as ``make insight`` runs
it (the teacher's wait, Python's start included), then the page opened from its file in
headless Chromium (navigation start to the load event). Prints the best turn of each (the
build's CPU time too: a shared machine stretches its wall time), the
sizes of the records and of what is written, and the ratios of 300 to 30 (the data should grow
about as the class does: ten times).
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT, ROOT / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from classroom.insight_class import LESSON, make_class  # noqa: E402  (after sys.path is set)


def build_seconds(course):
    """(wall seconds, CPU seconds) of one build, as the teacher runs it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "tools.insight", "--course", str(course), LESSON],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    seconds = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"make insight failed:\n{done.stdout}{done.stderr}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def load_seconds(browser, page_path):
    page = browser.new_page()
    try:
        page.goto(page_path.as_uri(), wait_until="load")
        timing = page.evaluate(
            "() => { const t = performance.getEntriesByType('navigation')[0];"
            " return [t.domContentLoadedEventEnd, t.loadEventEnd]; }"
        )
    finally:
        page.close()
    return timing[1] / 1000


def size_of(path):
    path = Path(path)
    return (
        sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        if path.is_dir()
        else path.stat().st_size
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, nargs="+", default=[30, 300])
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--keep", help="make the course folders here (kept afterwards)")
    args = parser.parse_args(argv)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-insight-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        released = base / "released"
        if not released.exists():
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "tools" / "grading" / "classroom.py"),
                    "--course",
                    str(released),
                    "release",
                    LESSON,
                ],
                check=True,
                capture_output=True,
                cwd=ROOT,
            )
        courses = {}
        for size in args.classes:
            started = time.monotonic()
            courses[size] = make_class(base, released, size)
            print(
                f"setup: a class of {size} judged and recorded in {time.monotonic() - started:.1f} s"
            )
        from playwright.sync_api import sync_playwright

        sys.path.insert(0, str(ROOT / "tests"))
        from chromium import CHROMIUM_ARGS, find_chromium

        builds = {size: [] for size in args.classes}
        loads = {size: [] for size in args.classes}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=find_chromium(), args=CHROMIUM_ARGS
            )
            try:
                for _ in range(args.turns):
                    for size, course in courses.items():
                        builds[size].append(build_seconds(course))
                        loads[size].append(
                            load_seconds(browser, course / "insight" / f"{LESSON}.html")
                        )
            finally:
                browser.close()
        print(
            f"\n{'students':>8} {'build s':>8} {'CPU s':>6} {'load s':>7} {'records kB':>10} "
            f"{'page kB':>8} {'csv+jsonl kB':>12}"
        )
        rows = {}
        for size, course in courses.items():
            folder = course / "insight"
            page = folder / f"{LESSON}.html"
            wall, cpu = min(builds[size])
            rows[size] = (
                wall,
                min(loads[size]),
                size_of(course / "logs" / "judged") / 1024,
                size_of(page) / 1024,
                (size_of(folder) - size_of(page)) / 1024,
                cpu,
            )
            print(
                f"{size:>8} {wall:>8.2f} {cpu:>6.2f} {rows[size][1]:>7.3f} {rows[size][2]:>10.0f} "
                f"{rows[size][3]:>8.0f} {rows[size][4]:>12.0f}"
            )
        if len(rows) == 2:
            (small, a), (large, b) = sorted(rows.items())
            print(
                f"\n{large} / {small} students ({large / small:g}x): build {b[0] / a[0]:.2f}x "
                f"(CPU {b[5] / a[5]:.2f}x), "
                f"load {b[1] / a[1]:.2f}x, records {b[2] / a[2]:.2f}x, page {b[3] / a[3]:.2f}x, "
                f"data files {b[4] / a[4]:.2f}x"
            )
        print(
            f"best of {args.turns} turns each (build: the wall time, and the CPU time of the build's "
            f"process); goals: build under 10 s, load under 2 s; load average {os.getloadavg()[0]:.1f} "
            f"on {os.cpu_count()} cores"
        )
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
