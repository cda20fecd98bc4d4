"""Taught, then checked, where it is taught: each rule a lesson's master declares beside its
prose (mcp_lesson.exercises.declared.rules) has a visible case in the cell that checks it, and
graduation demands nothing no lesson teaches.

What graduation demands is read from what it runs: the TypeErrors it holds to naming what was
wrong (``refuses(...)`` in its test files) and the functions whose hidden cases must leave their
argument as it was (``hidden_tests(..., unchanged=True)`` in a graded cell)."""

import ast
import json
import re
from pathlib import Path

from wrong_versions import TAUGHT

from mcp_lesson.exercises import cases as _cases
from mcp_lesson.exercises import (
    declared,
    graduation,
    http_cases,
    registry,
    server_cases,
    traffic_cases,
)

ROOT = Path(__file__).resolve().parents[2]
MASTERS = ROOT / "notebooks"
#: A call that checks ``{name}`` in a lesson's cell (the lessons' own checks included).
CHECKS = r"\b(?:check|self_check|agree|expect|check_at|check_mine|check_lesson)\(\s*['\"]?{name}\b"
#: The rule a refusal's words are held to, and the rule of a judge that leaves its argument alone.
NAMES, LEAVES = "names-what-was-wrong", "leaves-its-argument"


def _cells(notebook, folder=MASTERS):
    return json.loads((folder / notebook).read_text(encoding="utf-8"))["cells"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _case_names(code):
    """The names of the cases of every table of the case modules that ``code`` names."""
    names = set()
    for module in (_cases, http_cases, server_cases, traffic_cases):
        for attribute, value in vars(module).items():
            if (
                attribute.isupper()
                and isinstance(value, list)
                and re.search(rf"\b{attribute}\b", code)
            ):
                names |= {case.name for case in value if hasattr(case, "name")}
    return names


def problems_of(rule, folder=MASTERS):
    """What is wrong with ``rule`` (a declared.Rule), in words: [] when it is checked, with a
    visible case of each of its names, in a code cell below the prose that teaches it."""
    cells = _cells(rule.notebook, folder)
    ids = [cell.get("id") for cell in cells]
    if rule.checked_in not in ids:
        return [f"{rule.rule}: no cell {rule.checked_in} in {rule.notebook}"]
    checking = cells[ids.index(rule.checked_in)]
    found = []
    if ids.index(rule.checked_in) < ids.index(rule.taught_in) or checking["cell_type"] != "code":
        found.append(
            f"{rule.rule}: {rule.checked_in} is not a code cell below the prose that teaches it"
        )
    if not re.search(CHECKS.format(name=re.escape(rule.function)), _source(checking)):
        found.append(f"{rule.rule}: {rule.checked_in} runs no check of {rule.function}")
    visible = "\n".join(
        _source(cell).split(declared.HIDDEN)[0] for cell in cells if cell["cell_type"] == "code"
    )
    names = _case_names(visible)
    if rule.function in registry.SHARED:
        names |= {case.name for case in registry.SHARED[rule.function][1]}
    if not rule.cases:
        found.append(f"{rule.rule}: no visible case")
    found += [
        f"{rule.rule}: no visible case {case!r} for {rule.function}"
        for case in rule.cases
        if case not in names and case not in visible
    ]
    printed = "".join("".join(output.get("text", "")) for output in checking.get("outputs", ()))
    if re.search(r"^\s+(x |differs on)", printed, re.M):
        found.append(
            f"{rule.rule}: the master's own {rule.function} fails its check in {rule.checked_in}"
        )
    return found


def test_every_rule_a_lesson_teaches_has_a_visible_case_where_it_is_taught():
    rules = declared.rules()
    assert rules
    assert [problem for rule in rules for problem in problems_of(rule)] == []
    functions = {
        exercise.lesson: set(exercise.functions) | {exercise.name} for exercise in declared.read()
    }
    by_lesson = {}
    for exercise in declared.read():
        by_lesson.setdefault(exercise.lesson, set()).update(exercise.functions, {exercise.name})
    assert [rule for rule in rules if rule.function not in by_lesson.get(rule.lesson, ())] == [], (
        functions
    )


def test_a_rule_without_a_visible_case_is_found():
    [rule] = [rule for rule in declared.rules() if rule.rule == "strict-utf8"]
    assert problems_of(rule._replace(cases=("no such case",))) == [
        "strict-utf8: no visible case 'no such case' for classify_json"
    ]
    assert problems_of(rule._replace(cases=())) == ["strict-utf8: no visible case"]
    assert problems_of(rule._replace(checked_in="c03-21"))  # the prose itself checks nothing


def _refused_by_graduation():
    """The functions graduation's test files hold to a refusal's words (``refuses(x, fn, ...)``)."""
    found = set()
    for name in graduation.GRADUATION_FILES:
        for path in (ROOT / "tests").rglob(name):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", None) == "refuses"
                    and len(node.args) > 1
                    and isinstance(node.args[1], ast.Name)
                ):
                    found.add(node.args[1].id)
    return found


def _left_alone_by_hidden_cases():
    """The functions whose hidden cases must leave their argument as it was."""
    found = set()
    for _, _, _, source in declared.graded_cells():
        for call in re.finditer(r"hidden_tests\((\w+),[^\n]*unchanged=True", source):
            found.add(call.group(1))
    return found


def test_graduation_demands_nothing_no_lesson_teaches():
    taught = {
        (rule.function, rule.rule)
        for rule in declared.rules()
        if registry.lesson_of(rule.function) in (None, rule.lesson)
    }
    demands = {(name, NAMES) for name in _refused_by_graduation()} | {
        (name, LEAVES) for name in _left_alone_by_hidden_cases()
    }
    assert {("create_request", NAMES), ("error_response", NAMES), ("reply_for", LEAVES)} <= demands
    assert sorted(demands - taught) == []


def test_each_mistake_the_learners_made_breaks_a_rule_its_lesson_declares():
    taught = {(rule.function, rule.rule) for rule in declared.rules()}
    assert sorted({(name, rule) for name, rule, _, _ in TAUGHT} - taught) == []
