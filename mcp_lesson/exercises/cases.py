"""The shared case table: every example of the course, written once.

The tests, the lessons, the self-checks and the widgets all read these tables,
so a message and its verdict never drift apart between two places.

* :data:`CASES`: parsed messages with their kind, code and a one-line reason.
* :data:`REVISION_CASES`: where MCP revisions judge a message differently.
* :data:`TEXT_CASES`: raw wire text for ``classify_json`` (parse errors too), and
  :data:`NOT_TEXT_CASES`: values it must refuse as not text at all.
* :data:`REPLY_MATCHES`: lesson 06's ``is_reply_to(line, request_id)`` and its answers.
* :data:`REQUEST_BUILDS` / :data:`ERROR_BUILDS`: calls to the builders and
  what each must return (or that it must raise ``TypeError``).
* :data:`HTTP_REQUESTS`, :data:`HEADER_CHECKS`, :data:`SSE_STREAMS` and
  :data:`HTTP_ANSWERS`: lesson 09's four functions of the HTTP transport, their
  calls and answers (:data:`REFUSES` where a call must be refused).
* :data:`CONVERSATIONS`: lesson 10's ``audit(conversation)``: recorded conversations (the
  entries the tap writes) and the problems in each.
* :data:`TOOL_CALLS`, :data:`SERVER_REQUESTS` and :data:`SERVER_MESSAGES`: lesson 11's
  server: its tools, its table of methods, and one message in with its replies out.
"""

import json
from typing import Any, NamedTuple, Optional

from mcp_lesson.rules.messages import INVALID_REQUEST as _INV
from mcp_lesson.rules.messages import PARSE_ERROR as _PARSE


class Case(NamedTuple):
    """One labelled example: ``classify(message, revision)`` must give ``(kind, code)``;
    for a case of raw text, ``classify_json(text)`` must."""

    name: str
    message: Any
    kind: str
    code: Optional[int]
    reason: str
    revision: Optional[str] = None  # None: the course's rules

    @property
    def expected(self):
        return (self.kind, self.code)

    @property
    def text(self):
        """The raw wire text of a case of :data:`TEXT_CASES` (its ``message``)."""
        return self.message


def _case(name, message, kind, reason, revision=None):
    return Case(name, message, kind, _INV if kind == "invalid" else None, reason, revision)


_V = {"jsonrpc": "2.0"}


def _m(**members):
    """A message with "jsonrpc": "2.0" first, then the given members."""
    return {**_V, **members}


_TOOL_CALL = {"name": "calculator", "arguments": {"expression": "2 + 2"}}
_INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "lesson-client", "version": "1.0"},
}

