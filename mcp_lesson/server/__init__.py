"""The MCP servers the lessons run: the calculator built with the official SDK
(:mod:`.calculator`; ``python -m mcp_lesson.server``), its resumable event streams
(:mod:`.resumption`), the same calculator over HTTP started and stopped from a notebook
or a test (:mod:`.running`), lesson 11's server with no SDK (:mod:`.own`; ``python -m
mcp_lesson.server.own``), and a deliberately sloppy one for the tap to catch
(:mod:`.sloppy`; ``python -m mcp_lesson.server.sloppy``).

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`, :mod:`mcp_lesson.rules`,
:mod:`mcp_lesson.shared`, :mod:`mcp_lesson.exercises`, and :mod:`mcp_lesson.version`.
"""
