"""Lesson 09's tables: the four functions of the HTTP transport (my_mcp/transport.py),
their calls and answers: :data:`HTTP_REQUESTS`, :data:`HEADER_CHECKS`, :data:`SSE_STREAMS`
and :data:`HTTP_ANSWERS` (:data:`REFUSES` where a call must be refused)."""

import json

from mcp_lesson.exercises.cases import _INIT, _INV, _PARSE, Build, _m

# The cases are a table: one case a line, as the lessons show them, which the
# formatter would spread over many (it checks everything around them).
# fmt: off


# --- lesson 09: messages over HTTP -------------------------------------------------------
#
# The four functions of lesson 09 (my_mcp/transport.py), each with its table. Every
# figure comes from the specification's transports pages
# (docs/specification/<revision>/basic/transports.mdx up to 2025-11-25,
# docs/specification/2026-07-28/basic/transports/streamable-http.mdx) and agrees with
# what the SDK's server answers (tests/server/test_http_server.py).

#: What a function of lesson 09 must do when it refuses its arguments: raise one of these.
REFUSES = (ValueError, TypeError)

_ACCEPT = "application/json, text/event-stream"
_META_09 = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}


def _stateless(method, params=None, request_id=1, version="2026-07-28"):
    """A 2026-07-28 request: params._meta carries the version and the capabilities."""
    meta = {**_META_09, "io.modelcontextprotocol/protocolVersion": version}
    return _m(id=request_id, method=method, params={**(params or {}), "_meta": meta})


def _post(msg, **headers):
    """What http_request_for(msg, ...) must return: Accept and Content-Type, then ``headers``."""
    named = {"Accept": _ACCEPT, "Content-Type": "application/json"}
    named.update({name.replace("_", "-"): value for name, value in headers.items()})
    return {"method": "POST", "headers": named, "body": json.dumps(msg)}


def _request_for(name, msg, revision, expected, reason):
    return Build(name, (msg, revision), {}, expected, reason)


_CALL_09 = _stateless("tools/call", {"name": "calculator", "arguments": {"expression": "2 + 2"}})
_FRENCH = _stateless("tools/call", {"name": "calculatrice_é", "arguments": {}})
_PADDED = _stateless("prompts/get", {"name": " padded "})
_LOOKALIKE = _stateless("tools/call", {"name": "=?base64?literal?=", "arguments": {}})
_READ = _stateless("resources/read", {"uri": "file:///notes.txt"})
_LIST_09 = _stateless("tools/list")
_STATELESS_NOTE = _m(method="notifications/initialized")
_SESSION_LIST = _m(id=2, method="tools/list")
_HANDSHAKE = _m(id=1, method="initialize", params=_INIT)
_CLIENT_ANSWER = _m(id=7, result={})
_V0928 = "2026-07-28"

