"""What a refusal must say: a builder that refuses an argument with a ``TypeError`` names
what was wrong, its type or the value itself (lessons 02 and 04 teach it). The self-check's
tables (:mod:`mcp_lesson.exercises.tables`) and graduation (tests/implementation.py) both
hold a refusal's words to this one rule, :func:`names_what_was_wrong`."""

import json
import re
import reprlib

#: Usual words for a type, besides Python's own name of it.
TYPE_WORDS = {
    "bool": ("boolean",),
    "int": ("integer",),
    "float": ("floating",),
    "str": ("string", "text"),
    "dict": ("dictionary", "object", "mapping"),
    "list": ("array",),
    "NoneType": ("None", "null"),
    "bytes": ("byte string",),
    "tuple": (),
    "set": (),
    "complex": ("complex number",),
}

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple = 4, 8, 8, 8
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 50, 50, 50

#: What the self-check says of a refusal whose words name nothing.
RULE = "a TypeError's words name the type or the value it refuses"


def _value_texts(value, more=()):
    """The ways a message may write ``value``: as Python and JSON write it (and ``more``)."""
    texts = []
    for make in (repr, str, _SHORT.repr, json.dumps, *more):
        try:
            texts.append(make(value))
        except Exception:
            pass
    return [text for text in texts if isinstance(text, str) and text.strip()]


def names_what_was_wrong(text, value, more=()):
    """True when ``text`` (a TypeError's words) names the offending ``value``.

    The rule: the text names the value's type, as Python names it (``bool``,
    ``float``, ``list``, ``NoneType``) or in the usual words for it
    (``boolean``, ``integer``, ``string``, ``dictionary`` or ``object``,
    ``array``, ``None`` or ``null``), or it quotes the value, as Python or
    JSON writes it (``True``, ``true``, ``1.5``, ``[1]``, ``'x'``), whole or
    (for a long value) its first 20 characters. Case does not matter, and a
    word counts only whole: "int" is not found in "print". ``more``: other ways
    of writing a value (functions of it), for a caller that shows values its own way.
    """
    try:
        text = str(text)
    except Exception:
        return False
    name = type(value).__name__
    for word in (name, *TYPE_WORDS.get(name, ())):
        if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE):
            return True
    for written in _value_texts(value, more):
        if re.search(rf"(?<!\w){re.escape(written)}(?!\w)", text, re.IGNORECASE):
            return True
        if len(written) > 20 and written[:20].lower() in text.lower():
            return True
    return False
