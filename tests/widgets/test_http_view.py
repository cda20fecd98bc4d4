"""The HTTP view (mcp_lesson/widgets/http_view.py): headers and a body, judged as lesson
09's ``check_headers`` does, with hostile, huge and junk input.
"""

import json

import pytest

from mcp_lesson.exercises.http_cases import HEADER_CHECKS
from mcp_lesson.widgets import (
    HEADER_LINES,
    HEADERS_LIMIT,
    PREVIEW_LIMIT,
    SDK_BODY_LIMIT,
    HttpView,
    as_text,
    read_headers,
)

from .viewing import ALLOWED_TAGS, HOSTILE, LONG, in_a_kernel_loop, sendable, settled, tags

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
GOOD_HEADERS = (
    "Accept: application/json, text/event-stream\nContent-Type: application/json\n"
    "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list"
)
LIST_BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
)


def test_http_view_headers_that_agree():
    view = HttpView(GOOD_HEADERS, LIST_BODY)
    assert (view.agree, view.answer, view.kind, view.code) == (True, None, "request", None)
    shown = as_text(view.result)
    assert shown.startswith("A strict 2026-07-28 server answers:\n\nHEADERS AGREE")
    assert "The body, under MCP 2026-07-28: REQUEST no error code" in shown
    assert view.request["headers"]["Mcp-Method"] == "tools/list"
    assert "Mcp-Method | tools/list | tools/list | the same" in shown
    assert "Content-Type" not in " ".join(view.notes) and "406" not in shown  # nothing more to say
    assert view.announcement.value == "Server: the headers agree with the body."


@pytest.mark.parametrize("case", HEADER_CHECKS, ids=lambda case: case.name)
def test_http_view_answers_every_header_check_as_lesson_09_does(case):
    view = HttpView()
    view.choose(case.name)
    if case.expected is None:
        assert view.answer is None and view.agree
    else:
        status, error = view.answer
        assert (status, error["id"], error["error"]["code"]) == (
            case.expected[0],
            case.expected[1]["id"],
            case.expected[1]["error"]["code"],
        )
        assert f"{status} REFUSED" in as_text(view.result) and view.agree is False
        assert view.announcement.value.startswith(f"Server: refused with {status}, error code")
    assert view.notes == []  # the examples are well-formed header lines


def test_http_view_a_mismatch_shows_which_header_differs():
    view = HttpView(
        GOOD_HEADERS.replace("Mcp-Method: tools/list", "Mcp-Method: tools/call"), LIST_BODY
    )
    assert view.answer[0] == 400 and view.answer[1]["error"]["code"] == -32020
    shown = as_text(view.result)
    assert "error code -32020 (Header mismatch)" in shown
    assert "Mcp-Method | tools/call | tools/list | differs" in shown


def test_http_view_examples_are_left_when_edited():
    view = HttpView()
    label = view.choose("no Mcp-Method")
    assert label.startswith("400 -32020") and view.examples.value >= 0
    view.headers_box.value = view.headers + "\nMcp-Method: tools/list"  # typed in the page
    assert view.examples.value == -1 and view.agree
    with pytest.raises(KeyError):
        view.choose("no such example")


def test_http_view_broken_json_gets_a_parse_error_not_a_traceback():
    view = HttpView(GOOD_HEADERS, '{"jsonrpc": "2.0", "id": 1, "meth')
    assert (view.kind, view.code) == ("invalid", -32700)
    assert view.answer == (
        400,
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
    )
    shown = as_text(view.result)
    assert "the server refuses it before it compares a header" in shown
    assert "Nothing: a client sends JSON, and this is not JSON." in shown
    assert "Traceback" not in shown and view.request is None


def test_http_view_an_invalid_body_is_refused_before_its_headers():
    view = HttpView(GOOD_HEADERS, '{"jsonrpc": "2.0", "id": true, "method": "tools/list"}')
    assert view.answer[0] == 400 and view.answer[1]["error"]["code"] == -32600
    assert view.agree is None
    assert "http_request_for refuses it (a client sends valid messages only" in as_text(view.result)


def test_http_view_a_response_is_not_for_check_headers():
    body = '{"jsonrpc": "2.0", "id": 7, "result": {}}'
    view = HttpView(GOOD_HEADERS, body)
    assert (view.kind, view.answer, view.agree) == ("response", None, None)
    shown = as_text(view.result)
    assert "NOT JUDGED" in shown and "never POSTs" in shown
    assert "from 2026-07-28 on, a client never POSTs a response" in shown  # http_request_for
    assert view.announcement.value == "Server: check_headers does not judge this body."
    view.revision.value = "2025-11-25"  # then a client could POST its answer
    assert view.request["headers"]["MCP-Protocol-Version"] == "2025-11-25"


