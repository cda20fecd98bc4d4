"""An exercise is declared once, in its lesson's master: its points, its
registry row, its self-check table and the start page's list are read from there
(mcp_lesson/exercises/declared.py, mcp_lesson/core/graded.py), and a test fails where
something typed elsewhere disagrees."""

import json
import re
from pathlib import Path

import pytest

from mcp_lesson.core import graded
from mcp_lesson.exercises import declared, lessons, registry
from mcp_lesson.exercises.selfcheck import run_check
from tools import make_learner

ROOT = Path(__file__).resolve().parents[2]
MASTERS = ROOT / "notebooks"
CELLS = list(declared.graded_cells(MASTERS))


@pytest.mark.parametrize(
    "notebook, grade_id, points, source", CELLS, ids=[f"{c[0]}:{c[1]}" for c in CELLS]
)
def test_each_graded_cell_says_the_points_its_metadata_gives(notebook, grade_id, points, source):
    said = declared.said_points(source)
    assert said is not None, f"{notebook}, {grade_id}: its first line names no points"
    assert said == points, (
        f"{notebook}, {grade_id}: its comment says {said:g} points, nbgrader's metadata {points:g}"
    )
    assert re.search(rf"\({points:g} points?\)", source.split("\n", 1)[0]), "1 point, 2 points"


def test_a_comment_that_disagrees_is_found():
    assert declared.said_points("# Graded tests for x (3 points). This cell is locked.") == 3
    assert declared.said_points("# Graded tests for x (1 point).") == 1
    assert declared.said_points("x = 1") is None


