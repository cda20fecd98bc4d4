"""Agreement: does a function answer like the course's own, on the inputs its
registry row holds?

One idea, used in two places: a lesson's ``agree(fn)`` prints the comparison
(:mod:`mcp_lesson.course`), and ``carry_forward`` uses the learner's own
version of a function without a case table of its own only when it agrees
everywhere (:mod:`mcp_lesson.exercises.learner_package`). Two outcomes are the same when
both raised the same exception type, both are "not implemented yet", or both
returned values equal by type and by JSON text (verdicts element by element,
with exact types). A function that changes its argument never agrees.
"""

import copy

from mcp_lesson.exercises import registry
from mcp_lesson.exercises.calling import call_safely, safe_equal, same_message
from mcp_lesson.exercises.inputs import MESSAGES, TEXTS
from mcp_lesson.rules import classification


def _written(value):
    """``value`` as Python writes it, or None when it cannot be written (or copied)."""
    try:
        return repr(value)
    except Exception:
        return None


def outcome(fn, args, kwargs=None, watch=False):
    """("value", v), ("raised", exception) or ("todo", None) for NotImplementedError. With
    ``watch``, ``fn`` is given copies of its arguments that are looked at again afterwards:
    a function that changed one gives ("changed", what they became), whatever it returned
    (a judge reads its argument and leaves it as it was)."""
    if watch:
        try:
            given = copy.deepcopy((tuple(args), dict(kwargs or {})))
        except Exception:
            given = None
        before = _written(given) if given is not None else None
        if before is not None:
            value, exc = call_safely(lambda: fn(*given[0], **given[1]), ())
            after = _written(given)
            if after != before and not isinstance(exc, NotImplementedError):
                return "changed", given[0] if not given[1] else given
            return _status(value, exc)
    return _status(*call_safely(fn, args, kwargs or {}))


def _status(value, exc):
    if exc is None:
        return "value", value
    if isinstance(exc, NotImplementedError):
        return "todo", None
    return "raised", exc


def inputs_for(name):
    """The (args, kwargs) pairs a function called ``name`` is compared on: what its
    registry row holds for a function a lesson builds, else raw texts for a name
    ending in ``_json`` and the case table's messages for any other."""
    built = registry.BY_NAME.get(name)
    if built:
        return built.inputs()
    return (TEXTS if name.endswith("_json") else MESSAGES).pairs()


def reference_for(name):
    """The course's version of ``name`` (classify for a name no lesson builds)."""
    found = registry.reference(name) if name in registry.BY_NAME else None
    return found if found is not None else classification.classify


def same_outcome(mine, theirs):
    """Same outcome: the same exception type, or values equal by type and JSON text."""
    (status_a, a), (status_b, b) = mine, theirs
    if status_a != status_b or status_a == "changed":
        return False
    if status_a == "raised":
        return type(a) is type(b)
    if status_a == "todo":
        return True
    if type(a) is tuple or type(b) is tuple:  # verdicts: exact types, element by element
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(type(x) is type(y) and safe_equal(x, y) for x, y in zip(a, b))
        )
    return type(a) is type(b) and same_message(a, b)  # key order, 1 vs 1.0 vs true


def agrees(fn, name):
    """True when ``fn`` answers like the course's ``name`` on every input of its
    registry row (``agree``'s comparison, without the printing); False when it is
    not written yet."""
    reference = reference_for(name)
    outcomes = [
        (outcome(fn, a, k, watch=True), outcome(reference, a, k)) for a, k in inputs_for(name)
    ]
    if all(mine[0] == "todo" for mine, _ in outcomes):
        return False
    return all(same_outcome(mine, theirs) for mine, theirs in outcomes)
