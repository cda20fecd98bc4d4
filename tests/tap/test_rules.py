"""The MCP rules of the audit beyond framing and pairing (mcp_lesson/tap/rules.py): capabilities,
ids reused after their answer, unknown tools, reserved codes, the revision's result schema, and
over HTTP sessions and Origin. Each on a small recorded conversation, each finding citing the
page of the revision agreed.
"""

import json
import subprocess
from pathlib import Path

import pytest

from mcp_lesson.tap import audit
from mcp_lesson.tap.schemas import STORED, stored, vendor

from .tapping import down, init, up


def found(talk, name):
    return [
        (p["line"], p.get("severity", "problem"), p["detail"])
        for p in audit(talk)
        if p["problem"] == name
    ]


TOOLS = [
    up({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    down(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"tools": [{"name": "add", "inputSchema": {"type": "object"}}]},
        }
    ),
]


def call(request_id, name):
    return up(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": name, "arguments": {}},
        }
    )


def test_messages_need_the_capability_the_other_side_announced():
    log = down(
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "x"},
        }
    )
    sample = down(
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "sampling/createMessage",
            "params": {"messages": [], "maxTokens": 1},
        }
    )
    talk = init() + [log, sample]
    ((line, severity, words),) = found(talk, "capability")[:1]
    assert (line, severity) == (4, "problem")
    assert (
        "server/utilities/logging.mdx" in words
        and "docs/specification/2025-06-18/basic/lifecycle.mdx" in words
    )
    assert [p[0] for p in found(talk, "capability")] == [4, 5]
    assert "client/sampling.mdx" in found(talk, "capability")[1][2]
    # a SHOULD before 2025-06-18's lifecycle.mdx made it a MUST
    early = init("2025-03-26") + [log]
    assert found(early, "capability")[0][1] == "warning"
    announced = init(client={"sampling": {}}, server={"logging": {}}) + [log, sample]
    assert found(announced, "capability") == []
    # elicitation exists from 2025-06-18; without a handshake nothing is known, nothing is said
    ask = down({"jsonrpc": "2.0", "id": 8, "method": "elicitation/create", "params": {}})
    assert "client/elicitation.mdx" in found(init() + [ask], "capability")[0][2]
    assert found([log, sample, ask], "capability") == []


