"""Recognising JSON-RPC 2.0 messages: classify, explain, and what to reply.

A parsed message is exactly one of four kinds:

* **request**: ``"jsonrpc": "2.0"``, a string ``"method"`` and an ``"id"`` that
  is a string or an integer; ``"params"``, if present, is an object.
* **notification**: the same with no ``"id"`` key at all. Nobody replies.
* **response**: ``"jsonrpc": "2.0"``, no ``"method"``, an ``"id"`` key, and
  exactly one of ``"result"`` (an object; the id a string or an integer) or
  ``"error"`` (an object with an integer ``"code"`` and a string
  ``"message"``; the id a string, an integer or null).
* **invalid**: anything else, answered with ``INVALID_REQUEST`` (-32600).

Key *presence* decides, never truthiness: ``"id": 0`` is an id. ``bool`` is
never an integer and a float never is either, even ``1.0``. A list (a JSON-RPC
batch) is invalid, because MCP removed batching in revision 2025-06-18.

All rules live in one function, :func:`_judge`, which returns the verdict and
the name of the rule that decided it; :func:`classify` keeps the verdict and
:func:`explain` turns the rule into words, so the two can never disagree.
"""

import json

from .messages import (
    ERROR_MESSAGES,
    INVALID_REQUEST,
    PARSE_ERROR,
    error_response,
    is_valid_id,
    json_type,
    show_value,
)

REQUEST = ("request", None)
NOTIFICATION = ("notification", None)
RESPONSE = ("response", None)
INVALID = ("invalid", INVALID_REQUEST)
UNPARSABLE = ("invalid", PARSE_ERROR)

_MISSING = object()
# The plain dict method reads what a dict (or any subclass) really holds, so a
# subclass that overrides get() or __contains__ cannot change the verdict.
_get = dict.get


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _judge(msg):
    """Apply the rules in order; return ``(verdict, rule)``."""
    if not isinstance(msg, dict):
        if isinstance(msg, list):
            return INVALID, "batch"
        return INVALID, "not-object"
    version = _get(msg, "jsonrpc", _MISSING)
    if version is _MISSING:
        return INVALID, "no-jsonrpc"
    if not (isinstance(version, str) and version == "2.0"):
        return INVALID, "bad-jsonrpc"

    method = _get(msg, "method", _MISSING)
    if method is not _MISSING:
        # Request or notification: nothing else is considered.
        if not isinstance(method, str):
            return INVALID, "bad-method"
        params = _get(msg, "params", _MISSING)
        if params is not _MISSING and not isinstance(params, dict):
            return INVALID, "bad-params"
        request_id = _get(msg, "id", _MISSING)
        if request_id is _MISSING:
            return NOTIFICATION, "notification"
        if isinstance(request_id, str) or _is_int(request_id):
            return REQUEST, "request"
        return INVALID, "bad-request-id"

    response_id = _get(msg, "id", _MISSING)
    result = _get(msg, "result", _MISSING)
    error = _get(msg, "error", _MISSING)
    if result is not _MISSING:
        if error is not _MISSING:
            return INVALID, "both"
        if response_id is _MISSING:
            return INVALID, "no-response-id"
        if not isinstance(result, dict):
            return INVALID, "bad-result"
        if isinstance(response_id, str) or _is_int(response_id):
            return RESPONSE, "result"
        return INVALID, "bad-result-id"
    if error is _MISSING:
        return INVALID, "neither"
    if response_id is _MISSING:
        return INVALID, "no-response-id"
    if not isinstance(error, dict):
        return INVALID, "bad-error"
    if not _is_int(_get(error, "code")):
        return INVALID, "bad-error-code"
    if not isinstance(_get(error, "message"), str):
        return INVALID, "bad-error-message"
    if response_id is None or isinstance(response_id, str) or _is_int(response_id):
        return RESPONSE, "error"
    return INVALID, "bad-error-id"


def classify(msg):
    """Return ``(kind, error_code)`` for any parsed JSON value; never raises.

    ``kind`` is "request", "notification", "response" or "invalid"; the code
    is None for the first three and ``INVALID_REQUEST`` (-32600) for invalid.
    """
    try:
        return _judge(msg)[0]
    except Exception:  # a hostile object (say, a str subclass whose == raises)
        return INVALID


