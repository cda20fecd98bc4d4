"""The message rules, as the package gives them: the builders (:mod:`.messages`:
``create_request``, ``success_response``, ``error_response``), the verdicts and the
replies a strict server owes (:mod:`.classification`: ``classify``, ``classify_json``,
``reply_for``, under the course's rules or any revision's), and the words that name
the rule behind a verdict (:mod:`.explanation`: ``explain``).

The rules themselves are the lessons' exported code (:mod:`mcp_lesson.core`); this
folder builds on them and adds what no lesson writes.

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`.
"""
