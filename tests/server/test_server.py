"""The capstone server, for real: started over stdio, spoken to with create_request.

One server process serves the whole module (starting one takes about a
second); the fixture stops it and checks that it is gone. The rules tested
are the ones the docstrings of :mod:`mcp_lesson.server.calculator` (strict tools, safe
arithmetic) and :mod:`mcp_lesson.client.stdio` (timeouts, stopping) state.
"""

import itertools
import json
import os
import subprocess
import sys

import pytest
from processes import live_processes
from stdio_server import handshaken

from mcp_lesson import classify_json, create_request, reply_for_json
from mcp_lesson.server.calculator import MAX_DIGITS, SERVER_NAME, add_integers, evaluate

FRESH_IDS = itertools.count(1000)


def _children_named(fragment):
    """Pids of this process's live children whose command line holds ``fragment``."""
    return [
        process.pid
        for process in live_processes()
        if process.ppid == os.getpid() and fragment in process.command
    ]


@pytest.fixture(scope="module")
def server():
    yield from handshaken("test-server")
    assert _children_named("mcp_lesson.server.calculator") == []


def test_initialize(server):
    result = server.initialize_result
    assert result["protocolVersion"] == "2025-11-25"
    assert result["serverInfo"]["name"] == SERVER_NAME
    assert "tools" in result["capabilities"]


def test_tools_list_and_call(server):
    line = server.request(create_request("tools/list", request_id=2))
    assert classify_json(line) == ("response", None)
    tools = {tool["name"]: tool for tool in json.loads(line)["result"]["tools"]}
    assert set(tools) == {"add", "calculator"}
    assert tools["calculator"]["inputSchema"]["required"] == ["expression"]

    call = create_request(
        "tools/call", {"name": "calculator", "arguments": {"expression": "2 + 2"}}, 3
    )
    line = server.request(call)
    assert classify_json(line) == ("response", None)
    result = json.loads(line)["result"]
    assert result["isError"] is False
    assert result["content"][0]["text"] == "4"

    line = server.request(
        create_request("tools/call", {"name": "add", "arguments": {"a": 2, "b": 40}}, "s")
    )
    assert json.loads(line)["result"]["structuredContent"] == {"result": 42}


def test_a_failing_tool_is_a_result_with_is_error(server):
    call = create_request(
        "tools/call", {"name": "calculator", "arguments": {"expression": "1 / 0"}}, 4
    )
    result = json.loads(server.request(call))["result"]
    assert result["isError"] is True
    assert "division by zero" in result["content"][0]["text"]


def _call_tool(server, name, arguments):
    """The ``result`` of one ``tools/call`` (a JSON-RPC error fails the test)."""
    line = server.request(
        create_request("tools/call", {"name": name, "arguments": arguments}, next(FRESH_IDS))
    )
    assert classify_json(line) == ("response", None)
    reply = json.loads(line)
    assert "error" not in reply, reply
    return reply["result"]


def _refusal(result, tool, argument, wanted):
    """Check that ``result`` is the SDK's answer to a refused argument; return its text."""
    assert result["isError"] is True, result
    assert "structuredContent" not in result
    [block] = result["content"]
    text = block["text"]
    assert text.startswith(
        f"Error executing tool {tool}: 1 validation error for {tool}Arguments\n{argument}\n"
    )
    assert f"Input should be a valid {wanted}" in text
    return text


# The server's docstring: "a and b must be JSON integers (true, 1.0, "1" and
# " 7 " are refused, never turned into numbers)". The SDK's default (pydantic's
# lax mode) summed every one of these.
@pytest.mark.parametrize(
    "arguments, argument",
    [
        ({"a": True, "b": 1}, "a"),
        ({"a": 1, "b": False}, "b"),
        ({"a": "1", "b": 1}, "a"),
        ({"a": " 7 ", "b": 1}, "a"),
        ({"a": "true", "b": 1}, "a"),  # the SDK pre-parses "true" into true: refused all the same
        ({"a": 1.0, "b": 1}, "a"),
        ({"a": 1.5, "b": 1}, "a"),
        ({"a": 1e300, "b": 1}, "a"),
        ({"a": 2, "b": "40"}, "b"),
        ({"a": None, "b": 1}, "a"),
        ({"a": [1], "b": 1}, "a"),
    ],
)
def test_add_refuses_anything_but_json_integers(server, arguments, argument):
    _refusal(_call_tool(server, "add", arguments), "add", argument, "integer")


@pytest.mark.parametrize(
    "a, b, total",
    [
        (2, 40, 42),
        (-5, 0, -5),
        (0, 0, 0),
        (2**64, 1, 2**64 + 1),
        (int("9" * MAX_DIGITS), 0, int("9" * MAX_DIGITS)),
    ],
)
def test_add_sums_json_integers(server, a, b, total):
    result = _call_tool(server, "add", {"a": a, "b": b})
    assert result["isError"] is False
    assert result["structuredContent"] == {"result": total}
    assert result["content"][0]["text"] == str(total)


def test_add_refuses_a_sum_too_long_to_read_back(server):
    nines = int("9" * MAX_DIGITS)
    for a, b in [(nines, 1), (-nines, -1)]:
        result = _call_tool(server, "add", {"a": a, "b": b})
        assert result["isError"] is True
        assert (
            result["content"][0]["text"]
            == f"Error executing tool add: the sum has more than {MAX_DIGITS} digits"
        )