def parse(text):
    """Parse wire text strictly; return ``(value, None)`` or ``(None, reason)``.

    Strict means RFC 8259 JSON: ``NaN`` and ``Infinity`` are refused, bytes
    must be UTF-8, and nesting too deep for the parser is a parse error.
    """
    try:
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = bytes(text).decode("utf-8")
        elif not isinstance(text, str):
            return None, f"expected text or bytes, got {json_type(text)}"
        return json.loads(text, parse_constant=_refuse_constant), None
    except _NotJSON as exc:
        return None, str(exc)
    except UnicodeDecodeError as exc:
        return None, f"the bytes are not valid UTF-8 (byte {exc.start})"
    except json.JSONDecodeError as exc:
        return None, _parse_reason(text, exc)
    except RecursionError:
        return None, "the JSON is nested too deeply for the parser"
    except ValueError as exc:
        if "digits" in str(exc):  # Python's guard against huge int literals
            return _parse_huge_ints(text)
        return None, f"the text is not JSON ({str(exc)[:120]})"
    except Exception as exc:
        return None, f"the text is not JSON ({type(exc).__name__})"


class _NotJSON(ValueError):
    pass


def _refuse_constant(name):
    raise _NotJSON(f"{name} is a JavaScript number, not JSON: JSON has no {name}")


def _parse_huge_ints(text):
    """Retry with an integer parser that has no digit limit (slow, rare)."""
    from decimal import Decimal

    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_int=lambda s: int(Decimal(s))
        )
        return value, None
    except Exception as exc:
        return None, f"the text is not JSON ({type(exc).__name__})"


def _parse_reason(text, exc):
    if not text.strip():
        return "the text is empty: there is no JSON value in it"
    if exc.msg.startswith("Unterminated") or exc.pos >= len(text.rstrip()):
        return f"the JSON stops too early: is it cut off? ({exc.msg})"
    return f"the text is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"


def classify_json(text):
    """Classify raw text or bytes as it arrives off the wire; never raises.

    Text that is not strict JSON gives ``("invalid", PARSE_ERROR)``; anything
    that parses is judged by :func:`classify`.
    """
    value, reason = parse(text)
    if reason is not None:
        return UNPARSABLE
    return classify(value)


# --- explanations -----------------------------------------------------------

_RULES = {
    "not-object": "a message must be a JSON object, and this is {what}",
    "batch": (
        "this is a list, i.e. a JSON-RPC batch; MCP removed batching in revision "
        "2025-06-18, so every list is invalid, even one holding a good message"
    ),
    "no-jsonrpc": 'it has no "jsonrpc" member; every message must say "jsonrpc": "2.0"',
    "bad-jsonrpc": (
        '"jsonrpc" is {version}, but it must be exactly the string "2.0" '
        "(not a number, not another version)"
    ),
    "bad-method": '"method" is {method_desc}, but a method name must be a string',
    "bad-params": (
        '"params" is {params_type}, but params, when present, must be an object '
        "(MCP always sends named params)"
    ),
    "bad-request-id": (
        'the id is {id_desc}; a request id must be a string or an integer'
        "{id_note}"
    ),
    "notification": (
        'it has "jsonrpc": "2.0", the method {method} and no "id" key at all, '
        "so it is a notification: nobody replies to it"
    ),
    "request": (
        'it has "jsonrpc": "2.0", the method {method} and the id {id} ({id_type}), '
        "so it is a request: the receiver owes it exactly one response with that id"
    ),
    "both": 'it has both "result" and "error"; a response carries exactly one of them',
    "neither": (
        'it has no "method", so it would be a response, but it has neither '
        '"result" nor "error"'
    ),
    "no-response-id": (
        'it has no "id" key; a response must name the request it answers '
        '(an error response about an unreadable request uses "id": null)'
    ),
    "bad-result": '"result" is {result_type}, but a result must be an object',
    "bad-result-id": (
        "the id is {id_desc}; a result response must carry the string or "
        "integer id of the request it answers{id_note}"
    ),
    "bad-error": '"error" is {error_type}, but an error must be an object with "code" and "message"',
    "bad-error-code": (
        'the error "code" is {code_desc}, but it must be an integer{code_note}'
    ),
    "bad-error-message": 'the error "message" is {message_desc}, but it must be a string',
    "bad-error-id": (
        "the id is {id_desc}; an error response's id must be a string, an "
        "integer, or null when the request's id could not be read"
    ),
    "result": (
        'it has "jsonrpc": "2.0", no "method", the id {id} and an object "result", '
        "so it is a success response"
    ),
    "error": (
        'it has "jsonrpc": "2.0", no "method", the id {id} and an "error" with code '
        "{code} and a string message, so it is an error response"
    ),
}


