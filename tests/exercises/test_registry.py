"""mcp_lesson.exercises.registry: one row per function a lesson builds, and every part of
the course reads it (self-checks, carry-forward, graduation)."""

import re
from pathlib import Path

import nbformat
import pytest

from mcp_lesson.exercises import agreement, carry, declared, learner_package, registry, selfcheck
from mcp_lesson.exercises.lessons import FILES as LESSONS
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

    script = (
        "import sys\nimport mcp_lesson.exercises.learner_package, mcp_lesson.exercises.cells, mcp_lesson.exercises.carry\n"
        "print('mcp_lesson.course' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


#: A new exercise of lesson 09, as a maintainer would add it: its graded cell's seven visible cases.
SESSION_IDS = [
    ("a1b2-c3d4", True),
    ("", False),
    ("two words", False),
    ("caf\u00e9", False),
    ("~!#$%&", True),
    ("tab\there", False),
    ("x" * 80, True),
]


def is_valid_session_id(value):
    """A session id is visible ASCII (0x21 to 0x7E), at least one character."""
    return type(value) is str and value != "" and all("!" <= ch <= "~" for ch in value)


def _added(monkeypatch, calls, name="is_valid_session_id"):
    """The row lesson 09's master would give a function ``name(value)`` whose graded cell shows
    ``calls``, put in the registry as a ``make export`` would."""
    entry = tuple(declared.Declared(name, "09", name, 2.0, ("value",), None, calls))
    [row] = registry.derived([entry])
    monkeypatch.setitem(registry.BY_NAME, name, row)
    monkeypatch.setattr(registry, "CHECKED", registry.CHECKED + ((name,) if row.table else ()))
    monkeypatch.setattr(selfcheck, "CHECKED", registry.CHECKED)
    return row


def test_a_new_exercise_is_checked_on_its_graded_cell_s_cases_never_on_another_function_s(
    monkeypatch, capsys
):
    """Its parameter is called ``value``, as lesson 02's helpers' are: it is still checked on its
    own seven visible cases (7/7 when right, each miss named when wrong), never on shared inputs
    or classify's table."""
    row = _added(monkeypatch, [((value,), {}, want) for value, want in SESSION_IDS])
    assert row.agree_on is None and len(row.table.cases) == len(SESSION_IDS) == 7
    selfcheck.check(is_valid_session_id)
    assert capsys.readouterr().out == "is_valid_session_id: 7/7 cases pass\n"

    def is_valid_session_id_wrong(value):  # any non-empty str
        return isinstance(value, str) and len(value) > 0

    selfcheck.check(is_valid_session_id_wrong, target="is_valid_session_id", show=7)
    out = capsys.readouterr().out
    assert out.startswith("is_valid_session_id_wrong: 4/7 cases pass"), out
    assert out.count("  x visible case ") == 3 and "'two words'" in out and "/55" not in out
    is_valid_session_id_wrong.__name__ = "is_valid_session_id"
    assert not selfcheck.run_check(is_valid_session_id_wrong).all_pass  # found by its name


def test_a_function_the_course_has_no_case_for_is_said_to_have_no_check(monkeypatch, capsys):
    """A graded cell whose visible part shows no call the data can hold: no table, and the check
    says so, never another function's table."""
    row = _added(monkeypatch, [])
    assert row.table is None and row.inputs() == []
    selfcheck.check(is_valid_session_id)
    assert capsys.readouterr().out == f"is_valid_session_id: {selfcheck.NO_CHECK}\n"
    with pytest.raises(ValueError, match=selfcheck.NO_CHECK):
        selfcheck.run_check(is_valid_session_id)


def test_a_reference_is_declared_never_found_by_a_name(monkeypatch):
    """The course's richer versions are those mcp_lesson.rules.RICHER names, each defined in the
    module it says; a function of the same name in mcp_lesson/rules/ is not taken for another."""
    from mcp_lesson import rules

    for name, module in rules.RICHER.items():
        assert registry.BY_NAME[name].reference == f"rules.{module}.{name}"
        assert registry.reference(name).__module__ == f"mcp_lesson.rules.{module}"
    # explain is a function of mcp_lesson/rules/: a lesson's exercise named so is still its lesson's
    assert registry.course_reference("explain", "09") == "core.transport.explain"
    assert registry.course_reference("explain", "05") is None
    monkeypatch.setitem(rules.RICHER, "explain", "explanation")
    assert registry.course_reference("explain", "09") == "rules.explanation.explain"


@pytest.mark.parametrize("given", [5, 10, "5", "1", "99", None, b"05", "05 "])
def test_may_borrow_takes_a_lesson_s_number_and_refuses_anything_else(given):
    """An int 5 would compare as "5", after every "NN", and borrow lesson 10's audit."""
    with pytest.raises(ValueError, match="a lesson's number"):
        registry.may_borrow(given)


def test_may_borrow_gives_what_the_lessons_before_built():
    assert "audit" not in registry.may_borrow("05") and "audit" in registry.may_borrow("11")
    assert registry.may_borrow("00") == () and "classify" in registry.may_borrow("04")
    assert "classify" not in registry.may_borrow("03")  # what the lesson builds itself


def test_carry_forward_refuses_a_function_the_course_has_no_version_of(monkeypatch):
    monkeypatch.setitem(
        registry.BY_NAME, "is_reply_to", registry.BY_NAME["is_reply_to"]._replace(reference=None)
    )
    with pytest.raises(ValueError, match="no version of is_reply_to"):
        carry.carry_forward({}, "is_reply_to")


def test_the_package_root_gives_every_function_the_course_has_a_version_of():
    """mcp_lesson.<name> is the course's version of every function a lesson builds that has one
    (agree names it so), and ``__all__`` lists those graduation judges, with no list kept by
    hand; importing the root alone does not load the registry."""
    import subprocess
    import sys

    import mcp_lesson

    for row in ROWS:
        if row.reference is not None:
            assert getattr(mcp_lesson, row.name) is registry.reference(row.name), row.name
            assert f"mcp_lesson.{row.name}" in _agree_line(row.name)
        assert (row.name in mcp_lesson.__all__) == (row.reference is not None and row.graduates), (
            row.name
        )
    assert {"is_reply_to", "classify_at", "audit", "read_sse"} <= set(mcp_lesson.__all__)
    with pytest.raises(AttributeError):
        mcp_lesson.is_valid_session_id  # noqa: B018  (the lookup is the test: no lesson builds it yet)
    script = "import sys, mcp_lesson\nprint(any('registry' in name for name in sys.modules))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def _agree_line(name):
    import contextlib
    import io

    from mcp_lesson.course import agree

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        agree(registry.reference(name), table=name)
    return out.getvalue().splitlines()[0]


def test_carry_forward_takes_a_right_function_without_a_table_of_its_own(
    tmp_path, capsys, monkeypatch
):
    """reply_for and reply_for_json are checked on shared inputs (inputs.py's AGREES_ON): they
    are the learner's when they agree with the course's on those inputs, and only then."""
    monkeypatch.delenv(learner_package.ENVIRONMENT, raising=False)
    package = tmp_path / learner_package.PACKAGE
    for name in LESSONS:
        if (ROOT_NOTEBOOKS / name).exists():
            learner_package.export_notebook(ROOT_NOTEBOOKS / name, package)
    namespace = {}
    carry.carry_forward(namespace, "reply_for", "reply_for_json", folder=tmp_path)
    assert capsys.readouterr().out.splitlines() == ["reply_for: yours", "reply_for_json: yours"]
    errors = package / "errors.py"
    errors.write_text(
        errors.read_text(encoding="utf-8") + "\n\ndef reply_for(msg):\n    return None\n",
        encoding="utf-8",
    )
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
        assert f"`{module}.py` ({lesson})" in text or f"`{module}.py` (lesson {lesson})" in text, (
            lesson,
            module,
        )
    assert (
        f"In lessons {runs(sorted(registry.MODULES))}, a cell whose first line is `#| export`"
        in text
    )


def test_every_graduated_function_has_its_wrong_versions():
    """The guard of an exercise's wrong versions, in the fast tier: each function graduation
    judges has five or more in tests/wrong_versions.py, each Python that defines it (whether
    graduation fails each one, in words, is tests/exercises/test_wrong_versions.py's, full tier)."""
    import ast

    from wrong_versions import WRONG

    missing = sorted(set(registry.GRADUATED) - set(WRONG))
    assert not missing, f"no wrong versions in tests/wrong_versions.py for {', '.join(missing)}"
    assert set(WRONG) <= set(registry.GRADUATED), sorted(set(WRONG) - set(registry.GRADUATED))
    few = {name: len(versions) for name, versions in WRONG.items() if len(versions) < 5}
    assert not few, f"fewer than five wrong versions: {few}"
    for name, versions in WRONG.items():
        for mistake, source in versions:
            tree = ast.parse(source)
            assert mistake and any(
                isinstance(node, ast.FunctionDef) and node.name == name for node in tree.body
            ), (name, mistake)
