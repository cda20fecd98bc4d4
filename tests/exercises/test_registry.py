"""mcp_lesson.exercises.registry: one row per function a lesson builds, and every part of
the course reads it (self-checks, carry-forward, graduation)."""

import re
from pathlib import Path

import nbformat
import pytest

from mcp_lesson.exercises import agreement
from mcp_lesson.exercises import carry
from mcp_lesson.exercises import learner_package
from mcp_lesson.exercises import registry
from mcp_lesson.exercises import selfcheck
from mcp_lesson.course import LESSONS
from tools.make_learner import MASTERS

ROOT_NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

ROWS = registry.BUILT


def exported_names(lesson):
    """The names the #| export cells of lesson ``lesson``'s master define."""
    [name] = [name for name in LESSONS if name.startswith(lesson + "_")]
    nb = nbformat.read(str(MASTERS / name), as_version=4)
    names = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith(learner_package.MARKER):
            names |= set(re.findall(r"^def (\w+)\(", cell.source, re.M))
    return names


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_each_function_is_exported_by_its_lesson(row):
    assert row.name in exported_names(row.lesson)
    assert row.module == registry.module_of(row.lesson)


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_each_reference_is_the_course_s_function_of_that_name(row):
    found = registry.reference(row.name)
    if row.reference is None:
        assert found is None and row.table, "without a reference, a table must check it"
    else:
        assert callable(found) and found.__name__ == row.name


@pytest.mark.parametrize("row", [row for row in ROWS if row.table], ids=lambda row: row.name)
def test_each_row_s_table_passes_the_course_s_own_version_on_every_case(row):
    """The table a row holds is the one ``check`` runs, and the course's version (its
    reference, or the lesson's own export) passes all of it."""
    mine = registry.reference(row.name) or course_version(row.name)
    report = selfcheck.run_check(mine, row.name)
    assert report.total == len(row.table.cases) > 0
    assert report.all_pass, [r.name for r in report.rows if not r.ok][:5]


@pytest.mark.parametrize("row", [row for row in ROWS if row.reference], ids=lambda row: row.name)
def test_each_row_s_inputs_tell_the_course_s_version_from_a_wrong_one(row):
    """The inputs a row holds are what ``agree`` compares on: the course's version agrees
    with itself there, and a function that answers None to everything does not."""
    pairs = row.inputs()
    assert pairs and agreement.inputs_for(row.name) == pairs
    assert agreement.agrees(registry.reference(row.name), row.name)
    assert not agreement.agrees(lambda *args, **kwargs: None, row.name)


def course_version(name):
    """The master's own version of ``name``, for a row with no reference (lesson 06's), as
    the course's tests take it (tests/implementation.py)."""
    import implementation

    return implementation._course_version(name)


def test_learner_package_does_not_import_course():
    """The cycle course <-> learner_package is gone: both read the registry. (In a fresh
    Python, the package writer, a cell's reading and carry-forward load without the
    lessons' helpers.)"""
    import subprocess
    import sys

    script = ("import sys\nimport mcp_lesson.exercises.learner_package, mcp_lesson.exercises.cells, mcp_lesson.exercises.carry\n"
              "print('mcp_lesson.course' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


def test_carry_forward_refuses_a_function_the_course_has_no_version_of():
    with pytest.raises(ValueError, match="no version of is_reply_to"):
        carry.carry_forward({}, "is_reply_to")


def test_carry_forward_takes_a_right_function_without_a_table_of_its_own(tmp_path, capsys,
                                                                          monkeypatch):
    """reply_for and reply_for_json have no case table: they are the learner's
    when they agree with the course's on their inputs, and only then."""
    monkeypatch.delenv(learner_package.ENVIRONMENT, raising=False)
    package = tmp_path / learner_package.PACKAGE
    for name in LESSONS:
        if (ROOT_NOTEBOOKS / name).exists():
            learner_package.export_notebook(ROOT_NOTEBOOKS / name, package)
    namespace = {}
    carry.carry_forward(namespace, "reply_for", "reply_for_json", folder=tmp_path)
    assert capsys.readouterr().out.splitlines() == ["reply_for: yours", "reply_for_json: yours"]
    errors = package / "errors.py"
    errors.write_text(errors.read_text(encoding="utf-8")
                      + "\n\ndef reply_for(msg):\n    return None\n", encoding="utf-8")
    carry.carry_forward(namespace, "reply_for", folder=tmp_path)
    assert capsys.readouterr().out.splitlines() == ["reply_for: the course's until yours passes"]
    assert namespace["reply_for"] is registry.reference("reply_for")


def test_the_start_page_names_every_module_of_the_learners_package():
    page = (ROOT_NOTEBOOKS / "00_start_here.ipynb").read_text(encoding="utf-8")
    for lesson, module in registry.MODULES.items():
        assert f"`{module}` (" in page, (lesson, module)


def test_the_readme_names_every_module_of_the_learners_package_and_its_lessons():
    text = " ".join((ROOT_NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8").split())
    from test_docs import runs  # "02 to 04, 06 and 08 to 10"

    for lesson, module in registry.MODULES.items():
        assert f"`{module}.py` ({lesson})" in text or f"`{module}.py` (lesson {lesson})" in text, (lesson, module)
    assert f"In lessons {runs(sorted(registry.MODULES))}, a cell whose first line is `#| export`" in text