CASES = [
    # --- requests ---------------------------------------------------------
    _case("initialize request", _m(id=1, method="initialize", params=_INIT), "request",
          "string method, integer id, object params"),
    _case("tools/list with no params", _m(id=2, method="tools/list"), "request",
          "params may be left out"),
    _case("tools/call with arguments", _m(id=3, method="tools/call", params=_TOOL_CALL), "request",
          "a tool call is an ordinary request"),
    _case("string id", _m(id="abc-123", method="ping"), "request",
          "an id may be a string"),
    _case("id 0", _m(id=0, method="ping"), "request",
          "0 is a valid id: presence counts, not truthiness"),
    _case("empty string id", _m(id="", method="ping"), "request",
          "the empty string is still a string id"),
    _case("negative id", _m(id=-7, method="ping"), "request",
          "a negative integer is an integer"),
    _case("huge integer id", _m(id=2**80, method="ping"), "request",
          "very large integers are still integers"),
    _case("empty params object", _m(id=4, method="resources/list", params={}), "request",
          "an empty object is an object"),
    _case("extra member ignored", _m(id=5, method="ping", trace="x"), "request",
          "members the rules don't mention are ignored"),
    _case("request with stray result", _m(id=6, method="ping", result={}), "request",
          "with a method it is judged only as a request; result is ignored"),
    # --- notifications ----------------------------------------------------
    _case("initialized notification", _m(method="notifications/initialized"), "notification",
          "no id key at all makes it a notification"),
    _case("progress notification",
          _m(method="notifications/progress", params={"progressToken": "t1", "progress": 50}),
          "notification", "notifications carry params too"),
    _case("cancelled notification",
          _m(method="notifications/cancelled", params={"requestId": 3}),
          "notification", "a notification about a request still has no id of its own"),
    # --- responses --------------------------------------------------------
    _case("result response", _m(id=1, result={"tools": []}), "response",
          "object result with the request's id"),
    _case("empty result", _m(id=2, result={}), "response",
          "an empty object is a fine result"),
    _case("result with string id", _m(id="abc-123", result={}), "response",
          "a string id is echoed back as it was"),
    _case("error response", _m(id=3, error={"code": -32601, "message": "Method not found"}),
          "response", "error object with integer code and string message"),
    _case("error with id null", _m(id=None, error={"code": -32700, "message": "Parse error"}),
          "response", "null id is allowed on an error response only"),
    _case("error with data", _m(id=4, error={"code": -32602, "message": "Invalid params",
                                              "data": {"field": "name"}}),
          "response", "an error may carry extra members such as data"),
    _case("application error code", _m(id=5, error={"code": 42, "message": "Busy"}),
          "response", "any integer is a valid error code"),
    # --- invalid: not a single object ---------------------------------------
    _case("batch of one request", [_m(id=1, method="ping")], "invalid",
          "a list is a batch, and MCP removed batching"),
    _case("empty batch", [], "invalid", "an empty list is invalid too"),
    _case("a string", "tools/list", "invalid", "a message must be an object"),
    _case("a number", 42, "invalid", "a message must be an object"),
    _case("null", None, "invalid", "a message must be an object"),
    _case("empty object", {}, "invalid", "no jsonrpc member"),
    # --- invalid: jsonrpc ---------------------------------------------------
    _case("missing jsonrpc", {"id": 1, "method": "ping"}, "invalid",
          "jsonrpc is required"),
    _case("jsonrpc as a number", {"jsonrpc": 2.0, "id": 1, "method": "ping"}, "invalid",
          'jsonrpc must be the string "2.0", not the number 2.0'),
    _case("jsonrpc 2", {"jsonrpc": "2", "id": 1, "method": "ping"}, "invalid",
          'jsonrpc must be exactly "2.0"'),
    _case("jsonrpc 1.0", {"jsonrpc": "1.0", "id": 1, "method": "ping"}, "invalid",
          "JSON-RPC 1.0 is a different protocol"),
    # --- invalid: requests --------------------------------------------------
    _case("method not a string", _m(id=1, method=42), "invalid",
          "a method name must be a string"),
    _case("method null", _m(id=1, method=None), "invalid",
          "a method name must be a string"),
    _case("params null", _m(id=1, method="ping", params=None), "invalid",
          "params, when present, must be an object"),
    _case("params as a list", _m(id=1, method="tools/call", params=["calculator"]), "invalid",
          "MCP params are always an object"),
    _case("request with id null", _m(id=None, method="ping"), "invalid",
          "null is never a request id"),
    _case("request with id true", _m(id=True, method="ping"), "invalid",
          "true is a bool, not an integer"),
    _case("request with float id", _m(id=1.5, method="ping"), "invalid",
          "a float is not an integer"),
    _case("request with id 1.0", _m(id=1.0, method="ping"), "invalid",
          "even 1.0 is a float, not an integer"),
    _case("request with object id", _m(id={"n": 1}, method="ping"), "invalid",
          "an id must be a string or an integer"),
    # --- invalid: responses -------------------------------------------------
    _case("result and error both", _m(id=1, result={}, error=None), "invalid",
          "a response has exactly one of result and error (key presence)"),
    _case("neither result nor error", _m(id=1), "invalid",
          "no method, no result, no error"),
    _case("result without id", _m(result={}), "invalid",
          "a response needs the id key"),
    _case("error without id", _m(error={"code": -32603, "message": "Internal error"}),
          "invalid", 'even an error response needs the id key ("id": null if unknown)'),
    _case("result with id null", _m(id=None, result={}), "invalid",
          "null id is allowed only on an error response"),
    _case("result not an object", _m(id=1, result=4), "invalid",
          "JSON-RPC allows any result; MCP narrows it to an object"),
    _case("result null", _m(id=1, result=None), "invalid",
          "null is not an object"),
    _case("error code true", _m(id=1, error={"code": True, "message": "x"}), "invalid",
          "true is a bool, not an integer code"),
    _case("error code as a string", _m(id=1, error={"code": "-32601", "message": "x"}),
          "invalid", "the code must be an integer, not text"),
    _case("error code 1.0", _m(id=1, error={"code": -32600.0, "message": "x"}), "invalid",
          "a float code is not an integer"),
    _case("error without message", _m(id=1, error={"code": -32600}), "invalid",
          "an error needs a string message"),
    _case("error message not a string", _m(id=1, error={"code": -32600, "message": None}),
          "invalid", "the message must be a string"),
    _case("error is a string", _m(id=1, error="boom"), "invalid",
          "an error must be an object"),
    _case("error with bool id", _m(id=False, error={"code": -32600, "message": "x"}),
          "invalid", "false is a bool, not an id"),
    # --- hostile text is only text -----------------------------------
    _case("HTML in a method name", _m(id=1, method="<img src=x onerror=alert(1)>"), "request",
          "any string is a method name; the HTML is only text"),
]


_ERROR_NO_ID = _m(error={"code": -32600, "message": "Invalid Request"})
_STATELESS_META = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}}}

