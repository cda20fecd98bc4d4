"""The reserved JSON-RPC 2.0 error codes and their standard messages, and MCP's own
codes and ``_meta`` names of 2026-07-28.

A module of its own, importing nothing, so that every other module can have
them first: ``mcp_lesson/__init__.py`` imports this module before anything
else. A lesson's cell says ``from mcp_lesson import PARSE_ERROR``; exported, it
says ``from .codes import PARSE_ERROR`` instead: a learner's package gets a copy
of this module (it stands alone), and :mod:`mcp_lesson.core` takes its codes
from here (mcp_lesson.exercises.learner_package.own_codes).
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

#: MCP's two error codes of 2026-07-28 (schema/2026-07-28/schema.ts): the HTTP headers and
#: the body disagree, and a revision the server does not serve.
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022
#: The names in a 2026-07-28 request's ``params._meta`` of its revision and of the client's
#: capabilities (both required: schema/2026-07-28/schema.ts, RequestMetaObject).
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
