"""The calculator over Streamable HTTP, for real, and what the SDK's server answers.

One server (``python -m mcp_lesson.server --http --port 0``, under the tests'
guard) serves the module; the fixture stops it and checks that nothing is
left listening on its port. Every status, header and error code below is what
``mcp`` 2.3.0's transport answers, pinned on purpose: an SDK upgrade that
changes one fails here, and lesson 09 (which shows these answers) is looked
at again. Where the SDK and the specification
(``docs/specification/<revision>/basic/transports``) part ways, the test
says so. Requests name the generation they speak by their
``MCP-Protocol-Version`` header: 2026-07-28 is the stateless entry; a
2025 revision, or no header at all, the session entry.
"""

import base64
import json
import os
import re
import signal
import socket
import sys

import pytest
from http_server import open_session
from processes import patience, run_to_end, start_guarded

from mcp_lesson.core.transport import read_sse
from mcp_lesson.server.calculator import HTTP_PATH, MAX_COUNT, SERVER_NAME, main
from mcp_lesson.server.resumption import RETRY_MS
from mcp_lesson.server.running import HttpServer, port_is_free

MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test-http-server", "version": "1.0"},
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": HANDSHAKE,
        "capabilities": {},
        "clientInfo": {"name": "test-http-server", "version": "1.0"},
    },
}
HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION = -32020, -32022
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


def modern(method, params=None, request_id=1, meta=META):
    """A 2026-07-28 request: ``params._meta`` carries the version and capabilities."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": meta},
    }


def modern_headers(method, name=None, version=MODERN, **extra):
    """The headers a 2026-07-28 client sends (``Mcp-Name`` when given), and ``extra``."""
    headers = {
        "Accept": ACCEPT,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": version,
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    headers.update(extra)
    return headers


def without_version(headers):
    return {key: value for key, value in headers.items() if key != "MCP-Protocol-Version"}


def call(name, arguments, request_id=1, meta=META):
    return modern("tools/call", {"name": name, "arguments": arguments}, request_id, meta)


def sentinel(value):
    """``value`` in the Base64 sentinel form of 2026-07-28's Value Encoding."""
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def sse_events(text):
    """The message of each event of an SSE body, as lesson 09's ``read_sse`` reads them.

    A priming event (an id and empty ``data``) is no message: the SSE rules
    dispatch no event whose data is empty.
    """
    return [json.loads(data) for data, _ in read_sse(text)]


def error_of(answer):
    """(HTTP status, JSON-RPC error code, the body) of a JSON error answer."""
    assert answer.headers["content-type"] == "application/json", answer.headers
    body = answer.json()
    return answer.status_code, body["error"]["code"], body


# --- the server itself -----------------------------------------------------------------


def test_it_listens_on_loopback_and_says_where(server):
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+" + HTTP_PATH, server.url)
    assert 0 < server.port < 65536 and server.url.endswith(f":{server.port}/mcp")
    assert server.running