def _number_note(value):
    if isinstance(value, bool):
        return ", and a bool is not an integer (true is not 1)"
    if isinstance(value, float):
        return ", and a float is not an integer, even 1.0"
    if value is None:
        return "; null is allowed only on an error response"
    return ""


def _describe(value):
    """ "true (a bool)", "null", "missing", "a list of 2 items"... """
    if value is _MISSING:
        return "missing"
    if value is None or isinstance(value, (dict, list)):
        return show_value(value)
    return f"{show_value(value)} ({json_type(value)})"


def _details(msg):
    """Everything the explanation templates may mention, shown safely."""
    is_dict = isinstance(msg, dict)
    get = (lambda key: _get(msg, key, _MISSING)) if is_dict else (lambda key: _MISSING)
    error = get("error")
    code = _get(error, "code", _MISSING) if isinstance(error, dict) else _MISSING
    message = _get(error, "message", _MISSING) if isinstance(error, dict) else _MISSING
    values = {
        "what": json_type(msg),
        "version": show_value(get("jsonrpc")),
        "method": show_value(get("method")),
        "method_type": json_type(get("method")),
        "params_type": json_type(get("params")),
        "id": show_value(get("id")),
        "id_type": json_type(get("id")),
        "id_desc": _describe(get("id")),
        "method_desc": _describe(get("method")),
        "id_note": _number_note(get("id")),
        "result_type": json_type(get("result")),
        "error_type": json_type(error),
        "code": show_value(code),
        "code_desc": _describe(code),
        "code_note": _number_note(code) if code is not None else "",
        "message_desc": _describe(message),
    }
    return values


def _oddities(msg, rule):
    """Extra remarks for valid messages that carry something surprising."""
    notes = []
    if rule in ("request", "notification"):
        stray = [key for key in ("result", "error") if _get(msg, key, _MISSING) is not _MISSING]
        if stray:
            names = " and ".join(f'"{key}"' for key in stray)
            notes.append(
                f'Note: it also has {names}; a message with "method" is judged only as a '
                "request or notification, so that member is ignored."
            )
        method = _get(msg, "method")
        if isinstance(method, str) and method.startswith("rpc."):
            notes.append('Note: method names starting with "rpc." are reserved by JSON-RPC.')
    return notes


def explain(msg):
    """A short, learner-readable account of ``classify(msg)``; never raises.

    It starts with the verdict and names the rule that decided it.
    """
    try:
        (kind, code), rule = _judge(msg)
        reason = _RULES[rule].format(**_details(msg))
        head = f"{kind.capitalize()}" + (f" ({code})" if code is not None else "")
        text = f"{head}: {reason}."
        extra = _oddities(msg, rule) if isinstance(msg, dict) else []
        return " ".join([text, *extra])
    except Exception:
        return "Invalid (-32600): this value could not be read as a message."


def explain_json(text):
    """Like :func:`explain`, for raw text or bytes; a parse error says why."""
    value, reason = parse(text)
    if reason is not None:
        return f"Invalid ({PARSE_ERROR}): parse error: {reason}."
    return explain(value)


# --- replies ----------------------------------------------------------------


def reply_for(msg):
    """What a strict server sends back for the parsed message ``msg``.

    None for a request, notification or response (the application answers a
    request; nobody answers the others). For an invalid message, an
    ``INVALID_REQUEST`` error response that echoes the message's id when that
    id is a valid one (a string or an integer) and is null otherwise.
    """
    kind, code = classify(msg)
    if kind != "invalid":
        return None
    request_id = None
    if isinstance(msg, dict):
        candidate = _get(msg, "id", None)
        try:
            if is_valid_id(candidate):
                request_id = candidate
        except Exception:
            request_id = None
    return error_response(request_id, code, ERROR_MESSAGES[code])


def reply_for_json(text):
    """What a strict server sends back for raw wire text or bytes.

    Text that does not parse gets ``PARSE_ERROR`` with id null; anything that
    parses is answered as :func:`reply_for` says.
    """
    value, reason = parse(text)
    if reason is not None:
        return error_response(None, PARSE_ERROR, ERROR_MESSAGES[PARSE_ERROR])
    return reply_for(value)
