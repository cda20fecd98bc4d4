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

The later lessons' tables are modules of their own beside this one: lesson 09's in
http_cases.py, lesson 10's in traffic_cases.py, lesson 11's in server_cases.py.
"""

from typing import Any, NamedTuple

from mcp_lesson.rules.messages import INVALID_REQUEST as _INV
from mcp_lesson.rules.messages import PARSE_ERROR as _PARSE

# The cases are a table: one case a line, as the lessons show them, which the
# formatter would spread over many (it checks everything around them).
# fmt: off


class Case(NamedTuple):
    """One labelled example: ``classify(message, revision)`` must give ``(kind, code)``;
    for a case of raw text, ``classify_json(text)`` must."""

    name: str
    message: Any
    kind: str
    code: int | None
    reason: str
    revision: str | None = None  # None: the course's rules

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
    _case("error without id, 2024-11-05", _ERROR_NO_ID, "invalid",
          "the first revision requires the id of an error response too", "2024-11-05"),
    _case("error without id, 2025-06-18", _ERROR_NO_ID, "invalid",
          "up to 2025-06-18 the schema requires the id of an error response", "2025-06-18"),
    _case("error without id, 2025-11-25", _ERROR_NO_ID, "response",
          "from 2025-11-25 an error response may leave out its id", "2025-11-25"),
    _case("error without id, 2026-07-28", _ERROR_NO_ID, "response",
          "still optional in the latest revision", "2026-07-28"),
    _case("result without id, 2026-07-28", _m(result={}), "invalid",
          "only an error response may leave out its id", "2026-07-28"),
    _case("broken error without id, 2025-11-25", _m(error={"code": "oops", "message": "m"}), "invalid",
          "an error without an id is a response only when its error object is right", "2025-11-25"),
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
    _text("a byte order mark first", b'\xef\xbb\xbf{"jsonrpc":"2.0","method":"notifications/initialized"}',
          "invalid", "strict UTF-8: JSON text on the wire must not begin with a byte order mark", _PARSE),
    _text("UTF-16 bytes", '{"jsonrpc":"2.0","method":"notifications/initialized"}'.encode("utf-16"),
          "invalid", "strict UTF-8: bytes in UTF-16 are not UTF-8, so decode them as UTF-8, never guess",
          _PARSE),
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


#: A :class:`Build` whose refusal may say anything (its ``offender`` when none is named).
ANY_WORDS = ("any words",)


class Build(NamedTuple):
    """A builder call: ``args``/``kwargs`` and the dict it must return, or TypeError."""

    name: str
    args: tuple
    kwargs: dict
    expected: Any  # a dict, or the TypeError class
    reason: str
    #: For a refusal: the argument its words must name, by its type or its value
    #: (:func:`mcp_lesson.exercises.refusals.names_what_was_wrong`); :data:`ANY_WORDS` for none.
    offender: Any = ANY_WORDS


def _refused(name, args, kwargs, offender, reason):
    """A builder call that must raise a TypeError whose words name ``offender``."""
    return Build(name, args, kwargs, TypeError, reason, offender)


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
    _refused("method not a string", (42,), {"request_id": 1}, 42,
             "method must be a str; a refusal names what it got"),
    _refused("bool id", ("ping",), {"request_id": True}, True,
             "a bool is not an id; a refusal names what it got"),
    _refused("float id", ("ping",), {"request_id": 1.0}, 1.0,
             "a float is not an id; a refusal names what it got"),
    _refused("list params", ("ping",), {"params": [1, 2], "request_id": 1}, [1, 2],
             "params must be a dict; a refusal names what it got"),
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
    _refused("bool id", (True, -32600, "Invalid Request"), {}, True,
             "a bool is not an id; a refusal names what it got"),
    _refused("float id", (1.5, -32600, "Invalid Request"), {}, 1.5,
             "a float is not an id; a refusal names what it got"),
    _refused("bool code", (1, True, "x"), {}, True,
             "a bool is not a code; a refusal names what it got"),
    _refused("string code", (1, "-32601", "x"), {}, "-32601",
             "a code is an int; a refusal names what it got"),
    _refused("message not a string", (1, -32601, None), {}, None,
             "message must be a str; a refusal names what it got"),
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

#: The rows of the shared case table: each function a table of this module checks, by its name,
#: with how its cases are judged (``tables.shared`` reads the words) and the cases. The registry
#: finds a graded function's table here by the function's name (mcp_lesson/exercises/registry.py).
CHECKS = {
    "create_request": ("builds", REQUEST_BUILDS),
    "classify": ("verdicts", CASES),
    "classify_json": ("verdicts of texts", TEXT_CASES + NOT_TEXT_CASES),
    "error_response": ("builds", ERROR_BUILDS),
    "is_reply_to": ("builds", REPLY_MATCHES),
}
# fmt: on
