"""mcp_lesson.client.http: the course's own client, against the course's server (both generations)."""

import json
import sys

import pytest
from processes import patience, run_to_end

from client.servers import scripted, sse
from mcp_lesson.client.cli import main
from mcp_lesson.client.common import HANDSHAKE, ServerError, elicitation_answer, sample_arguments
from mcp_lesson.client.http import Client, connect


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
        result = client.request(
            "tools/call", {"name": "count", "arguments": {"to": 3}, "_meta": {"progressToken": "t"}}
        )
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
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "Ada"},
            "age": {"type": "integer", "default": 36},
            "note": {"type": "string"},
        },
        "required": ["name"],
    }
    assert elicitation_answer({"message": "?", "requestedSchema": schema}) == {
        "action": "accept",
        "content": {"name": "Ada", "age": 36},
    }
    schema["required"] = ["note"]  # required, and no default: the client cannot fill it in
    assert elicitation_answer({"message": "?", "requestedSchema": schema}) == {"action": "decline"}
    assert elicitation_answer({"mode": "url", "url": "https://example.com"}) == {
        "action": "decline"
    }
    assert elicitation_answer("not an object") == {"action": "decline"}


def test_sample_arguments_follow_the_schema():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {"type": "integer", "default": 5},
            "c": {"enum": ["x", "y"]},
            "d": {"type": ["string", "null"]},
            "e": "not a rule",
        },
    }
    assert sample_arguments(schema) == {"a": 1, "b": 5, "c": "x", "d": "text", "e": "text"}
    assert sample_arguments(None) == {} and sample_arguments({"properties": []}) == {}


def test_the_command_line_lists_and_calls(server, capsys):
    assert (
        main(["--call", "add", '{"a": 2, "b": 40}', server.url]) == 0
    )  # the URL after a call stays the URL
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "server: mcp-lesson-calculator 0.2.0 (revision 2025-11-25)",
        "tools: add, calculator, count",
        "resources: none",
        "resource templates: none",
        "prompts: none",
        "add: 42",
    ]


# --- over stdio, and resources and prompts ------------------------------

CALCULATOR = [sys.executable, "-m", "mcp_lesson.server"]
#: The SDK's own server with a tool, a resource and a prompt, over stdio.
SHELF = (
    "from mcp.server.mcpserver import MCPServer\n"
    "server = MCPServer('shelf')\n"
    "@server.tool()\n"
    "def echo(text: str) -> str:\n"
    "    return text\n"
    "@server.resource('note://hello', name='hello', mime_type='text/plain')\n"
    "def hello() -> str:\n"
    "    return 'hello'\n"
    "@server.prompt()\n"
    "def greet(name: str) -> str:\n"
    "    return f'Greet {name}'\n"
    "server.run('stdio')\n"
)


@pytest.mark.parametrize("revision", ["2024-11-05", HANDSHAKE, "2026-07-28"])
def test_the_same_conversation_over_stdio(revision):
    from mcp_lesson.client.over_stdio import connect_stdio

    with connect_stdio(CALCULATOR, revision, timeout=patience(30)) as client:
        assert client.server_info["name"] == "mcp-lesson-calculator" and client.revision == revision
        assert [tool["name"] for tool in client.list_tools()] == ["add", "calculator"]
        assert client.call_tool("add", {"a": 2, "b": 40})["structuredContent"] == {"result": 42}
        assert client.list_resources() == [] and client.list_prompts() == []
        with pytest.raises(ServerError) as refused:
            client.call_tool("nope")
        assert refused.value.code == -32602
        if revision < "2026-07-28":  # a handshake's log level (2026-07-28 has no logging/setLevel)
            assert client.request("logging/setLevel", {"level": "debug"}) == {}
            client.call_tool("add", {"a": 1, "b": 1})
            assert [m["params"]["data"] for m in client.notifications] == ["add: 1 + 1 = 2"]
        assert client.notes == []
        process = client._process.process
    assert process.poll() is not None  # the server ended with the block


def test_the_command_line_over_stdio_lists_tools_resources_and_prompts(tmp_path, capsys):
    assert main(["--stdio", "--call", "add", '{"a": 2, "b": 40}', "--", *CALCULATOR]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "server: mcp-lesson-calculator 0.2.0 (revision 2025-11-25)",
        "tools: add, calculator",
        "resources: none",
        "resource templates: none",
        "prompts: none",
        "add: 42",
    ]
    shelf = tmp_path / "shelf.py"
    shelf.write_text(SHELF)
    assert main(["--stdio", "--timeout", str(patience(30)), "--", sys.executable, str(shelf)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == [
        "tools: echo",
        "resources: hello (note://hello)",
        "resource templates: none",
        "prompts: greet",
    ]


@pytest.mark.parametrize(
    "arguments, words, status",
    [
        (["--stdio"], "--stdio needs the server's command after --", 2),
        (["--stdio", "--", "/nonexistent/server"], "cannot start /nonexistent/server", 1),
        (["http://127.0.0.1:1/mcp", "--stdio", "--", "true"], "not both", 2),
        (["--", "true"], "needs --stdio", 2),
        (
            ["--stdio", "--", "sh", "-c", "read line; echo not json; echo it broke >&2"],
            "the server ended before it answered",
            1,
        ),
    ],
)
def test_stdio_s_bad_input_is_one_line(arguments, words, status):
    done = run_to_end([sys.executable, "-m", "mcp_lesson.client", *arguments], patience(60))
    assert done.returncode == status and words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2  # argparse's usage line, then its one line


@pytest.mark.full  # waits out a time limit
def test_a_stdio_server_silent_past_the_timeout_is_one_line():
    done = run_to_end(
        [
            sys.executable,
            "-m",
            "mcp_lesson.client",
            "--stdio",
            "--timeout",
            "0.5",
            "--",
            "sh",
            "-c",
            "sleep 30",
        ],
        patience(60),
    )
    assert (
        done.returncode == 1 and "--timeout 0.5" in done.stderr and "Traceback" not in done.stderr
    )


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["--call", "nope"], "tools/call: error -32602: Unknown tool: nope"),
        (["--call", "add", "[1]"], "must be a JSON object"),
        (["--call", "add", "{"], "are not JSON"),
    ],
)
def test_the_command_line_says_what_went_wrong_in_one_line(server, arguments, words):
    done = run_to_end(
        [sys.executable, "-m", "mcp_lesson.client", server.url, *arguments], patience(60)
    )
    assert done.returncode in (1, 2) and words in done.stderr and "Traceback" not in done.stderr


