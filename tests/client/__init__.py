"""Tests of mcp_lesson/client/."""
