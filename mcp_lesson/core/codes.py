"""The error codes the lessons' cells use, from mcp_lesson/codes.py (a learner's package
gets a copy of that module instead; the course's own package keeps one)."""

from ..codes import (  # noqa: F401
    ERROR_MESSAGES, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, JSONRPC_VERSION,
    METHOD_NOT_FOUND, PARSE_ERROR)
