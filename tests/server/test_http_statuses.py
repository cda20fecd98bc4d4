"""Lesson 09's table of HTTP statuses (c09-65, with c09-61's unknown tool), held against the
course's two servers: the calculator on the SDK (mcp_lesson.server.calculator) and lesson 11's, with no SDK
(mcp_lesson.server.own, the masters' export). Each row is one POST, sent in a 2025-11-25 session
and statelessly under 2026-07-28; what comes back is pinned by its status, the JSON-RPC error code
of its message (None for a result) and whether there is a message at all.

And lesson 11's plumbing runs lesson 09's ``check_headers`` inside ``safely``: a check that fails
gives the client -32603, never a dropped connection.
"""

import json

import pytest
from http_server import OWN_SERVER, SDK_SERVER, http_client, open_session, serving

from mcp_lesson.core.transport import http_request_for
from mcp_lesson.peers.python_sdk_http import NO_MESSAGE, http_answer
from mcp_lesson.rules.messages import create_request

SESSION, STATELESS = "2025-11-25", "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": STATELESS,
    "io.modelcontextprotocol/clientCapabilities": {},
}
JUNK = '{"jsonrpc": "2.0", "id": 6, "meth'

#: name: (method, params, request id, what to do to the POST, {generation: (status, code)}); code
#: None is a result, NO_MESSAGE an answer with no JSON-RPC message (202, a plain-text refusal).
ROWS = {
    "tools/list": ("tools/list", None, 10, {}, {SESSION: (200, None), STATELESS: (200, None)}),
    "a method nobody has": (
        "tools/destroy",
        None,
        11,
        {},
        {SESSION: (200, -32601), STATELESS: (404, -32601)},
    ),
    "junk (a cut-off body)": (
        "tools/list",
        None,
        12,
        {"body": JUNK},
        {SESSION: (400, -32700), STATELESS: (400, -32700)},
    ),
    "a notification": (
        "notifications/initialized",
        None,
        None,
        {},
        {SESSION: (202, NO_MESSAGE), STATELESS: (202, NO_MESSAGE)},
    ),
    "a web page's Origin": (
        "tools/list",
        None,
        13,
        {"change": {"Origin": "https://evil.example"}},
        {SESSION: (403, NO_MESSAGE), STATELESS: (403, NO_MESSAGE)},
    ),
    "Mcp-Method that lies": (
        "tools/list",
        None,
        14,
        {"change": {"Mcp-Method": "tools/call"}},
        {SESSION: (200, None), STATELESS: (400, -32020)},
    ),
    "a tool nobody has": (
        "tools/call",
        {"name": "calculatrice_é", "arguments": {}},
        15,
        {},
        {SESSION: (200, -32602), STATELESS: (400, -32602)},
    ),
}


@pytest.fixture(scope="module", params=["sdk", "own"])
def course_server(request):
    yield from serving(SDK_SERVER if request.param == "sdk" else OWN_SERVER)


def post(client, url, row, generation, session):
    method, params, request_id, how, _ = ROWS[row]
    if generation == STATELESS:
        params = {**(params or {}), "_meta": META}
    msg = create_request(method, params, request_id=request_id)
    built = http_request_for(msg, generation)
    headers = {
        **built["headers"],
        **(session if generation == SESSION else {}),
        **how.get("change", {}),
    }
    return client.post(url, headers=headers, content=how.get("body", built["body"]).encode())


@pytest.mark.parametrize("generation", [SESSION, STATELESS])
@pytest.mark.parametrize("row", list(ROWS))
def test_each_row_of_lesson_09_s_table(course_server, row, generation):
    with http_client() as client:
        session = open_session(client, course_server.url) if generation == SESSION else {}
        answer = post(client, course_server.url, row, generation, session)
    got = http_answer(answer.status_code, answer.headers, answer.text)
    status, code = ROWS[row][-1][generation]
    assert (got.status, got.id if code is NO_MESSAGE else got.code) == (status, code), answer.text[
        :300
    ]


def test_a_check_headers_that_fails_is_answered_with_minus_32603(monkeypatch, capsys):
    """The learners' case: a check_headers that raised on a tools/call whose params lacked a name
    ended the handler, and the client read "Server disconnected without sending a response"."""
    from mcp_lesson.core import server

    def broken(headers, msg):
        return msg["params"]["name"] == headers.get("Mcp-Name")  # KeyError without a name

    monkeypatch.setattr(server, "check_headers", broken)
    text = json.dumps(create_request("tools/call", {"arguments": {}, "_meta": META}, request_id=4))
    replies, session = server.safely(text, None, {"Mcp-Method": "tools/call"})
    assert session is None
    assert [(reply["id"], reply["error"]["code"]) for reply in replies] == [(4, -32603)]
    assert "KeyError" in capsys.readouterr().err  # the reason, on stderr


def test_check_headers_refusal_and_handle_message_through_safely():
    from mcp_lesson.core import server

    request = create_request("tools/list", {"_meta": META}, request_id=5)
    right = http_request_for(request, STATELESS)["headers"]
    refused, _ = server.safely(json.dumps(request), None, {**right, "Mcp-Method": "tools/call"})
    answered, _ = server.safely(json.dumps(request), None, right)
    assert (
        refused[0]["error"]["code"] == -32020 and answered[0]["result"]["resultType"] == "complete"
    )
