"""The protocol's facts, as data: the reserved error codes and MCP's own
(:mod:`.codes`), the revisions and what each changes in the message layer
(:mod:`.revisions`), strict JSON as it arrives off the wire (:mod:`.strict_json`,
with its guard for the browser's Python, :mod:`.deep_json`), and JSON values in a
learner's words (:mod:`.values`).

May import: the standard library only. Everything else in mcp_lesson may import it.
"""
