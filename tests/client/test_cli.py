"""python -m mcp_lesson.client as a server developer uses it: a client that never harms a
server (only read-only tools tried unasked; a request given up is cancelled), long answers,
full output, resources, prompts, log lines, headers and a server's environment."""

import json
import sys

import pytest
from processes import patience, run_to_end

from client.servers import read_lines, scripted, stdio_server
from mcp_lesson.client.cli import main

CLIENT = [sys.executable, "-m", "mcp_lesson.client"]

#: The SDK's server with a read-only tool, a destructive one that writes a file, a resource,
#: a resource template and a prompt.
WORKSHOP = """\
import sys
from pathlib import Path
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
server = MCPServer('workshop')
@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def look(path: str = '.') -> str:
    return 'looked'
@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def wipe(path: str = '.') -> str:
    Path(sys.argv[1]).write_text('wiped')
    return 'wiped'
@server.tool()
def touch(path: str = '.') -> str:
    Path(sys.argv[1]).write_text('touched')
    return 'touched'
@server.resource('note://hello', name='hello', mime_type='text/plain')
def hello() -> str:
    return 'hello, ' + 'x' * 300
@server.resource('note://{name}', name='note')
def note(name: str) -> str:
    return 'a note named ' + name
@server.prompt()
def greet(name: str) -> str:
    return f'Greet {name}'
server.run('stdio')
"""


@pytest.fixture
def workshop(tmp_path):
    script, changed = tmp_path / "workshop.py", tmp_path / "changed.txt"
    script.write_text(WORKSHOP)
    return [sys.executable, str(script), str(changed)], changed


def test_try_tools_calls_only_read_only_tools_and_changes_nothing(workshop, capsys):
    command, changed = workshop
    assert main(["--stdio", "--try-tools", "--timeout", str(patience(30)), "--", *command]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        not changed.exists()
    )  # the destructive tool and the one with no annotations were not called
    assert "look: looked" in out
    skipped = {line.split(":")[0].split()[1]: line for line in out if line.startswith("skipped ")}
    assert set(skipped) == {"wipe", "touch"}
    assert "readOnlyHint" in skipped["wipe"] and "--include wipe" in skipped["wipe"]
    assert "destructiveHint" in skipped["wipe"]


def test_a_tool_named_with_include_is_called(workshop, capsys):
    command, changed = workshop
    assert (
        main(
            [
                "--stdio",
                "--try-tools",
                "--include",
                "wipe",
                "--timeout",
                str(patience(30)),
                "--",
                *command,
            ]
        )
        == 0
    )
    assert changed.read_text() == "wiped"
    out = capsys.readouterr().out.splitlines()
    assert "wipe: wiped" in out
    assert [line.split(":")[0] for line in out if line.startswith("skipped ")] == ["skipped touch"]


def test_an_include_the_server_does_not_list_is_a_failure(workshop, capsys):
    command, changed = workshop
    assert main(["--stdio", "--try-tools", "--include", "nothing", "--", *command]) == 1
    assert "nothing" in capsys.readouterr().err and not changed.exists()


