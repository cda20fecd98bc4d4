"""Tests of mcp_lesson/course/: what the lessons' cells call."""
