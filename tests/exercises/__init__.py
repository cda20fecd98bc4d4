"""Tests of mcp_lesson/exercises/: the case table, the registry, the self-check, the learner's package, graduation (and its judge, tested by wrong versions and mutants)."""
