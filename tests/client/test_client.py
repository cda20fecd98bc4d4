"""mcp_lesson.client.http: the course's own client, against the course's server (both generations)."""

import json
import sys

import pytest

from http_server import server  # noqa: F401 (fixtures)
from processes import patience, run_to_end

from mcp_lesson.client.http import (
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


# --- a server that breaks the rules -------------------------------------------------------


class Scripted:
    """A tiny HTTP server on 127.0.0.1 answering every POST with what ``answer(body)`` gives:
    (status, content type, body bytes); GET gets 405."""

    def __init__(self, answer):
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, kind, data = answer(body)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                if body.get("method") == "initialize":
                    self.send_header("Mcp-Session-Id", "s1")
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_DELETE = do_GET

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/mcp"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def scripted(tools_call):
    """Answers initialize as JSON, notifications with 202, and tools/call with ``tools_call(body)``."""
    def answer(body):
        if body.get("method") == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}
            return 200, "application/json", json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode()
        if "id" not in body:
            return 202, "application/json", b""
        return tools_call(body)
    return Scripted(answer)


def sse(*events):
    return b"".join(event + b"\n\n" for event in events)


@pytest.mark.full  # 17 MiB answers from a scripted server: the full tier
@pytest.mark.parametrize("reply, words", [
    (lambda body: (200, "application/json", b"x" * (17 * 2**20)), "longer than the client's limit"),
    (lambda body: (200, "text/event-stream", sse(b"data: " + b"x" * (17 * 2**20))), "over the client's limit"),
    (lambda body: (200, "text/event-stream", sse(b"data: {}")), "gave no event id to resume from"),
    (lambda body: (500, "text/html", b"<b>oops</b>\x1b[31m"), "answered 500 (text/html): <b>oops</b>\\x1b[31m"),
])
def test_a_broken_answer_is_a_server_error_in_words(reply, words):
    server = scripted(reply)
    try:
        with connect(server.url, timeout=patience(30)) as client:
            with pytest.raises(ServerError) as broken:
                client.call_tool("t")
        assert words in str(broken.value)
    finally:
        server.close()


def test_an_invalid_message_on_a_stream_is_noted_and_passed_over():
    def reply(body):
        good = json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": {"content": []}}).encode()
        return 200, "text/event-stream", sse(b"data: not json", b'data: {"jsonrpc":"1.0"}', b"data: " + good)
    server = scripted(reply)
    try:
        with connect(server.url, timeout=patience(30)) as client:
            assert client.call_tool("t") == {"content": []}
        assert [note.split(":")[0] for note in client.notes] == [
            "the server sent a message that is not valid (-32700)",
            "the server sent a message that is not valid (-32600)"]
    finally:
        server.close()


def test_try_tools_gives_a_line_to_each_tool_that_fails_and_names_what_it_does_not_show(capsys):
    """--try-tools stopped at the first failure without naming the tool, and an
    image in a result was dropped without a word."""
    tools = [{"name": name, "inputSchema": {"type": "object"}} for name in ("broken", "picture", "plain")]

    def reply(body):
        if body["method"] == "tools/list":
            result = {"tools": tools}
        elif body["params"]["name"] == "broken":
            error = {"code": -32603, "message": "it broke"}
            return 200, "application/json", json.dumps({"jsonrpc": "2.0", "id": body["id"], "error": error}).encode()
        elif body["params"]["name"] == "picture":
            result = {"content": [{"type": "text", "text": "a dot"},
                                  {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]}
        else:
            result = {"content": [{"type": "text", "text": "fine"}]}
        return 200, "application/json", json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode()

    server = scripted(reply)
    try:
        assert main([server.url, "--try-tools", "--timeout", str(patience(30))]) == 1
    finally:
        server.close()
    out, err = capsys.readouterr()
    shown = dict(line.split(": ", 1) for line in out.splitlines())
    assert shown["plain"] == "fine"
    assert shown["picture"].startswith("a dot | [image, image/png, 8 bytes")
    [failure] = err.splitlines()
    assert "broken" in failure and "it broke" in failure


def test_timeout_is_an_option_and_a_tool_slower_than_it_is_one_line():
    import threading

    release = threading.Event()

    def reply(body):
        if body["method"] == "tools/list":
            result = {"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}
        else:
            release.wait(patience(60))  # answers only once the test has seen the client give up
            result = {"content": []}
        return 200, "application/json", json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode()

    server = scripted(reply)
    try:
        done = run_to_end([sys.executable, "-m", "mcp_lesson.client", server.url, "--try-tools",
                           "--timeout", "0.5"], patience(60))
    finally:
        release.set()
        server.close()
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "slow" in done.stderr and "--timeout" in done.stderr
    bad = run_to_end([sys.executable, "-m", "mcp_lesson.client", server.url, "--timeout", "0"], patience(60))
    assert bad.returncode == 2 and "--timeout" in bad.stderr