def test_the_lessons_points_are_nbgrader_s_metadata_summed(tmp_path):
    points = declared.points(MASTERS)
    assert points == graded.POINTS
    assert sum(points.values()) == sum(p for _, _, p, _ in CELLS)
    # a point more in one graded cell's metadata is a point more for its lesson, and nothing else
    nb = json.loads((MASTERS / "04_errors.ipynb").read_text(encoding="utf-8"))
    cell = next(
        c
        for c in nb["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade_id") == "reply_for-tests"
    )
    cell["metadata"]["nbgrader"]["points"] += 1
    for name in lessons.FILES:
        if (MASTERS / name).exists():
            (tmp_path / name).write_text(
                (MASTERS / name).read_text(encoding="utf-8"), encoding="utf-8"
            )
    (tmp_path / "04_errors.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    changed = declared.points(tmp_path)
    assert changed == dict(points, **{"04_errors": points["04_errors"] + 1})


def test_every_exported_graded_function_has_a_registry_row_from_its_lesson():
    exported = [e for e in declared.read(MASTERS) if e.exported]
    assert exported
    for exercise in exported:
        assert registry.lesson_of(exercise.name) == exercise.lesson, (
            exercise.name,
            exercise.notebook,
        )
        assert registry.BY_NAME[exercise.name].module == registry.module_of(exercise.lesson)


def test_the_committed_declaration_is_what_the_masters_declare():
    exercises, points = declared.table(MASTERS)
    assert (graded.EXERCISES, graded.POINTS) == (exercises, points), "run `make export`"


def _declared_as(which, **changed):
    [entry] = [entry for entry in graded.EXERCISES if entry[0] == which]
    return tuple(declared.Declared(*entry)._replace(**changed))


def test_no_row_is_typed_by_hand():
    """Every row of the registry is derived from the masters' declarations: the registry
    holds no row of its own, and deriving the committed declaration gives BUILT exactly."""
    assert not hasattr(registry, "WRITTEN")

    def seen(rows):  # a table's judge is a function made each time: its cases say which table it is
        return [row._replace(table=row.table and row.table.cases) for row in rows]

    assert seen(registry.BUILT) == seen(
        sorted(registry.derived(graded.EXERCISES), key=lambda row: row.lesson)
    )
    assert {row.name for row in registry.BUILT} == {entry[0] for entry in graded.EXERCISES}


def test_a_row_of_the_shared_case_table_is_found_by_the_function_s_name():
    """A function with a row in a case module's CHECKS is checked on that table, judged as the
    row says; a function with none is checked on its graded cell's visible cases."""
    [row] = registry.derived([_declared_as("classify")])
    assert row.table.cases is registry.SHARED["classify"][1] and len(row.table.cases) > 10
    assert row.graduates and row.agree_on is None
    [other] = registry.derived(
        [_declared_as("classify", name="classify_again", parameters=("message",))]
    )
    assert other.table.cases is not row.table.cases and len(other.table.cases) == len(
        _declared_as("classify")[-1]
    )
    with pytest.raises(ValueError, match="judges its cases by 'same_nothing'"):
        from mcp_lesson.exercises.tables import shared

        shared("same_nothing", [])


def test_every_row_of_the_shared_case_table_names_a_function_a_master_declares():
    """A case module's CHECKS naming a function no master grades (a typo, a renamed exercise)
    would check nothing: each names a declared function, whose row holds that table."""
    for name, (_how, cases) in registry.SHARED.items():
        assert name in registry.BY_NAME, (
            f"{name} has a row in a case table's CHECKS, but no master grades it"
        )
        assert registry.BY_NAME[name].table.cases is cases


def test_the_shared_inputs_a_function_answers_are_declared_by_its_name_never_guessed():
    """inputs.py's AGREES_ON names the functions checked on shared inputs (their table: those
    inputs, with the course's answers); another function with the same parameters is checked on
    its own graded cell's visible cases."""
    inputs = _agree_inputs()
    assert not hasattr(inputs, "BY_PARAMETERS")
    [row] = registry.derived([_declared_as("reply_for_json")])
    assert row.agree_on is inputs.TEXTS and len(row.table.cases) == len(inputs.TEXTS.pairs())
    [row] = registry.derived(
        [_declared_as("rough_kind", name="rough_again")]
    )  # rough_kind's parameters
    assert row.agree_on is None and len(row.table.cases) == len(_declared_as("rough_kind")[-1])


def test_a_step_of_another_function_does_not_graduate_and_says_so_in_its_graded_cell():
    """Lesson 02's is_integer and is_valid_id, and lesson 03's rule helpers, are steps of
    create_request and classify: their graded cells say so, and graduation judges them through
    those. Every step names a graduating function of its own lesson."""
    steps = {row.name for row in registry.BUILT if not row.graduates}
    assert steps == {
        "is_integer",
        "is_valid_id",
        "is_object",
        "has_version",
        "judge_call",
        "judge_result",
        "judge_error",
    }
    for entry in map(lambda e: declared.Declared(*e), graded.EXERCISES):
        if entry.step_of:
            assert registry.BY_NAME[entry.step_of].graduates
            assert registry.lesson_of(entry.step_of) == entry.lesson
    assert (
        declared.step_of("# Graded tests for x, a step of classify (1 point). Locked.")
        == "classify"
    )
    assert (
        declared.step_of("# Graded tests for x and y, steps of create_request (2 points).")
        == "create_request"
    )
    assert declared.step_of("# Graded tests for classify (4 points).") is None
    [row] = registry.derived([_declared_as("is_object", step_of=None)])
    assert row.graduates


def test_the_course_s_reference_is_the_rules_version_or_the_master_s_export():
    assert registry.course_reference("classify", "03") == "rules.classification.classify"
    assert (
        registry.course_reference("create_request", "02") == "core.messages.create_request"
    )  # rules passes it on
    assert registry.course_reference("audit", "10") == "core.traffic.audit"
    assert registry.course_reference("is_reply_to", "06") == "core.conversation.is_reply_to"
    assert registry.course_reference("fixed_stream", "05") is None  # lesson 05 writes no module


def test_a_graded_function_no_shared_table_names_is_derived_with_its_visible_cases(monkeypatch):
    """A master's new exported function (here lesson 04's reply_for, as if no case module named
    it) gets a row: its lesson's module, the course's reference, and a self-check table of its
    graded cell's visible cases that the course's version passes and a wrong one fails."""
    monkeypatch.delitem(_agree_inputs().AGREES_ON, "reply_for")
    entry = _declared_as("reply_for")
    [row] = registry.derived([entry])
    assert (row.name, row.lesson, row.module, row.reference) == (
        "reply_for",
        "04",
        "errors",
        "rules.classification.reply_for",
    )
    assert row.graduates and len(row.table.cases) == len(entry[-1])
    assert all(r.ok for r in row.table.rows(registry.reference("reply_for"), _printed()))
    assert not any(r.ok for r in row.table.rows(lambda msg: {"wrong": True}, _printed()))
    # a lesson that writes nothing into the package gets no row
    assert registry.derived([_declared_as("reply_for", lesson="05")]) == []


def test_a_derived_row_is_checked_and_borrowed_like_any_other(monkeypatch):
    monkeypatch.delitem(_agree_inputs().AGREES_ON, "reply_for")
    entry = _declared_as("reply_for")
    [row] = registry.derived([entry])
    row = row._replace(name="reply_again")
    monkeypatch.setitem(registry.BY_NAME, "reply_again", row)
    monkeypatch.setattr(registry, "BUILT", registry.BUILT + (row,))
    monkeypatch.setattr(
        "mcp_lesson.exercises.selfcheck.CHECKED", registry.CHECKED + ("reply_again",)
    )
    report = run_check(registry.reference("reply_for"), "reply_again")
    assert report.all_pass and report.total == len(entry[-1])


def _agree_inputs():
    from mcp_lesson.exercises import inputs

    return inputs


def _printed():
    from mcp_lesson.exercises.calling import PrintedOutput

    return PrintedOutput()


def _start_page_table(folder):
    nb = json.loads((Path(folder) / "00_start_here.ipynb").read_text(encoding="utf-8"))
    [cell] = [cell for cell in nb["cells"] if cell.get("id") == make_learner.WHAT_YOU_WRITE_ID]
    return "".join(cell["source"])


def _rows(table):
    return {
        m.group(1): (m.group(2), m.group(3))
        for m in re.finditer(r"^\| \[(\d\d) [^\]]*\]\([^)]*\) \| (.*) \| (.*) \|$", table, re.M)
    }


def test_the_start_page_s_what_you_write_is_made_from_the_masters():
    """The start page's table is what make_learner writes from the masters' declarations
    (`make lessons`, `make learner`), and `make learner --check` (stale) says when it is not."""
    table = _start_page_table(MASTERS)
    assert table == make_learner.what_you_write(MASTERS), "run `make learner`"
    assert not make_learner.start_page_is_stale(MASTERS)
    rows = _rows(table)
    for exercise in declared.read(
        MASTERS
    ):  # every function the learner writes, in its lesson's row
        for function in exercise.written:
            assert f"`{function}`" in rows[exercise.lesson][0], (exercise.lesson, function)
    for notebook, points in declared.points(MASTERS).items():  # and each lesson's points
        assert rows[notebook[:2]][1] == f"{points:g}"


def test_a_new_exercise_reaches_the_start_page_s_table_when_the_learner_copies_are_made(tmp_path):
    """A graded exercise added to a master is in the table (and so in its learner copy) after
    make_learner runs, and not before: the table is stale until then."""
    masters, learner = tmp_path / "masters", tmp_path / "learner"
    masters.mkdir()
    for name in ("00_start_here.ipynb", "04_errors.ipynb"):
        (masters / name).write_text((MASTERS / name).read_text(encoding="utf-8"), encoding="utf-8")
    nb = json.loads((masters / "04_errors.ipynb").read_text(encoding="utf-8"))
    solution = next(
        c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "reply_for"
    )
    tests = next(
        c
        for c in nb["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade_id") == "reply_for-tests"
    )
    new_solution = json.loads(json.dumps(solution)) | {"id": "c04-new"}
    new_solution["source"] = (
        "#| export\ndef reply_twice(msg):\n    ### BEGIN SOLUTION\n    return None\n    ### END SOLUTION\n"
    )
    new_solution["metadata"]["nbgrader"]["grade_id"] = "reply_twice"
    new_tests = json.loads(json.dumps(tests)) | {"id": "t04-new"}
    new_tests["source"] = "# Graded tests for reply_twice (5 points).\ntry_it(reply_twice, 1)\n"
    new_tests["metadata"]["nbgrader"].update(grade_id="reply_twice-tests", points=5)
    nb["cells"] += [new_solution, new_tests]
    (masters / "04_errors.ipynb").write_text(json.dumps(nb), encoding="utf-8")

    assert make_learner.start_page_is_stale(masters)
    assert "../00_start_here.ipynb (its table of what you write)" in make_learner.stale(
        learner, masters
    )
    make_learner.write_all(learner, master_folder=masters)
    assert not make_learner.start_page_is_stale(masters)
    row = _rows(_start_page_table(masters))["04"]
    assert "`reply_twice(msg)`" in row[0] and row[1] == f"{graded.POINTS['04_errors'] + 5:g}"
    assert "`reply_twice(msg)`" in _start_page_table(learner)  # the learner copy has it too


def test_a_lesson_s_points_and_some_exercises_points_are_read_from_the_masters():
    """What the classroom tests expect (full marks, less the exercises a student gets wrong) is
    lesson_points, nbgrader's metadata: never a figure typed in a test."""
    for notebook, total in declared.points(MASTERS).items():
        assert declared.lesson_points(notebook, folder=MASTERS) == total
    by_cell = {
        grade_id: worth for name, grade_id, worth, _ in CELLS if name == "03_classifying.ipynb"
    }
    assert declared.lesson_points("03_classifying", ("classify", "is_object"), MASTERS) == (
        by_cell["classify-tests"] + by_cell["is_object-tests"]
    )
    assert declared.lesson_points("03_classifying", (), MASTERS) == 0
    with pytest.raises(KeyError, match="grades no exercise called create_request"):
        declared.lesson_points("03_classifying", ("create_request",), MASTERS)


def test_the_rules_a_lesson_teaches_are_read_from_its_prose_cells(tmp_path):
    """A markdown cell's mcp_lesson.teaches lists the rules its prose teaches; a rule that lacks
    a member is refused in one line that names the master and the cell."""
    rules = declared.rules(MASTERS)
    assert {(rule.lesson, rule.function, rule.rule) for rule in rules} >= {
        ("03", "classify_json", "strict-utf8"),
        ("04", "reply_for", "leaves-its-argument"),
    }
    [utf8] = [rule for rule in rules if rule.rule == "strict-utf8"]
    assert utf8.notebook == "03_classifying.ipynb" and utf8.taught_in == "c03-21" and utf8.cases
    nb = json.loads((MASTERS / "03_classifying.ipynb").read_text(encoding="utf-8"))
    [prose] = [cell for cell in nb["cells"] if cell.get("id") == "c03-21"]
    del prose["metadata"]["mcp_lesson"]["teaches"][0]["checked_in"]
    (tmp_path / "03_classifying.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(ValueError, match=r"03_classifying.ipynb, cell c03-21: .*'checked_in'"):
        declared.rules(tmp_path)
