"""Shared inputs a function is declared to answer as the course's version does: an
:class:`Inputs` (a name, and the (args, kwargs) of each call, made when asked), and
:data:`AGREES_ON`, which names each function checked so. The registry
(:mod:`mcp_lesson.exercises.registry`) makes its table of them, with the course's answers.
"""

from collections.abc import Callable
from typing import NamedTuple

from mcp_lesson.exercises.cases import CASES, NOT_TEXT_CASES, REVISION_CASES, TEXT_CASES
from mcp_lesson.protocol.revisions import REVISIONS

#: The plain values a lesson's small helpers are compared with the course's on.
SAMPLES: tuple = (0, 7, -1, 2**80, True, False, 1.0, "", "abc", None, [], {})


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
REVISION_MESSAGES = Inputs(
    "revision messages",
    lambda: (
        [
            ((case.message, case.revision), {})
            for case in REVISION_CASES
            if case.revision != "2025-03-26"
        ]
        + [((case.message, revision), {}) for revision in (None, REVISIONS[-1]) for case in CASES]
    ),
)

#: The functions checked on shared inputs, answered as the course's version answers them, each
#: named here as a case module's ``CHECKS`` names the functions it holds a table for (a function
#: no case module names is checked on its graded cell's visible cases; nothing is guessed from a
#: function's name or its parameters'): lesson 01's sorter and lesson 03's rule helpers on the case
#: table's messages, lesson 02's id helpers on plain values, lesson 04's replies on the messages
#: and the texts, lesson 08's classify_at on (message, revision) pairs.
AGREES_ON = {
    "rough_kind": MESSAGES,
    "is_integer": SAMPLE_VALUES,
    "is_valid_id": SAMPLE_VALUES,
    "is_object": MESSAGES,
    "has_version": MESSAGES,
    "judge_call": MESSAGES,
    "judge_result": MESSAGES,
    "judge_error": MESSAGES,
    "reply_for": MESSAGES,
    "reply_for_json": TEXTS,
    "classify_at": REVISION_MESSAGES,
}
