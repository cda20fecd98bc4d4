"""Tests of mcp_lesson/server/: the calculator, its HTTP side and resumption, lesson 11's own server."""
