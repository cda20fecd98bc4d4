"""The official Python SDK's verdict on a message, beside this package's.

The ``mcp`` SDK reads every incoming message with one pydantic validator,
``mcp_types.jsonrpc.jsonrpc_message_adapter``. It tries the four message models
(``JSONRPCRequest``, ``JSONRPCNotification``, ``JSONRPCResponse``,
``JSONRPCError``) and keeps one that fits; if none fits it raises a
``ValidationError``. This module turns that into this package's words:

===================================  ================
SDK outcome                          kind
===================================  ================
``JSONRPCRequest``                   ``"request"``
``JSONRPCNotification``              ``"notification"``
``JSONRPCResponse``, ``JSONRPCError`` ``"response"``
``ValidationError`` (or any error)   ``"invalid"``
===================================  ================

Lesson 07 and ``tests/test_peers.py`` compare the two on the shared case table.
Importing this module does not import the SDK; the first verdict does.
"""

from functools import lru_cache
from typing import Any, NamedTuple

from .cases import CASES, TEXT_CASES
from .classification import classify, classify_json, parse

_KINDS = {
    "JSONRPCRequest": "request",
    "JSONRPCNotification": "notification",
    "JSONRPCResponse": "response",
    "JSONRPCError": "response",
}


@lru_cache(maxsize=1)
def _adapter():
    from mcp_types.jsonrpc import jsonrpc_message_adapter

    return jsonrpc_message_adapter


def sdk_version():
    """The installed ``mcp`` SDK's version, e.g. ``"2.3.0"`` (None if it is missing)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return None


def sdk_model(msg):
    """The name of the SDK model ``msg`` validates as, or ``"ValidationError"``; never raises."""
    try:
        model = _adapter().validate_python(msg)
    except Exception as exc:  # pydantic's ValidationError, or anything a hostile object raises
        return type(exc).__name__
    return type(model).__name__


def sdk_verdict(msg):
    """The SDK's verdict on a parsed message, in this package's kinds; never raises."""
    return _KINDS.get(sdk_model(msg), "invalid")


def sdk_stdio_model(line):
    """The SDK model a stdio server makes of one line of text or bytes; never raises.

    This is what ``mcp.server.stdio`` does with each line it reads: bytes are
    decoded as UTF-8 with bad bytes *replaced* (not refused), then the text is
    validated by the SDK's own JSON parser (which, unlike strict JSON, reads
    ``NaN``). Text the parser refuses is ``"ValidationError"``.
    """
    try:
        if isinstance(line, (bytes, bytearray, memoryview)):
            line = bytes(line).decode("utf-8", errors="replace")
        model = _adapter().validate_json(line, by_name=False)
    except Exception as exc:
        return type(exc).__name__
    return type(model).__name__


def sdk_stdio_verdict(line):
    """:func:`sdk_stdio_model` in this package's kinds; never raises."""
    return _KINDS.get(sdk_stdio_model(line), "invalid")


# --- side by side --------------------------------------------------------


class Comparison(NamedTuple):
    """One message judged by this package (``ours``) and by the SDK (``sdk``)."""

    name: str
    message: Any
    ours: str
    sdk: str
    sdk_model: str

    @property
    def agree(self):
        return self.ours == self.sdk


def _compare(cases, given, ours, sdk):
    rows = []
    for case in cases:
        message = given(case)
        model = sdk(message)
        rows.append(Comparison(case.name, message, ours(message)[0],
                               _KINDS.get(model, "invalid"), model))
    return rows


def compare(cases=CASES):
    """Compare ``classify`` with the SDK on every case (parsed messages)."""
    return _compare(cases, lambda case: case.message, classify, sdk_model)


def compare_text(cases=TEXT_CASES):
    """Compare ``classify_json`` with a stdio server built with the SDK on raw text."""
    return _compare(cases, lambda case: case.text, classify_json, sdk_stdio_model)


def disagreements(rows):
    """``{case name: SDK verdict}`` for the rows where the two disagree."""
    return {row.name: row.sdk for row in rows if not row.agree}


# --- why they disagree ----------------------------------------------------

#: The rules of this course the SDK does not enforce, in plain words.
LOOSE_RULES = {
    "bad-id-dropped": (
        "A request's id must be a string or an integer. The SDK's request model "
        "refuses a null, bool, float or object id, but its notification model has "
        "no id field and ignores members it does not know, so the message passes "
        "as a notification with the id thrown away. Nobody answers a notification: "
        "the sender waits forever for its reply."
    ),
    "params-null": (
        'Params, when present, must be an object. The SDK declares params as '
        '"an object or None", so "params": null passes. Harmless to the SDK itself, '
        "but a stricter peer answers the same message with Invalid Request."
    ),
    "result-and-error": (
        'A response has exactly one of "result" and "error". The SDK keeps the first '
        "model that fits and ignores the other member, so a confused reply is read "
        "as a success or as a failure, silently."
    ),
    "lax-error-code": (
        "An error code must be an integer. The SDK's error model converts what it can "
        '(true becomes 1, the text "-32601" becomes -32601, -32600.0 becomes -32600), '
        "so a peer's mistake turns into a plausible code."
    ),
    "lax-json": (
        "Text that is not strict JSON is a parse error. The SDK's stdio reader replaces "
        "bytes that are not UTF-8 and its JSON parser accepts NaN, so such a line can "
        "still become a message (here, a notification)."
    ),
}


def loose_rule(message, sdk_kind):
    """Which rule of :data:`LOOSE_RULES` explains a disagreement ("other" if none does)."""
    if isinstance(message, (str, bytes, bytearray)):
        message, reason = parse(message)
        if reason is not None:
            return "lax-json"
    if not isinstance(message, dict):
        return "other"
    if "method" in message:
        if "id" in message and sdk_kind == "notification":
            return "bad-id-dropped"
        if "params" in message and message["params"] is None:
            return "params-null"
        return "other"
    if "result" in message and "error" in message:
        return "result-and-error"
    error = message.get("error")
    if isinstance(error, dict) and "code" in error:
        code = error["code"]
        if not (isinstance(code, int) and not isinstance(code, bool)):
            return "lax-error-code"
    return "other"
