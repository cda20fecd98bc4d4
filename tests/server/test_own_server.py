"""The course's second server, with no SDK (mcp_lesson/server/own.py runs lesson 11's master
export, mcp_lesson/core/server.py), for real: over stdio a line at a time, over HTTP with
an HTTP client, and (full tier) held to both SDK clients, through the tap, and to the
conformance suite's generic scenarios, as the SDK-built server is. The learner's own
server is the same code exported into a package: the last test runs the masters' package
as ``python -m my_mcp.server``, as a learner does.

The rules are lesson 11's (its case tables are checked in tests/exercises/test_selfcheck.py's way by
``check``); here, what the transports add: stdout holds JSON only, the Host and the Origin
are checked before a message is read, a refused request closes its connection, sessions,
202 for what needs no reply, and the priming event of a stream.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from http_server import OWN_SERVER, http_client, serving
from processes import patience

from mcp_lesson.core.server import MODERN, TOOLS, handle_message
from mcp_lesson.exercises.selfcheck import run_check
from mcp_lesson.peers import conformance

ROOT = Path(__file__).resolve().parents[2]
STDIO = [sys.executable, "-m", "mcp_lesson.server.own"]
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def hello(version="2025-11-25", request_id=1):
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }


@pytest.mark.parametrize("name", ["call_tool", "answer_request", "handle_message"])
def test_the_master_s_export_passes_its_tables(name):
    from mcp_lesson.core import server

    report = run_check(getattr(server, name), name)
    assert report.all_pass, report.text(5)


# --- over stdio -------------------------------------------------------------------------------


def test_over_stdio_every_line_gets_its_replies_and_stdout_holds_only_json():
    lines = [
        json.dumps(hello()),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        "not json",
        "",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {
                    "name": "count",
                    "arguments": {"n": 2},
                    "_meta": {**META, "progressToken": 1},
                },
            }
        ),
    ]
    done = subprocess.run(
        STDIO,
        cwd=ROOT,
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=patience(60),
    )  # it ends at the end of its input
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply.get("id", reply.get("method")) for reply in replies] == [
        1,
        2,
        None,
        None,
        "notifications/progress",
        "notifications/progress",
        3,
    ]
    assert replies[0]["result"]["protocolVersion"] == "2025-11-25"
    assert replies[1]["result"] == {"tools": TOOLS}
    assert [replies[2]["error"]["code"], replies[3]["error"]["code"]] == [-32700, -32700]
    assert replies[-1]["result"]["resultType"] == "complete"


def test_the_function_is_pure_it_neither_keeps_nor_changes_anything():
    text = json.dumps(hello())
    assert handle_message(text, None) == handle_message(text, None)
    assert (
        handle_message(text.encode(), "2025-06-18")[1] == "2025-11-25"
    )  # a new handshake agrees again


# --- over HTTP ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def own():
    yield from serving(OWN_SERVER)


def opened(client, url, version="2025-11-25"):
    answer = client.post(url, headers=ACCEPT, json=hello(version))
    assert answer.status_code == 200, answer.text
    return {
        **ACCEPT,
        "Mcp-Session-Id": answer.headers["mcp-session-id"],
        "MCP-Protocol-Version": version,
    }


def events(text):
    """The SSE events of a body: [(id, retry, data)]."""
    found = []
    for block in text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) if ": " in line else (line.rstrip(":"), "")
            for line in block.splitlines()
            if line
        )
        if fields:
            found.append((fields.get("id"), fields.get("retry"), fields.get("data", "")))
    return found


def test_a_stream_begins_with_a_priming_event_then_one_event_a_reply(own):
    with http_client() as client:
        headers = opened(client, own.url)
        answer = client.post(
            own.url,
            headers=headers,
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "count", "arguments": {"n": 2}, "_meta": {"progressToken": "p"}},
            },
        )
    assert answer.headers["content-type"] == "text/event-stream"
    found = events(answer.text)
    assert found[0][1] == "1000" and found[0][0] and found[0][2] == ""  # id, retry, no data
    messages = [json.loads(data) for _, _, data in found[1:]]
    assert [m.get("method", m.get("id")) for m in messages] == ["notifications/progress"] * 2 + [2]


def test_json_when_the_client_takes_no_stream_and_202_for_what_needs_no_reply(own):
    with http_client() as client:
        headers = {**opened(client, own.url), "Accept": "application/json"}
        listed = client.post(
            own.url, headers=headers, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        )
        noted = client.post(
            own.url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
        )
    assert listed.headers["content-type"] == "application/json" and listed.json()["result"] == {
        "tools": TOOLS
    }
    assert (noted.status_code, noted.content) == (202, b"")


@pytest.mark.parametrize(
    "headers, status",
    [
        ({"Host": "evil.example.com"}, 421),
        ({"Host": "127.0.0.1.evil.example.com:80"}, 421),
        ({"Origin": "http://evil.example.com"}, 403),
        ({"Origin": "https://127.0.0.1"}, 403),
        ({"Host": "localhost:9", "Origin": "http://localhost:9"}, 200),
        ({"Host": "[::1]:9"}, 200),
    ],
)
def test_the_host_and_the_origin_are_checked_before_any_message(own, headers, status):
    with http_client() as client:
        answer = client.post(own.url, headers={**ACCEPT, **headers}, json=hello())
    assert answer.status_code == status, answer.text


def test_a_refusal_closes_its_connection_so_its_body_is_never_the_next_request(own):
    import socket

    body = json.dumps(hello()).encode()
    request = (
        f"POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nContent-Type: application/json\r\n"
        f"Accept: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", own.port), timeout=patience(15)) as sock:
        sock.sendall(request + request.replace(b"evil.example.com", b"127.0.0.1"))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert (
        answer.startswith(b"HTTP/1.1 421") and answer.count(b"HTTP/1.1") == 1
    )  # closed after the first


def test_sessions_unknown_ended_and_missing(own):
    with http_client() as client:
        headers = opened(client, own.url)
        ping = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
        assert client.post(own.url, headers=headers, json=ping).status_code == 200
        assert (
            client.post(
                own.url, headers={**headers, "MCP-Protocol-Version": "2025-03-26"}, json=ping
            ).status_code
            == 200
        )  # any revision of the handshake (the suite sends this one)
        assert (
            client.post(
                own.url, headers={**headers, "MCP-Protocol-Version": "1999-01-01"}, json=ping
            ).status_code
            == 400
        )
        assert client.delete(own.url, headers=headers).status_code == 200
        assert client.post(own.url, headers=headers, json=ping).status_code == 404  # it ended
        assert (
            client.post(own.url, headers=ACCEPT, json=ping).status_code == 400
        )  # no session at all
        assert client.get(own.url, headers=ACCEPT).status_code == 405


def test_a_2026_07_28_request_is_held_to_lesson_09_s_check_headers(own):
    request = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": META}}
    right = {**ACCEPT, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}
    with http_client() as client:
        good = client.post(own.url, headers=right, json=request)
        lying = client.post(own.url, headers={**right, "Mcp-Method": "tools/call"}, json=request)
        junk = client.post(own.url, headers=right, content=b"{oops")
    assert (
        good.status_code == 200
        and json.loads(events(good.text)[1][2])["result"]["resultType"] == "complete"
    )
    assert (lying.status_code, lying.json()["error"]["code"]) == (400, -32020)
    assert (junk.status_code, junk.json()["error"]["code"]) == (400, -32700)


def test_a_body_over_the_limit_is_refused_unread(own):
    with http_client() as client:
        answer = client.post(own.url, headers=ACCEPT, content=b" " * (4 * 1024 * 1024 + 1))
    assert answer.status_code == 413


# --- the SDK's clients, the tap and the suite (full tier) ---------------------------------------


@pytest.mark.full
def test_both_sdk_clients_over_stdio_through_the_tap_and_no_audit_finds_a_fault(tmp_path):
    from mcp_lesson import audit
    from mcp_lesson.course.your_own_server import over_stdio
    from mcp_lesson.tap import audit as tap_audit

    found = over_stdio(STDIO, folder=tmp_path)
    (handshake, first), (modern, second) = found["ClientSession"], found["mcp.Client"]
    assert handshake == {
        "revision": "2025-11-25",
        "tools": ["add", "count"],
        "2 + 40": "42",
        "multiply": "error -32602",
    }
    assert modern == {
        "revision": MODERN,
        "tools": ["add", "count"],
        "count": "1, 2, 3",
        "progress": ["1/3", "2/3", "3/3"],
    }
    methods = [
        json.loads(e["text"]).get("method") for e in second if e.get("direction") == "to_server"
    ]
    assert methods[0] == "server/discover"  # the probe, answered: the client stays in 2026-07-28
    for talk in (first, second):
        assert audit(talk) == [] and tap_audit(talk) == []


@pytest.mark.full
def test_the_masters_package_runs_as_python_m_my_mcp_server(tmp_path):
    """What a learner who solved lessons 02-11 runs: their package, exported from the masters,
    started as ``python -m my_mcp.server`` in its folder, over stdio and with ``--http``; both
    SDK clients complete their conversations, and no audit finds a fault."""
    from mcp_lesson import audit
    from mcp_lesson.course.live_traffic import read_recording
    from mcp_lesson.course.your_own_server import http_sessions, over_http, over_stdio
    from mcp_lesson.exercises.learner_package import export_notebook

    package = tmp_path / "my_mcp"
    for lesson in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        export_notebook(lesson, package)
    command = [sys.executable, "-m", "my_mcp.server"]
    talks = over_stdio(command, cwd=str(tmp_path), folder=tmp_path)
    assert (
        talks["ClientSession"][0]["2 + 40"] == "42" and talks["mcp.Client"][0]["count"] == "1, 2, 3"
    )
    assert all(audit(talk) == [] for _, talk in talks.values())
    assert (
        tmp_path / "server-stderr.txt"
    ).read_text() == ""  # no RuntimeWarning from runpy, nothing else
    with over_http(command, cwd=str(tmp_path), folder=tmp_path) as (url, _, recording):
        got = http_sessions(url)
    assert (
        got["ClientSession"]["revision"] == "2025-11-25" and got["mcp.Client"]["revision"] == MODERN
    )
    assert audit(read_recording(recording)) == []
    done = subprocess.run(
        [sys.executable, "-c", "import my_mcp, sys; print('mcp_lesson' in sys.modules)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=patience(60),
    )
    assert done.stdout.strip() == "False", done.stderr  # the package stands alone


@pytest.mark.full
def test_every_client_and_the_suite_get_what_lesson_11_stores_for_the_browser():
    """Both SDK clients over stdio and HTTP, the TypeScript SDK's client and the suite's generic
    scenarios, against the course's server: what they get is what mcp_lesson/data/own_server.json
    holds (course_server.store_results() writes it again), and every scenario passes."""
    from mcp_lesson.course.your_own_server import results, stored_results

    stored = stored_results()
    assert results(STDIO) == stored
    assert {name: (verdict, why) for name, verdict, why in stored["suite"]} == {
        name: ("passes", "") for name in conformance.GENERIC
    }
    assert stored["typescript"] == {
        "server": "my-mcp",
        "tools": ["add", "count"],
        "2 + 40": "42",
        "multiply": "error -32602",
    }
    assert stored["http"] == stored["stdio"]