#: Where MCP's revisions judge a message differently: each case names its
#: revision. (Every case of :data:`CASES` keeps its verdict under every
#: revision but for these two differences: lists, and error responses with no id.)
REVISION_CASES = [
    _case("batch of one request, 2025-03-26", [_m(id=1, method="ping")], "batch",
          "2025-03-26 added JSON-RPC batches", "2025-03-26"),
    _case("batch of notifications, 2025-03-26",
          [_m(method="notifications/progress", params={"progressToken": 1, "progress": 5}),
           _m(method="notifications/cancelled", params={"requestId": 3})], "batch",
          "a batch may hold requests and notifications", "2025-03-26"),
    _case("batch of responses, 2025-03-26", [_m(id=1, result={}), _m(id=2, result={})], "batch",
          "responses to a batch come back as a batch", "2025-03-26"),
    _case("batch with a bad member, 2025-03-26", [_m(id=1, method="ping"), 42], "batch",
          "it is a batch; each member is judged on its own", "2025-03-26"),
    _case("empty batch, 2025-03-26", [], "invalid",
          "JSON-RPC 2.0: an empty batch is invalid", "2025-03-26"),
    _case("batch of one request, 2024-11-05", [_m(id=1, method="ping")], "invalid",
          "batches arrived only in 2025-03-26", "2024-11-05"),
    _case("batch of one request, 2025-06-18", [_m(id=1, method="ping")], "invalid",
          "2025-06-18 removed batches again", "2025-06-18"),
    _case("batch of one request, 2026-07-28", [_m(id=1, method="ping")], "invalid",
          "no batches in the latest revision either", "2026-07-28"),
    _case("error without id, 2025-06-18", _ERROR_NO_ID, "invalid",
          "up to 2025-06-18 the schema requires the id of an error response", "2025-06-18"),
    _case("error without id, 2025-11-25", _ERROR_NO_ID, "response",
          "from 2025-11-25 an error response may leave out its id", "2025-11-25"),
    _case("error without id, 2026-07-28", _ERROR_NO_ID, "response",
          "still optional in the latest revision", "2026-07-28"),
    _case("result without id, 2026-07-28", _m(result={}), "invalid",
          "only an error response may leave out its id", "2026-07-28"),
    _case("error with id null, 2026-07-28", _m(id=None, error={"code": -32700, "message": "Parse error"}),
          "response", "JSON-RPC allows a null id on an error response (no MCP schema does)",
          "2026-07-28"),
    _case("stateless tools/list, 2026-07-28", _m(id=1, method="tools/list", params=_STATELESS_META),
          "request", "2026-07-28 requests carry the protocol version in params._meta",
          "2026-07-28"),
]


def _text(name, text, kind, reason, code=None):
    """A case of raw wire text: ``classify_json(case.text)`` must give the verdict."""
    if kind == "invalid" and code is None:
        code = _INV
    return Case(name, text, kind, code, reason)


TEXT_CASES = [
    _text("a request as text", '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
          "request", "parses, then classifies as a request"),
    _text("a notification as bytes", b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
          "notification", "bytes off the wire are UTF-8 text"),
    _text("an error response", '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
          "response", "null id on an error response"),
    _text("a batch", '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', "invalid",
          "parses fine, but a list is a batch"),
    _text("id true", '{"jsonrpc":"2.0","id":true,"method":"ping"}', "invalid",
          "parses fine, but true is not an integer"),
    _text("empty text", "", "invalid", "there is no JSON at all", _PARSE),
    _text("only spaces", "   \n", "invalid", "white space is not a JSON value", _PARSE),
    _text("cut off", '{"jsonrpc": "2.0", "id": 1, "meth', "invalid",
          "the text stops in the middle", _PARSE),
    _text("NaN id", '{"jsonrpc":"2.0","id":NaN,"method":"ping"}', "invalid",
          "NaN is not a JSON literal", _PARSE),
    _text("Infinity", "Infinity", "invalid", "Infinity is not JSON either", _PARSE),
    _text("single quotes", "{'jsonrpc': '2.0'}", "invalid",
          "JSON strings use double quotes", _PARSE),
    _text("trailing comma", '{"jsonrpc":"2.0","method":"ping",}', "invalid",
          "JSON allows no trailing comma", _PARSE),
    _text("invalid UTF-8", b'{"jsonrpc":"2.0","method":"\xff"}', "invalid",
          "the bytes are not UTF-8", _PARSE),
    _text("deep nesting", "[" * 100_000 + "]" * 100_000, "invalid",
          "too deep for the parser", _PARSE),
    _text("two messages on one line", '{"jsonrpc":"2.0","method":"a"} {"jsonrpc":"2.0","method":"b"}',
          "invalid", "one line holds one JSON value", _PARSE),
]


#: Values that are neither text nor bytes: ``classify_json`` reads only what
#: comes off the wire, so anything else is a parse error too (never a crash).
NOT_TEXT_CASES = [
    _text("a number, not text", 42, "invalid", "classify_json reads text or bytes", _PARSE),
    _text("None, not text", None, "invalid", "there is no text at all", _PARSE),
    _text("a dict, not text", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "invalid",
          "an already parsed message is for classify, not classify_json", _PARSE),
]


