"""What the course's programs share (as the MCP SDK's ``shared``): child processes
that cannot outlive their parent and the ending of a process group
(:mod:`.processes`), the operating system's process table (:mod:`.process_tree`),
an event stream read as its bytes arrive (:mod:`.sse`), the lines of a stdio
conversation (:mod:`.stdio_lines`), and a recording of a conversation, ordered and
drawn (:mod:`.recording`).

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`, :mod:`mcp_lesson.rules`.
"""
