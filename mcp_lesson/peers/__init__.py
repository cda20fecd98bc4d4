"""The ecosystem's own judges, beside the course's verdicts (lesson 07 and the
tests): the official Python SDK's validation (:mod:`.python_sdk`), its Streamable HTTP
server in both generations (:mod:`.python_sdk_http`), and the official conformance
suite (:mod:`.conformance`).

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`, :mod:`mcp_lesson.rules`,
:mod:`mcp_lesson.shared`, :mod:`mcp_lesson.exercises`, :mod:`mcp_lesson.server`,
:mod:`mcp_lesson.client`.
"""
