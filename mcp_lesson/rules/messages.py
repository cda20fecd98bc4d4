"""Building JSON-RPC 2.0 messages the way MCP uses them.

Every MCP message is a JSON object with ``"jsonrpc": "2.0"``. This module holds
the reserved error codes (from :mod:`mcp_lesson.protocol.codes`) and the three builders
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

from mcp_lesson.core.errors import error_response  # noqa: F401  (lesson 04)
from mcp_lesson.core.messages import create_request, is_integer, is_valid_id  # noqa: F401  (lesson 02)
from mcp_lesson.protocol.codes import (  # noqa: F401  (re-exported: the codes belong to the messages)
    ERROR_MESSAGES,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSONRPC_VERSION,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
)
from mcp_lesson.protocol.values import python_value


def _require_id(request_id, where):
    if not is_valid_id(request_id):
        raise TypeError(
            f"{where} must be a str or an int (not a bool or a float), "
            f"got {python_value(request_id)}"
        )


def _require_object(value, name):
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict (a JSON object), got {python_value(value)}")


def success_response(id, result):
    """Build the response that carries a request's ``result`` (a dict).

    >>> success_response(1, {"tools": []})
    {'jsonrpc': '2.0', 'id': 1, 'result': {'tools': []}}
    """
    _require_id(id, "id")
    _require_object(result, "result")
    return {"jsonrpc": JSONRPC_VERSION, "id": id, "result": result}
