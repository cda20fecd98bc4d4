"""The judge's verdicts as data, and the teacher's page made of them, without a class to grade
(tests/classroom/test_insight.py grades one for real): the watcher of the hidden tests' loop,
the records of a notebook, what the page and its data files do with a student's text."""

import csv
import json
import re

import pytest

from classroom.insight_class import ROOT  # noqa: F401 - puts the checkout on sys.path
from mcp_lesson.exercises.hidden_tests import hidden_tests, watched
from tools.insight import classdata, page, records, tables

CASES = [
    (1, 1, "one is one"),
    (2, 20, "two is twenty"),
    (3, 3, "three is three"),
    (4, 40, "four is forty"),
]


def identity(value):
    return value


def failure(cases, watcher=None):
    try:
        if watcher is None:
            hidden_tests(identity, cases)
        else:
            with watched(watcher):
                hidden_tests(identity, cases)
    except AssertionError as exc:
        return str(exc)
    return None


def test_a_watcher_is_told_every_case_and_the_first_failure_is_raised_as_before():
    told = []
    assert failure(CASES, lambda *verdict: told.append(verdict)) == failure(CASES)
    assert [(why, passed, value) for _, why, _, passed, value in told] == [
        ("one is one", True, None),
        ("two is twenty", False, "gave 2"),
        ("three is three", True, None),
        ("four is forty", False, "gave 4"),
    ]
    assert failure(CASES[:1], lambda *verdict: None) is None


def graded(sheet, cell, source, namespace):
    with sheet.watching(cell):
        exec(compile(source, "<test>", "exec"), dict(namespace))


def test_a_sheet_keeps_each_case_and_a_cell_of_its_own_loop_as_one_verdict(tmp_path):
    sheet = records.Sheet("ann", "03_classifying", "03_classifying", tmp_path / records.FOLDER)
    loop = "from mcp_lesson.exercises.hidden_tests import hidden_tests\nhidden_tests(identity, CASES)\n"
    with pytest.raises(AssertionError):
        graded(sheet, "identity-tests", loop, {"identity": identity, "CASES": CASES})
    own = 'assert identity(5) == 50, "five is fifty:\\n  identity(5)\\n  gave 5"\n'
    with pytest.raises(AssertionError):
        graded(sheet, "own-tests", own, {"identity": identity})
    graded(sheet, "fine-tests", "assert identity(1) == 1\n", {"identity": identity})
    with pytest.raises(NameError):
        graded(sheet, "missing-tests", "missing(1)\n", {})
    sheet.save()
    found = records.read(tmp_path, "03_classifying")
    assert [
        (v["exercise"], v["rule"], v["passed"], v["value"], v["whole_cell"]) for v in found
    ] == [
        ("identity", "one is one", True, None, False),
        ("identity", "two is twenty", False, "2", False),
        ("identity", "three is three", True, None, False),
        ("identity", "four is forty", False, "4", False),
        ("own", "five is fifty", False, "identity(5) gave 5", True),
        ("fine", None, True, None, True),
        ("missing", records.NOT_WRITTEN, False, "NameError: name 'missing' is not defined", True),
    ]
    assert {v["student"] for v in found} == {"ann"}


def test_records_in_the_wrong_place_or_with_odd_names_are_not_kept(tmp_path):
    folder = tmp_path / records.FOLDER
    assert records.Sheet("../eve", "03_classifying", "03_classifying", folder).path is None
    records.Sheet("../eve", "03_classifying", "03_classifying", folder).save()
    assert not folder.exists()
    sheet = records.Sheet("bob", "03_classifying", "03_classifying", folder)
    sheet._add("x-tests", "x", "x", "a rule", "x(1)", False, "gave 2")
    sheet.save()
    assert len(records.read(tmp_path, "03_classifying")) == 1
    moved = folder / "03_classifying" / "carl" / f"03_classifying{records.SUFFIX}"
    moved.parent.mkdir()
    moved.write_text(sheet.path.read_text() + "{not json\n[1]\n")  # bob's lines in carl's place
    assert [v["student"] for v in records.read(tmp_path, "03_classifying")] == ["bob"]
    records.Sheet(
        "bob", "03_classifying", "03_classifying", folder
    )  # a new grading: the old one goes
    assert not sheet.path.exists() and records.read(tmp_path, "03_classifying") == []


def test_the_records_are_beside_the_judges():
    from tools.grading.autograde import RECORDS

    assert records.FOLDER == RECORDS


MARKUP = '<script>window.pwned = 1</script><img src=x onerror="alert(1)">'


def a_class():
    exercises = [
        classdata.Exercise(
            "03_classifying",
            "is_object-tests",
            "is_object",
            1.0,
            "source/03_classifying/03_classifying.ipynb",
            "Rule 1",
            "Rule-1",
            "c1",
        )
    ]
    verdicts = [
        {
            "student": s,
            "notebook": "03_classifying",
            "cell": "is_object-tests",
            "exercise": "is_object",
            "function": "is_object",
            "rule": "a bool is not an object",
            "call": "is_object(True)",
            "passed": s == "ann",
            "value": None if s == "ann" else repr(MARKUP),
            "whole_cell": False,
        }
        for s in ("ann", "bob", "=cmd")
    ]
    return classdata.Class(
        "03_classifying",
        exercises,
        {"ann": MARKUP, "bob": "", "=cmd": "", "dan": ""},
        {
            "ann": {"is_object-tests": (1.0, 1.0)},
            "bob": {"is_object-tests": (0.0, 1.0)},
            "=cmd": {"is_object-tests": (0.0, 1.0)},
        },
        verdicts,
    )


def test_the_page_shows_a_students_text_and_renders_none_of_it():
    from tools.grading.sanitize import PAGE_POLICY

    text = page.build(a_class())
    assert len(re.findall(r"<script", text)) == 1 and "<img" not in text
    assert html_unescaped(MARKUP) in text
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text).group(1)
    assert policy.startswith(
        PAGE_POLICY + "; script-src 'sha256-"
    )  # the course's policy, and one hash
    missed = classdata.missed_rules(a_class())
    assert [(m.rule, m.students) for m in missed] == [("a bool is not an object", ("=cmd", "bob"))]


def html_unescaped(text):
    import html

    return html.escape(text, quote=True)


def test_the_data_files_hold_every_student_and_no_formula(tmp_path):
    files = tables.write(a_class(), tmp_path)
    assert len(files) == 3
    with open(tmp_path / "03_classifying-grid.csv", newline="", encoding="utf-8") as handle:
        grid = list(csv.DictReader(handle))
    assert [row["student"] for row in grid] == ["ann", "bob", "'=cmd", "dan"]
    assert [row["handed_in"] for row in grid] == ["True", "True", "True", "False"]
    lines = (tmp_path / "03_classifying-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["student"] for line in lines] == ["ann", "bob", "=cmd"]


def test_the_stub_is_not_written_yet_and_a_text_that_names_it_is_an_answer(tmp_path):
    def stub(value):
        raise NotImplementedError

    def wordy(value):
        return "NotImplementedError"

    sheet = records.Sheet("ann", "03_classifying", "03_classifying", tmp_path)
    for function in (stub, wordy):
        with pytest.raises(AssertionError):
            graded(
                sheet,
                f"{function.__name__}-tests",
                "from mcp_lesson.exercises.hidden_tests import hidden_tests\nhidden_tests(f, [(1, 1, 'one')])\n",
                {"f": function},
            )
    assert [v["rule"] for v in sheet.verdicts] == [records.NOT_WRITTEN, "one"]
