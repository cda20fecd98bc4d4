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

All rules live in one function, :func:`classify`. Each rule returns a verdict
object of its own, so :func:`rule_of` can name the rule that decided and
:func:`explain` can turn it into words: the two can never disagree.
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

UNPARSABLE = ("invalid", PARSE_ERROR)

# Each rule returns a verdict object of its own: equal to the plain tuple
# above, but a distinct object, so explain() can tell which rule decided
# (by identity) while classify() pays nothing extra for it.
_RULE_OF = {}


def _verdict(kind, code, rule):
    verdict = tuple([kind, code])  # a new tuple object, never a shared constant
    _RULE_OF[id(verdict)] = rule
    return verdict


_NOT_OBJECT = _verdict("invalid", INVALID_REQUEST, "not-object")
_BATCH = _verdict("invalid", INVALID_REQUEST, "batch")
_NO_JSONRPC = _verdict("invalid", INVALID_REQUEST, "no-jsonrpc")
_BAD_JSONRPC = _verdict("invalid", INVALID_REQUEST, "bad-jsonrpc")
_BAD_METHOD = _verdict("invalid", INVALID_REQUEST, "bad-method")
_BAD_PARAMS = _verdict("invalid", INVALID_REQUEST, "bad-params")
_NOTIFICATION = _verdict("notification", None, "notification")
_REQUEST = _verdict("request", None, "request")
_BAD_REQUEST_ID = _verdict("invalid", INVALID_REQUEST, "bad-request-id")
_BOTH = _verdict("invalid", INVALID_REQUEST, "both")
_NEITHER = _verdict("invalid", INVALID_REQUEST, "neither")
_NO_RESPONSE_ID = _verdict("invalid", INVALID_REQUEST, "no-response-id")
_BAD_RESULT = _verdict("invalid", INVALID_REQUEST, "bad-result")
_RESULT = _verdict("response", None, "result")
_BAD_RESULT_ID = _verdict("invalid", INVALID_REQUEST, "bad-result-id")
_BAD_ERROR = _verdict("invalid", INVALID_REQUEST, "bad-error")
_BAD_ERROR_CODE = _verdict("invalid", INVALID_REQUEST, "bad-error-code")
_BAD_ERROR_MESSAGE = _verdict("invalid", INVALID_REQUEST, "bad-error-message")
_ERROR = _verdict("response", None, "error")
_BAD_ERROR_ID = _verdict("invalid", INVALID_REQUEST, "bad-error-id")
_UNREADABLE = _verdict("invalid", INVALID_REQUEST, "unreadable")

_MISSING = object()


def _is_id(value):
    """A string or an integer; a bool is not an integer, nor is a float."""
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _plain(mapping):
    """A plain dict of what a dict subclass really holds.

    The base ``dict.items`` reads the stored members, so a subclass that
    overrides ``get``, ``__contains__`` or ``__getitem__`` cannot change the
    verdict; and any dict subclass counts as a dict.
    """
    return dict(dict.items(mapping))


