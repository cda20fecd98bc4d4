"""Tests of the tap, one file for each module of mcp_lesson/tap/ (shared helpers: tapping.py)."""