def test_http_view_the_revision_changes_what_the_client_sends():
    view = HttpView(GOOD_HEADERS, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    assert view.answer[1]["error"]["code"] == -32602  # no _meta: not a 2026-07-28 request
    assert "params._meta" in as_text(view.result)
    view.revision.value = "2025-11-25"
    assert set(view.request["headers"]) == {"Accept", "Content-Type", "MCP-Protocol-Version"}
    assert "What a client of MCP 2025-11-25 POSTs" in as_text(view.result)
    view.revision.value = "2025-03-26"
    assert "MCP-Protocol-Version" not in view.request["headers"]
    assert [label for label, _ in view.revision.options] == [
        "MCP 2025-03-26",
        "MCP 2025-06-18",
        "MCP 2025-11-25",
        "MCP 2026-07-28",
    ]


def test_reading_header_lines_says_what_was_left_out_by_line():
    text = (
        "POST /mcp HTTP/1.1\n"
        "Mcp-Method tools/list\n"
        "Bad Name: x\n"
        ": no name\n"
        " folded: on\n"
        "X-Junk: a\x01b\n"
        "Mcp-Method: tools/call\r\n"
        "mcp-method:   tools/list  \n"
        "\n"
        "Mcp-Name: café ☕\n"
    )
    headers, notes, repeated = read_headers(text)
    # A name given twice keeps its last value, spelt as it was written.
    assert headers == {"mcp-method": "tools/list", "Mcp-Name": "café ☕"}
    assert repeated == ["mcp-method"]
    said = "\n".join(notes)
    for words in [
        "Line 1 is a request line",
        "Line 2 has no colon",
        'Line 3: "Bad Name" is not a',
        'Line 4: "" is not a header name (the name before the colon is empty)',
        "Line 5 starts with a space",
        "Line 6: the value of X-Junk holds control",
        "Line 8: mcp-method is given again",
        "Line 10: the value of Mcp-Name holds characters beyond Latin-1",
    ]:
        assert words in said, words
    assert len(notes) == 8


def test_http_view_a_repeated_mcp_header_is_pointed_out():
    view = HttpView(GOOD_HEADERS + "\nMcp-Method: tools/list", LIST_BODY)
    assert view.agree  # check_headers reads one value...
    assert (
        "refuses a request that repeats MCP-Protocol-Version, Mcp-Method or Mcp-Name: 400, "
        "-32020" in as_text(view.result)
    )  # ...the real server does not


def test_http_view_points_out_accept_and_content_type():
    view = HttpView(
        "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list\n"
        "Accept: application/json\nContent-Type: text/plain",
        LIST_BODY,
    )
    shown = as_text(view.result)
    assert "There is no Content-Type: application/json" in shown
    assert "answered an Accept of application/json alone with 406" in shown
    view.headers = GOOD_HEADERS.replace("application/json\n", "application/json; charset=utf-8\n")
    assert "Content-Type" not in " ".join(
        as_text(view.result).split("POSTs for this body")[0].splitlines()[1:3]
    )
    assert "There is no Content-Type" not in as_text(view.result)


@pytest.mark.parametrize("payload", HOSTILE)
def test_http_view_escapes_html_in_headers_and_body(payload):
    body = json.dumps(
        {"jsonrpc": "2.0", "id": payload, "method": payload, "params": {"name": payload}}
    )
    headers = f"Mcp-Method: {payload}\nMcp-Name: {payload}\n{payload}\nX-{payload}: 1"
    view = HttpView(headers, body)
    markup = view.result.value
    assert tags(markup) <= ALLOWED_TAGS, tags(markup)
    assert "&lt;" in markup
    assert payload in as_text(view.result)
    view.set(headers=payload, body=payload)  # neither is anything: still text
    assert tags(view.result.value) <= ALLOWED_TAGS and view.code == -32700


def test_http_view_huge_headers_and_body_are_cut_with_a_note():
    view = HttpView(
        "X-Long: " + "<b>" * HEADERS_LIMIT,
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "x",
                    "_meta": META,
                    "arguments": {"blob": "<script>" * 1_300_000},
                },
            }
        ),
    )
    shown = as_text(view.result)
    assert f"only the first {HEADERS_LIMIT:,} are read" in shown
    assert f"a body over {SDK_BODY_LIMIT:,} bytes (4 MiB) with 413" in shown
    assert "Showing the first 4,000 characters" in shown
    assert len(view.result.value) < 30 * PREVIEW_LIMIT
    assert "<script" not in view.result.value and "&lt;b&gt;" in view.result.value
    view.headers = "A: b\n" * (HEADER_LINES + 50)
    assert f"only the first {HEADER_LINES} are read" in as_text(view.result)


@pytest.mark.parametrize(
    "body, code",
    [
        ("NaN", -32700),
        ("\x00\x01\x02\ufffe junk", -32700),
        ("\ud800", -32700),
        ("[" * 100_000 + "]" * 100_000, -32700),
        (b"\xff\xfe{}", -32700),
        ('{"jsonrpc": "2.0", "id": ' + "9" * 5000 + ', "method": "ping"}', None),
    ],
)
def test_http_view_junk_never_breaks_it(body, code):
    view = HttpView("\x00\ud800junk: \x7f\nMcp-Method: \ud800", body)
    assert view.code == code
    assert "could not" not in as_text(view.result)
    sendable(view.result)
    sendable(view.headers_box)
    sendable(view.body_box)


def test_http_view_bytes_are_judged_as_they_came():
    view = HttpView(GOOD_HEADERS, b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert view.kind == "notification" and view.answer is None  # version header: enough
    assert "202 Accepted" in as_text(view.result)
    view.body = b'{"jsonrpc":"2.0","method":"\xff"}'
    assert view.code == -32700 and "\ufffd" in view.body


def test_http_view_a_text_set_from_code_is_judged_once():
    view = HttpView()
    judged = view.judged
    view.set(GOOD_HEADERS, LIST_BODY)
    assert view.judged == judged + 1


def test_http_view_a_long_paste_waits_for_the_typing_to_pause(parses):
    async def steps():
        view = HttpView(GOOD_HEADERS)
        judged = view.judged
        for end in range(3):
            view.body_box.value = LONG[: len(LONG) - 3 + end]
        assert view.judged == judged and parses == []
        assert "when the typing pauses" in as_text(view.result)
        view.body_box.value = LONG
        await settled(view, judged + 1)
        assert parses == [len(LONG)] and view.kind == "request"
        assert tags(view.result.value) <= ALLOWED_TAGS

    in_a_kernel_loop(steps)
