"""The lesson helpers of mcp_lesson.course: deterministic words, never a traceback."""

import json

import pytest

import mcp_lesson
import mcp_lesson.exercises.graduation
from mcp_lesson import course
from mcp_lesson.exercises.lessons import FILES


def test_lessons_are_read_from_the_files(tmp_path):
    for name, title in [
        ("00_start.ipynb", "00 · Start"),
        ("01_next.ipynb", "Next steps"),
        ("notes.ipynb", "not a lesson"),
    ]:
        cell = {"cell_type": "markdown", "metadata": {}, "source": [f"# {title}\n", "text"]}
        (tmp_path / name).write_text(json.dumps({"cells": [cell]}))
    (tmp_path / "02_broken.ipynb").write_text("{not json")
    names = ("00_start.ipynb", "01_next.ipynb", "02_broken.ipynb", "03_missing.ipynb")
    assert [lesson.filename for lesson in course.headings(tmp_path, names)] == [
        "00_start.ipynb",
        "01_next.ipynb",
        "02_broken.ipynb",
    ]
    assert course.contents(tmp_path, names).splitlines() == [
        "- [00 · Start](00_start.ipynb)",
        "- [01 · Next steps](01_next.ipynb)",
        "- [02 broken](02_broken.ipynb)",
    ]


def test_the_course_contents_list_every_lesson():
    names = [lesson.filename for lesson in course.headings()]
    assert names == list(FILES)
    assert [lesson.number for lesson in course.headings()] == list(range(len(names)))


def test_a_call_names_a_standard_library_function_with_its_module(capsys):
    import json

    course.try_it(json.loads, "[1]")
    course.try_it(len, "ab")
    course.try_it(mcp_lesson.classify, {})
    assert capsys.readouterr().out.splitlines() == [
        "json.loads('[1]') -> [1]",
        "len('ab') -> 2",
        "classify({}) -> ('invalid', -32600)",
    ]


def test_try_it_reports_instead_of_raising(capsys):
    def todo(msg):
        raise NotImplementedError()

    def broken(msg):
        return msg["id"]

    course.try_it(todo, {})
    course.try_it(broken, {})
    course.try_it(mcp_lesson.classify, "x" * 10_000)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "todo({}) -> not implemented yet"
    assert lines[1] == "broken({}) -> raises KeyError: 'id'"
    assert lines[2].endswith("-> ('invalid', -32600)") and len(lines[2]) < 200


def test_agree_and_self_check(capsys):
    def classify(msg):
        return mcp_lesson.classify(msg)

    course.self_check(classify)
    assert capsys.readouterr().out.splitlines() == [
        f"classify: {len(mcp_lesson.CASES)}/{len(mcp_lesson.CASES)} cases pass",
        f"classify agrees with mcp_lesson.classify on {len(mcp_lesson.CASES)}/"
        f"{len(mcp_lesson.CASES)} cases",
    ]


def test_agree_on_an_unfinished_function(capsys):
    def create_request(method, params=None, request_id=None):
        raise NotImplementedError()

    course.agree(create_request)
    assert (
        capsys.readouterr().out
        == "create_request vs mcp_lesson.create_request: not implemented yet\n"
    )


def test_check_names_the_learners_function(capsys):
    def rough_kind(msg):
        return ("request", None)

    course.check(rough_kind)
    assert capsys.readouterr().out.startswith("rough_kind: ")


@pytest.mark.parametrize(
    "message, rule, verdict",
    [
        ({"jsonrpc": "2.0", "id": True, "method": "x"}, "bad-request-id", "hit!"),
        ({"jsonrpc": "2.0", "id": 1, "method": "x"}, "bad-request-id", "miss."),
    ],
)
def test_aim(capsys, message, rule, verdict):
    def target():
        return message

    course.aim(target, rule)
    assert capsys.readouterr().out.startswith(f"target: {verdict}")


def test_quiz(capsys):
    def labels():
        return ["request", "request"]

    course.quiz(labels, [{"jsonrpc": "2.0", "id": 1, "method": "x"}, []])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "labels: 1/2 right"
    assert out[1].startswith("  message 2: you said 'request', but it is invalid: this is a list")


QUIZ_MESSAGES = [{"jsonrpc": "2.0", "id": 1, "method": "x"}, {"jsonrpc": "2.0", "method": "n"}]


