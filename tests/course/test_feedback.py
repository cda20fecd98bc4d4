"""What the lessons' checks tell a learner who got something wrong: the
exception's words and not only its type (lesson 08's check_at), values never cut inside a
number (agree), a function that returned None told so (aim), no list of every table when a
function the check does not know scores nothing (check), a self-check run before its
functions are written (lesson 04), and hints that say what the learner's reply has.
"""

import json
import random
import re
from pathlib import Path

import nbformat
import pytest

import mcp_lesson
from mcp_lesson import course
from mcp_lesson.exercises.calling import cut_apart
from mcp_lesson.exercises.selfcheck import run_check

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _cell(lesson, cell_id):
    notebook = nbformat.read(next(NOTEBOOKS.glob(f"{lesson}_*.ipynb")), as_version=4)
    return next(cell.source for cell in notebook.cells if cell.id == cell_id)


def test_lesson_08_s_check_at_shows_the_exception_s_words(capsys):
    namespace = {}
    exec(
        "import copy\nimport mcp_lesson\nfrom mcp_lesson import REVISIONS\n"
        "from mcp_lesson.exercises.cases import CASES, REVISION_CASES",
        namespace,
    )
    exec(_cell("08", "35443dad"), namespace)

    def classify_at(msg, revision):
        raise KeyError("the-missing-member")

    namespace["check_at"](classify_at)
    out = capsys.readouterr().out
    assert "KeyError" in out and "the-missing-member" in out


def _numbers(text):
    return re.findall(r"-?\d+", text)


@pytest.mark.parametrize("seed", range(40))
def test_a_cut_never_falls_inside_a_number(seed):
    rng = random.Random(seed)
    values = [
        rng.choice([-32600, -32601, 10**12 + seed, 7, 123456]) for _ in range(rng.randint(8, 30))
    ]
    other = list(values)
    other[rng.randrange(len(other))] += 1
    a, b = json.dumps({"code": values}), json.dumps({"code": other})
    for limit in range(30, 90, 7):
        for piece, whole in zip(cut_apart(a, b, limit), (a, b)):
            inner = piece.removeprefix("...").removesuffix("...")
            assert inner in whole
            for number in _numbers(inner):
                assert number in _numbers(whole), (number, piece)


def test_agree_shows_whole_numbers(capsys):
    def reply_for(msg):
        reply = mcp_lesson.reply_for(msg)
        return None if reply is None else {"padding": "x" * 40, **reply}

    course.agree(reply_for)
    out = capsys.readouterr().out
    shown = [line for line in out.splitlines() if "->" in line]
    assert shown
    for line in shown:
        for number in _numbers(line):
            assert (
                number in ("2", "0", "-32600", "-32700", "1", "32600", "32700") or len(number) < 3
            ), line


def test_aim_on_a_function_that_returned_none_says_so(capsys):
    def printed_instead():
        print("(it printed the message)")

    course.aim(printed_instead, "notification")
    none_line = capsys.readouterr().out.splitlines()[-1]
    course.aim(lambda: "a string", "notification")
    text_line = capsys.readouterr().out
    assert "None" in none_line and "null" not in none_line
    assert none_line.split(": ", 1)[1] != text_line.split(": ", 1)[1]


def test_check_names_no_table_when_a_known_stand_in_scores_nothing(capsys):
    def rough_kind(msg):
        return "request"

    course.check(rough_kind)
    out = capsys.readouterr().out
    assert out.startswith("rough_kind: 0/") and "(" not in out.splitlines()[-1][:3]

    def sorter(msg):
        return "request"

    course.check(sorter)
    note = capsys.readouterr().out.splitlines()[-1]
    tables = [
        name
        for name in mcp_lesson.exercises.registry.CHECKED
        if name not in ("classify", "reply_for")
    ]
    assert note.startswith("  (") and not any(f" {name}" in note for name in tables)


def test_a_self_check_run_before_its_functions_says_so_without_a_name_error():
    notebook = {}
    exec("from mcp_lesson.course import agree, self_check", notebook)
    source = _cell("04", "c04-21")
    said = _run_printing(source, notebook)
    assert said.count("\n") == 3 and "error_response" in said and "reply_for_json" in said
    notebook.update(
        error_response=mcp_lesson.error_response,
        reply_for=mcp_lesson.reply_for,
        reply_for_json=mcp_lesson.reply_for_json,
    )
    done = _run_printing(source, notebook)
    total = len(mcp_lesson.exercises.cases.ERROR_BUILDS)
    assert done.startswith(f"error_response: {total}/{total} cases pass")


def _run_printing(source, namespace):
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(source, namespace)
    return buffer.getvalue()


def test_a_wrong_code_s_hint_says_which_code_the_reply_has():
    from mcp_lesson.core import server

    def answer_request(request, revision):
        reply = server.answer_request(request, revision)
        if reply.get("error", {}).get("code") == -32602:
            reply = {**reply, "error": {**reply["error"], "code": -32601}}
        return reply

    report = run_check(answer_request, "answer_request")
    unknown = next(row for row in report.failures if row.name == "an unknown tool")
    assert "-32601" in unknown.reason  # what the learner's reply holds, beside the case's note