def test_an_id_reused_after_its_answer():
    talk = (
        init()
        + TOOLS
        + [
            up({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            down({"jsonrpc": "2.0", "id": 1, "result": {}}),
        ]
    )
    ((line, severity, words),) = found(talk, "id_reused")
    assert (line, severity) == (6, "problem")
    assert "line 5" in words and "docs/specification/2025-06-18/basic/index.mdx" in words
    assert "basic/messages.mdx" in found(init("2024-11-05") + talk[3:], "id_reused")[0][2]
    # Under the course's rules (no revision agreed), JSON-RPC allows it, as lesson 10's audit does
    assert found(talk[3:], "id_reused") == []
    # in flight, lesson 10's problem, said once
    twice = init() + [TOOLS[0], up({"jsonrpc": "2.0", "id": 1, "method": "ping"}), TOOLS[1]]
    assert (
        len(found(twice, "id_reused")) == 1
        and "still unanswered" in found(twice, "id_reused")[0][2]
    )


def test_an_unknown_tool_is_a_protocol_error_not_a_result():
    as_result = down(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {
                "content": [{"type": "text", "text": "Unknown tool: nope"}],
                "isError": True,
            },
        }
    )
    talk = init() + TOOLS + [call(2, "nope"), as_result]
    ((line, _, words),) = found(talk, "unknown_tool")
    assert (
        line == 7
        and "-32602" in words
        and "docs/specification/2025-06-18/server/tools.mdx" in words
    )
    # a tool the list named may fail as a result; without a complete list nothing is known
    assert found(init() + TOOLS + [call(2, "add"), as_result], "unknown_tool") == []
    assert found(init() + [call(2, "nope"), as_result], "unknown_tool") == []
    right = down(
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool: nope"}}
    )
    assert audit(init() + TOOLS + [call(2, "nope"), right]) == []


def test_a_reserved_code_with_another_meaning():
    not_found = down(
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Unknown tool: nope"}}
    )
    talk = init(server={"tools": {}}) + [call(2, "nope"), not_found]
    ((line, _, words),) = found(talk, "reserved_code")
    assert line == 5 and "-32602" in words and "server/tools.mdx" in words
    # -32601 for a method the server does not have is right
    assert found(init() + [call(2, "nope"), not_found], "reserved_code") == []
    parse = down({"jsonrpc": "2.0", "id": 2, "error": {"code": -32700, "message": "Parse error"}})
    assert [p[0] for p in found(init() + [call(2, "add"), parse], "reserved_code")] == [5]


def test_results_are_held_to_the_revision_s_schema():
    broken = init() + [
        up({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        down({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "add"}]}}),
    ]
    ((line, _, words),) = found(broken, "result_shape")
    assert line == 5 and "inputSchema" in words and "schema/2025-06-18/schema.json" in words
    assert found(init() + TOOLS, "result_shape") == []
    # the initialize answer itself, and a tools/call result whose content has no text
    no_info = [
        broken[0],
        down(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {"protocolVersion": "2025-06-18", "capabilities": {}},
            }
        ),
    ]
    assert "serverInfo" in found(no_info, "result_shape")[0][2]
    empty = (
        init()
        + TOOLS
        + [
            call(2, "add"),
            down({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text"}]}}),
        ]
    )
    assert [p[0] for p in found(empty, "result_shape")] == [7]
    # 2026-07-28's results carry resultType
    stateless = [
        up(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/list",
                "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
            }
        ),
        down({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
    ]
    assert "schema/2026-07-28/schema.json" in found(stateless, "result_shape")[0][2]


def _http(direction, message, exchange, status=None, **headers):
    http = {"exchange": exchange, "headers": headers}
    if direction == "to_server":
        http.update(method="POST", path="/mcp")
    else:
        http["status"] = status
    return {
        "direction": direction,
        "text": json.dumps(message) if message is not None else "",
        "http": http,
    }


def _event(name, exchange, method="POST", status=None, **headers):
    event = {"event": name, "exchange": exchange, "headers": headers}
    event.update(
        {"method": method, "path": "/mcp"} if name == "http_request" else {"status": status}
    )
    return event


def _session_talk(answer_status, after_delete=True):
    first = init("2025-11-25")
    host = {"host": "127.0.0.1:8000"}
    talk = (
        [
            _http("to_server", json.loads(first[0]["text"]), 1, **host),
            _http("from_server", json.loads(first[1]["text"]), 1, 200, **{"mcp-session-id": "s1"}),
            _event("http_request", 2, "DELETE", **host, **{"mcp-session-id": "s1"}),
            _event("http_response", 2, status=200),
        ]
        if after_delete
        else [
            _http("to_server", json.loads(first[0]["text"]), 1, **host),
            _http("from_server", json.loads(first[1]["text"]), 1, 200, **{"mcp-session-id": "s1"}),
        ]
    )
    late = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
    talk += [
        _http(
            "to_server",
            late,
            3,
            **host,
            **{
                "mcp-session-id": "s1" if after_delete else "nobody",
                "mcp-protocol-version": "2025-11-25",
            },
        ),
        _http(
            "from_server",
            {
                "jsonrpc": "2.0",
                "id": "server-error",
                "error": {"code": -32600, "message": "Bad Request"},
            },
            3,
            answer_status,
        ),
    ]
    return talk


def test_a_request_on_an_ended_or_unknown_session_gets_404():
    ((line, _, words),) = found(_session_talk(400), "session_status")
    assert (
        line == 6
        and "404" in words
        and "docs/specification/2025-11-25/basic/transports.mdx" in words
    )
    assert found(_session_talk(404), "session_status") == []
    assert len(found(_session_talk(400, after_delete=False), "session_status")) == 1
    assert found(_session_talk(404, after_delete=False), "session_status") == []


def test_an_origin_of_another_site_must_be_refused():
    def talk(origin, status):
        return [
            _http(
                "to_server",
                {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                1,
                host="127.0.0.1:8000",
                origin=origin,
            ),
            _http(
                "from_server",
                {"jsonrpc": "2.0", "id": 1, "result": {}} if status == 200 else None,
                1,
                status,
            ),
        ]

    ((line, _, words),) = found(talk("http://evil.example", 200), "origin")
    assert line == 2 and "403" in words and "basic/transports.mdx" in words
    assert found(talk("http://evil.example", 403), "origin") == []
    assert found(talk("http://localhost:8000", 200), "origin") == []
    assert found(talk("http://127.0.0.1:8000", 200), "origin") == []
    # a rebinding page names itself in Host and Origin alike: the tap knows the server's own names
    start = {
        "event": "start",
        "transport": "http",
        "listen": "http://127.0.0.1:8001/mcp",
        "to": "http://127.0.0.1:8000/mcp",
    }
    rebinding = talk("http://evil.example", 200)
    rebinding[0]["http"]["headers"]["host"] = "evil.example"
    assert found(rebinding, "origin") == []  # without the tap's start, Host is all it has
    assert [p[0] for p in found([start, *rebinding], "origin")] == [3]


MIRROR = Path("/work/.mirror/modelcontextprotocol+modelcontextprotocol/repo")


@pytest.mark.skipif(
    not MIRROR.exists(), reason="no checkout of modelcontextprotocol/modelcontextprotocol here"
)
def test_the_stored_schemas_are_the_repository_s_trimmed():
    commit = stored()["commit"]
    try:

        def read(path):
            return subprocess.run(
                ["git", "-C", str(MIRROR), "show", f"{commit}:{path}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout

        again = vendor(read, sorted(stored()["revisions"]), commit)
    except subprocess.CalledProcessError:
        pytest.skip(f"the checkout has no commit {commit}")
    assert again == json.loads(STORED.read_text(encoding="utf-8"))


def test_a_server_s_request_after_the_client_closed_its_input_is_owed_nothing():
    roots = down({"jsonrpc": "2.0", "id": 0, "method": "roots/list"})
    talk = init(client={"roots": {}}) + [{"event": "client_closed"}, roots]
    assert audit(talk) == []
    asked_before = init(client={"roots": {}}) + [roots, {"event": "client_closed"}]
    assert [p["problem"] for p in audit(asked_before)] == ["unanswered"]
