"""The judge's wire format: Python values as JSON, with their exact types.

Both sides of the sandbox use this module (it imports only the standard
library, and the sandbox gets a copy of this file). A value crosses as JSON:

* ``None``, ``True``, ``False``, a ``str`` and a ``float`` (NaN and the
  infinities too) as themselves; an ``int`` as itself when it has at most 18
  digits, else as ``["i", "<hex digits>"]`` (hexadecimal has no length limit in
  Python, decimal text has);
* a ``list`` as ``["L", item, ...]``, a ``tuple`` as ``["T", item, ...]``, a
  ``dict`` as ``["D", key, value, key, value, ...]`` (its order kept, keys of
  any type), ``bytes`` as ``["B", "<latin-1 text>"]``;
* a ``bytearray`` as ``["A", "<latin-1 text>"]``;
* an instance of a subclass of one of those types (an ``OrderedDict``, a
  ``str`` subclass) as ``["X", "<type name>", <its value as the base type>]``:
  on the other side, an instance of a plain subclass of the same name, holding
  the same value and none of the original's methods. A ``str`` subclass whose
  ``__eq__`` always says True arrives as an honest one, which cannot pass for
  a string that it is not;
* anything else as ``["O", "<type name>", "<a short repr>"]``: an
  :class:`Opaque` stand-in on the other side (of a class of the same name),
  equal to nothing but itself.

Types are tested with ``type(value) is ...``, never ``isinstance``, and
containers are read through the built-in types' own methods, so a value's own
methods are never asked anything (except ``__repr__`` for the opaque text,
guarded). Nesting deeper than :data:`MAX_DEPTH`, more than :data:`MAX_ITEMS`
items in all, and a container inside itself become opaque values too.

:func:`decode` counts what it makes against a :class:`Cap` (at most
:data:`DECODED_ITEMS` items for one answer, when none is given) and refuses
more with :class:`TooLarge`: the judge decodes what a learner's process sent,
and a process whose encoder was swapped sends whatever it likes.
"""

import json

#: What a cell or a call may print in the sandbox (the rest is dropped as it comes).
PRINTED_LIMIT = 100_000
#: The words that begin the note ending a cut print-out.
CUT = "[grading] output cut: "

MAX_DEPTH = 200
MAX_ITEMS = 2_000_000
#: Items one decoded answer may hold (the course's cases hold a few hundred).
DECODED_ITEMS = 200_000
_SMALL = 10**18
_REPR_LIMIT = 300


class Opaque:
    """A value that could not cross as data: its type's name and a short repr."""

    __slots__ = ("type_name", "text")

    def __init__(self, type_name, text):
        self.type_name, self.text = str(type_name), str(text)

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


class _Budget:
    def __init__(self):
        self.items = 0


def _short_repr(value):
    try:
        text = object.__repr__(value) if type(value).__repr__ is object.__repr__ else repr(value)
        if type(text) is not str:
            raise TypeError
    except BaseException:  # a hostile __repr__
        text = f"<a {type(value).__name__}>"
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."


def _opaque(value, why=None):
    name = type(value).__name__
    return ["O", name if type(name) is str else "object", why or _short_repr(value)]


def encode(value, depth=0, budget=None, stack=None):
    """``value`` as JSON-ready data (see the module's docstring)."""
    budget = budget or _Budget()
    stack = set() if stack is None else stack
    budget.items += 1
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is float:
        return value
    if kind is int:
        if -_SMALL < value < _SMALL:
            return value
        return ["i", int.__format__(value, "x")]
    if depth >= MAX_DEPTH or budget.items > MAX_ITEMS:
        return _opaque(value, f"<a {kind.__name__} nested too deep or too large to judge>")
    if kind is bytes:
        return ["B", bytes.decode(value, "latin-1")]
    if kind is bytearray:
        return ["A", bytearray.decode(value, "latin-1")]
    if kind in (list, tuple, dict):
        if id(value) in stack:
            return _opaque(value, f"<a {kind.__name__} that contains itself>")
        stack.add(id(value))
        try:
            if kind is dict:
                out = ["D"]
                for key, item in dict.items(value):
                    out.append(encode(key, depth + 1, budget, stack))
                    out.append(encode(item, depth + 1, budget, stack))
            else:
                out = ["L" if kind is list else "T"]
                for item in list.__iter__(value) if kind is list else tuple.__iter__(value):
                    out.append(encode(item, depth + 1, budget, stack))
            return out
        finally:
            stack.discard(id(value))
    for base in _SUBCLASSABLE:
        if isinstance(value, base):
            try:
                plain = _AS_BASE[base](value)
            except BaseException:
                break
            name = kind.__name__
            return [
                "X",
                name if type(name) is str else base.__name__,
                encode(plain, depth + 1, budget, stack),
            ]
    return _opaque(value)


