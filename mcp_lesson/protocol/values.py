"""JSON values in words a learner reads: a value's type ("a bool", "an integer"),
a value on one line, cut and safe (:func:`show_value`), and a Python argument named
for an error message (:func:`python_value`). Each never raises, whatever it is given.

Standard library only; every part of the course that shows a value calls these.
"""

import json
import reprlib


def json_type(value):
    """Name a value's type the way JSON (and a learner) would: "a bool", "a float"..."""
    if isinstance(value, bool):
        return "a bool"
    if value is None:
        return "null"
    if isinstance(value, int):
        return "an integer"
    for kind, name in (
        (str, "a string"),
        (float, "a float"),
        (dict, "an object"),
        (list, "a list"),
    ):
        if isinstance(value, kind):
            return name
    return f"a Python {type(value).__name__}"


def digit_count(value):
    """How many decimal digits the int ``value`` has, without writing it as text
    (Python refuses to for more than 4,300 digits)."""
    value = abs(int(value))
    # 2**(bits - 1) <= value < 2**bits, so the digits are this lower bound or one more
    low = int((max(value.bit_length(), 1) - 1) * 0.3010299956639812) + 1
    return low + 1 if value >= 10**low else low


def show_value(value, limit=60):
    """A short, safe text for any value, written as JSON where it can be.

    Never raises and never grows with the input: long strings are cut, objects
    and lists are summarised, and huge integers are described, not printed.
    """
    try:
        if value is None or isinstance(value, (bool, float)):
            return json.dumps(value)
        if isinstance(value, int):
            if value.bit_length() > 200:
                return f"<a {digit_count(value):,}-digit integer>"
            return str(int(value))
        if isinstance(value, str):
            if len(value) > limit:
                return json.dumps(value[:limit]) + f"... ({len(value):,} characters)"
            return json.dumps(value)
        if isinstance(value, dict):
            return f"an object with {len(value)} member{'s' * (len(value) != 1)}"
        if isinstance(value, list):
            return f"a list of {len(value)} item{'s' * (len(value) != 1)}"
        return f"a Python {type(value).__name__} object"
    except Exception:  # a hostile object: still say something
        return "a value that cannot be shown"


_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlevel = 40, 40, 2


def python_type(value):
    """A Python value's type in words: "a tuple", "an int", "None"."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def python_value(value):
    """Name a Python argument for an error message: "a bool: True", "None"...

    The builders are called from Python, so their errors speak Python. Never
    raises, and stays short whatever the value.
    """
    if value is None:
        return "None"
    try:
        shown = _SHORT.repr(value)
    except Exception:  # an int too long to print, a hostile __repr__...
        shown = f"<{type(value).__name__}>"
    return f"{python_type(value)}: {shown}"