#: Lesson 09's ``http_request_for(msg, revision)``: the HTTP request a client sends.
HTTP_REQUESTS = [
    _request_for("tools/list, 2026-07-28", _LIST_09, _V0928,
                 _post(_LIST_09, MCP_Protocol_Version=_V0928, Mcp_Method="tools/list"),
                 "2026-07-28: the version header and Mcp-Method on every request"),
    _request_for("tools/call, 2026-07-28", _CALL_09, _V0928,
                 _post(_CALL_09, MCP_Protocol_Version=_V0928, Mcp_Method="tools/call",
                       Mcp_Name="calculator"),
                 "tools/call names its tool in Mcp-Name"),
    _request_for("resources/read, 2026-07-28", _READ, _V0928,
                 _post(_READ, MCP_Protocol_Version=_V0928, Mcp_Method="resources/read",
                       Mcp_Name="file:///notes.txt"),
                 "resources/read names its uri in Mcp-Name"),
    _request_for("a name that is not ASCII", _FRENCH, _V0928,
                 _post(_FRENCH, MCP_Protocol_Version=_V0928, Mcp_Method="tools/call",
                       Mcp_Name="=?base64?Y2FsY3VsYXRyaWNlX8Op?="),
                 "not plain ASCII: the Base64 sentinel form"),
    _request_for("a name with spaces around it", _PADDED, _V0928,
                 _post(_PADDED, MCP_Protocol_Version=_V0928, Mcp_Method="prompts/get",
                       Mcp_Name="=?base64?IHBhZGRlZCA=?="),
                 "leading or trailing spaces: the sentinel form (prompts/get names its prompt)"),
    _request_for("a name with an X at each end", _stateless("tools/call", {"name": "XboX", "arguments": {}}),
                 _V0928, _post(_stateless("tools/call", {"name": "XboX", "arguments": {}}),
                               MCP_Protocol_Version=_V0928, Mcp_Method="tools/call", Mcp_Name="XboX"),
                 "only spaces at either end call for the sentinel form, never other characters"),
    _request_for("a name that looks like the sentinel", _LOOKALIKE, _V0928,
                 _post(_LOOKALIKE, MCP_Protocol_Version=_V0928, Mcp_Method="tools/call",
                       Mcp_Name="=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
                 "a plain value shaped like =?base64?...?= is encoded too"),
    _request_for("initialize, 2026-07-28", _stateless("initialize"), _V0928,
                 _post(_stateless("initialize"), MCP_Protocol_Version=_V0928, Mcp_Method="initialize"),
                 "from 2026-07-28 every POST carries the headers, initialize too (a revision that has none)"),
    _request_for("a notification, 2026-07-28", _STATELESS_NOTE, _V0928,
                 _post(_STATELESS_NOTE, MCP_Protocol_Version=_V0928,
                       Mcp_Method="notifications/initialized"),
                 "every POST carries the version header; Mcp-Name is for requests only"),
    _request_for("tools/list, 2025-11-25", _SESSION_LIST, "2025-11-25",
                 _post(_SESSION_LIST, MCP_Protocol_Version="2025-11-25"),
                 "before 2026-07-28 no header mirrors the body but the version"),
    _request_for("initialize, 2025-11-25", _HANDSHAKE, "2025-11-25", _post(_HANDSHAKE),
                 "initialize negotiates the version: the header comes on the requests after it"),
    _request_for("a response, 2025-11-25", _CLIENT_ANSWER, "2025-11-25",
                 _post(_CLIENT_ANSWER, MCP_Protocol_Version="2025-11-25"),
                 "up to 2025-11-25 a client may POST its answer to a server's request"),
    _request_for("tools/list, 2025-06-18", _SESSION_LIST, "2025-06-18",
                 _post(_SESSION_LIST, MCP_Protocol_Version="2025-06-18"),
                 "2025-06-18 brought the version header"),
    _request_for("tools/list, 2025-03-26", _SESSION_LIST, "2025-03-26", _post(_SESSION_LIST),
                 "2025-03-26 had no version header yet"),
    _request_for("a response, 2026-07-28", _CLIENT_ANSWER, _V0928, REFUSES,
                 "from 2026-07-28 a client never POSTs a response"),
    _request_for("an invalid message", _m(id=True, method="tools/list"), "2025-11-25", REFUSES,
                 "a client sends valid messages only"),
    _request_for("tools/call with no name", _stateless("tools/call", {"arguments": {}}), _V0928,
                 REFUSES, "no params.name: nothing to put in Mcp-Name"),
    _request_for("_meta of another version", _stateless("tools/list", version="2025-11-25"),
                 _V0928, REFUSES, "the version header must equal _meta's, so they cannot differ"),
    _request_for("2024-11-05", _SESSION_LIST, "2024-11-05", REFUSES,
                 "2024-11-05 had HTTP+SSE, not Streamable HTTP"),
]


def _headers_09(method, name=None, version=_V0928, **extra):
    """The headers of a 2026-07-28 POST (Mcp-Name when given), then ``extra``."""
    headers = {"Accept": _ACCEPT, "Content-Type": "application/json",
               "MCP-Protocol-Version": version, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    headers.update({key.replace("_", "-"): value for key, value in extra.items()})
    return headers


def _refused(request_id, code, message, data=None):
    error = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return (400, {"jsonrpc": "2.0", "id": request_id, "error": error})


def _check(name, headers, msg, expected, reason):
    return Build(name, (headers, msg), {}, expected, reason)


_MISMATCH = "Header mismatch"
_UNSUPPORTED = "Unsupported protocol version"
_CALC_1 = _stateless("tools/call", {"name": "calculator", "arguments": {"expression": "1"}}, 9)
_NOT_ASCII = _stateless("tools/call", {"name": "calculatrice_é", "arguments": {}}, 4)
_OLD = _stateless("tools/list", request_id=10, version="1999-01-01")
_UNSUPPORTED_DATA = {"supported": [_V0928], "requested": "1999-01-01"}

#: Lesson 09's ``check_headers(headers, msg)``: what a strict 2026-07-28 server answers
#: when the headers of a POST and its body disagree (None when they agree). The
#: message texts are free; status, id, code and -32022's data are not.
HEADER_CHECKS = [
    _check("headers that agree", _headers_09("tools/list"), _LIST_09, None,
           "the version and the method match the body"),
    _check("names in any case", {key.lower(): value for key, value in _headers_09("tools/list").items()},
           _LIST_09, None, "header names are case-insensitive"),
    _check("another method", _headers_09("tools/call"), _stateless("tools/list", request_id=8),
           _refused(8, -32020, _MISMATCH), "Mcp-Method must be the body's method"),
    _check("no Mcp-Method", {k: v for k, v in _headers_09("tools/list").items() if k != "Mcp-Method"},
           _stateless("tools/list", request_id=8), _refused(8, -32020, _MISMATCH),
           "a missing header is a mismatch too"),
    _check("a method in other letters", _headers_09("Tools/List"), _LIST_09,
           _refused(1, -32020, _MISMATCH), "header values are case-sensitive"),
    _check("version header differs from _meta", _headers_09("tools/list", version="2025-11-26"),
           _stateless("tools/list", request_id=8), _refused(8, -32020, _MISMATCH),
           "MCP-Protocol-Version must equal _meta's version"),
    _check("no version header", {k: v for k, v in _headers_09("tools/list").items()
                                 if k != "MCP-Protocol-Version"},
           _LIST_09, _refused(1, -32020, _MISMATCH), "every POST must carry MCP-Protocol-Version"),
    _check("Mcp-Name that agrees", _headers_09("tools/call", "calculator"), _CALC_1, None,
           "Mcp-Name is the tool's name"),
    _check("no Mcp-Name", _headers_09("tools/call"), _CALC_1, _refused(9, -32020, _MISMATCH),
           "tools/call must carry Mcp-Name"),
    _check("Mcp-Name of another tool", _headers_09("tools/call", "add"), _CALC_1,
           _refused(9, -32020, _MISMATCH), "Mcp-Name must be params.name"),
    _check("Mcp-Name in the sentinel form", _headers_09("tools/call", "=?base64?Y2FsY3VsYXRvcg==?="),
           _CALC_1, None, "the server decodes the sentinel before it compares"),
    _check("a name that is not ASCII", _headers_09("tools/call", "=?base64?Y2FsY3VsYXRyaWNlX8Op?="),
           _NOT_ASCII, None, "decoded, it is params.name"),
    _check("the sentinel in capitals", _headers_09("tools/call", "=?BASE64?Y2FsY3VsYXRvcg==?="),
           _CALC_1, _refused(9, -32020, _MISMATCH), "the sentinel's markers are lower-case only"),
    _check("Base64 that does not decode", _headers_09("tools/call", "=?base64?Y2FsY3VsYXRvcg?="),
           _CALC_1, _refused(9, -32020, _MISMATCH), "a broken sentinel matches nothing"),
    _check("Base64 with a character it does not have", _headers_09("tools/call", "=?base64?Y2Fs*Y3VsYXRvcg==?="),
           _CALC_1, _refused(9, -32020, _MISMATCH),
           "Base64 is letters, digits, + and / (and = at the end): a * breaks the sentinel"),
    _check("resources/read names its uri", _headers_09("resources/read", "file:///notes.txt"),
           _stateless("resources/read", {"uri": "file:///notes.txt"}), None,
           "for resources/read Mcp-Name is params.uri"),
    _check("Mcp-Name where nothing is named", _headers_09("tools/list", "anything"), _LIST_09, None,
           "tools/list names nothing: Mcp-Name is not looked at"),
    _check("an unsupported version", _headers_09("tools/list", version="1999-01-01"), _OLD,
           _refused(10, -32022, _UNSUPPORTED, _UNSUPPORTED_DATA),
           "header and _meta agree on a version this server does not speak"),
    _check("headers first, then the version", _headers_09("tools/list", version="1999-01-01"),
           _stateless("tools/list", request_id=10), _refused(10, -32020, _MISMATCH),
           "a header that contradicts _meta is told so before any version is judged"),
    _check("no _meta", _headers_09("tools/list"), _m(id=11, method="tools/list"),
           _refused(11, -32602, "Invalid params"), "a 2026-07-28 request without _meta"),
    _check("a notification", _headers_09("notifications/initialized"), _STATELESS_NOTE, None,
           "a notification is held to its version header only"),
    _check("a notification of another version",
           _headers_09("notifications/initialized", version="1999-01-01"), _STATELESS_NOTE,
           _refused(None, -32022, _UNSUPPORTED, _UNSUPPORTED_DATA),
           "a notification has no id: the error's id is null"),
]


def _sse_event(msg):
    """One SSE event as the SDK's server writes it: CRLF line ends, ``event: message``."""
    return "event: message\r\ndata: " + json.dumps(msg, separators=(",", ":")) + "\r\n\r\n"


def _data(msg):
    return json.dumps(msg, separators=(",", ":"))


def _stream(name, text, expected, reason):
    return Build(name, (text,), {}, expected, reason)


_PROGRESS_1 = _m(method="notifications/progress",
                 params={"progressToken": "p", "progress": 1, "total": 2})
_PROGRESS_2 = _m(method="notifications/progress",
                 params={"progressToken": "p", "progress": 2, "total": 2})
_ANSWER_09 = _m(id=1, result={"structuredContent": {"result": 2}})
_NOT_FOUND_09 = _m(id=5, error={"code": -32601, "message": "Method not found"})
_NOTE_V = ("notification", None)
_RESP_V = ("response", None)

#: Lesson 09's ``read_sse(text)``: the messages of an SSE stream, each with its verdict.
SSE_STREAMS = [
    _stream("one event", _sse_event(_ANSWER_09), [(_data(_ANSWER_09), _RESP_V)],
            "one event, one message: the response"),
    _stream("progress, then the response",
            _sse_event(_PROGRESS_1) + _sse_event(_PROGRESS_2) + _sse_event(_ANSWER_09),
            [(_data(_PROGRESS_1), _NOTE_V), (_data(_PROGRESS_2), _NOTE_V), (_data(_ANSWER_09), _RESP_V)],
            "several events, in order; the response last"),
    _stream("line ends of one character", f"data: {_data(_ANSWER_09)}\n\n",
            [(_data(_ANSWER_09), _RESP_V)], "a line may end with LF alone"),
    _stream("line ends of CR alone", f"data: {_data(_ANSWER_09)}\r\r",
            [(_data(_ANSWER_09), _RESP_V)], "or with CR alone"),
    _stream("a comment", f": ping\r\n\r\ndata: {_data(_NOT_FOUND_09)}\r\n\r\n",
            [(_data(_NOT_FOUND_09), _RESP_V)], "a line starting with ':' is a comment"),
    _stream("no space after data:", f"data:{_data(_ANSWER_09)}\n\n", [(_data(_ANSWER_09), _RESP_V)],
            "the space after the colon is optional"),
    _stream("data over two lines", 'data: {"jsonrpc": "2.0",\ndata:  "id": 1, "result": {}}\n\n',
            [('{"jsonrpc": "2.0",\n "id": 1, "result": {}}', _RESP_V)],
            "two data lines are one text, joined by a newline (only one space is taken off)"),
    _stream("a priming event", f"id: 0\ndata:\n\nid: 1\ndata: {_data(_ANSWER_09)}\n\n",
            [(_data(_ANSWER_09), _RESP_V)], "an event with empty data carries no message"),
    _stream("other fields", f"event: message\nid: 7\nretry: 1000\nx-note: hi\ndata: {_data(_ANSWER_09)}\n\n",
            [(_data(_ANSWER_09), _RESP_V)], "event, id, retry and unknown fields are not data"),
    _stream("cut off before the blank line", _sse_event(_PROGRESS_1) + f"data: {_data(_ANSWER_09)}\r\n",
            [(_data(_PROGRESS_1), _NOTE_V)], "an event the stream never finished is not an event"),
    _stream("cut off in the middle of a line", _sse_event(_PROGRESS_1) + 'data: {"jsonrpc":"2.0","id":1,"res',
            [(_data(_PROGRESS_1), _NOTE_V)], "half a line is no line"),
    _stream("data that is not JSON", 'data: {"jsonrpc": "2.0", "id": 1, "meth\n\n',
            [('{"jsonrpc": "2.0", "id": 1, "meth', ("invalid", _PARSE))],
            "each message is judged as it arrived"),
    _stream("an invalid message", 'data: {"jsonrpc":"2.0","id":true,"result":{}}\n\n',
            [('{"jsonrpc":"2.0","id":true,"result":{}}', ("invalid", _INV))],
            "classify judges each message"),
    _stream("a byte order mark first", "\ufeff" + _sse_event(_ANSWER_09), [(_data(_ANSWER_09), _RESP_V)],
            "one byte order mark (U+FEFF) at the start of the stream is left out"),
    _stream("a byte order mark before a data line", f"\ufeffdata: {_data(_ANSWER_09)}\n\n",
            [(_data(_ANSWER_09), _RESP_V)],
            "the byte order mark is left out, so the first line is a data line"),
    _stream("Data: is not data:", f"Data: {_data(_NOT_FOUND_09)}\n\ndata: {_data(_ANSWER_09)}\n\n",
            [(_data(_ANSWER_09), _RESP_V)],
            "field names are case-sensitive: Data is an unknown field, not data"),
    _stream("nothing at all", "", [], "an empty stream holds no message"),
]


def _answer(name, status, headers, body, expected, reason):
    return Build(name, (status, headers, body), {}, expected, reason)


_JSON_TYPE = {"content-type": "application/json"}
_SSE_TYPE = {"content-type": "text/event-stream"}
_LIST_RESULT = _data(_m(id=1, result={"tools": [], "resultType": "complete"}))

#: Lesson 09's ``http_verdict(status, headers, body)``: what the client got, in a few words.
HTTP_ANSWERS = [
    _answer("a notification accepted", 202, {}, "", "accepted, no answer",
            "202 and no body: the server took it, and nothing comes back"),
    _answer("one JSON answer", 200, _JSON_TYPE, _LIST_RESULT, "answer: result",
            "application/json: one message"),
    _answer("a content type with a charset", 200, {"Content-Type": "application/json; charset=utf-8"},
            _LIST_RESULT, "answer: result", "parameters after ';' and the header name's case do not matter"),
    _answer("an error in a 200", 200, _JSON_TYPE, _data(_NOT_FOUND_09), "answer: error -32601",
            "an error response is still an answer"),
    _answer("a stream", 200, _SSE_TYPE,
            _sse_event(_PROGRESS_1) + _sse_event(_PROGRESS_2) + _sse_event(_ANSWER_09),
            "stream: notifications/progress, notifications/progress, result",
            "text/event-stream: each message, in order"),
    _answer("a stream cut off", 200, _SSE_TYPE, _sse_event(_PROGRESS_1) + "data: {",
            "stream: notifications/progress", "the response never came"),
    _answer("a stream with no message", 200, _SSE_TYPE, ": ping\r\n\r\n", "stream: nothing",
            "comments only"),
    _answer("a request from the server", 200, _SSE_TYPE,
            _sse_event(_m(id=0, method="sampling/createMessage", params={})) + _sse_event(_ANSWER_09),
            "stream: request sampling/createMessage, result",
            "up to 2025-11-25 a server may ask the client something on the stream"),
    _answer("a header mismatch", 400, _JSON_TYPE,
            _data(_m(id=8, error={"code": -32020, "message": "Header mismatch"})),
            "refused (400): error -32020", "400 with the JSON-RPC error"),
    _answer("junk", 400, _JSON_TYPE, _data(_m(id=None, error={"code": -32700, "message": "Parse error"})),
            "refused (400): error -32700", "a parse error, id null"),
    _answer("an unknown method", 404, _JSON_TYPE,
            _data(_m(id=12, error={"code": -32601, "message": "Method not found"})),
            "refused (404): error -32601", "2026-07-28: an unknown method is a 404"),
    _answer("a foreign Origin", 403, {"content-length": "21"}, "Invalid Origin header",
            "refused (403): Invalid Origin header", "plain text, not JSON: the text itself"),
    _answer("no body", 405, {"allow": "POST"}, "", "refused (405)", "no body: the status alone"),
    _answer("a web page", 200, {"content-type": "text/html"}, "<p>hello</p>", "unexpected: 200",
            "neither JSON nor a stream"),
    _answer("a 202 with a body", 202, _JSON_TYPE, _LIST_RESULT, "unexpected: 202",
            "202 means no body"),
    _answer("a JSON answer that is not JSON", 200, _JSON_TYPE, '{"jsonrpc": "2.0", "id": 1, "res',
            "answer: invalid -32700", "each message is judged as it arrived"),
]

#: The rows of the shared case table for lesson 09 (as cases.py's CHECKS): the function each
#: table checks, and the comparison of mcp_lesson/exercises/tables.py that judges its answers.
CHECKS = {
    "http_request_for": ("same_post", HTTP_REQUESTS),
    "check_headers": ("same_refusal", HEADER_CHECKS),
    "read_sse": ("same_events", SSE_STREAMS),
    "http_verdict": ("same_words", HTTP_ANSWERS),
}
# fmt: on
