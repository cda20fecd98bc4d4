"""Lesson 09's four functions (mcp_lesson/core/transport.py, the master's export) against
the real server, rule by rule of the specification's transports page, and against the SDK's own header codec.

The case tables (mcp_lesson.exercises.cases: HTTP_REQUESTS, HEADER_CHECKS, SSE_STREAMS,
HTTP_ANSWERS) say what the functions must answer; tests/exercises/test_selfcheck.py-style checks
prove the functions answer so. Here the tables themselves are held to what
``mcp`` 2.3.0's server does: every header check is posted to the real server and its
answer compared, every POST ``http_request_for`` builds is sent and must not be refused
for its headers, ``http_verdict`` reads the real answers, ``read_sse`` the real stream
cut at every byte. Where the SDK's server is not the strict 2026-07-28 server the lesson
describes, the test says so and pins the difference.
"""

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_lesson import check, check_headers, http_request_for, http_verdict, read_sse
from mcp_lesson.exercises.http_cases import (
    HEADER_CHECKS,
    HTTP_ANSWERS,
    HTTP_REQUESTS,
    REFUSES,
    SSE_STREAMS,
)

MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test-http-lesson", "version": "1.0"},
    },
}


@pytest.fixture(scope="module")
def session(server, http):
    """A 2025-11-25 session, opened with initialize and notifications/initialized."""
    opened = http.post(server.url, **_as_sent(http_request_for(INITIALIZE, "2025-11-25")))
    sid = opened.headers["mcp-session-id"]
    done = http.post(
        server.url,
        **_as_sent(
            http_request_for(
                {"jsonrpc": "2.0", "method": "notifications/initialized"}, "2025-11-25"
            ),
            {"Mcp-Session-Id": sid},
        ),
    )
    assert done.status_code == 202
    return sid


def _as_sent(post, extra=None):
    """httpx's keyword arguments for the POST ``post`` (as http_request_for builds it)."""
    assert post["method"] == "POST"
    return {"headers": {**post["headers"], **(extra or {})}, "content": post["body"]}


def _answer_of(answer):
    """(status, code, id) of a JSON error answer, or (status, None, None)."""
    if answer.headers.get("content-type") == "application/json" and answer.status_code >= 400:
        body = answer.json()
        return answer.status_code, body["error"]["code"], body["id"]
    return answer.status_code, None, None


def _verdict(answer):
    return http_verdict(answer.status_code, answer.headers, answer.text)


# --- the course's functions pass their own tables --------------------------------------------


@pytest.mark.parametrize("name", ["http_request_for", "check_headers", "read_sse", "http_verdict"])
def test_the_course_s_functions_pass_their_tables(name, capsys):
    import mcp_lesson

    check(getattr(mcp_lesson, name))
    out = capsys.readouterr().out
    passed, total = out.split(": ")[1].split(" ")[0].split("/")
    assert passed == total, out


# --- check_headers: each case, posted to the real server ---------------------------------------

#: Cases of HEADER_CHECKS where the SDK's server is not the strict 2026-07-28 server
#: check_headers describes, and what it answers instead.
#: The tools of the course's HTTP server (mcp_lesson.server.calculator, built with count=True).
CALCULATOR_TOOLS = ("add", "calculator", "count")

SDK_DIFFERS = {
    # The SDK routes a POST by its MCP-Protocol-Version header alone: without one it goes to
    # the session side (which the spec lets a server do, taking it for 2025-03-26), and a
    # session request without a session id is refused there.
    "no version header": (400, -32600, None),
}


@pytest.mark.parametrize("case", HEADER_CHECKS, ids=[case.name for case in HEADER_CHECKS])
def test_check_headers_says_what_the_real_server_answers(server, http, case):
    headers, msg = case.args
    sent = {"Accept": ACCEPT, "Content-Type": "application/json", **headers}
    real = _answer_of(http.post(server.url, headers=sent, content=json.dumps(msg)))
    if case.name in SDK_DIFFERS:
        assert real == SDK_DIFFERS[case.name]
        return
    if case.expected is None:
        # Past the headers: the request is answered. A resource or a tool the calculator
        # does not have gets -32602 from the method, after the check (2025-11-25's
        # server/resources.mdx and server/tools.mdx name that code).
        unknown = msg["method"] == "resources/read" or (
            msg["method"] == "tools/call" and msg["params"].get("name") not in CALCULATOR_TOOLS
        )
        assert real[1] not in (-32020, -32022) and (real[1] != -32602 or unknown), real
        assert real[0] in (200, 202) or unknown, real
        return
    status, body = case.expected
    assert real == (status, body["error"]["code"], body["id"]), real


