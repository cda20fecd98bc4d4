"""Building JSON-RPC 2.0 messages the way MCP uses them.

Every MCP message is a JSON object with ``"jsonrpc": "2.0"``. This module holds
the reserved error codes (from :mod:`mcp_lesson.codes`) and the three builders
a program needs to *send* messages: :func:`create_request` (a request, or a
notification when there is no id), :func:`success_response` and
:func:`error_response`.

``create_request``, ``error_response`` and the id and integer rules
(``is_integer``, ``is_valid_id``) are the lessons' own code: lesson 02 and 04's
exercise cells, exported from the masters into :mod:`mcp_lesson.core` by
``make export``. What no lesson builds (``success_response``, and the helpers
that show values in messages) is written here.

The builders refuse, with a :class:`TypeError` that names the problem, any
argument that would make a message :func:`mcp_lesson.classify` calls invalid.
So whatever they return is valid by construction.
"""

import json
import reprlib

from .codes import (  # noqa: F401  (re-exported: the codes belong to the messages)
    ERROR_MESSAGES,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSONRPC_VERSION,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
)
from .core.errors import error_response  # noqa: F401  (lesson 04)
from .core.messages import create_request, is_integer, is_valid_id  # noqa: F401  (lesson 02)


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


def digit_count(value):
    """How many decimal digits the int ``value`` has, without writing it as text
    (Python refuses to for more than 4,300 digits)."""
    value = abs(int(value))
    # 2**(bits - 1) <= value < 2**bits, so the digits are this lower bound or one more
    low = int((max(value.bit_length(), 1) - 1) * 0.3010299956639812) + 1
    return low + 1 if value >= 10**low else low


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
                return f"<a {digit_count(value):,}-digit integer>"
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


def success_response(id, result):
    """Build the response that carries a request's ``result`` (a dict).

    >>> success_response(1, {"tools": []})
    {'jsonrpc': '2.0', 'id': 1, 'result': {'tools': []}}
    """
    _require_id(id, "id")
    _require_object(result, "result")
    return {"jsonrpc": JSONRPC_VERSION, "id": id, "result": result}
