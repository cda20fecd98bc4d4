"""The differential test over HTTP: the SDK's server beside the course's rules.

Every case of :data:`mcp_lesson.peers.python_sdk.HTTP_CASES` (the table of lesson 07's
section "Over HTTP") is sent to the real server, ``python -m mcp_lesson.server
--http --port 0`` under the tests' guard, once in a 2025-11-25 session and once
stateless (2026-07-28), and its answer (HTTP status, JSON-RPC error code, id)
is held to what ``mcp`` 2.3.0 answered (each case's ``seen``, which is also
what the lesson shows where no server can start). An SDK upgrade that changes
one fails here, naming the case and the side: update ``HTTP_CASES`` and
re-execute lesson 07. The course's own answers (:func:`course_http_answer`)
are pinned too, so the table cannot change on either side unnoticed.
tests/server/test_http_server.py pins the rest of what this server answers.
"""

import httpx
import pytest
from http_server import http_client
from processes import patience

from mcp_lesson import create_request
from mcp_lesson.client.stdio import StdioServer
from mcp_lesson.exercises.cases import CASES
from mcp_lesson.peers.python_sdk import (
    GENERATIONS,
    HTTP_CASES,
    HTTP_META,
    NO_ID,
    NO_MESSAGE,
    SESSION,
    STATELESS,
    HttpAnswer,
    compare_http,
    course_http_answer,
    http_answer,
    http_message,
    http_post,
    open_session,
    sdk_version,
    ts_verdicts,
)

WHY = f"(mcp {sdk_version()}: update HTTP_CASES in mcp_lesson/peers/python_sdk.py and lesson 07 if the SDK changed)"
NAMES = [case.name for case in HTTP_CASES]

#: What a server holding to the course's rules answers each case: (session, stateless).
COURSE = {
    '"id": null on a request': ("400 -32600 null", "400 -32600 null"),
    '"id": NaN on a request': ("400 -32700 null", "400 -32700 null"),
    '"params": null': ("400 -32600 7", "400 -32600 7"),
    '"jsonrpc": "1.0"': ("400 -32600 7", "400 -32600 7"),
    "a batch of one request": ("400 -32600 null", "400 -32600 null"),
    "an error response with no id": ("202", "400 -32600 null"),
    "both result and error": ("400 -32600 7", "400 -32600 7"),
    "a result response": ("202", "400 -32600 null"),
    "a method nobody has": ("200 -32601 7", "404 -32601 7"),
    "initialize": ("200 result 7", "404 -32601 7"),
    "Mcp-Method that lies": ("200 result 7", "400 -32020 7"),
    "no MCP-Protocol-Version": ("200 result 7", "400 -32020 7"),
    "version header 2025-06-18": ("200 result 7", "400 -32020 7"),
    "foreign Origin, unknown session": ("403", "403"),
}


@pytest.fixture(scope="module")
def live(server):
    """The table, asked of the real server once for the module: case name -> HttpRow."""
    return {row.name: row for row in compare_http(HTTP_CASES, url=server.url, timeout=patience(15))}


@pytest.fixture(scope="module")
def http():
    with http_client() as client:
        yield client


def shown(answer):
    """An answer as the lesson prints it, and as a tuple (ids compared by type too)."""
    return str(answer), tuple(answer), type(answer.id)


# --- every row of lesson 07's table, against the real server ---------------------------------


@pytest.mark.parametrize("generation", GENERATIONS, ids=["session", "stateless"])
@pytest.mark.parametrize("name", NAMES)
def test_the_sdk_answers_as_pinned(live, name, generation):
    row = live[name]
    assert row.live
    case = HTTP_CASES[NAMES.index(name)]
    got, pinned = row.sdk[generation], case.seen[generation]
    assert shown(got) == shown(pinned), (
        f"{name!r}, {generation}: the SDK's server answers {got} where mcp 2.3.0 answered {pinned} {WHY}"
    )


@pytest.mark.parametrize("name", NAMES)
def test_the_course_answers_as_pinned(name):
    [row] = compare_http([HTTP_CASES[NAMES.index(name)]])
    assert tuple(str(row.course[generation]) for generation in GENERATIONS) == COURSE[name]


def test_every_case_is_pinned_once():
    assert len(set(NAMES)) == len(NAMES) and set(NAMES) == set(COURSE)
    for case in HTTP_CASES:
        assert set(case.seen) == set(GENERATIONS), case.name
        assert case.rule.endswith(".") and ("20" in case.rule or "JSON-RPC" in case.rule), case.name


def test_every_row_is_a_difference():
    # The table holds only cases where the SDK departs from the course's rules,
    # or its two generations answer differently: a row that stops differing goes.
    for row in compare_http():
        assert row.departs or row.generations_differ, row.name


def test_without_a_server_the_stored_answers_are_given():
    rows = compare_http()
    assert [row.name for row in rows] == NAMES
    assert all(not row.live for row in rows)
    assert [row.sdk for row in rows] == [case.seen for case in HTTP_CASES]
    assert [row.rule for row in rows] == [case.rule for case in HTTP_CASES]


def test_compare_http_ends_the_sessions_it_opened(server, http):
    # compare_http's own session, and the one its "initialize" case opened, are
    # gone afterwards; the module's fixture then checks that nothing is left listening.
    opened = []
    real_post = httpx.Client.post

    def spy(self, url, **kwargs):
        answer = real_post(self, url, **kwargs)
        if answer.status_code == 200 and "mcp-session-id" in answer.headers:
            opened.append(answer.headers["mcp-session-id"])
        return answer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(httpx.Client, "post", spy)
        compare_http([HTTP_CASES[NAMES.index("initialize")]], url=server.url, timeout=patience(15))
    assert len(set(opened)) == 2
    for session in set(opened):
        answer = http.post(
            server.url,
            headers={
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
                "MCP-Protocol-Version": SESSION,
                "Mcp-Session-Id": session,
            },
            json=create_request("tools/list", request_id=1),
        )
        assert answer.status_code == 404  # Session not found: ended