def test_the_sdk_takes_a_sentinel_that_is_not_canonical_base64_for_no_name(server, http):
    """Where the spec is silent: the SDK decodes only canonical Base64 (unused bits zero);
    check_headers decodes any valid Base64. "Y2FsY3VsYXRvch==" decodes to "calculator",
    as "Y2FsY3VsYXRvcg==" does, with one unused bit set."""
    assert base64.b64decode("Y2FsY3VsYXRvch==", validate=True) == b"calculator"
    msg = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "calculator", "arguments": {"expression": "1"}, "_meta": META},
    }
    headers = {
        "Accept": ACCEPT,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "=?base64?Y2FsY3VsYXRvch==?=",
    }
    assert check_headers(headers, msg) is None
    assert _answer_of(http.post(server.url, headers=headers, json=msg)) == (400, -32020, 3)


# --- http_request_for: what it builds, the real server takes -----------------------------------

SENT = [case for case in HTTP_REQUESTS if case.expected is not REFUSES]


@pytest.mark.parametrize("case", SENT, ids=[case.name for case in SENT])
def test_what_http_request_for_builds_is_never_refused_for_its_headers(server, http, session, case):
    msg, revision = case.args
    post = http_request_for(msg, revision)
    extra = (
        {}
        if revision == MODERN or msg.get("method") == "initialize"
        else {"Mcp-Session-Id": session}
    )
    answer = http.post(server.url, **_as_sent(post, extra))
    status, code, _ = _answer_of(answer)
    assert code not in (-32020, -32022, -32600), (status, answer.text)
    if "method" not in msg or "id" not in msg:  # a notification, or a client's response
        assert (status, answer.content) == (202, b"")
    elif msg["method"] in ("prompts/get", "resources/read") or (
        msg["method"] == "tools/call" and msg["params"]["name"] not in CALCULATOR_TOOLS
    ):
        # The calculator has no prompts and no resources, and only its tools: past the
        # headers, the method answers -32602 (2025-11-25's prompts, resources and tools
        # pages name it for an unknown name).
        assert answer.json()["error"]["code"] == -32602
    elif revision == MODERN and msg["method"] == "initialize":
        assert (status, code) == (404, -32601)  # past the headers: 2026-07-28 has no initialize
    else:
        assert status == 200


#: The refusals that can be sent to this server (2024-11-05's HTTP+SSE is another transport).
REFUSED = [
    case for case in HTTP_REQUESTS if case.expected is REFUSES and case.args[1] != "2024-11-05"
]


@pytest.mark.parametrize("case", REFUSED, ids=[case.name for case in REFUSED])
def test_what_http_request_for_refuses_the_real_server_refuses_too(server, http, case):
    """Sent anyway, with the headers a careless client would send, each message that
    http_request_for refuses is refused by the server too."""
    msg, revision = case.args
    headers = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": MODERN}
    if "method" in msg:
        headers["Mcp-Method"] = msg["method"]
    if revision != MODERN:
        headers.pop("MCP-Protocol-Version")
    answer = http.post(server.url, headers=headers, content=json.dumps(msg))
    assert answer.status_code >= 400, answer.text


def test_accept_must_name_both_types(server, http):
    """Every revision since 2025-03-26: Accept lists application/json and text/event-stream."""
    post = http_request_for(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}, MODERN
    )
    assert set(post["headers"]["Accept"].replace(" ", "").split(",")) == {
        "application/json",
        "text/event-stream",
    }
    narrow = {**post["headers"], "Accept": "application/json"}
    assert http.post(server.url, headers=narrow, content=post["body"]).status_code == 406


