"""Lesson 11's tables, your own server: :data:`TOOL_CALLS` (its tools),
:data:`SERVER_REQUESTS` (its table of methods) and :data:`SERVER_MESSAGES` (one message
in, its replies out)."""

import json

from mcp_lesson.core.server import (
    CACHE as _CACHE,
)
from mcp_lesson.core.server import (
    CAPABILITIES as _CAPABILITIES,
)
from mcp_lesson.core.server import (
    SERVER_INFO as _SERVER_INFO,
)
from mcp_lesson.core.server import TOOLS as _TOOLS
from mcp_lesson.exercises.cases import Build, _m

# --- lesson 11: your own server ------------------------------------------------------------
# The lesson's given facts (the server's tools, who it is, what it offers), not its answers.
from mcp_lesson.protocol.codes import (
    CAPABILITIES_KEY as _CAPABILITIES_KEY,
)
from mcp_lesson.protocol.codes import (
    ERROR_MESSAGES as _ERROR_MESSAGES,
)
from mcp_lesson.protocol.codes import VERSION_KEY as _META_VERSION

_MODERN, _LEGACY = "2026-07-28", "2025-11-25"
_META = {_META_VERSION: _MODERN, _CAPABILITIES_KEY: {}}


def _text_result(text):
    return {"content": [{"type": "text", "text": text}], "isError": False}


#: A tool's result for a call it cannot do: isError, with words of the server's own.
TOOL_FAILED = {"content": [{"type": "text", "text": "(any words)"}], "isError": True}


def _tool(name, tool, arguments, expected, reason):
    return Build(name, (tool, arguments), {}, expected, reason)


def _error(request_id, code, data=None):
    """An error response; its message is the server's own words (the checks compare the code)."""
    error = {"code": code, "message": _MESSAGES[code]}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


_MESSAGES = {**_ERROR_MESSAGES, -32022: "Unsupported protocol version"}


def _result(request_id, result, revision=_LEGACY):
    if revision == _MODERN:  # complete, and who the server is (schema/2026-07-28: ResultMetaObject)
        result = {
            "resultType": "complete",
            **result,
            "_meta": {
                "io.modelcontextprotocol/serverInfo": _SERVER_INFO,
                **result.get("_meta", {}),
            },
        }
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


#: Lesson 11's ``call_tool(name, arguments)``: the server's two tools, add and count.
TOOL_CALLS = [
    _tool("add two integers", "add", {"a": 2, "b": 40}, _text_result("42"), "the sum, as text"),
    _tool(
        "add a float", "add", {"a": 0.5, "b": 1}, _text_result("1.5"), "numbers are ints and floats"
    ),
    _tool("add to zero", "add", {"a": -1, "b": 1}, _text_result("0"), "0 is a sum like any other"),
    _tool(
        "add more than it takes",
        "add",
        {"a": 2, "b": 40, "c": 1},
        _text_result("42"),
        "arguments the schema does not name are left alone",
    ),
    _tool(
        "add a text",
        "add",
        {"a": "2", "b": 40},
        TOOL_FAILED,
        "a text is no number: a tool execution error (isError), not a protocol error",
    ),
    _tool(
        "add a bool",
        "add",
        {"a": True, "b": 1},
        TOOL_FAILED,
        "a bool is no number, though Python adds it",
    ),
    _tool("add one number", "add", {"a": 1}, TOOL_FAILED, "b is required"),
    _tool("add nothing", "add", {}, TOOL_FAILED, "a and b are required"),
    _tool("count to three", "count", {"n": 3}, _text_result("1, 2, 3"), "the numbers, in order"),
    _tool("count to one", "count", {"n": 1}, _text_result("1"), "the smallest n"),
    _tool(
        "count to ten",
        "count",
        {"n": 10},
        _text_result("1, 2, 3, 4, 5, 6, 7, 8, 9, 10"),
        "the largest n",
    ),
    _tool("count to zero", "count", {"n": 0}, TOOL_FAILED, "n is at least 1"),
    _tool("count to eleven", "count", {"n": 11}, TOOL_FAILED, "n is at most 10"),
    _tool(
        "count to a whole float", "count", {"n": 2.0}, TOOL_FAILED, "2.0 is a float, not an integer"
    ),
    _tool("count with no n", "count", {}, TOOL_FAILED, "n is required"),
    _tool(
        "a tool it does not have",
        "multiply",
        {"a": 1, "b": 2},
        None,
        "None: the caller answers an unknown tool with -32602",
    ),
    _tool(
        "a name in other letters", "Add", {"a": 1, "b": 2}, None, "tool names are compared exactly"
    ),
]


