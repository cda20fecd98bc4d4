"""The MCP clients the lessons use, built on the course's own functions: a first look at
any server (:mod:`.common`, shared by :mod:`.http` for Streamable HTTP and :mod:`.over_stdio`
for a server's stdio; the command line ``python -m mcp_lesson.client`` is :mod:`.cli`), and
lesson 06's line-based client with read timeouts (:mod:`.stdio`).

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`, :mod:`mcp_lesson.rules`,
:mod:`mcp_lesson.shared`, :mod:`mcp_lesson.exercises`, and :mod:`mcp_lesson.version`.
"""
