"""mcp_lesson.client: the course's own client, against the course's server (both generations)."""

import sys

import pytest

from http_server import server  # noqa: F401 (fixtures)
from processes import patience, run_to_end

from mcp_lesson.client import (
    HANDSHAKE, Client, ServerError, connect, elicitation_answer, main, sample_arguments,
)


@pytest.mark.parametrize("revision", [HANDSHAKE, "2025-06-18", "2026-07-28"])
def test_a_conversation_in_each_generation(server, revision):
    with connect(server.url, revision, timeout=patience(30)) as client:
        assert client.server_info["name"] == "mcp-lesson-calculator"
        assert client.revision == revision
        assert (client.session_id is None) == (revision == "2026-07-28")
        assert [tool["name"] for tool in client.list_tools()] == ["add", "calculator", "count"]
        assert client.call_tool("add", {"a": 2, "b": 40})["structuredContent"] == {"result": 42}
        assert client.call_tool("calculator", {"expression": "1 / 0"})["isError"] is True
        with pytest.raises(ServerError) as refused:
            client.call_tool("nope")
        assert refused.value.code == -32602 and "Unknown tool: nope" in str(refused.value)
        assert client.notes == []


def test_progress_arrives_as_notifications_before_the_answer(server):
    seen = []
    with connect(server.url, on_notification=seen.append, timeout=patience(30)) as client:
        result = client.request("tools/call", {"name": "count", "arguments": {"to": 3},
                                               "_meta": {"progressToken": "t"}})
    assert result["structuredContent"] == {"result": 3}
    assert [message["params"]["progress"] for message in seen] == [1, 2, 3]


def test_log_lines_once_a_level_is_set(server):
    with connect(server.url, timeout=patience(30)) as client:
        assert client.request("logging/setLevel", {"level": "debug"}) == {}
        client.call_tool("add", {"a": 1, "b": 1})
    assert [m["params"]["data"] for m in client.notifications] == ["add: 1 + 1 = 2"]


def test_a_revision_the_transport_does_not_have_is_refused():
    with pytest.raises(ValueError, match="not in '2024-11-05'"):
        Client("http://127.0.0.1:1/mcp", "2024-11-05")


def test_the_elicitation_answer_takes_the_schema_s_defaults():
    schema = {"type": "object", "properties": {
        "name": {"type": "string", "default": "Ada"}, "age": {"type": "integer", "default": 36},
        "note": {"type": "string"}}, "required": ["name"]}
    assert elicitation_answer({"message": "?", "requestedSchema": schema}) == {
        "action": "accept", "content": {"name": "Ada", "age": 36}}
    schema["required"] = ["note"]  # required, and no default: the client cannot fill it in
    assert elicitation_answer({"message": "?", "requestedSchema": schema}) == {"action": "decline"}
    assert elicitation_answer({"mode": "url", "url": "https://example.com"}) == {"action": "decline"}
    assert elicitation_answer("not an object") == {"action": "decline"}


def test_sample_arguments_follow_the_schema():
    schema = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "integer", "default": 5},
                                               "c": {"enum": ["x", "y"]}, "d": {"type": ["string", "null"]},
                                               "e": "not a rule"}}
    assert sample_arguments(schema) == {"a": 1, "b": 5, "c": "x", "d": "text", "e": "text"}
    assert sample_arguments(None) == {} and sample_arguments({"properties": []}) == {}


def test_the_command_line_lists_and_calls(server, capsys):
    assert main([server.url, "--call", "add", '{"a": 2, "b": 40}']) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["server: mcp-lesson-calculator 0.2.0 (revision 2025-11-25)",
                   "tools: add, calculator, count", "add: 42"]


@pytest.mark.parametrize("arguments, words", [
    (["--call", "nope"], "tools/call: error -32602: Unknown tool: nope"),
    (["--call", "add", "[1]"], "the arguments must be a JSON object"),
    (["--call", "add", "{"], "the arguments are not JSON"),
])
def test_the_command_line_says_what_went_wrong_in_one_line(server, arguments, words):
    done = run_to_end([sys.executable, "-m", "mcp_lesson.client", server.url, *arguments], patience(60))
    assert done.returncode in (1, 2) and words in done.stderr and "Traceback" not in done.stderr


def test_no_server_is_one_line():
    done = run_to_end([sys.executable, "-m", "mcp_lesson.client", "http://127.0.0.1:1/mcp"], patience(60))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("python -m mcp_lesson.client: ") and len(done.stderr.splitlines()) == 1
