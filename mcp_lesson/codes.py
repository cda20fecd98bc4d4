"""The reserved JSON-RPC 2.0 error codes and their standard messages.

A module of its own, importing nothing, so that every other module (and the
lessons' exported cells in :mod:`mcp_lesson.core`, which say ``from mcp_lesson
import PARSE_ERROR``) can have them first: ``mcp_lesson/__init__.py`` imports
this module before anything else.
"""

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
