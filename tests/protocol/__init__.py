"""Tests of mcp_lesson/protocol/."""
