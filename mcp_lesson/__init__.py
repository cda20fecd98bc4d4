"""mcp_lesson: build and recognise the JSON-RPC 2.0 messages that MCP speaks.

The finished form of what the course's notebooks build step by step::

    >>> from mcp_lesson import create_request, classify
    >>> classify(create_request("tools/list", request_id=1))
    ('request', None)

Modules, one idea each:

* ``codes``: the reserved error codes and their messages;
* ``messages``: the builders (``create_request``, ``success_response``,
  ``error_response``);
* ``core``: the lessons' own exercise cells, exported from the masters (``make
  export``): ``messages`` and ``classification`` build on them, and lesson 09's
  functions of the HTTP transport (``http_request_for``, ``check_headers``,
  ``read_sse``, ``http_verdict``) and lesson 10's ``audit`` of a recorded
  conversation are theirs as they are;
* ``registry``: what each lesson builds, and where;
* ``classification``: ``classify``, ``classify_json``, ``explain`` and the
  replies a strict server sends (``reply_for``, ``reply_for_json``), under the
  course's rules or any MCP revision's (``REVISIONS``);
* ``cases``: the shared case table every test, lesson and widget reads;
* ``selfcheck``: ``check(fn)``, the learner's self-check;
* ``course``: helpers for the lesson notebooks (contents, try_it, self_check);
* ``widgets``: the playground's Classifier, Quiz and Checker (ipywidgets);
* ``server``: the capstone's calculator MCP server (official ``mcp`` SDK), over
  stdio or Streamable HTTP;
* ``stdio_client``: a line-based client for it, with read timeouts;
* ``http_client``: ``HttpServer``, the same server over HTTP, started and stopped;
* ``tap``: the tap, which records live traffic and reports on it
  (``python -m mcp_lesson.tap``; its own ``audit`` says more than lesson 10's);
* ``peers``: the SDK's own verdict on a message, beside ours.

The root holds what a learner or a teacher uses, and imports only modules
that need nothing but the standard library. Everything else is
reached through its module (``mcp_lesson.exercises.cases.TEXT_CASES``,
``mcp_lesson.exercises.selfcheck.run_check``, ``mcp_lesson.rules.classification.parse``...).
"""

import sys as _sys

# First: the lessons' exported cells (mcp_lesson.core), which the modules below
# build on, import the reserved codes from this package's root.
from mcp_lesson.protocol.codes import (
    CAPABILITIES_KEY,
    ERROR_MESSAGES,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    VERSION_KEY,
)
from mcp_lesson.exercises.cases import CASES  # noqa: E402
from mcp_lesson.rules.classification import (
    REVISIONS,
    classify,
    classify_json,
    reply_for,
    reply_for_json,
)
from mcp_lesson.rules.explanation import explain, explain_json
from mcp_lesson.rules.messages import (  # noqa: E402
    create_request,
    error_response,
    success_response,
)
from mcp_lesson.core.transport import (  # noqa: E402  (lesson 09's export, as it is)
    check_headers,
    http_request_for,
    http_verdict,
    read_sse,
)
from mcp_lesson.core.traffic import audit  # noqa: E402  (lesson 10's export, as it is)
from mcp_lesson.exercises.selfcheck import check

if _sys.platform == "emscripten":  # the browser's Python: see mcp_lesson/protocol/deep_json.py
    from mcp_lesson.protocol.deep_json import install as _install_deep_json_guard

    _install_deep_json_guard()

from mcp_lesson.version import __version__  # noqa: E402

__all__ = [
    # building messages
    "create_request",
    "success_response",
    "error_response",
    # recognising them (parsed values, and raw wire text)
    "classify",
    "classify_json",
    "explain",
    "explain_json",
    "reply_for",
    "reply_for_json",
    "REVISIONS",
    # the reserved error codes and their standard messages
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "ERROR_MESSAGES",
    # MCP's codes and _meta names of 2026-07-28
    "HEADER_MISMATCH",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "VERSION_KEY",
    "CAPABILITIES_KEY",
    # messages over HTTP (lesson 09)
    "http_request_for",
    "check_headers",
    "read_sse",
    "http_verdict",
    # the audit of a recorded conversation (lesson 10)
    "audit",
    # the shared case table, and the learner's self-check
    "CASES",
    "check",
]
