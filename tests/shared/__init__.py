"""Tests of mcp_lesson/shared/: processes, the process table, event streams."""
