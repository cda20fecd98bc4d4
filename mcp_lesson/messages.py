"""Building JSON-RPC 2.0 messages the way MCP uses them.

Every MCP message is a JSON object with ``"jsonrpc": "2.0"``. This module holds
the reserved error codes and the three builders a program needs to *send*
messages: :func:`create_request` (a request, or a notification when there is no
id), :func:`success_response` and :func:`error_response`.

The builders refuse, with a :class:`TypeError` that names the problem, any
argument that would make a message :func:`mcp_lesson.classify` calls invalid.
So whatever they return is valid by construction.
"""

import json
import reprlib

JSONRPC_VERSION = "2.0"

#: The text was not valid JSON (the receiver could not even parse it).
PARSE_ERROR = -32700
#: The JSON was fine, but it is not a valid request, notification or response.
INVALID_REQUEST = -32600
#: The request names a method the receiver does not have.
METHOD_NOT_FOUND = -32601
#: The method exists, but its params are wrong.
INVALID_PARAMS = -32602
#: The receiver failed while handling a valid request.
INTERNAL_ERROR = -32603

#: The standard ``"message"`` text for each reserved code.
ERROR_MESSAGES = {
    PARSE_ERROR: "Parse error",
    INVALID_REQUEST: "Invalid Request",
    METHOD_NOT_FOUND: "Method not found",
    INVALID_PARAMS: "Invalid params",
    INTERNAL_ERROR: "Internal error",
}


def is_integer(value):
    """True for a Python ``int`` that is not a ``bool``.

    JSON has one number type, but JSON-RPC ids and error codes must be whole
    numbers. ``True`` is an ``int`` subclass in Python, and ``1.0`` is a float:
    neither counts.
    """
    return isinstance(value, int) and not isinstance(value, bool)


def is_valid_id(value):
    """True when ``value`` may be the id of a request: a string or an integer."""
    return isinstance(value, str) or is_integer(value)


def json_type(value):
    """Name a value's type the way JSON (and a learner) would: "a bool", "a float"..."""
    if isinstance(value, bool):
        return "a bool"
    if value is None:
        return "null"
    if isinstance(value, int):
        return "an integer"
    for kind, name in ((str, "a string"), (float, "a float"), (dict, "an object"), (list, "a list")):
        if isinstance(value, kind):
            return name
    return f"a Python {type(value).__name__}"


def show_value(value, limit=60):
    """A short, safe text for any value, written as JSON where it can be.

    Never raises and never grows with the input: long strings are cut, objects
    and lists are summarised, and huge integers are described, not printed.
    """
    try:
        if value is None or isinstance(value, (bool, float)):
            return json.dumps(value)
        if isinstance(value, int):
            if value.bit_length() > 200:
                return f"<a {int(value.bit_length() * 0.30103) + 1:,}-digit integer>"
            return str(int(value))
        if isinstance(value, str):
            if len(value) > limit:
                return json.dumps(value[:limit]) + f"... ({len(value):,} characters)"
            return json.dumps(value)
        if isinstance(value, dict):
            return f"an object with {len(value)} member{'s' * (len(value) != 1)}"
        if isinstance(value, list):
            return f"a list of {len(value)} item{'s' * (len(value) != 1)}"
        return f"a Python {type(value).__name__} object"
    except Exception:  # a hostile object: still say something
        return "a value that cannot be shown"


_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlevel = 40, 40, 2


def python_value(value):
    """Name a Python argument for an error message: "a bool: True", "None"...

    The builders are called from Python, so their errors speak Python. Never
    raises, and stays short whatever the value.
    """
    if value is None:
        return "None"
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    try:
        shown = _SHORT.repr(value)
    except Exception:  # an int too long to print, a hostile __repr__...
        shown = f"<{name}>"
    return f"{article} {name}: {shown}"


def _require_id(request_id, where):
    if not is_valid_id(request_id):
        raise TypeError(
            f"{where} must be a str or an int (not a bool or a float), "
            f"got {python_value(request_id)}"
        )


def _require_object(value, name):
    if not isinstance(value, dict):
        raise TypeError(
            f"{name} must be a dict (a JSON object), got {python_value(value)}"
        )


def create_request(method, params=None, request_id=None):
    """Build a request, or a notification when ``request_id`` is None.

    The keys come in the order ``jsonrpc``, ``method``, ``id``, ``params``;
    ``id`` and ``params`` appear only when given.

    >>> create_request("tools/list", request_id=1)
    {'jsonrpc': '2.0', 'method': 'tools/list', 'id': 1}
    >>> create_request("notifications/initialized")
    {'jsonrpc': '2.0', 'method': 'notifications/initialized'}
    """
    if not isinstance(method, str):
        raise TypeError(f"method must be a str, got {python_value(method)}")
    if params is not None:
        _require_object(params, "params")
    message = {"jsonrpc": JSONRPC_VERSION, "method": method}
    if request_id is not None:
        _require_id(request_id, "request_id")
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return message


def success_response(id, result):
    """Build the response that carries a request's ``result`` (a dict).

    >>> success_response(1, {"tools": []})
    {'jsonrpc': '2.0', 'id': 1, 'result': {'tools': []}}
    """
    _require_id(id, "id")
    _require_object(result, "result")
    return {"jsonrpc": JSONRPC_VERSION, "id": id, "result": result}


class _Omitted:
    """The default of ``data``: "not given", which differs from ``data=None``."""

    def __repr__(self):
        return "<omitted>"


_OMITTED = _Omitted()


def error_response(id, code, message, data=_OMITTED):
    """Build an error response; ``id`` may be None when the request's id is unknown.

    ``data`` goes inside the error object, and only when it is given.

    >>> error_response(1, METHOD_NOT_FOUND, "Method not found")
    {'jsonrpc': '2.0', 'id': 1, 'error': {'code': -32601, 'message': 'Method not found'}}
    """
    if id is not None:
        _require_id(id, "id")
    if not is_integer(code):
        raise TypeError(f"code must be an int (not a bool), got {python_value(code)}")
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {python_value(message)}")
    error = {"code": code, "message": message}
    if data is not _OMITTED:
        error["data"] = data
    return {"jsonrpc": JSONRPC_VERSION, "id": id, "error": error}
