"""What a function is compared with the course's version on: an :class:`Inputs`
(a name, and the (args, kwargs) of each call, made when asked), for the rows of
:mod:`mcp_lesson.exercises.registry` that have no table of their own.
"""

from typing import Callable, NamedTuple

from mcp_lesson.exercises.cases import CASES, NOT_TEXT_CASES, REVISION_CASES, TEXT_CASES
from mcp_lesson.protocol.revisions import REVISIONS


#: The plain values a lesson's small helpers are compared with the course's on.
SAMPLES = (0, 7, -1, 2**80, True, False, 1.0, "", "abc", None, [], {})


class Inputs(NamedTuple):
    """What a function is compared with the course's on (a row of :mod:`mcp_lesson.exercises.registry`
    holds it): ``pairs()`` gives the (args, kwargs) of each call, made when asked."""

    name: str
    pairs: Callable[[], list]


def _one_each(name, values):
    return Inputs(name, lambda: [((value,), {}) for value in values()])


#: The inputs of the rows with no table of their own (a row with a table is compared on
#: the calls of its table's cases).
TEXTS = _one_each("texts", lambda: [case.text for case in TEXT_CASES + NOT_TEXT_CASES])
MESSAGES = _one_each("messages", lambda: [case.message for case in CASES])
SAMPLE_VALUES = _one_each("samples", lambda: SAMPLES)
#: Lesson 08's classify_at: the revision cases (batches left out, as the exercise does) and
#: the case table under the course's rules and under the latest revision.
REVISION_MESSAGES = Inputs("revision messages", lambda: (
    [((case.message, case.revision), {}) for case in REVISION_CASES if case.revision != "2025-03-26"]
    + [((case.message, revision), {}) for revision in (None, REVISIONS[-1])
       for case in CASES]))

#: What a function with no table of its own (no row of the shared case table) is compared with
#: the course's on, found by its parameters' names as its master writes them: one plain value (a
#: lesson's small helpers), a parsed message, a text, or a message and a revision (lesson 08).
BY_PARAMETERS = {
    ("value",): SAMPLE_VALUES,
    ("msg",): MESSAGES,
    ("text",): TEXTS,
    ("msg", "revision"): REVISION_MESSAGES,
}