def test_no_server_is_one_line():
    done = run_to_end(
        [sys.executable, "-m", "mcp_lesson.client", "http://127.0.0.1:1/mcp"], patience(60)
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert (
        done.stderr.startswith("python -m mcp_lesson.client: ")
        and len(done.stderr.splitlines()) == 1
    )


# --- a server that breaks the rules -------------------------------------------------------


@pytest.mark.full  # 17 MiB answers from a scripted server: the full tier
@pytest.mark.parametrize(
    "reply, words",
    [
        (
            lambda body: (200, "application/json", b"x" * (17 * 2**20)),
            "longer than the client's limit",
        ),
        (
            lambda body: (200, "text/event-stream", sse(b"data: " + b"x" * (17 * 2**20))),
            "over the client's limit",
        ),
        (
            lambda body: (200, "text/event-stream", sse(b"data: {}")),
            "gave no event id to resume from",
        ),
        (
            lambda body: (500, "text/html", b"<b>oops</b>\x1b[31m"),
            "answered 500 (text/html): <b>oops</b>\\x1b[31m",
        ),
    ],
)
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
        return (
            200,
            "text/event-stream",
            sse(b"data: not json", b'data: {"jsonrpc":"1.0"}', b"data: " + good),
        )

    server = scripted(reply)
    try:
        with connect(server.url, timeout=patience(30)) as client:
            assert client.call_tool("t") == {"content": []}
        assert [note.split(":")[0] for note in client.notes] == [
            "the server sent a message that is not valid (-32700)",
            "the server sent a message that is not valid (-32600)",
        ]
    finally:
        server.close()


def test_try_tools_gives_a_line_to_each_tool_that_fails_and_names_what_it_does_not_show(capsys):
    """--try-tools stopped at the first failure without naming the tool, and an
    image in a result was dropped without a word."""
    tools = [
        {"name": name, "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
        for name in ("broken", "picture", "plain")
    ]

    def reply(body):
        if body["method"] == "tools/list":
            result = {"tools": tools}
        elif body["params"]["name"] == "broken":
            error = {"code": -32603, "message": "it broke"}
            return (
                200,
                "application/json",
                json.dumps({"jsonrpc": "2.0", "id": body["id"], "error": error}).encode(),
            )
        elif body["params"]["name"] == "picture":
            result = {
                "content": [
                    {"type": "text", "text": "a dot"},
                    {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
                ]
            }
        else:
            result = {"content": [{"type": "text", "text": "fine"}]}
        return (
            200,
            "application/json",
            json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode(),
        )

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


@pytest.mark.parametrize("revision", [HANDSHAKE, "2026-07-28"])
def test_a_request_given_up_is_cancelled_and_one_line(revision):
    """On --timeout the client gave up without a word to the server. Up to 2025-11-25 it posts
    notifications/cancelled for the request; at 2026-07-28 closing the answer's connection is
    the cancellation, and no notification is sent."""
    import threading

    release = threading.Event()

    def reply(body):
        if body["method"] in ("tools/list", "server/discover"):
            result = {"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}
        else:
            release.wait(patience(60))  # answers only once the test has seen the client give up
            result = {"content": []}
        return (
            200,
            "application/json",
            json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode(),
        )

    server = scripted(reply)
    try:
        done = run_to_end(
            [
                sys.executable,
                "-m",
                "mcp_lesson.client",
                server.url,
                "--revision",
                revision,
                "--call",
                "slow",
                "--timeout",
                "0.5",
            ],
            patience(60),
        )
    finally:
        release.set()
        server.close()
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "slow" in done.stderr and "--timeout" in done.stderr
    [call] = [body for _, body in server.posted if body.get("method") == "tools/call"]
    cancelled = [
        body["params"]
        for _, body in server.posted
        if body.get("method") == "notifications/cancelled"
    ]
    if revision == "2026-07-28":
        assert cancelled == []
    else:
        assert [params["requestId"] for params in cancelled] == [call["id"]]
    bad = run_to_end(
        [sys.executable, "-m", "mcp_lesson.client", server.url, "--timeout", "0"], patience(60)
    )
    assert bad.returncode == 2 and "--timeout" in bad.stderr
