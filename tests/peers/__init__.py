"""Tests of mcp_lesson/peers/: the SDKs' verdicts, the conformance suite, real servers."""
