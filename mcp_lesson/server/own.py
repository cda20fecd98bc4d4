"""The course's second server, written with no SDK: lesson 11's master, exported
(mcp_lesson/core/server.py), run as a program.

``python -m mcp_lesson.server.own`` serves over stdio, one message a line;
``--http [--port N]`` over Streamable HTTP at ``http://127.0.0.1:PORT/mcp`` (``--port 0``,
the default, picks a free port), announcing ``listening on URL`` on stderr as
``python -m mcp_lesson.server`` does. Both generations: the 2025-11-25 handshake (and
the revisions before it) and 2026-07-28's ``server/discover`` and per-request ``_meta``.
What it answers is the lesson's ``handle_message``; this module adds nothing to it.
"""

from mcp_lesson.core.server import main

if __name__ == "__main__":
    main()