class Build(NamedTuple):
    """A builder call: ``args``/``kwargs`` and the dict it must return, or TypeError."""

    name: str
    args: tuple
    kwargs: dict
    expected: Any  # a dict, or the TypeError class
    reason: str


REQUEST_BUILDS = [
    Build("tools/list request", ("tools/list",), {"request_id": 1},
          {"jsonrpc": "2.0", "method": "tools/list", "id": 1}, "id after method"),
    Build("tools/call with params", ("tools/call",), {"params": _TOOL_CALL, "request_id": 2},
          {"jsonrpc": "2.0", "method": "tools/call", "id": 2, "params": _TOOL_CALL},
          "id before params"),
    Build("notification", ("notifications/initialized",), {},
          {"jsonrpc": "2.0", "method": "notifications/initialized"}, "no id: a notification"),
    Build("notification with params", ("notifications/progress",),
          {"params": {"progressToken": "t", "progress": 1}},
          {"jsonrpc": "2.0", "method": "notifications/progress",
           "params": {"progressToken": "t", "progress": 1}}, "params without id"),
    Build("string id", ("ping",), {"request_id": "a1"},
          {"jsonrpc": "2.0", "method": "ping", "id": "a1"}, "string ids are fine"),
    Build("id 0", ("ping",), {"request_id": 0},
          {"jsonrpc": "2.0", "method": "ping", "id": 0}, "0 is an id, not 'no id'"),
    Build("empty params kept", ("tools/list",), {"params": {}, "request_id": 1},
          {"jsonrpc": "2.0", "method": "tools/list", "id": 1, "params": {}},
          "{} is params given, not 'no params'"),
    Build("positional arguments", ("tools/call", {"name": "x"}, 9), {},
          {"jsonrpc": "2.0", "method": "tools/call", "id": 9, "params": {"name": "x"}},
          "called by position: method, params, request_id; the message still puts id before params"),
    Build("method not a string", (42,), {"request_id": 1}, TypeError, "method must be a str"),
    Build("bool id", ("ping",), {"request_id": True}, TypeError, "a bool is not an id"),
    Build("float id", ("ping",), {"request_id": 1.0}, TypeError, "a float is not an id"),
    Build("list params", ("ping",), {"params": [1, 2], "request_id": 1}, TypeError,
          "params must be a dict"),
]

ERROR_BUILDS = [
    Build("method not found", (1, -32601, "Method not found"), {},
          {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}},
          "the example from the spec"),
    Build("null id", (None, -32700, "Parse error"), {},
          {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
          "id None when the request's id is unknown"),
    Build("with data", ("x", -32602, "Invalid params"), {"data": {"field": "name"}},
          {"jsonrpc": "2.0", "id": "x",
           "error": {"code": -32602, "message": "Invalid params", "data": {"field": "name"}}},
          "data given: error holds code, message and data, in that order"),
    Build("data None is still given", (2, -32603, "Internal error"), {"data": None},
          {"jsonrpc": "2.0", "id": 2,
           "error": {"code": -32603, "message": "Internal error", "data": None}},
          "data=None is a value, not 'left out'"),
    Build("bool id", (True, -32600, "Invalid Request"), {}, TypeError, "a bool is not an id"),
    Build("float id", (1.5, -32600, "Invalid Request"), {}, TypeError, "a float is not an id"),
    Build("bool code", (1, True, "x"), {}, TypeError, "a bool is not a code"),
    Build("string code", (1, "-32601", "x"), {}, TypeError, "a code is an int"),
    Build("message not a string", (1, -32601, None), {}, TypeError, "message must be a str"),
]


def _match(name, line, request_id, expected, reason):
    return Build(name, (line, request_id), {}, expected, reason)


#: Lesson 06's matcher, ``is_reply_to(line, request_id)``: is this wire text a
#: response to the request with that id? (Ids match by type and value.)
REPLY_MATCHES = [
    _match("result for id 1", '{"jsonrpc":"2.0","id":1,"result":{}}', 1, True,
           "a response carrying the same id"),
    _match("result for id 2", '{"jsonrpc":"2.0","id":2,"result":{}}', 1, False,
           "another request's answer"),
    _match('id "1" is not 1', '{"jsonrpc":"2.0","id":"1","result":{}}', 1, False,
           "a string id never matches an integer id"),
    _match("string id", '{"jsonrpc":"2.0","id":"a","result":{}}', "a", True,
           "string ids match as strings"),
    _match("error for id 1",
           '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}', 1, True,
           "an error response answers the request too"),
    _match("id true is not 1", '{"jsonrpc":"2.0","id":true,"result":{}}', 1, False,
           "true is a bool, not the id 1 (and not a valid response)"),
    _match("id 1.0 is not 1", '{"jsonrpc":"2.0","id":1.0,"result":{}}', 1, False,
           "1.0 is a float, not the id 1 (and not a valid response)"),
    _match("a request is no reply", '{"jsonrpc":"2.0","id":1,"method":"ping"}', 1, False,
           "a message with a method is a request from the other side, not a reply"),
    _match("null id answers nobody's request",
           '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}', 1, False,
           "an error with id null could not tell which request it answers"),
    _match("cut-off line", '{"jsonrpc":"2.0","id":1,"res', 1, False,
           "text that is not JSON answers nothing (and must not raise)"),
]