def classify(msg):
    """Return ``(kind, error_code)`` for any parsed JSON value; never raises.

    ``kind`` is "request", "notification", "response" or "invalid"; the code
    is None for the first three and ``INVALID_REQUEST`` (-32600) for invalid.
    The rules are applied in the order of the module docstring; each returns
    its own verdict object (see ``_verdict``).

    This runs on every message a program reads, so it is written for speed:
    ``type(x) is str`` first (the common case), ``isinstance`` only after it.
    """
    try:
        if type(msg) is not dict:
            if not isinstance(msg, dict):
                return _BATCH if isinstance(msg, list) else _NOT_OBJECT
            msg = _plain(msg)
        version = msg.get("jsonrpc", _MISSING)
        if version != "2.0" or (type(version) is not str and not isinstance(version, str)):
            return _NO_JSONRPC if version is _MISSING else _BAD_JSONRPC

        if "method" in msg:
            # A request or a notification: "result" and "error" are not considered.
            method = msg["method"]
            if type(method) is not str and not isinstance(method, str):
                return _BAD_METHOD
            if "params" in msg:
                params = msg["params"]
                if type(params) is not dict and not isinstance(params, dict):
                    return _BAD_PARAMS
            if "id" not in msg:
                return _NOTIFICATION
            request_id = msg["id"]
            kind = type(request_id)
            if kind is int or kind is str or _is_id(request_id):
                return _REQUEST
            return _BAD_REQUEST_ID

        has_result = "result" in msg
        has_error = "error" in msg
        if has_result and has_error:
            return _BOTH
        if not (has_result or has_error):
            return _NEITHER
        if "id" not in msg:
            return _NO_RESPONSE_ID
        response_id = msg["id"]
        kind = type(response_id)
        if has_result:
            result = msg["result"]
            if type(result) is not dict and not isinstance(result, dict):
                return _BAD_RESULT
            if kind is int or kind is str or _is_id(response_id):
                return _RESULT
            return _BAD_RESULT_ID
        error = msg["error"]
        if type(error) is not dict:
            if not isinstance(error, dict):
                return _BAD_ERROR
            error = _plain(error)
        code = error.get("code")
        if type(code) is not int and not (isinstance(code, int) and not isinstance(code, bool)):
            return _BAD_ERROR_CODE
        message = error.get("message")
        if type(message) is not str and not isinstance(message, str):
            return _BAD_ERROR_MESSAGE
        if response_id is None or kind is int or kind is str or _is_id(response_id):
            return _ERROR
        return _BAD_ERROR_ID
    except Exception:  # a hostile object (say, a str subclass whose == raises)
        return _UNREADABLE


def rule_of(msg):
    """The name of the rule that decided ``classify(msg)``, e.g. "bad-request-id"."""
    return _RULE_OF.get(id(classify(msg)), "unreadable")


def _judge(msg):
    """``(verdict, rule name)``: the verdict of classify and the rule behind it."""
    verdict = classify(msg)
    return verdict, _RULE_OF[id(verdict)]


#: The longest integer literal (in digits) that the parser converts. Python
#: converts decimal text to int in quadratic time, so a 10 MB run of digits
#: would take an hour; like nesting that is too deep, a number that is too long
#: is a limit of the parser and gives a parse error.
MAX_INT_DIGITS = 20_000


def parse(text):
    """Parse wire text strictly; return ``(value, None)`` or ``(None, reason)``.

    Strict means RFC 8259 JSON: ``NaN`` and ``Infinity`` are refused, bytes
    must be UTF-8, and nesting too deep or integers too long for the parser
    (over :data:`MAX_INT_DIGITS` digits) are parse errors. Never raises.
    """
    try:
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = bytes(text).decode("utf-8")
        elif not isinstance(text, str):
            return None, f"expected text or bytes, got {json_type(text)}"
        elif type(text) is not str:
            text = str.__getitem__(text, slice(None))  # a plain str, whatever the subclass
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
        return None, f"the text could not be read as JSON ({type(exc).__name__})"


class _NotJSON(ValueError):
    pass


def _refuse_constant(name):
    raise _NotJSON(f"{name} is a JavaScript number, not JSON: JSON has no {name}")


def _long_int(literal):
    digits = len(literal) - literal.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise _NotJSON(
            f"a number with {digits:,} digits is longer than this parser reads "
            f"({MAX_INT_DIGITS:,} digits at most)"
        )
    from decimal import Decimal

    return int(Decimal(literal))  # no digit limit, unlike int(str)