def _call(request_id, name, arguments=None, meta=None):
    params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return _m(id=request_id, method="tools/call", params=params)


def _request(name, request, revision, expected, reason):
    return Build(name, (request, revision), {}, expected, reason)


_DISCOVERED = _result(
    1, {"supportedVersions": [_MODERN], "capabilities": _CAPABILITIES, **_CACHE}, _MODERN
)

#: Lesson 11's ``answer_request(request, revision)``: its table of methods.
SERVER_REQUESTS = [
    _request(
        "the tools",
        _m(id=1, method="tools/list"),
        _LEGACY,
        _result(1, {"tools": _TOOLS}),
        "tools/list lists TOOLS (2025-11-25 server/tools.mdx)",
    ),
    _request(
        "the tools, in 2026-07-28",
        _m(id=1, method="tools/list", params={"_meta": _META}),
        _MODERN,
        _result(1, {"tools": _TOOLS, **_CACHE}, _MODERN),
        "a list says how long it may be kept (CacheableResult), and every result is complete",
    ),
    _request(
        "no prompts",
        _m(id=2, method="prompts/list"),
        _LEGACY,
        _result(2, {"prompts": []}),
        "an empty list, as its capability promises",
    ),
    _request(
        "no resources",
        _m(id="r", method="resources/list"),
        "2025-06-18",
        _result("r", {"resources": []}),
        "the same in any revision of the handshake",
    ),
    _request(
        "a call",
        _call(3, "add", {"a": 2, "b": 40}),
        _LEGACY,
        _result(3, _text_result("42")),
        "the tool's result is the response's result",
    ),
    _request(
        "a call, in 2026-07-28",
        _call(3, "add", {"a": 2, "b": 40}, _META),
        _MODERN,
        _result(3, _text_result("42"), _MODERN),
        "with resultType",
    ),
    _request(
        "a call that fails",
        _call(4, "add", {"a": "x", "b": 1}),
        _LEGACY,
        _result(4, TOOL_FAILED),
        "a tool that cannot do its job still answers with a result, isError true",
    ),
    _request(
        "a call with no arguments",
        _call(5, "count"),
        _LEGACY,
        _result(5, TOOL_FAILED),
        "arguments may be left out: then they are {}, and count has no n",
    ),
    _request(
        "an unknown tool",
        _call(6, "multiply", {}),
        _LEGACY,
        _error(6, -32602),
        "-32602 (2025-11-25 server/tools.mdx: a protocol error)",
    ),
    _request(
        "a call without a name",
        _m(id=7, method="tools/call", params={"arguments": {}}),
        _LEGACY,
        _error(7, -32602),
        "the request does not fit CallToolRequest",
    ),
    _request(
        "arguments that are no object",
        _call(8, "add", [1, 2]),
        _LEGACY,
        _error(8, -32602),
        "arguments is an object",
    ),
    _request("a ping", _m(id=9, method="ping"), _LEGACY, _result(9, {}), "an empty result"),
    _request(
        "a ping in 2026-07-28",
        _m(id=9, method="ping", params={"_meta": _META}),
        _MODERN,
        _error(9, -32601),
        "2026-07-28 has no ping",
    ),
    _request(
        "discovery",
        _m(id=1, method="server/discover", params={"_meta": _META}),
        _MODERN,
        _DISCOVERED,
        "2026-07-28 server/discover.mdx: versions, capabilities, and who it is in _meta",
    ),
    _request(
        "discovery in a session",
        _m(id=10, method="server/discover"),
        _LEGACY,
        _error(10, -32601),
        "the handshake's revisions have no server/discover",
    ),
    _request(
        "a log level",
        _m(id=11, method="logging/setLevel", params={"level": "info"}),
        _LEGACY,
        _result(11, {}),
        "one of the eight levels of server/utilities/logging.mdx",
    ),
    *(
        _request(
            f"the log level {level}",
            _m(id=11, method="logging/setLevel", params={"level": level}),
            _LEGACY,
            _result(11, {}),
            "each of the eight levels is one (server/utilities/logging.mdx, after RFC 5424)",
        )
        for level in ("debug", "notice", "warning", "error", "critical", "alert", "emergency")
    ),
    _request(
        "a log level that is none",
        _m(id=12, method="logging/setLevel", params={"level": "loud"}),
        _LEGACY,
        _error(12, -32602),
        "2025-11-25 names -32602 for an invalid level",
    ),
    _request(
        "a log level in 2026-07-28",
        _m(id=13, method="logging/setLevel", params={"level": "info", "_meta": _META}),
        _MODERN,
        _error(13, -32601),
        "2026-07-28 replaced it with a level in each request's _meta",
    ),
    _request(
        "a method it does not have",
        _m(id=14, method="resources/subscribe", params={"uri": "x"}),
        _LEGACY,
        _error(14, -32601),
        "-32601 for any other method",
    ),
]