# --- lesson 09: messages over HTTP -------------------------------------------------------
#
# The four functions of lesson 09 (my_mcp/transport.py), each with its table. Every
# figure comes from the specification's transports pages
# (docs/specification/<revision>/basic/transports.mdx up to 2025-11-25,
# docs/specification/2026-07-28/basic/transports/streamable-http.mdx) and agrees with
# what the SDK's server answers (tests/test_http_server.py).

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
    _request_for("a name that looks like the sentinel", _LOOKALIKE, _V0928,
                 _post(_LOOKALIKE, MCP_Protocol_Version=_V0928, Mcp_Method="tools/call",
                       Mcp_Name="=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
                 "a plain value shaped like =?base64?...?= is encoded too"),
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


# --- lesson 10: a recorded conversation, audited ------------------------------------------
#
# Lesson 10's ``audit(conversation)`` (my_mcp/traffic.py): the entries of a recording, as
# ``python -m mcp_lesson.tap --record`` writes them (one dict a line: "direction" and "text"
# for a line that travelled, "event" for what happened to the connection), and the problems
# it must find, as a sorted list of ``(place, problem)`` pairs, each place counted from 1.

def _line(direction, message):
    """A recorded line: ``message`` (a dict, sent as compact JSON, or raw text) going ``direction``."""
    text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
    return {"direction": direction, "text": text}


def _up(message):
    """A line from the client to the server."""
    return _line("to_server", message)


def _down(message):
    """A line from the server to the client."""
    return _line("from_server", message)


def _happened(name, **fields):
    """An event of the connection: no line, but it still has a place in the recording."""
    return {"event": name, **fields}


def _conversation(name, entries, expected, reason):
    return Build(name, (entries,), {}, expected, reason)


_ASK_INIT = _m(id=1, method="initialize", params=_INIT)
_INIT_DONE = _m(id=1, result={"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                              "serverInfo": {"name": "calculator", "version": "1.0"}})
_READY = _m(method="notifications/initialized")
_LIST = _m(id=2, method="tools/list")
_LISTED = _m(id=2, result={"tools": []})
_PING_3 = _m(id=3, method="ping")
_PONG_3 = _m(id=3, result={})
_NOT_FOUND_NULL = _m(id=None, error={"code": -32601, "message": "Method not found"})
_PARSE_NULL = _m(id=None, error={"code": -32700, "message": "Parse error"})

#: Lesson 10's ``audit(conversation)``: the problems of a recorded conversation.
CONVERSATIONS = [
    _conversation("a clean handshake",
                  [_happened("start"), _up(_ASK_INIT), _down(_INIT_DONE), _up(_READY), _up(_LIST),
                   _down(_LISTED), _happened("client_closed"), _happened("end")],
                  [], "every request answered once, the notification left alone"),
    _conversation("nothing but events", [_happened("start"), _happened("server_exited", status=0)],
                  [], "events are no lines: there is nothing to audit"),
    _conversation("a log line on stdout",
                  [_happened("start"), _down("Server started on stdio"), _up(_PING_3), _down(_PONG_3)],
                  [(2, "pollution")], "stdout is for JSON-RPC messages only: logs go to stderr"),
    _conversation("a request never answered", [_up(_PING_3)], [(1, "unanswered")],
                  "it is reported at the request's own place"),
    _conversation("answers out of order",
                  [_up(_LIST), _up(_PING_3), _down(_PONG_3), _down(_LISTED)], [],
                  "the id says which request an answer is for, not the order"),
    _conversation("an error answers a request too",
                  [_up(_m(id=7, method="tools/destroy")),
                   _down(_m(id=7, error={"code": -32601, "message": "Method not found"}))],
                  [], "a request gets a result or an error, either is its answer"),
    _conversation("answered twice", [_up(_PING_3), _down(_PONG_3), _down(_PONG_3)],
                  [(3, "answered_twice")], "a request is answered exactly once"),
    _conversation("a response to an id never sent", [_up(_PING_3), _down(_m(id=4, result={})),
                                                       _down(_PONG_3)],
                  [(2, "unknown_id")], "nobody asked a question with the id 4"),
    _conversation('the id "3" is not 3', [_up(_PING_3), _down(_m(id="3", result={}))],
                  [(1, "unanswered"), (2, "unknown_id")],
                  "ids match by type and value, as in is_reply_to"),
    _conversation("an id reused while in flight",
                  [_up(_m(id=5, method="tools/list")), _up(_m(id=5, method="ping")),
                   _down(_m(id=5, result={"tools": []}))],
                  [(2, "id_reused")], "while 5 waits for its answer, a second 5 is ambiguous"),
    _conversation("an id used again after its answer",
                  [_up(_PING_3), _down(_PONG_3), _up(_PING_3), _down(_PONG_3)], [],
                  "once answered, an id is free again"),
    _conversation("an answer to a notification",
                  [_up(_READY), _down(_NOT_FOUND_NULL)], [(2, "answer_to_notification")],
                  "a notification gets no answer, not even an error"),
    _conversation("junk from the client, and the error it gets back",
                  [_up('{"jsonrpc": "2.0", "id": 1, "meth'), _down(_PARSE_NULL)], [(1, "invalid")],
                  "the line is at fault; the error with id null is the answer JSON-RPC prescribes"),
    _conversation("the error for junk carries the id null",
                  [_up('{"jsonrpc": "2.0", "id": 4, "meth'), _down(_m(id=4, error={"code": -32700,
                                                                                "message": "Parse error"}))],
                  [(1, "invalid"), (2, "unknown_id")],
                  "the id of a line that does not parse cannot be read: lesson 04's reply is null"),
    _conversation("an invalid request, answered with its id",
                  [_up(_m(id=9, method="ping", params=None)),
                   _down(_m(id=9, error={"code": -32600, "message": "Invalid Request"}))],
                  [(1, "invalid")], "lesson 04's strict reply: the error keeps the id it could read"),
    _conversation("an error with id null that answers nothing",
                  [_up(_PING_3), _down(_PARSE_NULL), _down(_PONG_3)], [(2, "unknown_id")],
                  "nothing unreadable, no notification: null is an id nobody sent"),
    _conversation("a result with id null",
                  [_up(_PING_3), _down(_m(id=None, result={}))], [(1, "unanswered"), (2, "invalid")],
                  "null is allowed on an error only, so the ping is never answered"),
    _conversation("the server asks too",
                  [_up(_m(id=1, method="tools/call", params=_TOOL_CALL)),
                   _down(_m(id=1, method="sampling/createMessage", params={"messages": []})),
                   _up(_m(id=1, result={"role": "assistant", "content": {"type": "text", "text": "4"}})),
                   _down(_m(id=1, result={"content": []}))],
                  [], "each side numbers its own requests: the two ids 1 are apart"),
]


# --- lesson 11: your own server ------------------------------------------------------------

# The lesson's given facts (the server's tools, who it is, what it offers), not its answers.
from mcp_lesson.protocol.codes import CAPABILITIES_KEY as _CAPABILITIES_KEY, ERROR_MESSAGES as _ERROR_MESSAGES  # noqa: E402
from mcp_lesson.protocol.codes import VERSION_KEY as _META_VERSION  # noqa: E402
from mcp_lesson.core.server import CACHE as _CACHE, CAPABILITIES as _CAPABILITIES, SERVER_INFO as _SERVER_INFO  # noqa: E402
from mcp_lesson.core.server import TOOLS as _TOOLS  # noqa: E402

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
        result = {"resultType": "complete", **result,
                  "_meta": {"io.modelcontextprotocol/serverInfo": _SERVER_INFO, **result.get("_meta", {})}}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}



#: Lesson 11's ``call_tool(name, arguments)``: the server's two tools, add and count.
TOOL_CALLS = [
    _tool("add two integers", "add", {"a": 2, "b": 40}, _text_result("42"), "the sum, as text"),
    _tool("add a float", "add", {"a": 0.5, "b": 1}, _text_result("1.5"), "numbers are ints and floats"),
    _tool("add to zero", "add", {"a": -1, "b": 1}, _text_result("0"), "0 is a sum like any other"),
    _tool("add more than it takes", "add", {"a": 2, "b": 40, "c": 1}, _text_result("42"),
          "arguments the schema does not name are left alone"),
    _tool("add a text", "add", {"a": "2", "b": 40}, TOOL_FAILED,
          "a text is no number: a tool execution error (isError), not a protocol error"),
    _tool("add a bool", "add", {"a": True, "b": 1}, TOOL_FAILED, "a bool is no number, though Python adds it"),
    _tool("add one number", "add", {"a": 1}, TOOL_FAILED, "b is required"),
    _tool("add nothing", "add", {}, TOOL_FAILED, "a and b are required"),
    _tool("count to three", "count", {"n": 3}, _text_result("1, 2, 3"), "the numbers, in order"),
    _tool("count to one", "count", {"n": 1}, _text_result("1"), "the smallest n"),
    _tool("count to ten", "count", {"n": 10}, _text_result("1, 2, 3, 4, 5, 6, 7, 8, 9, 10"), "the largest n"),
    _tool("count to zero", "count", {"n": 0}, TOOL_FAILED, "n is at least 1"),
    _tool("count to eleven", "count", {"n": 11}, TOOL_FAILED, "n is at most 10"),
    _tool("count to a whole float", "count", {"n": 2.0}, TOOL_FAILED, "2.0 is a float, not an integer"),
    _tool("count with no n", "count", {}, TOOL_FAILED, "n is required"),
    _tool("a tool it does not have", "multiply", {"a": 1, "b": 2}, None,
          "None: the caller answers an unknown tool with -32602"),
    _tool("a name in other letters", "Add", {"a": 1, "b": 2}, None, "tool names are compared exactly"),
]


def _call(request_id, name, arguments=None, meta=None):
    params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return _m(id=request_id, method="tools/call", params=params)


def _request(name, request, revision, expected, reason):
    return Build(name, (request, revision), {}, expected, reason)


_DISCOVERED = _result(1, {"supportedVersions": [_MODERN], "capabilities": _CAPABILITIES, **_CACHE}, _MODERN)

#: Lesson 11's ``answer_request(request, revision)``: its table of methods.
SERVER_REQUESTS = [
    _request("the tools", _m(id=1, method="tools/list"), _LEGACY, _result(1, {"tools": _TOOLS}),
             "tools/list lists TOOLS (2025-11-25 server/tools.mdx)"),
    _request("the tools, in 2026-07-28", _m(id=1, method="tools/list", params={"_meta": _META}), _MODERN,
             _result(1, {"tools": _TOOLS, **_CACHE}, _MODERN),
             "a list says how long it may be kept (CacheableResult), and every result is complete"),
    _request("no prompts", _m(id=2, method="prompts/list"), _LEGACY, _result(2, {"prompts": []}),
             "an empty list, as its capability promises"),
    _request("no resources", _m(id="r", method="resources/list"), "2025-06-18", _result("r", {"resources": []}),
             "the same in any revision of the handshake"),
    _request("a call", _call(3, "add", {"a": 2, "b": 40}), _LEGACY, _result(3, _text_result("42")),
             "the tool's result is the response's result"),
    _request("a call, in 2026-07-28", _call(3, "add", {"a": 2, "b": 40}, _META), _MODERN,
             _result(3, _text_result("42"), _MODERN), "with resultType"),
    _request("a call that fails", _call(4, "add", {"a": "x", "b": 1}), _LEGACY, _result(4, TOOL_FAILED),
             "a tool that cannot do its job still answers with a result, isError true"),
    _request("a call with no arguments", _call(5, "count"), _LEGACY, _result(5, TOOL_FAILED),
             "arguments may be left out: then they are {}, and count has no n"),
    _request("an unknown tool", _call(6, "multiply", {}), _LEGACY, _error(6, -32602),
             "-32602 (2025-11-25 server/tools.mdx: a protocol error)"),
    _request("a call without a name", _m(id=7, method="tools/call", params={"arguments": {}}), _LEGACY,
             _error(7, -32602), "the request does not fit CallToolRequest"),
    _request("arguments that are no object", _call(8, "add", [1, 2]), _LEGACY, _error(8, -32602),
             "arguments is an object"),
    _request("a ping", _m(id=9, method="ping"), _LEGACY, _result(9, {}), "an empty result"),
    _request("a ping in 2026-07-28", _m(id=9, method="ping", params={"_meta": _META}), _MODERN,
             _error(9, -32601), "2026-07-28 has no ping"),
    _request("discovery", _m(id=1, method="server/discover", params={"_meta": _META}), _MODERN, _DISCOVERED,
             "2026-07-28 server/discover.mdx: versions, capabilities, and who it is in _meta"),
    _request("discovery in a session", _m(id=10, method="server/discover"), _LEGACY, _error(10, -32601),
             "the handshake's revisions have no server/discover"),
    _request("a log level", _m(id=11, method="logging/setLevel", params={"level": "info"}), _LEGACY,
             _result(11, {}), "one of the eight levels of server/utilities/logging.mdx"),
    _request("a log level that is none", _m(id=12, method="logging/setLevel", params={"level": "loud"}),
             _LEGACY, _error(12, -32602), "2025-11-25 names -32602 for an invalid level"),
    _request("a log level in 2026-07-28", _m(id=13, method="logging/setLevel",
                                             params={"level": "info", "_meta": _META}), _MODERN,
             _error(13, -32601), "2026-07-28 replaced it with a level in each request's _meta"),
    _request("a method it does not have", _m(id=14, method="resources/subscribe", params={"uri": "x"}),
             _LEGACY, _error(14, -32601), "-32601 for any other method"),
]


def _message(name, text, session, expected, reason):
    return Build(name, (text, session), {}, expected, reason)


def _text(value):
    return json.dumps(value)


def _initialized(request_id, revision):
    return _result(request_id, {"protocolVersion": revision, "capabilities": _CAPABILITIES,
                                "serverInfo": _SERVER_INFO})


def _hello(version, request_id=1):
    return _text(_m(id=request_id, method="initialize", params={
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "a-client", "version": "1"}}))


def _progress(token, done, total):
    return _m(method="notifications/progress", params={"progressToken": token, "progress": done, "total": total})


#: Lesson 11's ``handle_message(text, session)``: (the replies, the session after).
SERVER_MESSAGES = [
    _message("the handshake", _hello("2025-11-25"), None, ([_initialized(1, "2025-11-25")], "2025-11-25"),
             "the revision asked for, which it speaks, is the session's (2025-11-25 basic/lifecycle.mdx)"),
    _message("an older handshake", _hello("2025-06-18"), None, ([_initialized(1, "2025-06-18")], "2025-06-18"),
             "it speaks 2025-06-18 too"),
    _message("a revision it does not speak", _hello("2099-01-01"), None,
             ([_initialized(1, "2025-11-25")], "2025-11-25"), "then it answers the latest it speaks"),
    _message("a handshake with no revision", _text(_m(id=1, method="initialize", params={})), None,
             ([_error(1, -32602)], None), "initialize needs a protocolVersion: no session"),
    _message("initialized", _text(_m(method="notifications/initialized")), "2025-11-25", ([], "2025-11-25"),
             "a notification gets no answer"),
    _message("a request in the session", _text(_m(id=2, method="tools/list")), "2025-11-25",
             ([_result(2, {"tools": _TOOLS})], "2025-11-25"), "answered under the session's revision"),
    _message("a request before the handshake", _text(_m(id=2, method="tools/list")), None,
             ([_error(2, -32600)], None), "no session and no revision in _meta: initialize first"),
    _message("a ping before the handshake", _text(_m(id=3, method="ping")), None, ([_result(3, {})], None),
             "a ping may come at any time"),
    _message("not JSON", "{oops", "2025-11-25", ([_error(None, -32700)], "2025-11-25"),
             "lesson 04's reply to a parse error, id null"),
    _message("an invalid request", '{"jsonrpc": "2.0", "id": 5, "method": "x", "params": []}', None,
             ([_error(5, -32600)], None), "lesson 04's reply keeps the id it could read"),
    _message("a batch", _text([_m(id=1, method="ping")]), "2025-11-25", ([_error(None, -32600)], "2025-11-25"),
             "no batches since 2025-06-18 (and this server takes none under 2025-03-26 either)"),
    _message("the client's answer", _text(_m(id=7, result={})), "2025-11-25", ([], "2025-11-25"),
             "a response is owed nothing"),
    _message("a cancel", _text(_m(method="notifications/cancelled", params={"requestId": 2})), "2025-11-25",
             ([], "2025-11-25"), "a notification, answered by nothing"),
    _message("2026-07-28's discovery", _text(_m(id=1, method="server/discover", params={"_meta": _META})), None,
             ([_DISCOVERED], None), "a request that names its revision in _meta needs no session"),
    _message("2026-07-28's tools", _text(_m(id=4, method="tools/list", params={"_meta": _META})), None,
             ([_result(4, {"tools": _TOOLS, **_CACHE}, _MODERN)], None), "answered statelessly"),
    _message("2026-07-28 inside a session", _text(_m(id=4, method="tools/list", params={"_meta": _META})),
             "2025-11-25", ([_result(4, {"tools": _TOOLS, **_CACHE}, _MODERN)], "2025-11-25"),
             "the request's own revision counts, and the session stays as it was"),
    _message("a revision it does not serve statelessly",
             _text(_m(id=5, method="tools/list", params={"_meta": {**_META, _META_VERSION: "2025-11-25"}})), None,
             ([_error(5, -32022, {"supported": [_MODERN], "requested": "2025-11-25"})], None),
             "-32022 with the versions it does serve (2026-07-28 basic/versioning.mdx)"),
    _message("no capabilities in _meta",
             _text(_m(id=6, method="tools/list", params={"_meta": {_META_VERSION: _MODERN}})), None,
             ([_error(6, -32602)], None), "_meta's clientCapabilities is required"),
    _message("a ping in 2026-07-28", _text(_m(id=7, method="ping", params={"_meta": _META})), None,
             ([_error(7, -32601)], None), "2026-07-28 has no ping"),
    _message("counting, with progress",
             _text(_call(8, "count", {"n": 2}, {**_META, "progressToken": "t"})), None,
             ([_progress("t", 1, 2), _progress("t", 2, 2), _result(8, _text_result("1, 2"), _MODERN)], None),
             "a progress notification per number, before the result (server/utilities/progress)"),
    _message("counting in a session", _text(_call(9, "count", {"n": 1}, {"progressToken": 5})), "2025-11-25",
             ([_progress(5, 1, 1), _result(9, _text_result("1"))], "2025-11-25"), "the same in the handshake's revisions"),
    _message("bytes", _hello("2025-11-25").encode(), None, ([_initialized(1, "2025-11-25")], "2025-11-25"),
             "a line read from a pipe is bytes"),
]