@pytest.mark.parametrize(
    "answer, lines",
    [
        (
            lambda: [("request", None), ("request", None)],
            [
                "pairs: 0/2 right",
                "  message 1: you said ('request', None), the whole verdict; "
                "the quiz wants the kind only, the string 'request'",
                "  message 2: you said ('request', None), but it is a notification: ",
            ],
        ),
        (lambda: ["request"], ["pairs: 2 messages but 1 label; return one kind per message"]),
        (
            lambda: "request",
            [
                "pairs: return a list of kinds, one string per message, each "
                "'request', 'notification', 'response' or 'invalid'"
            ],
        ),
        (
            lambda: 42,
            [
                "pairs: return a list of kinds, one string per message, each "
                "'request', 'notification', 'response' or 'invalid'"
            ],
        ),
    ],
)
def test_quiz_says_what_to_return(capsys, answer, lines):
    def pairs():
        return answer()

    course.quiz(pairs, QUIZ_MESSAGES)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(lines)
    for got, want in zip(out, lines):
        assert got.startswith(want), got
    assert not any(line.startswith("  message") and ". Request" in line for line in out)


def test_quiz_wants_the_list_the_lesson_asks_for(capsys):
    def as_tuple():
        return ("request", "notification")

    course.quiz(as_tuple, QUIZ_MESSAGES)
    assert capsys.readouterr().out == (
        "as_tuple: return a list of kinds, one string per message, each 'request', "
        "'notification', 'response' or 'invalid' (this is a tuple)\n"
    )


def test_quiz_says_why_a_capitalised_kind_is_wrong(capsys):
    def shouting():
        return ["Request", " notification"]

    course.quiz(shouting, QUIZ_MESSAGES)
    assert capsys.readouterr().out.splitlines() == [
        "shouting: 0/2 right",
        "  message 1: you said 'Request'; right kind, but write it exactly 'request' "
        "(the kinds are lower-case words, with no spaces)",
        "  message 2: you said ' notification'; right kind, but write it exactly 'notification' "
        "(the kinds are lower-case words, with no spaces)",
    ]


def test_quiz_counts_in_words(capsys):
    def one():
        return ["request", "request", "request"]

    course.quiz(one, QUIZ_MESSAGES[:1])
    assert capsys.readouterr().out == "one: 1 message but 3 labels; return one kind per message\n"


# --- check_mine: the learner's own package ------------------------------------------


@pytest.fixture
def my_package(tmp_path, monkeypatch):
    from mcp_lesson.exercises.learner_package import ENVIRONMENT

    folder = tmp_path / "my_mcp"
    monkeypatch.setenv(ENVIRONMENT, str(folder))
    return folder


def test_check_mine_without_a_package(capsys, my_package):
    course.check_mine("rough_kind")
    course.check_mine("classify")
    course.check_mine("reply_for")
    assert capsys.readouterr().out.splitlines() == [
        "rough_kind: you have no package my_mcp yet (lesson 01 writes it)",
        "classify: you have no package my_mcp yet (lesson 01 starts it; lesson 03 writes it)",
        "reply_for: you have no package my_mcp yet (lesson 01 starts it; lesson 04 writes it)",
    ]


def test_check_mine_checks_the_learners_function(capsys, my_package):
    from mcp_lesson.exercises.learner_package import export_cell

    export_cell(
        "#| export\nfrom mcp_lesson import classify as _c\n\n"
        "def classify(msg):\n    return _c(msg)\n",
        "03",
        my_package,
    )
    export_cell(
        "#| export\ndef create_request(method, params=None, request_id=None):\n"
        "    raise NotImplementedError()\n",
        "02",
        my_package,
    )
    course.check_mine("classify")
    course.check_mine("create_request")
    course.check_mine("error_response")
    course.check_mine("is_id")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"classify: {len(mcp_lesson.CASES)}/{len(mcp_lesson.CASES)} cases pass"
    assert out[1] == (
        "create_request: in your package my_mcp, but not implemented yet "
        "(write its body in lesson 02 and run that cell again)"
    )
    assert "error_response: not in your package my_mcp yet (lesson 04 writes it)" in out
    assert out[-1] == "is_id: not in your package my_mcp yet (no lesson writes it)"


def test_check_mine_names_a_lesson_file_that_cannot_run(capsys, my_package):
    from mcp_lesson.exercises.learner_package import export_cell

    export_cell("#| export\ndef classify(msg):\n    return (\n", "03", my_package)
    course.check_mine("classify")
    out = capsys.readouterr().out
    assert out.startswith(
        "classify: not in your package my_mcp, because classification.py could not run (SyntaxError"
    )
    assert out.count("\n") == 1


