"""Target practice checks the message the exercise asks for, not only the rule that catches it
: each master's aim cell says "hit!" for its solution and no hit for a message
the same rule catches with other content; and lesson 05's hidden tests of fixed_server refuse a
server that drops the Invalid Request owed to an invalid message without an id.
"""

import contextlib
import io
from pathlib import Path

import nbformat
import pytest

import mcp_lesson
from mcp_lesson.course import aim

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _cell(lesson, cell_id):
    notebook = nbformat.read(next(NOTEBOOKS.glob(f"{lesson}_*.ipynb")), as_version=4)
    return next(cell.source for cell in notebook.cells if cell.id == cell_id)


def _printed(source, namespace):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(source, namespace)
    return out.getvalue()


#: lesson, cell, the function, and a message the aimed rule catches but that is not the one asked for.
PRACTICE = [
    (
        "01",
        "c01-21",
        "cancel_request_3",
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}},
    ),
    ("01", "c01-21", "cancel_request_3", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    (
        "02",
        "c02-19",
        "halfway",
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "t1", "progress": 40, "total": 100},
        },
    ),
    (
        "02",
        "c02-19",
        "halfway",
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "t1", "progress": 50},
        },
    ),
    (
        "05",
        "c04-15",
        "refused_call",
        {"jsonrpc": "2.0", "id": 98, "method": "tools/call", "params": ["calculator"]},
    ),
    (
        "05",
        "c04-15",
        "refused_call",
        {"jsonrpc": "2.0", "id": 99, "method": "tools/list", "params": ["calculator"]},
    ),
]


@pytest.mark.parametrize("lesson, cell_id, name, wrong", PRACTICE)
def test_target_practice_hits_what_was_asked_and_nothing_else(lesson, cell_id, name, wrong):
    source = _cell(lesson, cell_id)
    namespace = {"aim": aim, "create_request": mcp_lesson.create_request}
    solved = _printed(source, namespace)
    assert solved.startswith(f"{name}: hit!"), solved
    aim_call = source[source.index("aim(") :]  # the check, run again on the wrong content

    def answer():
        return wrong

    answer.__name__ = name
    namespace[name] = answer
    missed = _printed(aim_call, namespace)
    assert (
        missed.startswith(f"{name}: ") and "hit" not in missed.split("\n")[0].split(": ", 1)[1][:4]
    ), missed


def test_aim_asked_compares_as_json_and_allows_members_not_asked_for(capsys):
    asked = {"method": "notifications/cancelled", "params": {"requestId": 3}}
    aim(
        lambda: {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 3, "reason": "changed my mind"},
        },
        "notification",
        asked=asked,
    )
    aim(
        lambda: {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 3.0},
        },
        "notification",
        asked=asked,
    )
    first, second = capsys.readouterr().out.splitlines()
    assert "hit!" in first and "hit" not in second


def _buggy_fixed_server(msg):
    """Answers nothing that has no id, before it looks at whether the message is valid."""
    if not isinstance(msg, dict) or "id" not in msg:
        return None
    kind, _ = mcp_lesson.classify(msg)
    if kind == "invalid":
        return mcp_lesson.reply_for(msg)
    if kind != "request":
        return None
    if msg["method"] == "ping":
        return {"jsonrpc": "2.0", "id": msg["id"], "result": {}}
    return mcp_lesson.error_response(msg["id"], -32601, "Method not found")


def test_fixed_server_s_hidden_tests_refuse_a_server_that_drops_an_invalid_message_without_id():
    source = _cell("05", "t04-fixed-server")
    namespace = {"fixed_server": _buggy_fixed_server}
    with pytest.raises(AssertionError):
        _printed(source, namespace)