_SUBCLASSABLE = (dict, list, tuple, str, int, float, bytes, bytearray)
#: How to read a subclass's value through its base type's own methods.
_AS_BASE = {
    dict: lambda v: dict(dict.items(v)),
    list: lambda v: list(list.__iter__(v)),
    tuple: lambda v: tuple(tuple.__iter__(v)),
    str: lambda v: str.__str__(v),
    int: lambda v: int.__index__(v),
    float: lambda v: float.__float__(v),
    bytes: lambda v: bytes.__getitem__(v, slice(None)),
    bytearray: lambda v: bytearray(bytearray.__getitem__(v, slice(None))),
}
_CLASSES: dict = {}


def _named(name, base):
    """A plain subclass of ``base`` called ``name`` (made once)."""
    key = (name, base)
    if key not in _CLASSES:
        try:
            _CLASSES[key] = type(name, (base,), {"__module__": "judged"})
        except TypeError:
            _CLASSES[key] = base
    return _CLASSES[key]


class TooLarge(ValueError):
    """More items than a :class:`Cap` allows."""


class Cap:
    """How many more items :func:`decode` may make; what it takes is taken from ``within``
    too (a larger cap, serving many answers), when given."""

    def __init__(self, items=DECODED_ITEMS, within=None):
        self.items, self.limit, self.within = items, items, within

    def take(self, count):
        self.items -= count
        if self.within is not None:
            self.within.take(count)
        if self.items < 0:
            raise TooLarge(f"more than {self.limit:,} items")


def decode(data, depth=0, cap=None):
    """The Python value ``data`` (made by :func:`encode`) stands for; a ``ValueError``
    for anything :func:`encode` does not make, and :class:`TooLarge` past ``cap`` (a
    :class:`Cap`; one of :data:`DECODED_ITEMS` items when None)."""
    cap = Cap() if cap is None else cap
    cap.take(1)
    if data is None or type(data) in (bool, str, float, int):
        return data
    if type(data) is not list or not data or type(data[0]) is not str or depth > MAX_DEPTH + 2:
        raise ValueError("not a value of the judge's wire format")
    tag, rest = data[0], data[1:]
    if tag == "L":
        return [decode(item, depth + 1, cap) for item in rest]
    if tag == "T":
        return tuple(decode(item, depth + 1, cap) for item in rest)
    if tag == "D":
        if len(rest) % 2:
            raise ValueError("a dict with a key and no value")
        out = {}
        for index in range(0, len(rest), 2):
            key = decode(rest[index], depth + 1, cap)
            try:
                out[key] = decode(rest[index + 1], depth + 1, cap)
            except TypeError:  # an unhashable key cannot have come from a dict
                raise ValueError("a dict key that cannot be one") from None
        return out
    if tag == "i" and len(rest) == 1 and type(rest[0]) is str:
        return int(rest[0], 16)
    if tag == "B" and len(rest) == 1 and type(rest[0]) is str:
        return rest[0].encode("latin-1")
    if tag == "A" and len(rest) == 1 and type(rest[0]) is str:
        return bytearray(rest[0].encode("latin-1"))
    if tag == "X" and len(rest) == 2 and type(rest[0]) is str:
        plain = decode(rest[1], depth + 1, cap)
        if type(plain) not in _SUBCLASSABLE:
            raise ValueError("a subclass of a type that has none")
        return _named(rest[0], type(plain))(plain)
    if tag == "O" and len(rest) == 2 and type(rest[0]) is str:
        return _named(rest[0], Opaque)(rest[0], rest[1])
    raise ValueError(f"an unknown tag {tag!r} in the judge's wire format")


def dumps(message):
    """One line of JSON text (no newline inside) for a message of the protocol."""
    return json.dumps(message, ensure_ascii=True, allow_nan=True, separators=(",", ":"))


def loads(line):
    """The message on one line; a ``ValueError`` for text that is not one."""
    message = json.loads(line)
    if type(message) is not dict:
        raise ValueError("a message of the judge's protocol is a JSON object")
    return message