def test_expect_shows_each_miss_on_two_lines(capsys):
    def double(n):
        if n == 3:
            raise ValueError("three")
        return [n, n] if n else None

    course.expect(double, [(1, [1, 1]), (2, [2]), (3, [3, 3]), (0, [])])
    assert capsys.readouterr().out.splitlines() == [
        "double: 1/4 right",
        "  double(2)",
        "      should be [2], got [2, 2]",
        "  double(3)",
        "      should be [3, 3], got raises ValueError: three",
        "  double(0)",
        "      should be [], got None",
    ]


def test_aim_says_when_a_hit_breaks_more_than_the_rule(capsys):
    def sloppy():  # a string code, and no message either
        return {"jsonrpc": "2.0", "id": 1, "error": {"code": "-32601"}}

    course.aim(sloppy, "bad-error-code")
    assert capsys.readouterr().out.splitlines() == [
        "sloppy: hit, but not only that rule. It is caught by 'an error code must be an integer',",
        "  and it also breaks 1 more rule: 'an error message must be a string'",
        "  Put those right, so that the rule you aimed at is the only one it breaks.",
    ]


def test_aim_says_when_the_rule_is_broken_but_another_catches_first(capsys):
    def hidden():  # no id, and a result that is not an object
        return {"jsonrpc": "2.0", "result": 5}

    course.aim(hidden, "bad-result")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "hidden: miss. Wanted the rule 'a result must be an object',"
    assert out[-1] == (
        "  It does break 'a result must be an object' too, but "
        "'a response needs the \"id\" key' catches it first."
    )


@pytest.mark.parametrize(
    "message, rules",
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, []),
        ({"jsonrpc": "2.0", "method": "n"}, []),
        ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], ["batch"]),
        (42, ["not-object"]),
        (
            {"jsonrpc": 2.0, "id": True, "method": 7, "params": []},
            ["bad-jsonrpc", "bad-method", "bad-params", "bad-request-id"],
        ),
        ({"id": None, "result": []}, ["no-jsonrpc", "bad-result", "bad-result-id"]),
        ({"jsonrpc": "2.0", "error": "boom"}, ["no-response-id", "bad-error"]),
        ({"jsonrpc": "2.0", "id": 1, "result": {}, "error": None}, ["both"]),
        (
            {"jsonrpc": "2.0", "id": 1.5, "error": {"code": True, "message": None}},
            ["bad-error-code", "bad-error-message", "bad-error-id"],
        ),
    ],
)
def test_broken_rules_lists_every_rule_in_order(message, rules):
    assert course.broken_rules(message) == rules
    assert not rules or mcp_lesson.rules.classification.rule_of(message) == rules[0]


def test_broken_rules_follows_the_revision():
    no_id = {"jsonrpc": "2.0", "error": {"code": "x", "message": "m"}}
    assert course.broken_rules(no_id) == ["no-response-id", "bad-error-code"]
    assert course.broken_rules(no_id, "2026-07-28") == ["bad-error-code"]


def test_broken_rules_never_raises_on_a_hostile_dict():
    class Liar(dict):
        def get(self, *args):
            raise RuntimeError("no")

        def __getitem__(self, key):
            raise RuntimeError("no")

    assert course.broken_rules(Liar(jsonrpc="2.0", id=True, method=1)) == [
        "bad-method",
        "bad-request-id",
    ]


def test_the_course_rough_kind_sniffs_keys_only():
    assert course.rough_kind({"method": None, "id": None}) == ("request", None)
    assert course.rough_kind({"error": "boom"}) == ("response", None)
    assert course.rough_kind([{"jsonrpc": "2.0", "method": "ping"}]) == ("invalid", -32600)
    assert course.rough_is_request({"jsonrpc": "2.0", "id": 0, "method": "ping"}) is True
    assert course.rough_is_request({"jsonrpc": "2.0", "method": "ping"}) is False


def test_aim_names_rules_by_their_short_words(capsys):
    def good():
        return {"jsonrpc": "2.0", "id": True, "method": "ping"}

    course.aim(good, "bad-request-id")
    assert capsys.readouterr().out == "good: hit! a request id must be a string or an integer\n"


def test_a_graduate_cell_under_a_test_run_only_says_so(monkeypatch, capsys):
    """Lesson 04's graduate() cell under nbval, a learner-copy run or grading: one
    line, no pytest inside pytest (tests/exercises/test_graduation.py graduates for real)."""
    import subprocess

    from mcp_lesson.exercises import learner_package

    def no_nested_run(*args, **kwargs):
        raise AssertionError("graduate() started a run inside the test run")

    monkeypatch.setattr(subprocess, "run", no_nested_run)
    monkeypatch.setenv(learner_package.NO_NESTED_RUNS, "1")
    assert mcp_lesson.exercises.graduation.graduate() is None
    assert "only says so" in capsys.readouterr().out