def _message(name, text, session, expected, reason):
    return Build(name, (text, session), {}, expected, reason)


def _text(value):
    return json.dumps(value)


def _initialized(request_id, revision):
    return _result(
        request_id,
        {"protocolVersion": revision, "capabilities": _CAPABILITIES, "serverInfo": _SERVER_INFO},
    )


def _hello(version, request_id=1):
    return _text(
        _m(
            id=request_id,
            method="initialize",
            params={
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "a-client", "version": "1"},
            },
        )
    )


def _progress(token, done, total):
    return _m(
        method="notifications/progress",
        params={"progressToken": token, "progress": done, "total": total},
    )


#: Lesson 11's ``handle_message(text, session)``: (the replies, the session after).
SERVER_MESSAGES = [
    _message(
        "the handshake",
        _hello("2025-11-25"),
        None,
        ([_initialized(1, "2025-11-25")], "2025-11-25"),
        "the revision asked for, which it speaks, is the session's (2025-11-25 basic/lifecycle.mdx)",
    ),
    _message(
        "an older handshake",
        _hello("2025-06-18"),
        None,
        ([_initialized(1, "2025-06-18")], "2025-06-18"),
        "it speaks 2025-06-18 too",
    ),
    _message(
        "a revision it does not speak",
        _hello("2099-01-01"),
        None,
        ([_initialized(1, "2025-11-25")], "2025-11-25"),
        "then it answers the latest it speaks",
    ),
    _message(
        "a handshake with no revision",
        _text(_m(id=1, method="initialize", params={})),
        None,
        ([_error(1, -32602)], None),
        "initialize needs a protocolVersion: no session",
    ),
    _message(
        "initialized",
        _text(_m(method="notifications/initialized")),
        "2025-11-25",
        ([], "2025-11-25"),
        "a notification gets no answer",
    ),
    _message(
        "a request in the session",
        _text(_m(id=2, method="tools/list")),
        "2025-11-25",
        ([_result(2, {"tools": _TOOLS})], "2025-11-25"),
        "answered under the session's revision",
    ),
    _message(
        "a request before the handshake",
        _text(_m(id=2, method="tools/list")),
        None,
        ([_error(2, -32600)], None),
        "no session and no revision in _meta: initialize first",
    ),
    _message(
        "a ping before the handshake",
        _text(_m(id=3, method="ping")),
        None,
        ([_result(3, {})], None),
        "a ping may come at any time",
    ),
    _message(
        "not JSON",
        "{oops",
        "2025-11-25",
        ([_error(None, -32700)], "2025-11-25"),
        "lesson 04's reply to a parse error, id null",
    ),
    _message(
        "an invalid request",
        '{"jsonrpc": "2.0", "id": 5, "method": "x", "params": []}',
        None,
        ([_error(5, -32600)], None),
        "lesson 04's reply keeps the id it could read",
    ),
    _message(
        "a batch",
        _text([_m(id=1, method="ping")]),
        "2025-11-25",
        ([_error(None, -32600)], "2025-11-25"),
        "no batches since 2025-06-18 (and this server takes none under 2025-03-26 either)",
    ),
    _message(
        "the client's answer",
        _text(_m(id=7, result={})),
        "2025-11-25",
        ([], "2025-11-25"),
        "a response is owed nothing",
    ),
    _message(
        "a cancel",
        _text(_m(method="notifications/cancelled", params={"requestId": 2})),
        "2025-11-25",
        ([], "2025-11-25"),
        "a notification, answered by nothing",
    ),
    _message(
        "2026-07-28's discovery",
        _text(_m(id=1, method="server/discover", params={"_meta": _META})),
        None,
        ([_DISCOVERED], None),
        "a request that names its revision in _meta needs no session",
    ),
    _message(
        "2026-07-28's tools",
        _text(_m(id=4, method="tools/list", params={"_meta": _META})),
        None,
        ([_result(4, {"tools": _TOOLS, **_CACHE}, _MODERN)], None),
        "answered statelessly",
    ),
    _message(
        "2026-07-28 inside a session",
        _text(_m(id=4, method="tools/list", params={"_meta": _META})),
        "2025-11-25",
        ([_result(4, {"tools": _TOOLS, **_CACHE}, _MODERN)], "2025-11-25"),
        "the request's own revision counts, and the session stays as it was",
    ),
    _message(
        "a revision it does not serve statelessly",
        _text(
            _m(id=5, method="tools/list", params={"_meta": {**_META, _META_VERSION: "2025-11-25"}})
        ),
        None,
        ([_error(5, -32022, {"supported": [_MODERN], "requested": "2025-11-25"})], None),
        "-32022 with the versions it does serve (2026-07-28 basic/versioning.mdx)",
    ),
    _message(
        "no capabilities in _meta",
        _text(_m(id=6, method="tools/list", params={"_meta": {_META_VERSION: _MODERN}})),
        None,
        ([_error(6, -32602)], None),
        "_meta's clientCapabilities is required",
    ),
    _message(
        "a ping in 2026-07-28",
        _text(_m(id=7, method="ping", params={"_meta": _META})),
        None,
        ([_error(7, -32601)], None),
        "2026-07-28 has no ping",
    ),
    _message(
        "counting, with progress",
        _text(_call(8, "count", {"n": 2}, {**_META, "progressToken": "t"})),
        None,
        (
            [_progress("t", 1, 2), _progress("t", 2, 2), _result(8, _text_result("1, 2"), _MODERN)],
            None,
        ),
        "a progress notification per number, before the result (server/utilities/progress)",
    ),
    _message(
        "counting in a session",
        _text(_call(9, "count", {"n": 1}, {"progressToken": 5})),
        "2025-11-25",
        ([_progress(5, 1, 1), _result(9, _text_result("1"))], "2025-11-25"),
        "the same in the handshake's revisions",
    ),
    _message(
        "counting to ten, with progress",
        _text(_call(10, "count", {"n": 10}, {"progressToken": "t"})),
        "2025-11-25",
        (
            [
                *(_progress("t", k, 10) for k in range(1, 11)),
                _result(10, _text_result("1, 2, 3, 4, 5, 6, 7, 8, 9, 10")),
            ],
            "2025-11-25",
        ),
        "ten is the largest n: ten notifications",
    ),
    _message(
        "counting too far, with progress",
        _text(_call(11, "count", {"n": 11}, {"progressToken": "t"})),
        "2025-11-25",
        ([_result(11, TOOL_FAILED)], "2025-11-25"),
        "the tool refused n, so nothing was counted: no progress",
    ),
    _message(
        "counting a fraction, with progress",
        _text(_call(12, "count", {"n": 2.5}, {"progressToken": "t"})),
        "2025-11-25",
        ([_result(12, TOOL_FAILED)], "2025-11-25"),
        "2.5 is no whole number: the tool refuses it, and no progress is sent",
    ),
    _message(
        "adding, with progress asked for",
        _text(_call(13, "add", {"a": 1, "b": 2, "n": 3}, {"progressToken": "t"})),
        "2025-11-25",
        ([_result(13, _text_result("3"))], "2025-11-25"),
        "only count reports progress (an n among add's arguments counts nothing)",
    ),
    _message(
        "bytes",
        _hello("2025-11-25").encode(),
        None,
        ([_initialized(1, "2025-11-25")], "2025-11-25"),
        "a line read from a pipe is bytes",
    ),
]

#: The rows of the shared case table for lesson 11 (as cases.py's CHECKS).
CHECKS = {
    "call_tool": ("same_tool_result", TOOL_CALLS),
    "answer_request": ("same_reply", SERVER_REQUESTS),
    "handle_message": ("same_replies", SERVER_MESSAGES),
}
