"""The error codes the lessons' cells use, from mcp_lesson/protocol/codes.py (a learner's package
gets a copy of that module instead; the course's own package keeps one)."""

from ..protocol.codes import *  # noqa: F401,F403  (every name of mcp_lesson/protocol/codes.py)