def _parse_huge_ints(text):
    """Retry with an integer parser for long literals (slow, rare)."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_long_int)
        return value, None
    except _NotJSON as exc:
        return None, str(exc)
    except RecursionError:
        return None, "the JSON is nested too deeply for the parser"
    except Exception as exc:
        return None, f"the text is not JSON ({type(exc).__name__})"


def _parse_reason(text, exc):
    try:
        return _describe_parse_error(text, exc)
    except Exception:  # never let the wording of an error become an error
        return "the text is not valid JSON"


def _describe_parse_error(text, exc):
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
    "not-object": "a message must be a JSON object, and this is {what}{text_hint}",
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
    "unreadable": "this value could not be read as a message",
    "bad-error-id": (
        "the id is {id_desc}; an error response's id must be a string, an "
        "integer, or null when the request's id could not be read{id_note}"
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
    get = (lambda key: dict.get(msg, key, _MISSING)) if is_dict else (lambda key: _MISSING)
    error = get("error")
    code = dict.get(error, "code", _MISSING) if isinstance(error, dict) else _MISSING
    message = dict.get(error, "message", _MISSING) if isinstance(error, dict) else _MISSING
    values = {
        "what": json_type(msg),
        "text_hint": (
            " (if it is the raw text of a message, parse it first: explain_json does)"
            if isinstance(msg, (str, bytes, bytearray)) else ""
        ),
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
        stray = [key for key in ("result", "error") if dict.get(msg, key, _MISSING) is not _MISSING]
        if stray:
            names = " and ".join(f'"{key}"' for key in stray)
            notes.append(
                f'Note: it also has {names}; a message with "method" is judged only as a '
                "request or notification, so that member is ignored."
            )
        method = dict.get(msg, "method")
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
    except Exception:  # the wording failed (a hostile value): the verdict still stands
        kind, code = classify(msg)
        head = kind.capitalize() + (f" ({code})" if code is not None else "")
        return f"{head}: this value could not be described further."


def explain_json(text):
    """Like :func:`explain`, for raw text or bytes; a parse error says why."""
    value, reason = parse(text)
    if reason is not None:
        return parse_error_explanation(reason)
    return explain(value)


def parse_error_explanation(reason):
    """The explanation for text that did not parse, given :func:`parse`'s reason."""
    return f"Invalid ({PARSE_ERROR}): parse error: {reason}."


# --- replies ----------------------------------------------------------------


def reply_for(msg):
    """What a strict server sends back for ``msg``: a reply dict, or None.

    ``msg`` is a parsed message, or the raw text (``str`` or ``bytes``) of one
    as it came off the wire; a bare JSON string is never a message, so text is
    taken as wire text and parsed first (as :func:`reply_for_json` does).

    * Text that does not parse: ``PARSE_ERROR`` with id null.
    * A request, notification or response: None. The application answers a
      request (with a result, or ``METHOD_NOT_FOUND`` and friends); nobody
      answers the other two.
    * Anything invalid: ``INVALID_REQUEST``, echoing the message's id when that
      id is a valid one (a string or an integer), and null otherwise.
    """
    if isinstance(msg, (str, bytes, bytearray, memoryview)):
        return reply_for_json(msg)
    return reply_for_message(msg)


def reply_for_message(msg):
    """Like :func:`reply_for`, for a parsed value only: a ``str`` here is a JSON
    string value (an invalid message), never wire text to parse."""
    kind, code = classify(msg)
    if kind != "invalid":
        return None
    request_id = None
    try:
        if isinstance(msg, dict):
            candidate = dict.get(msg, "id", None)
            if is_valid_id(candidate):
                request_id = candidate
    except Exception:  # an object that only pretends to be a dict
        request_id = None
    return error_response(request_id, code, ERROR_MESSAGES[code])


def reply_for_json(text):
    """What a strict server sends back for raw wire text or bytes.

    Text that does not parse gets ``PARSE_ERROR`` with id null; anything that
    parses is answered as :func:`reply_for` answers the parsed value.
    """
    value, reason = parse(text)
    if reason is not None:
        return error_response(None, PARSE_ERROR, ERROR_MESSAGES[PARSE_ERROR])
    return reply_for_message(value)
