"""Shared pytest settings, and graduation: the course's tests run against a
learner's own package (``pytest --graduate DIR``; see tests/implementation.py)."""

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

import implementation

# Shared machines are noisy: a slow example is not a failure (speed is the
# benchmark's business, never a test's), so hypothesis gets no deadline.
settings.register_profile(
    "course", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("course")

from mcp_lesson.learner_package import GRADUATION_FILES  # noqa: E402  (what graduation runs)
SHOWN_FAILURES = 5


def pytest_addoption(parser):
    parser.addoption("--graduate", metavar="DIR", default=None,
                     help="run the course's tests of the functions the lessons build "
                          "against the package in DIR instead of mcp_lesson")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "course_only: tests mcp_lesson itself only (no lesson builds it); "
                   "skipped when graduating a learner's package")
    implementation.use(config.getoption("--graduate"))
    if implementation.GRADUATING is not None:
        # A learner's package fails often: say so at once, without hypothesis
        # spending seconds per test shrinking the example.
        settings.register_profile("graduation", parent=settings.get_profile("course"),
                                  phases=[Phase.explicit, Phase.reuse, Phase.generate])
        settings.load_profile("graduation")


def pytest_collection_modifyitems(config, items):
    if implementation.GRADUATING is None:
        return
    skip = pytest.mark.skip(reason="no lesson builds this: it tests mcp_lesson itself")
    kept = []
    for item in items:
        if item.path.name not in GRADUATION_FILES:
            continue
        if item.get_closest_marker("course_only"):
            item.add_marker(skip)
        kept.append(item)
    items[:] = kept


def _in_words(nodeid):
    """ "tests/test_x.py::test_bool_is_not_an_integer_id[True]" -> "bool is not an integer id [True]" """
    name = nodeid.split("::")[-1]
    match = re.match(r"test_(\w+?)(\[.*\])?$", name)
    if not match:
        return name
    words = match.group(1).replace("_", " ")
    return words + (f" {match.group(2)}" if match.group(2) else "")


def _unwritten(report):
    """The name of the unwritten function a failure ran into, or None."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is None or "NotImplementedError" not in crash.message:
        return None
    found = re.search(r"NotImplementedError: (\w+) is not in your package", crash.message)
    if found:
        return found.group(1)
    try:  # the stub's own line: name the function it sits in
        lines = Path(crash.path).read_text(encoding="utf-8").splitlines()[: crash.lineno]
        for line in reversed(lines):
            match = re.match(r"\s*def (\w+)\(", line)
            if match:
                return match.group(1)
    except (OSError, TypeError, ValueError):
        pass
    return "a function"


def _reason(report):
    name = _unwritten(report)
    if name:
        return f"{name} is not implemented yet"
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not line.strip().startswith(("Use -v", "Full diff"))]
    text = " / ".join(lines[:3])
    return text if len(text) <= 220 else text[:217] + "..."


def pytest_terminal_summary(terminalreporter):
    if implementation.GRADUATING is None:
        return
    stats = terminalreporter.stats
    failed = [r for r in stats.get("failed", []) + stats.get("error", []) if r.when in ("call", "setup")]
    passed = [r for r in stats.get("passed", []) if r.when == "call"]
    total = len(passed) + len(failed)
    write = terminalreporter.write_line
    write("")
    if implementation.PROBLEM:
        write(f"Your package at {implementation.GRADUATING} has a problem: {implementation.PROBLEM}")
    write(f"your package passes {len(passed)}/{total} of the course's tests")
    todo = [name for name in map(_unwritten, failed) if name]
    if todo:
        names = ", ".join(sorted(set(todo)))
        write(f"  {len(todo)} of the failures meet a function not implemented yet ({names})")
    for report in failed[:SHOWN_FAILURES]:
        write(f"  x {_in_words(report.nodeid)}: {_reason(report)}")
    if len(failed) > SHOWN_FAILURES:
        write(f"  ... and {len(failed) - SHOWN_FAILURES} more")
    if total and not failed:
        write("Congratulations: your package does everything the course's tests ask.")
