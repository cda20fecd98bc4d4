"""The message rules, as the package gives them: the builders (:mod:`.messages`:
``create_request``, ``success_response``, ``error_response``), the verdicts and the
replies a strict server owes (:mod:`.classification`: ``classify``, ``classify_json``,
``reply_for``, under the course's rules or any revision's), and the words that name
the rule behind a verdict (:mod:`.explanation`: ``explain``).

The rules themselves are the lessons' exported code (:mod:`mcp_lesson.core`); this
folder builds on them and adds what no lesson writes.

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`.
"""

#: The lessons' functions this folder gives in a richer form (a ``revision=``, the defences
#: against hostile objects), by name, with the module of this folder that defines each. Each is the
#: course's own version of its lesson's function (mcp_lesson.exercises.registry takes these, and
#: only these, from here: a function of the same name elsewhere is never taken for one).
RICHER = {
    "classify": "classification",
    "classify_json": "classification",
    "reply_for": "classification",
    "reply_for_json": "classification",
}