def test_importing_the_server_imports_no_sdk():
    probe = (
        "import sys, mcp_lesson.server.calculator, mcp_lesson.server.running; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('mcp', 'mcp_types', 'uvicorn', 'starlette', 'httpx', 'anyio')))"
    )
    done = run_to_end([sys.executable, "-c", probe], limit=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "argv, complaint",
    [
        (["--port", "8123"], "--port goes with --http"),
        (["--http", "--port", "http"], "'http' is not a port"),
        (["--http", "--port", "65536"], "'65536' is not a port"),
    ],
)
def test_the_command_line_refuses(argv, complaint, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert complaint in capsys.readouterr().err


def test_a_taken_port_ends_the_server_with_uvicorns_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_to_end(
            [sys.executable, "-m", "mcp_lesson.server", "--http", "--port", str(port)], limit=60
        )
    assert done.returncode == 3  # uvicorn's STARTUP_FAILURE
    assert "address already in use" in done.stderr and "listening on" not in done.stderr


def test_ctrl_c_stops_it_quietly():
    running = HttpServer(start=start_guarded, timeout=patience(30))
    try:
        # Ctrl-C as a terminal sends it, to the whole process group (the guard lets it pass).
        os.killpg(running.pgid, signal.SIGINT)
        running.wait(patience(20))
    finally:
        running.stop(timeout=patience(10))
    assert running.returncode == 0
    assert "Traceback" not in running.stderr_text()
    assert port_is_free(running.port)


# --- 2025-11-25: initialize, then a session ------------------------------------------------


def test_a_2025_11_25_session(server, http):
    url = server.url
    opened = http.post(
        url, headers={"Accept": ACCEPT, "Content-Type": "application/json"}, json=INITIALIZE
    )
    assert opened.status_code == 200
    # This server answers with SSE (the SDK's default); initialize too: one event, the response.
    assert opened.headers["content-type"] == "text/event-stream"
    [answer] = sse_events(opened.text)
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == HANDSHAKE
    # An event store (mcp_lesson.server.resumption): the stream opens with a priming event, an id
    # and empty data with a retry in milliseconds (2025-11-25's transports page), and the
    # answer has an id too, to resume from with Last-Event-ID.
    assert re.match(
        r"id: \S+\r\ndata: \r\nretry: %d\r\n\r\nid: \S+\r\nevent: message\r\ndata: \{" % RETRY_MS,
        opened.text,
    ), opened.text
    assert answer["result"]["serverInfo"]["name"] == SERVER_NAME
    session = opened.headers["mcp-session-id"]
    assert re.fullmatch(r"[\x21-\x7e]+", session)  # the spec: visible ASCII only

    headers = {
        "Accept": ACCEPT,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": HANDSHAKE,
        "Mcp-Session-Id": session,
    }
    acknowledged = http.post(
        url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
    )
    assert (acknowledged.status_code, acknowledged.content) == (202, b"")

    listed = http.post(
        url, headers=headers, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    )
    assert listed.status_code == 200 and listed.headers["mcp-session-id"] == session
    [answer] = sse_events(listed.text)
    assert {tool["name"] for tool in answer["result"]["tools"]} == {"add", "calculator", "count"}
    assert "resultType" not in answer["result"]  # a 2026-07-28 member

    # The session id is required from now on...
    without = {key: value for key, value in headers.items() if key != "Mcp-Session-Id"}
    status, code, body = error_of(
        http.post(url, headers=without, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    )
    assert (status, code, body["id"]) == (400, INVALID_REQUEST, None)
    assert body["error"]["message"] == "Bad Request: Missing session ID"
    # ...and one the server does not know is 404, which tells the client to initialize again.
    status, code, body = error_of(
        http.post(
            url,
            headers={**headers, "Mcp-Session-Id": "no-such-session"},
            json={"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
        )
    )
    assert (status, code, body["id"], body["error"]["message"]) == (
        404,
        INVALID_REQUEST,
        None,
        "Session not found",
    )

    # In a session an unknown method is a 200 stream carrying -32601 (2026-07-28 makes it a 404).
    unknown = http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 5, "method": "no/such"})
    assert unknown.status_code == 200
    [answer] = sse_events(unknown.text)
    assert answer["error"]["code"] == METHOD_NOT_FOUND and answer["id"] == 5

    # The version header is not held to the one negotiated, and may be left out.
    for version in ("2025-03-26", None):
        other = (
            {**headers, "MCP-Protocol-Version": version} if version else without_version(headers)
        )
        pinged = http.post(url, headers=other, json={"jsonrpc": "2.0", "id": 6, "method": "ping"})
        assert pinged.status_code == 200 and sse_events(pinged.text) == [
            {"jsonrpc": "2.0", "id": 6, "result": {}}
        ]

    # A request carrying 2026-07-28's _meta is answered in a session as any other there
    # (over stdio the SDK refuses one on a handshake connection with -32600).
    [answer] = sse_events(
        http.post(url, headers=headers, json=modern("tools/list", request_id=9)).text
    )
    assert answer["id"] == 9 and "resultType" not in answer["result"]

    # server/discover is 2026-07-28's: in a session it does not exist.
    [answer] = sse_events(
        http.post(
            url, headers=headers, json={"jsonrpc": "2.0", "id": 7, "method": "server/discover"}
        ).text
    )
    assert answer["error"]["code"] == METHOD_NOT_FOUND

    # A request with "id": null is taken for a notification: accepted, and never answered.
    careless = http.post(
        url, headers=headers, json={"jsonrpc": "2.0", "id": None, "method": "ping"}
    )
    assert (careless.status_code, careless.content) == (202, b"")

    # A posted response is accepted there (2025-11-25 lets a client answer the server).
    posted = http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 99, "result": {}})
    assert (posted.status_code, posted.content) == (202, b"")

    ended = http.delete(url, headers=headers)
    assert ended.status_code == 200
    status, code, _ = error_of(
        http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    )
    assert (status, code) == (404, INVALID_REQUEST)


