"""mcp_lesson: build and recognise the JSON-RPC 2.0 messages that MCP speaks.

The finished form of what the course's notebooks build step by step::

    >>> from mcp_lesson import create_request, classify
    >>> classify(create_request("tools/list", request_id=1))
    ('request', None)

A folder per concern, each lower one knowing nothing of those above it (each folder's
docstring says what it holds and what it may import; tests/test_layout.py holds the order):

* ``protocol/``: the protocol's facts as data (reserved codes, revisions) and the one strict
  JSON reader;
* ``core/``: the lessons' exported code, generated from the masters by ``make export``
  (never edited);
* ``rules/``: the message rules as the package gives them (builders, ``classify``,
  ``explain``), built on the core;
* ``shared/``: what the course's programs share (processes, event streams, lines, recordings);
* ``exercises/``: the course's checking of a learner (the lessons' table, the exercises the
  masters declare, case tables, the self-check, the learner's package, graduation);
* ``server/``, ``client/``, ``peers/``: the MCP programs the lessons run (the course's
  servers, its clients, the official SDKs and conformance suite beside them);
* ``tap/``: the tap, which records and judges live traffic (``python -m mcp_lesson.tap``);
* ``widgets/``: the playground's widgets (ipywidgets);
* ``course/``: the helpers the lesson notebooks import.

The root holds what a learner or a teacher uses: the builders and the verdicts, the codes, the
case table and the self-check, and every function a lesson builds that the course has a version
of (``mcp_lesson.audit``, ``mcp_lesson.classify_at``...), as the registry says
(:mod:`mcp_lesson.exercises.registry`: a new exercise is here with no line added). All but the
builders, the verdicts and the codes are imported when first asked for, so that a program that
needs only ``mcp_lesson.version`` stays quick.
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
from mcp_lesson.rules.classification import (
    REVISIONS,
    classify,
    classify_json,
    reply_for,
    reply_for_json,
)
from mcp_lesson.rules.explanation import explain, explain_json
from mcp_lesson.rules.messages import (
    create_request,
    error_response,
    success_response,
)

if _sys.platform == "emscripten":  # the browser's Python: see mcp_lesson/protocol/deep_json.py
    from mcp_lesson.protocol.deep_json import install as _install_deep_json_guard

    _install_deep_json_guard()

from mcp_lesson.version import __version__

#: The names the root gives whatever the registry holds (the rest of ``__all__`` is the
#: registry's: :func:`__getattr__`).
_FIXED = [
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
    # the shared case table, and the learner's self-check
    "CASES",
    "check",
]


def _lessons_functions(graduated_only=False):
    """The functions the lessons build that the course has a version of, by name (the registry's
    rows with a reference; with ``graduated_only``, those graduation judges on their own)."""
    from mcp_lesson.exercises import registry

    return [
        row.name
        for row in registry.BUILT
        if row.reference is not None and (row.graduates or not graduated_only)
    ]


def __getattr__(name):
    """The case table, the self-check and the lessons' functions (and ``__all__``, which lists
    those that graduate), imported when first asked for."""
    if name == "CASES":
        from mcp_lesson.exercises.cases import CASES as value
    elif name == "check":
        from mcp_lesson.exercises.selfcheck import check as value
    elif name == "__all__":
        value = _FIXED + [
            found for found in _lessons_functions(graduated_only=True) if found not in _FIXED
        ]
    elif not name.startswith("_") and name in _lessons_functions():
        from mcp_lesson.exercises import registry

        value = registry.reference(name)
    else:
        raise AttributeError(f"module 'mcp_lesson' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__getattr__("__all__")) | set(_lessons_functions()))
