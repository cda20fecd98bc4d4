"""Strict JSON reading, for text as it arrives off the wire: :func:`parse` gives the
value, or why the text is not JSON (NaN and the infinities are not JSON; integers of
any length up to :data:`MAX_INT_DIGITS` digits are read, though Python's own
``json.loads`` stops at 4,300; nesting too deep is a parse error, never a crash).
"""

import json

from mcp_lesson.protocol.values import json_type

#: The longest integer literal, in digits, that the parser reads; a longer one
#: is a parse error, like nesting too deep. The rule is the same for every
#: number of every text: there is no second limit on the digits of all numbers
#: together, because each number is converted in time close to linear in its
#: length (:func:`_digits_to_int`), so a 10 MB text of the longest numbers
#: still parses in well under a second. (Python's own ``int(str)`` takes
#: quadratic time, which is why it refuses more than 4,300 digits by default.)
MAX_INT_DIGITS = 20_000


def parse(text):
    """Parse wire text strictly; return ``(value, None)`` or ``(None, reason)``.

    Strict means RFC 8259 JSON: ``NaN`` and ``Infinity`` are refused, bytes
    must be UTF-8, and nesting too deep or an integer too long for the parser
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
        if "digits" in str(exc):  # Python's guard against long int literals: read them ourselves
            return _parse_long_ints(text)
        return None, f"the text is not JSON ({str(exc)[:120]})"
    except Exception as exc:
        return None, f"the text could not be read as JSON ({type(exc).__name__})"


class _NotJSON(ValueError):
    pass


def _refuse_constant(name):
    raise _NotJSON(f"{name} is a JavaScript number, not JSON: JSON has no {name}")


#: The scanner of :func:`parse`'s strict parser, built once (``json.loads`` with a keyword
#: builds a new decoder on every call): ``scan(text, 0)`` reads one JSON value from the
#: start of ``text`` and gives ``(value, end)``, or raises on anything :func:`parse` would
#: call no JSON. For a hot path (the tap judging every line) that hands anything else,
#: whitespace around the value included, to :func:`parse` or ``classify_json``.
scan = json.JSONDecoder(parse_constant=_refuse_constant).scan_once  # type: ignore[attr-defined]  # set by __init__, untyped


#: Integer literals up to this many digits go to Python's ``int`` directly
#: (below its default limit of 4,300, so that limit never applies).
_DIRECT_DIGITS = 4_000
#: ``10 ** (_DIRECT_DIGITS * 2**j)``: the only powers :func:`_digits_to_int` uses.
_POWERS: dict[int, int] = {}


def _digits_to_int(digits):
    """The int written by the decimal ``digits`` (no sign), in time near linear:
    the low part is always a power-of-two multiple of :data:`_DIRECT_DIGITS`
    digits, split off and joined with one multiplication."""
    if len(digits) <= _DIRECT_DIGITS:
        return int(digits)
    low = _DIRECT_DIGITS
    while low * 2 < len(digits):
        low *= 2
    power = _POWERS.get(low)
    if power is None:
        power = _POWERS[low] = 10**low
    return _digits_to_int(digits[:-low]) * power + _digits_to_int(digits[-low:])


def _long_int(literal):
    """``parse_int`` for texts with long integer literals."""
    if len(literal) <= _DIRECT_DIGITS:
        return int(literal)
    negative = literal.startswith("-")
    digits = literal[1:] if negative else literal
    if len(digits) > MAX_INT_DIGITS:
        raise _NotJSON(
            f"a number with {len(digits):,} digits is longer than this parser "
            f"reads ({MAX_INT_DIGITS:,} digits at most)"
        )
    value = _digits_to_int(digits)
    return -value if negative else value


def _parse_long_ints(text):
    """Retry with a parser for long integer literals (rare)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_int=_long_int), None
    except _NotJSON as exc:
        return None, str(exc)
    except RecursionError:
        return None, "the JSON is nested too deeply for the parser"
    except Exception as exc:
        return None, f"the text is not JSON ({type(exc).__name__})"


def _parse_reason(text, exc):
    try:
        if not text.strip():
            return "the text is empty: there is no JSON value in it"
        if exc.msg.startswith("Unterminated string"):  # json says where the string starts
            return (
                "the JSON stops too early: is it cut off? (the string that starts at line "
                f"{exc.lineno}, column {exc.colno} never ends)"
            )
        if exc.msg.startswith("Unterminated") or exc.pos >= len(text.rstrip()):
            return f"the JSON stops too early: is it cut off? ({exc.msg})"
        return f"the text is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    except Exception:  # never let the wording of an error become an error
        return "the text is not valid JSON"
