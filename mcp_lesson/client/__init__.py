"""The MCP clients the lessons use, built on the course's own functions: one for any
Streamable HTTP server (:mod:`.http`; ``python -m mcp_lesson.client URL``) and a
line-based one for a server started over stdio (:mod:`.stdio`).

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`, :mod:`mcp_lesson.rules`,
:mod:`mcp_lesson.shared`, :mod:`mcp_lesson.exercises`, and :mod:`mcp_lesson.version`.
"""
