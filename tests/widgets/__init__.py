"""Tests of the playground widgets, one file for each module of mcp_lesson/widgets/ (shared
helpers: viewing.py)."""
