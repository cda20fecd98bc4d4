"""Graduation (mcp_lesson.learner_package, tools/graduate.py): the course's own
tests run against a package exported from the lessons.

The masters' export must pass every one of them: the lessons' solutions and
mcp_lesson are proven to agree by the same tests. The untouched learner copies,
a package with one planted bug, a broken one and a missing one get a count and
reasons in plain words, never a traceback.
"""

import re
import sys
from pathlib import Path

import pytest
from processes import run_to_end

from mcp_lesson.course import LESSONS
from mcp_lesson.learner_package import PACKAGE, export_notebook

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"your package passes (\d+)/(\d+) of the course's tests")


def graduate(package, *pytest_args):
    command = [sys.executable, str(ROOT / "tools" / "graduate.py"), str(package)]
    run = run_to_end(command + (["--", *pytest_args] if pytest_args else []), 900, cwd=ROOT)
    output = run.stdout + run.stderr
    assert "Traceback" not in output, output[-3000:]
    return run.returncode, output


def export(folder, tmp_path):
    package = tmp_path / PACKAGE
    for name in LESSONS:
        if (folder / name).exists():
            export_notebook(folder / name, package)
    return package


@pytest.fixture(scope="module")
def masters_package(tmp_path_factory):
    return export(ROOT / "notebooks", tmp_path_factory.mktemp("masters"))


def test_the_masters_solutions_pass_every_test_of_the_course(masters_package):
    code, output = graduate(masters_package)
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code == 0 and passed == total and total >= 200, output[-2000:]


def test_the_untouched_learner_package_gets_a_count_and_reasons(tmp_path):
    code, output = graduate(export(ROOT / "notebooks" / "learner", tmp_path))
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code != 0 and passed < total
    assert "classify is not implemented yet" in output
    assert "create_request" in output and "error_response" in output


def test_a_planted_bug_fails_and_is_named_in_plain_words(masters_package, tmp_path):
    planted = tmp_path / PACKAGE
    planted.mkdir()
    for path in masters_package.iterdir():
        text = path.read_text(encoding="utf-8")
        if path.name == "lesson_03.py":  # is_id takes a bool for an integer id
            text = text.replace("return isinstance(value, int) and not isinstance(value, bool)",
                                "return isinstance(value, int)")
            assert "return isinstance(value, int)\n" in text
        (planted / path.name).write_text(text, encoding="utf-8")
    code, output = graduate(planted, "-k", "id")
    assert code != 0
    assert re.search(r"x bool is not an integer id \[True\]: .*request", output), output[-2000:]


def test_a_broken_lesson_file_is_reported_and_the_others_still_load(masters_package, tmp_path):
    broken = tmp_path / PACKAGE
    broken.mkdir()
    for path in masters_package.iterdir():
        (broken / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (broken / "lesson_04.py").write_text("def error_response(:\n", encoding="utf-8")
    code, output = graduate(broken, "-k", "error")
    assert code != 0
    assert "lesson_04.py: SyntaxError" in output
    assert "error_response is not implemented yet" in output or "error_response" in output


def test_no_package_at_all(tmp_path):
    code, output = graduate(tmp_path / "nowhere")
    assert code != 0 and "There is no package" in output
