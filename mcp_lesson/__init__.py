"""mcp_lesson: build and recognise the JSON-RPC 2.0 messages that MCP speaks.

The finished form of what the course's notebooks build step by step::

    >>> from mcp_lesson import create_request, classify
    >>> classify(create_request("tools/list", request_id=1))
    ('request', None)

Modules, one idea each:

* ``messages``: the error codes and the builders (``create_request``,
  ``success_response``, ``error_response``);
* ``classification``: ``classify``, ``classify_json``, ``explain`` and the
  replies a strict server sends (``reply_for``, ``reply_for_json``);
* ``cases``: the shared case table every test, lesson and widget reads;
* ``selfcheck``: ``check(fn)``, the learner's self-check;
* ``course``: helpers for the lesson notebooks (contents, try_it, self_check);
* ``widgets``: the playground's Classifier, Quiz and Checker (ipywidgets);
* ``server``: the capstone's calculator MCP server (official ``mcp`` SDK);
* ``stdio_client``: a line-based client for it, with read timeouts;
* ``peers``: the SDK's own verdict on a message, beside ours.

The root imports only the first four, which need nothing but the standard
library.
"""

from .cases import CASES, TEXT_CASES, Case, TextCase
from .classification import (
    classify,
    classify_json,
    explain,
    explain_json,
    parse,
    reply_for,
    reply_for_json,
    reply_for_message,
)
from .messages import (
    ERROR_MESSAGES,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSONRPC_VERSION,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    create_request,
    error_response,
    success_response,
)
from .selfcheck import check, run_check

__version__ = "0.1.0"

__all__ = [
    "CASES",
    "TEXT_CASES",
    "Case",
    "TextCase",
    "classify",
    "classify_json",
    "explain",
    "explain_json",
    "parse",
    "reply_for",
    "reply_for_json",
    "reply_for_message",
    "ERROR_MESSAGES",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "create_request",
    "error_response",
    "success_response",
    "check",
    "run_check",
]