# --- what the lesson says about the rows, beyond the table -------------------------------------


def test_a_foreign_page_learns_whether_a_session_id_is_alive(server, http):
    """A live session id with a foreign Origin: 403; an unknown one: 404 (the table's last row)."""
    session = open_session(http, server.url)
    base = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": SESSION,
        "Origin": "https://evil.example",
    }
    alive = http.post(
        server.url,
        headers={**base, "Mcp-Session-Id": session},
        json=create_request("tools/list", request_id=1),
    )
    dead = http.post(
        server.url,
        headers={**base, "Mcp-Session-Id": "no-such-session"},
        json=create_request("tools/list", request_id=1),
    )
    assert (alive.status_code, dead.status_code) == (403, 404), WHY
    http.delete(server.url, headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": SESSION})


def test_initialize_on_a_stateless_stdio_connection_is_minus_32022():
    """Over HTTP a stateless initialize is an unknown method (404, -32601); over stdio the
    same SDK answers it with -32022 and the versions it supports, once a connection serves 2026-07-28."""
    with StdioServer(revision=STATELESS) as stdio:
        stdio.request(http_message("server/discover", STATELESS, 1))
        reply = stdio.request(http_message("initialize", STATELESS, 2))
    assert '"code":-32022' in reply and '"supported":["2026-07-28"]' in reply, (
        f"{reply[:300]} {WHY}"
    )


def test_the_sdks_null_ids_are_what_the_typescript_sdk_refuses():
    nulls = [
        (row.name, generation)
        for row in compare_http()
        for generation in GENERATIONS
        if row.sdk[generation].id is None
    ]
    assert len(nulls) == 13  # lesson 07 prints this count
    assert ts_verdicts()["error with id null"] == "invalid"
    assert any(case.name == "error with id null" for case in CASES)


# --- the pieces -------------------------------------------------------------------------------


def test_the_posts_are_built_by_the_course():
    case = HTTP_CASES[NAMES.index("Mcp-Method that lies")]
    headers, body = http_post(case, SESSION, "abc")
    assert headers["Mcp-Session-Id"] == "abc" and headers["Mcp-Method"] == "tools/call"
    assert headers["MCP-Protocol-Version"] == SESSION
    assert body == '{"jsonrpc": "2.0", "method": "tools/list", "id": 7}'
    headers, body = http_post(case, STATELESS, "abc")
    assert "Mcp-Session-Id" not in headers and headers["MCP-Protocol-Version"] == STATELESS
    assert HTTP_META["io.modelcontextprotocol/protocolVersion"] in body
    headers, body = http_post(HTTP_CASES[NAMES.index('"id": NaN on a request')], STATELESS)
    assert body.startswith(
        '{"jsonrpc": "2.0", "method": "tools/list", "id": NaN, "params": {"_meta"'
    )
    headers, _ = http_post(HTTP_CASES[NAMES.index("no MCP-Protocol-Version")], STATELESS)
    assert "MCP-Protocol-Version" not in headers and headers["Mcp-Method"] == "tools/list"
    with pytest.raises(ValueError, match="generation"):
        http_message("tools/list", "2025-06-18")


@pytest.mark.parametrize(
    "status, headers, body, expected",
    [
        (202, {}, "", "202"),
        (403, {"content-type": "text/plain"}, "Invalid Origin header", "403"),
        (
            400,
            {"Content-Type": "application/json"},
            '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}',
            "400 -32700 null",
        ),
        (
            400,
            {"content-type": "application/json"},
            '{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}',
            "400 -32600 no id",
        ),
        (
            200,
            {"content-type": "text/event-stream"},
            'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\r\n\r\n'
            'event: message\r\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\r\n\r\n',
            "200 result 7",
        ),
        (200, {"content-type": "text/event-stream"}, "", "200"),
        (200, {"content-type": "application/json; charset=utf-8"}, "{not json", "200"),
        (200, {"content-type": "application/json"}, "[1]", "200"),
    ],
    ids=[
        "no-body",
        "plain-text",
        "json-error",
        "no-id",
        "stream",
        "empty-stream",
        "junk",
        "not-an-object",
    ],
)
def test_http_answer_reads_what_came_back(status, headers, body, expected):
    assert str(http_answer(status, headers, body)) == expected


def test_http_answer_never_raises():
    for headers, body in (
        ({"content-type": "application/json"}, None),
        (None, ""),
        ({1: 2}, b"\xff"),
    ):
        assert http_answer(500, headers, body).id is NO_MESSAGE
    assert HttpAnswer(200, None, NO_ID) != HttpAnswer(200, None, None)


def test_course_http_answer():
    def post(msg, generation, **change):
        headers, body = http_post(
            HTTP_CASES[0]._replace(edit=lambda _: msg, change=change), generation
        )
        return str(course_http_answer(headers, body, generation))

    ping = create_request("ping", request_id=3)
    assert post(ping, SESSION) == "200 result 3"
    assert post(ping, STATELESS) == "400 -32602 3"  # no _meta: check_headers' answer
    assert post(create_request("notifications/initialized"), SESSION) == "202"
    tools = create_request("tools/list", request_id=3)
    assert post(tools, SESSION, Origin="http://localhost:8888") == "200 result 3"
    assert post(tools, SESSION, Origin="null") == "403"
    with pytest.raises(ValueError, match="generation"):
        course_http_answer({}, "{}", "2024-11-05")