@pytest.mark.parametrize("expression", [5, 2.5, True, None, ["2 + 2"], {"text": "2 + 2"}])
def test_calculator_refuses_an_expression_that_is_not_a_string(server, expression):
    _refusal(
        _call_tool(server, "calculator", {"expression": expression}),
        "calculator",
        "expression",
        "string",
    )


def test_a_refused_argument_costs_only_its_call(server):
    _call_tool(server, "add", {"a": True, "b": True})
    assert _call_tool(server, "add", {"a": 1, "b": 1})["structuredContent"] == {"result": 2}


def test_unknown_method_gets_method_not_found(server):
    lines = server.probe(create_request("tools/destroy", request_id=5))
    assert len(lines) == 1
    reply = json.loads(lines[0])
    assert classify_json(lines[0]) == ("response", None)
    assert reply["id"] == 5 and reply["error"]["code"] == -32601
    # The message layer is fine, so a strict server's message layer says nothing.
    assert reply_for_json(json.dumps(create_request("tools/destroy", request_id=5))) is None


@pytest.mark.parametrize(
    "careless, strict_code",
    [
        ('{"jsonrpc":"2.0","id":null,"method":"tools/list"}', -32600),
        ('{"jsonrpc":"2.0","id":true,"method":"tools/list"}', -32600),
        ('{"jsonrpc":"2.0","id":6,"method":"tools/li', -32700),
        ("this is not JSON", -32700),
        ('[{"jsonrpc":"2.0","id":7,"method":"ping"}]', -32600),
    ],
)
def test_careless_messages_meet_silence(server, careless, strict_code):
    assert server.probe(careless) == []
    assert reply_for_json(careless)["error"]["code"] == strict_code
    # Still alive and answering (a fresh id each time, so no late reply can match).
    ping_id = next(FRESH_IDS)
    assert json.loads(server.request(create_request("ping", request_id=ping_id))) == {
        "jsonrpc": "2.0",
        "id": ping_id,
        "result": {},
    }


def test_params_null_is_answered_like_no_params(server):
    lines = server.probe({"jsonrpc": "2.0", "id": 9, "method": "ping", "params": None})
    assert [json.loads(line) for line in lines] == [{"jsonrpc": "2.0", "id": 9, "result": {}}]
    assert classify_json(lines[0]) == ("response", None)


def test_every_line_received_is_a_response(server):
    assert server.received
    assert {classify_json(line) for line in server.received} == {("response", None)}


# --- input that ends at once -------------------------------------------------

# The README's conversation, as a reader pipes it in: all three lines at once,
# then end of input.
README_LINES = [
    '{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
    '"capabilities": {}, "clientInfo": {"name": "me", "version": "1"}}}',
    '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
    '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}',
]
# The same, then many more calls in a row: each one is still in flight when
# the input ends.
MANY_CALLS = README_LINES + [
    json.dumps(create_request("tools/call", {"name": "add", "arguments": {"a": n, "b": 3}}, n))
    for n in range(4, 44)
]


def _piped(lines):
    """The reply lines of a server given ``lines`` at once, then end of input; and its exit code.

    The deadline only stops a server that never exits; subprocess.run kills
    the server however the call ends.
    """
    done = subprocess.run(
        [sys.executable, "-m", "mcp_lesson.server"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    return [json.loads(line) for line in done.stdout.splitlines()], done.returncode


@pytest.mark.parametrize("lines", [README_LINES, MANY_CALLS], ids=["readme", "many-calls"])
def test_every_request_read_is_answered_before_the_server_exits(lines):
    replies, code = _piped(lines)
    assert code == 0
    by_id = {reply["id"]: reply for reply in replies}
    wanted = [json.loads(line)["id"] for line in lines if "id" in json.loads(line)]
    assert sorted(by_id) == sorted(wanted), f"answered {sorted(by_id)}"
    assert len(replies) == len(wanted)
    assert by_id[2]["result"]["serverInfo"]["name"] == SERVER_NAME
    for request_id in wanted[1:]:
        result = by_id[request_id]["result"]
        assert result["isError"] is False
        assert result["structuredContent"] == {"result": 5 if request_id == 3 else request_id + 3}


# --- the client's own guarantees -------------------------------------------


# --- the calculator, in-process ----------------------------------------------


@pytest.mark.parametrize(
    "expression, value",
    [
        ("2 + 2", 4),
        ("(1 + 2) * 3 / 4", 2.25),
        ("-3 ** 2", -9),
        ("7 // 2 + 7 % 2", 4),
        ("2 ** 10", 1024),
    ],
)
def test_evaluate(expression, value):
    assert evaluate(expression) == value


def test_add_integers():
    assert add_integers(2, 40) == 42
    assert add_integers(-(10**MAX_DIGITS) + 1, 0) == -(10**MAX_DIGITS) + 1
    with pytest.raises(ValueError, match=f"more than {MAX_DIGITS} digits"):
        add_integers(10**MAX_DIGITS - 1, 1)


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os')",
        "x + 1",
        "True + 1",
        "'a' * 3",
        "9 ** 9 ** 9",
        "1 / 0",
        "2 +",
        "1" * 300,
        "(-8) ** 0.5",
        "[1, 2]",
        "(" * 10_000,
        None,
        "1e308 * 10",
        "1e999 - 1e999",
    ],
)
def test_evaluate_refuses(expression):
    with pytest.raises(ValueError):
        evaluate(expression)