def test_resources_templates_prompts_and_full_output(workshop, capsys):
    command, _ = workshop
    asked = [
        "--read",
        "note://hello",
        "--read",
        "note://ada",
        "--prompt",
        "greet",
        '{"name": "Ada"}',
    ]
    assert main(["--stdio", *asked, "--", *command]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "resource templates: note (note://{name})" in out
    assert "note://ada: a note named ada" in out
    assert "prompt greet: user: Greet Ada" in out
    [hello] = [line for line in out if line.startswith("note://hello: ")]
    assert hello.endswith("...") and len(hello) < 300  # cut by default
    assert main(["--stdio", "--full", "--read", "note://hello", "--", *command]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "note://hello: hello, " + "x" * 300 in out


def test_json_output_is_one_document_with_every_answer_whole(workshop, capsys):
    command, _ = workshop
    assert main(["--stdio", "--json", "--try-tools", "--read", "note://hello", "--", *command]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["server"]["serverInfo"]["name"] == "workshop"
    assert {tool["name"] for tool in document["tools"]} == {"look", "wipe", "touch"}
    assert {entry["name"] for entry in document["skipped"]} == {"wipe", "touch"}
    answers = {
        entry["params"].get("uri", entry["params"].get("name")): entry
        for entry in document["answers"]
    }
    assert answers["note://hello"]["result"]["contents"][0]["text"] == "hello, " + "x" * 300
    assert answers["look"]["result"]["content"][0]["text"] == "looked"


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_a_stdio_request_given_up_is_cancelled(tmp_path, revision):
    command, seen = stdio_server(tmp_path)
    done = run_to_end(
        [
            *CLIENT,
            "--stdio",
            "--revision",
            revision,
            "--call",
            "slow",
            "--timeout",
            "0.5",
            "--",
            *command,
        ],
        patience(60),
    )
    assert (
        done.returncode == 1 and "--timeout 0.5" in done.stderr and "Traceback" not in done.stderr
    )
    read = read_lines(seen)
    [call] = [message for message in read if message.get("method") == "tools/call"]
    cancelled = [
        message["params"] for message in read if message.get("method") == "notifications/cancelled"
    ]
    assert [params["requestId"] for params in cancelled] == [call["id"]]


def test_a_2_mib_stdio_answer_is_read_and_one_past_the_limit_is_one_line(tmp_path):
    command, _ = stdio_server(tmp_path)
    size = 2 * 2**20
    done = run_to_end(
        [*CLIENT, "--stdio", "--json", "--call", "big", json.dumps({"size": size}), "--", *command],
        patience(60),
    )
    assert done.returncode == 0, done.stderr
    [answer] = json.loads(done.stdout)["answers"]
    assert answer["result"]["content"][0]["text"] == "b" * size
    # Past the limit: refused at once in one line (the timeout is far longer than the guard).
    done = run_to_end(
        [
            *CLIENT,
            "--stdio",
            "--max-message",
            "100000",
            "--timeout",
            "600",
            "--call",
            "big",
            json.dumps({"size": size}),
            "--",
            *command,
        ],
        patience(60),
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert "100,000" in line and f"{size:,}"[:5] in line


def test_env_reaches_a_stdio_server(tmp_path, capsys):
    command, _ = stdio_server(tmp_path)
    assert (
        main(
            [
                "--stdio",
                "--env",
                "GREETING=hello there",
                "--call",
                "env",
                '{"name": "GREETING"}',
                "--",
                *command,
            ]
        )
        == 0
    )
    assert "env: hello there" in capsys.readouterr().out.splitlines()


def test_headers_go_on_every_request(capsys):
    def reply(body):
        result = {"tools": []} if body["method"] == "tools/list" else {}
        return (
            200,
            "application/json",
            json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode(),
        )

    server = scripted(reply)
    try:
        assert (
            main([server.url, "--header", "Authorization: Bearer t0ken", "--header", "X-Trace:  7"])
            == 0
        )
    finally:
        server.close()
    assert len(server.posted) >= 3  # initialize, notifications/initialized, tools/list
    assert all(
        headers.get("Authorization") == "Bearer t0ken" and headers.get("X-Trace") == "7"
        for headers, _ in server.posted
    )


def test_the_log_level_is_asked_for_in_both_generations(capsys):
    calculator = [sys.executable, "-m", "mcp_lesson.server"]
    for revision in ("2025-11-25", "2026-07-28"):
        assert (
            main(
                [
                    "--stdio",
                    "--revision",
                    revision,
                    "--log-level",
                    "info",
                    "--call",
                    "add",
                    '{"a": 1, "b": 2}',
                    "--",
                    *calculator,
                ]
            )
            == 0
        )
        out = capsys.readouterr().out.splitlines()
        assert "add: 3" in out and any(
            line.startswith("log info") and "1 + 2 = 3" in line for line in out
        )


@pytest.mark.parametrize(
    "arguments",
    [
        ["http://127.0.0.1:1/mcp", "--include", "x"],
        ["--stdio", "--header", "A: b", "--", "true"],
        ["http://127.0.0.1:1/mcp", "--env", "A=b"],
        ["http://127.0.0.1:1/mcp", "--header", "no colon"],
        ["--stdio", "--env", "=b", "--", "true"],
        ["http://127.0.0.1:1/mcp", "--prompt", "p", '{"n": 1}'],
        ["http://127.0.0.1:1/mcp", "--call"],
        ["http://127.0.0.1:1/mcp", "--max-message", "0"],
    ],
)
def test_options_that_do_not_fit_are_refused_in_one_line(arguments):
    done = run_to_end([*CLIENT, *arguments], patience(60))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 2  # argparse's usage line, then its one line


def test_resources_without_templates_is_no_failure(capsys):
    """A server with resources need not have templates: -32601 to resources/templates/list is
    said, and the run still succeeds; any other error there is a failure."""
    code = {"value": -32601}

    def answer(body):
        if body.get("method") == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "resources": {}},
                "serverInfo": {"name": "s", "version": "1"},
            }
        elif "id" not in body:
            return 202, "application/json", b""
        elif body["method"] == "resources/templates/list":
            error = {"code": code["value"], "message": "no"}
            return (
                200,
                "application/json",
                json.dumps({"jsonrpc": "2.0", "id": body["id"], "error": error}).encode(),
            )
        else:
            result = {"tools": [], "resources": []}
        return (
            200,
            "application/json",
            json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode(),
        )

    from client.servers import Scripted

    server = Scripted(answer)
    try:
        assert main([server.url]) == 0
        assert [line.split(":")[0] for line in capsys.readouterr().out.splitlines()] == [
            "server",
            "tools",
            "resources",
            "resource templates",
        ]
        code["value"] = -32603
        assert main([server.url]) == 1
        assert "templates" in capsys.readouterr().err.lower()
    finally:
        server.close()