def test_a_session_refused_is_discarded_though_its_id_was_sent(server, http):
    """Without a session id only initialize opens a session; the SDK still puts the id of
    the session it just discarded on the 400."""
    refused = http.post(
        server.url,
        headers={
            "Accept": ACCEPT,
            "Content-Type": "application/json",
            "MCP-Protocol-Version": HANDSHAKE,
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert refused.status_code == 400
    stale = refused.headers["mcp-session-id"]
    status, code, _ = error_of(
        http.post(
            server.url,
            headers={
                "Accept": ACCEPT,
                "Content-Type": "application/json",
                "MCP-Protocol-Version": HANDSHAKE,
                "Mcp-Session-Id": stale,
            },
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        )
    )
    assert (status, code) == (404, INVALID_REQUEST)


def test_a_body_of_2026_07_28_without_its_version_header_is_taken_for_a_session_request(
    server, http
):
    """No MCP-Protocol-Version header: the SDK routes by that header only, so this goes to
    the session entry (the spec lets a server take a missing header for 2025-03-26)."""
    status, code, body = error_of(
        http.post(
            server.url,
            headers=without_version(modern_headers("tools/list")),
            json=modern("tools/list"),
        )
    )
    assert (status, code, body["error"]["message"]) == (
        400,
        INVALID_REQUEST,
        "Bad Request: Missing session ID",
    )


def test_a_batch_in_a_session_is_refused_as_invalid_params(server, http):
    """JSON-RPC would say -32600 (Invalid Request); the SDK's session entry says -32602."""
    answer = http.post(
        server.url,
        headers={"Accept": ACCEPT, "Content-Type": "application/json"},
        json=[INITIALIZE],
    )
    status, code, body = error_of(answer)
    assert (status, code, body["id"]) == (400, INVALID_PARAMS, None)


# --- 2026-07-28: stateless requests -----------------------------------------------------------


def test_stateless_tools_list(server, http):
    answer = http.post(
        server.url, headers=modern_headers("tools/list"), json=modern("tools/list", request_id=7)
    )
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert "mcp-session-id" not in answer.headers
    body = answer.json()
    assert body["id"] == 7 and body["result"]["resultType"] == "complete"
    assert {tool["name"] for tool in body["result"]["tools"]} == {"add", "calculator", "count"}


def test_server_discover(server, http):
    body = http.post(
        server.url, headers=modern_headers("server/discover"), json=modern("server/discover")
    ).json()
    assert body["result"]["supportedVersions"] == [MODERN]
    assert body["result"]["resultType"] == "complete"


def test_a_stateless_tools_call(server, http):
    answer = http.post(
        server.url,
        headers=modern_headers("tools/call", name="calculator"),
        json=call("calculator", {"expression": "2 + 2"}),
    )
    assert answer.status_code == 200
    result = answer.json()["result"]
    assert result["structuredContent"] == {"result": 4} and result["isError"] is False


@pytest.mark.parametrize(
    "headers, why",
    [
        (
            modern_headers("tools/list", **{"Mcp-Method": "tools/call"}),
            "mcp-method header does not match",
        ),
        (
            {
                key: value
                for key, value in modern_headers("tools/list").items()
                if key != "Mcp-Method"
            },
            "mcp-method header does not match",
        ),  # a missing header is a mismatch too
        (
            modern_headers("tools/list", version="2025-11-26"),
            "mcp-protocol-version header does not match",
        ),
    ],
    ids=["other-method", "no-method", "version-differs-from-meta"],
)
def test_a_header_that_contradicts_the_body(server, http, headers, why):
    status, code, body = error_of(
        http.post(server.url, headers=headers, json=modern("tools/list", request_id=8))
    )
    assert (status, code, body["id"]) == (400, HEADER_MISMATCH, 8)
    assert why in body["error"]["message"]


def test_header_names_are_case_insensitive_and_values_are_not(server, http):
    lower = {key.lower(): value for key, value in modern_headers("tools/list").items()}
    assert http.post(server.url, headers=lower, json=modern("tools/list")).status_code == 200
    status, code, _ = error_of(
        http.post(server.url, headers=modern_headers("Tools/List"), json=modern("tools/list"))
    )
    assert (status, code) == (400, HEADER_MISMATCH)


def test_a_header_given_twice(server, http):
    twice = [*modern_headers("tools/list").items(), ("Mcp-Method", "tools/list")]
    status, code, body = error_of(http.post(server.url, headers=twice, json=modern("tools/list")))
    assert (status, code, body["error"]["message"]) == (
        400,
        HEADER_MISMATCH,
        "mcp-method header appears more than once",
    )


def test_mcp_name_mirrors_the_uri_of_resources_read(server, http):
    read = modern("resources/read", {"uri": "file:///notes.txt"})
    status, code, body = error_of(
        http.post(
            server.url,
            headers=modern_headers("resources/read", name="file:///other.txt"),
            json=read,
        )
    )
    assert (status, code) == (400, HEADER_MISMATCH) and "'uri' parameter" in body["error"][
        "message"
    ]
    # Right header: past the check; the calculator has no such resource (-32602, a 400 too).
    status, code, _ = error_of(
        http.post(
            server.url,
            headers=modern_headers("resources/read", name="file:///notes.txt"),
            json=read,
        )
    )
    assert (status, code) == (400, INVALID_PARAMS)


def test_mcp_name_on_a_method_that_names_nothing_is_ignored(server, http):
    answer = http.post(
        server.url, headers=modern_headers("tools/list", name="anything"), json=modern("tools/list")
    )
    assert answer.status_code == 200


@pytest.mark.parametrize(
    "name_header",
    [None, "add", "Calculator", "=?BASE64?" + sentinel("calculator")[9:]],
    ids=["missing", "other-tool", "case-differs", "uppercase-sentinel"],
)
def test_mcp_name_must_match_the_tool_called(server, http, name_header):
    status, code, body = error_of(
        http.post(
            server.url,
            headers=modern_headers("tools/call", name=name_header),
            json=call("calculator", {"expression": "1"}, request_id=9),
        )
    )
    assert (status, code, body["id"]) == (400, HEADER_MISMATCH, 9)
    assert (
        body["error"]["message"]
        == "mcp-name header does not match the request body's 'name' parameter"
    )


def test_mcp_name_in_the_base64_sentinel_form(server, http):
    """The server decodes a sentinel before comparing: a plain name may come encoded too,
    and a name that is not plain ASCII must (here an unknown tool: the header passes, then
    the tool is not found, which 2025-11-25's server/tools.mdx makes the protocol error
    -32602, and the SDK's status table a 400)."""
    encoded = http.post(
        server.url,
        headers=modern_headers("tools/call", name=sentinel("calculator")),
        json=call("calculator", {"expression": "6 * 7"}),
    )
    assert encoded.status_code == 200 and encoded.json()["result"]["structuredContent"] == {
        "result": 42
    }

    name = "calculatrice_é"
    assert sentinel(name) == "=?base64?Y2FsY3VsYXRyaWNlX8Op?="
    status, code, body = error_of(
        http.post(
            server.url,
            headers=modern_headers("tools/call", name=sentinel(name)),
            json=call(name, {}),
        )
    )
    assert (status, code, body["error"]["message"]) == (
        400,
        INVALID_PARAMS,
        f"Unknown tool: {name}",
    )

    status, code, _ = error_of(
        http.post(
            server.url,
            headers=modern_headers("tools/call", name="calculatrice_e"),
            json=call(name, {}),
        )
    )
    assert (status, code) == (400, HEADER_MISMATCH)


def test_the_sdks_header_codec_follows_the_spec_examples():
    """2026-07-28's Value Encoding table, through the SDK's own encoder and decoder."""
    from mcp.shared.inbound import decode_header_value, encode_header_value

    examples = {  # streamable-http.mdx, "Encoding examples"
        "us-west1": "us-west1",
        "Hello, 世界": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        " padded ": "=?base64?IHBhZGRlZCA=?=",
        "line1\nline2": "=?base64?bGluZTEKbGluZTI=?=",
        "=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
    }
    for value, header in examples.items():
        assert (
            encode_header_value(value) == header == (sentinel(value) if header != value else value)
        )
        assert decode_header_value(header) == value
    # Where the spec leaves room: the SDK encodes a tab (RFC 9110 allows it in a value) and
    # decodes no sentinel that is not canonical Base64 (so it matches no body value).
    assert encode_header_value("a\tb") == sentinel("a\tb")
    assert decode_header_value("=?base64?Y2FsY3VsYXRvcg?=") is None  # padding left out


def test_an_unsupported_version(server, http):
    old = {**META, "io.modelcontextprotocol/protocolVersion": "1999-01-01"}
    status, code, body = error_of(
        http.post(
            server.url,
            headers=modern_headers("tools/list", version="1999-01-01"),
            json=modern("tools/list", request_id=10, meta=old),
        )
    )
    assert (status, code, body["id"]) == (400, UNSUPPORTED_PROTOCOL_VERSION, 10)
    assert body["error"]["data"] == {"supported": [MODERN], "requested": "1999-01-01"}
    # Header and _meta must agree first: the header rung runs before the version rung.
    status, code, _ = error_of(
        http.post(
            server.url,
            headers=modern_headers("tools/list", version="1999-01-01"),
            json=modern("tools/list"),
        )
    )
    assert (status, code) == (400, HEADER_MISMATCH)


def test_a_request_without_meta(server, http):
    bare = {"jsonrpc": "2.0", "id": 11, "method": "tools/list"}
    status, code, body = error_of(
        http.post(server.url, headers=modern_headers("tools/list"), json=bare)
    )
    assert (status, code, body["id"]) == (400, INVALID_PARAMS, 11)


def test_an_unknown_method(server, http):
    status, code, body = error_of(
        http.post(
            server.url, headers=modern_headers("no/such"), json=modern("no/such", request_id=12)
        )
    )
    assert (status, code, body["id"], body["error"].get("data")) == (
        404,
        METHOD_NOT_FOUND,
        12,
        "no/such",
    )


def test_initialize_is_no_method_of_2026_07_28(server, http):
    status, code, body = error_of(
        http.post(
            server.url,
            headers=modern_headers("initialize"),
            json={**INITIALIZE, "params": {**INITIALIZE["params"], "_meta": META}},
        )
    )
    assert (status, code, body["error"].get("data")) == (404, METHOD_NOT_FOUND, "initialize")


def test_a_notification_is_accepted_with_no_body(server, http):
    notification = {
        "jsonrpc": "2.0",
        "method": "notifications/initialized",
        "params": {"_meta": META},
    }
    answer = http.post(
        server.url, headers=modern_headers("notifications/initialized"), json=notification
    )
    assert (answer.status_code, answer.content) == (202, b"")


def test_a_notification_is_held_to_the_version_header_only(server, http):
    """Header rules for notifications are not defined in 2026-07-28: the SDK checks the
    version (the one header that routed the POST there) and nothing else."""
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    answer = http.post(server.url, headers=modern_headers("tools/list"), json=notification)
    assert (answer.status_code, answer.content) == (202, b"")
    status, code, body = error_of(
        http.post(
            server.url,
            headers=modern_headers("notifications/initialized", version="1999-01-01"),
            json=notification,
        )
    )
    assert (status, code, body["id"]) == (400, UNSUPPORTED_PROTOCOL_VERSION, None)


@pytest.mark.parametrize(
    "request_id", [None, True, 1.0, [1]], ids=["null", "true", "float", "list"]
)
def test_a_request_id_that_is_no_id(server, http, request_id):
    status, code, body = error_of(
        http.post(
            server.url,
            headers=modern_headers("tools/list"),
            json={**modern("tools/list"), "id": request_id},
        )
    )
    assert (status, code, body["id"]) == (400, INVALID_REQUEST, None)


@pytest.mark.parametrize("version", [MODERN, None], ids=["stateless", "session"])
def test_junk_is_a_parse_error_with_a_null_id(server, http, version):
    headers = (
        modern_headers("tools/list")
        if version
        else {"Accept": ACCEPT, "Content-Type": "application/json"}
    )
    status, code, body = error_of(
        http.post(server.url, headers=headers, content=b'{"jsonrpc": "2.0", "id": 1, "meth')
    )
    assert (status, code) == (400, PARSE_ERROR)
    assert "id" in body and body["id"] is None  # JSON-RPC's null id; no MCP schema allows it


@pytest.mark.parametrize(
    "body",
    [[modern("tools/list")], {"jsonrpc": "2.0", "id": 1, "result": {}}],
    ids=["batch", "response"],
)
def test_only_one_request_or_notification_may_be_posted(server, http, body):
    status, code, answer = error_of(
        http.post(server.url, headers=modern_headers("tools/list"), json=body)
    )
    assert (status, code, answer["id"]) == (400, INVALID_REQUEST, None)


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_no_stream_and_no_session_to_end_in_2026_07_28(server, http, method):
    answer = http.request(
        method, server.url, headers={"Accept": "text/event-stream", "MCP-Protocol-Version": MODERN}
    )
    assert (answer.status_code, answer.headers["allow"], answer.content) == (405, "POST", b"")


def test_the_body_must_be_declared_json(server, http):
    headers = {
        key: value for key, value in modern_headers("tools/list").items() if key != "Content-Type"
    }
    answer = http.post(server.url, headers=headers, content=json.dumps(modern("tools/list")))
    assert (answer.status_code, answer.text) == (400, "Invalid Content-Type header")


def test_a_body_over_4_mib_is_refused_unread(server):
    """Refused on its declared length, before a byte of it is read (so no body is sent)."""
    head = (
        f"POST {HTTP_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Content-Type: application/json\r\nAccept: {ACCEPT}\r\n"
        f"MCP-Protocol-Version: {MODERN}\r\nMcp-Method: tools/list\r\n"
        f"Content-Length: {4 * 1024 * 1024 + 1}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=patience(15)) as sock:
        sock.sendall(head.encode("ascii"))
        received = b""
        while b"Request body too large" not in received:
            chunk = sock.recv(4096)
            if not chunk:
                break
            received += chunk
    assert received.startswith(b"HTTP/1.1 413 ")
    assert received.endswith(b"\r\n\r\nRequest body too large")


def test_accept_must_list_both_types(server, http):
    answer = http.post(
        server.url,
        headers=modern_headers("tools/list", Accept="application/json"),
        json=modern("tools/list"),
    )
    assert (answer.status_code, answer.content) == (406, b"")


# --- Origin and Host: the SDK's DNS-rebinding protection ----------------------------------------


@pytest.mark.parametrize(
    "origin, status",
    [
        ("https://evil.example", 403),
        ("null", 403),  # a sandboxed page or a file
        ("http://localhost", 403),  # allowed are http://127.0.0.1, localhost and [::1] with a port
        ("https://127.0.0.1:8443", 403),  # and over http only
        ("http://localhost:8888", 200),  # a notebook's page on this machine
        ("http://127.0.0.1:1", 200),
    ],
)
def test_origin(server, http, origin, status):
    answer = http.post(
        server.url, headers=modern_headers("tools/list", Origin=origin), json=modern("tools/list")
    )
    assert answer.status_code == status
    if status == 403:  # plain text, not the JSON-RPC error the spec allows (MAY)
        assert answer.text == "Invalid Origin header" and "content-type" not in answer.headers


def test_a_foreign_origin_cannot_open_a_session(server, http):
    answer = http.post(
        server.url,
        headers={
            "Accept": ACCEPT,
            "Content-Type": "application/json",
            "Origin": "https://evil.example",
        },
        json=INITIALIZE,
    )
    assert (answer.status_code, answer.text) == (403, "Invalid Origin header")
    assert "mcp-session-id" not in answer.headers


def test_an_unknown_session_is_looked_up_before_the_origin(server, http):
    """The spec: validate Origin on every connection (403). The SDK's session manager
    answers an unknown session id first, so a foreign page gets 404, not 403."""
    answer = http.post(
        server.url,
        headers={
            "Accept": ACCEPT,
            "Content-Type": "application/json",
            "MCP-Protocol-Version": HANDSHAKE,
            "Mcp-Session-Id": "no-such-session",
            "Origin": "https://evil.example",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert answer.status_code == 404


def test_a_foreign_host_header(server, http):
    answer = http.post(
        server.url,
        headers=modern_headers("tools/list", Host="evil.example:80"),
        json=modern("tools/list"),
    )
    assert (answer.status_code, answer.text) == (421, "Invalid Host header")


# --- one answer, several messages: progress over SSE ---------------------------------------------


def test_count_streams_its_progress_then_the_response(server, http):
    meta = {**META, "progressToken": "count-1"}
    answer = http.post(
        server.url,
        headers=modern_headers("tools/call", name="count"),
        json=call("count", {"to": 3}, request_id=13, meta=meta),
    )
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/event-stream"
    assert answer.headers["x-accel-buffering"] == "no"  # the spec's SHOULD, for proxies
    assert answer.text.count("data: ") == 4 and answer.text.startswith("event: message\r\ndata: ")
    *progress, last = sse_events(answer.text)
    assert [event["method"] for event in progress] == ["notifications/progress"] * 3
    assert [event["params"] for event in progress] == [
        {"progressToken": "count-1", "progress": step, "total": 3, "message": f"{step} of 3"}
        for step in (1, 2, 3)
    ]
    assert last["id"] == 13 and last["result"]["structuredContent"] == {"result": 3}
    assert last["result"]["resultType"] == "complete"


def test_count_without_a_progress_token_is_one_json_answer(server, http):
    answer = http.post(
        server.url,
        headers=modern_headers("tools/call", name="count"),
        json=call("count", {"to": 3}),
    )
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["result"]["structuredContent"] == {"result": 3}


@pytest.mark.parametrize("to", [0, MAX_COUNT + 1, True, 2.0])
def test_count_refuses(server, http, to):
    answer = http.post(
        server.url,
        headers=modern_headers("tools/call", name="count"),
        json=call("count", {"to": to}),
    )
    assert answer.status_code == 200 and answer.json()["result"]["isError"] is True


def test_count_streams_in_a_session_too(server, http):
    opened = http.post(
        server.url, headers={"Accept": ACCEPT, "Content-Type": "application/json"}, json=INITIALIZE
    )
    headers = {
        "Accept": ACCEPT,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": HANDSHAKE,
        "Mcp-Session-Id": opened.headers["mcp-session-id"],
    }
    http.post(
        server.url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
    )
    answer = http.post(
        server.url,
        headers=headers,
        json={
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "count", "arguments": {"to": 2}, "_meta": {"progressToken": 5}},
        },
    )
    assert answer.headers["content-type"] == "text/event-stream"
    events = sse_events(answer.text)
    assert [event.get("method") for event in events] == ["notifications/progress"] * 2 + [None]
    assert [event["params"]["progress"] for event in events[:2]] == [1, 2]
    assert events[-1]["id"] == 2 and events[-1]["result"]["structuredContent"] == {"result": 2}
    http.delete(server.url, headers=headers)


# --- errors as the spec names them, and the logging capability (2025-11-25) ----------------


def test_an_unknown_tool_and_an_unknown_prompt_are_minus_32602(server, http):
    """server/tools.mdx lists unknown tools among the protocol errors (-32602); server/prompts.mdx
    says "Invalid prompt name: -32602". The SDK alone gives isError and code 0."""
    headers = open_session(http, server.url)
    for request_id, method, name, words in [
        (2, "tools/call", "nope", "Unknown tool: nope"),
        (3, "prompts/get", "nope", "Unknown prompt: nope"),
    ]:
        answer = http.post(
            server.url,
            headers=headers,
            json={
                "jsonrpc": "2.0",
                "id": request_id,
                "method": method,
                "params": {"name": name, "arguments": {}},
            },
        )
        [reply] = sse_events(answer.text)
        assert reply == {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": INVALID_PARAMS, "message": words},
        }, reply
    # A tool that exists and fails still answers with a result marked isError.
    failing = http.post(
        server.url,
        headers=headers,
        json={
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "calculator", "arguments": {"expression": "1 / 0"}},
        },
    )
    [reply] = sse_events(failing.text)
    assert reply["result"]["isError"] is True


def _call_in(headers, http, url, request_id, level=None):
    if level is not None:
        set_level = http.post(
            url,
            headers=headers,
            json={
                "jsonrpc": "2.0",
                "id": request_id * 10,
                "method": "logging/setLevel",
                "params": {"level": level},
            },
        )
        [reply] = sse_events(set_level.text)
        assert reply == {"jsonrpc": "2.0", "id": request_id * 10, "result": {}}
    answer = http.post(
        url,
        headers=headers,
        json={
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 2, "b": 40}},
        },
    )
    return sse_events(answer.text)


def test_logging_set_level_then_one_log_line_a_tool_call(server, http):
    headers = open_session(http, server.url)
    # Before any level is set, no log lines: the conversation is as lessons 06 and 09 show it.
    [reply] = _call_in(headers, http, server.url, 1)
    assert reply["result"]["structuredContent"] == {"result": 42}
    log, reply = _call_in(headers, http, server.url, 2, level="info")
    assert log == {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "logger": SERVER_NAME, "data": "add: 2 + 40 = 42"},
    }
    assert reply["id"] == 2
    [reply] = _call_in(headers, http, server.url, 3, level="warning")  # info is below warning
    assert reply["id"] == 3
    # Each session has its own level.
    [reply] = _call_in(open_session(http, server.url), http, server.url, 4)
    assert reply["id"] == 4


def test_an_unknown_log_level_is_minus_32602(server, http):
    headers = open_session(http, server.url)
    answer = http.post(
        server.url,
        headers=headers,
        json={"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "loud"}},
    )
    [reply] = sse_events(answer.text)
    assert reply["error"]["code"] == INVALID_PARAMS and reply["id"] == 2


def test_the_capabilities_name_logging(server, http):
    opened = http.post(
        server.url, headers={"Accept": ACCEPT, "Content-Type": "application/json"}, json=INITIALIZE
    )
    [answer] = sse_events(opened.text)
    assert answer["result"]["capabilities"]["logging"] == {}
