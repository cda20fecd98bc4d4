"""Tests of mcp_lesson/rules/: the builders, classify, explain, the revisions."""