@given(st.text(max_size=40))
def test_mcp_name_is_the_sdk_s_encoding_and_check_headers_reads_the_sdk_s(name):
    """2026-07-28's Value Encoding, both ways, on any name: what http_request_for sends is
    what the SDK's client sends, and check_headers accepts it and rejects another name."""
    from mcp.shared.inbound import encode_header_value

    msg = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "_meta": META},
    }
    headers = http_request_for(msg, MODERN)["headers"]
    assert headers["Mcp-Name"] == encode_header_value(name)
    assert check_headers(headers, msg) is None
    other = {**headers, "Mcp-Name": encode_header_value(name + "x")}
    assert check_headers(other, msg)[1]["error"]["code"] == -32020


def test_the_spec_s_encoding_examples():
    """streamable-http.mdx (2026-07-28), "Encoding examples", as Mcp-Name values."""
    examples = {
        "us-west1": "us-west1",
        "Hello, 世界": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        " padded ": "=?base64?IHBhZGRlZCA=?=",
        "line1\nline2": "=?base64?bGluZTEKbGluZTI=?=",
        "=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
    }
    for value, header in examples.items():
        msg = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "prompts/get",
            "params": {"name": value, "_meta": META},
        }
        assert http_request_for(msg, MODERN)["headers"]["Mcp-Name"] == header


# --- http_verdict and read_sse on the real answers ------------------------------------------------


def _modern(method, params=None, request_id=1, meta=META):
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": meta},
    }


def test_http_verdict_reads_what_the_real_server_answers(server, http, session):
    """Each kind of answer of the transports page, from the real server, in the lesson's words."""

    def post(msg, revision=MODERN, extra=None, **kwargs):
        sent = _as_sent(http_request_for(msg, revision), extra)
        sent.update(kwargs)
        return _verdict(http.post(server.url, **sent))

    in_session = {"Mcp-Session-Id": session}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    assert post(_modern("tools/list")) == "answer: result"
    assert post(listing, "2025-11-25", in_session) == "stream: result"
    assert post(_modern("tools/destroy")) == "refused (404): error -32601"
    assert (
        post({**listing, "method": "tools/destroy"}, "2025-11-25", in_session)
        == "stream: error -32601"
    )
    assert (
        post(_modern("tools/list"), content='{"jsonrpc": "2.0", "id": 1, "meth')
        == "refused (400): error -32700"
    )
    assert (
        post(_modern("tools/list"), extra={"Origin": "https://evil.example"})
        == "refused (403): Invalid Origin header"
    )
    assert post({"jsonrpc": "2.0", "method": "notifications/initialized"}) == "accepted, no answer"
    assert (
        post({"jsonrpc": "2.0", "id": 9, "result": {}}, "2025-11-25", in_session)
        == "accepted, no answer"
    )
    assert post(listing, "2025-11-25") == "refused (400): error -32600"  # no session id
    assert (
        post(_modern("tools/list"), extra={"Mcp-Method": "tools/call"})
        == "refused (400): error -32020"
    )
    counting = _modern(
        "tools/call", {"name": "count", "arguments": {"to": 2}}, meta={**META, "progressToken": 1}
    )
    assert post(counting) == "stream: notifications/progress, notifications/progress, result"
    assert (
        _verdict(http.get(server.url, headers={"MCP-Protocol-Version": MODERN})) == "refused (405)"
    )


def test_read_sse_reads_the_real_stream_cut_anywhere(server, http):
    """Cut at every character, the stream gives the complete events before the cut, and
    never a message the server did not finish sending."""
    counting = _modern(
        "tools/call",
        {"name": "count", "arguments": {"to": 3}},
        request_id=7,
        meta={**META, "progressToken": "t"},
    )
    text = http.post(server.url, **_as_sent(http_request_for(counting, MODERN))).text
    whole = read_sse(text)
    assert [verdict for _, verdict in whole] == [("notification", None)] * 3 + [("response", None)]
    assert json.loads(whole[-1][0])["id"] == 7
    for end in range(len(text) + 1):
        # The server ends each event with CRLF CRLF; once the second CR has come, the
        # blank line is there (a CR alone ends a line, whatever follows it).
        assert read_sse(text[:end]) == whole[: text[:end].count("\r\n\r")], end


@pytest.mark.parametrize(
    "case", SSE_STREAMS + HTTP_ANSWERS, ids=[case.name for case in SSE_STREAMS + HTTP_ANSWERS]
)
def test_the_tables_hold_for_the_course_s_functions(case):
    fn = read_sse if len(case.args) == 1 else http_verdict
    assert fn(*case.args) == case.expected
