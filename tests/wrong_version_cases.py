"""Hidden cases that wrong versions showed missing (tests/wrong_versions.py): a wrong version a
novice writes passed every case of the lessons' tables and graded cells, so a case is added
here, hidden, for the rule it breaks. Graduation runs them with the graded cells' hidden cases
(tests/exercises/test_each_case.py); each belongs in its lesson's graded cell (``### BEGIN HIDDEN
TESTS``) too, so that the grader holds it, and moves there when that cell is next edited.

``CASES`` is ``{function: (options, cases)}``: ``cases`` as
:func:`mcp_lesson.exercises.hidden_tests.hidden_tests` takes them, ``(argument, want, why)``, and
``options`` its keyword arguments.
"""

_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
         "io.modelcontextprotocol/clientCapabilities": {}}

CASES = {
    # Lesson 09: a tools/call whose params has no name has nothing for Mcp-Name to repeat; the
    # headers agree (the server answers -32602 later), and a server must not stop on it.
    "check_headers": ({"spread": True, "unchanged": True}, [
        (({"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call"},
          {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"arguments": {}, "_meta": _META}}),
         None, "a tools/call without params.name: nothing for Mcp-Name to disagree with"),
        (({"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "add"},
          {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"_meta": _META}}),
         None, "Mcp-Name sent, but no params.name to compare it with"),
    ]),
    # Lesson 09: one byte order mark at the very start of a stream is no part of it, even
    # before a data line (the table's only BOM comes before an event: line).
    "read_sse": ({}, [
        ('\ufeffdata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
         [('{"jsonrpc":"2.0","id":1,"result":{}}', ("response", None))],
         "a byte order mark before the first data line"),
    ]),
    # Lesson 08: only an error response's id becomes optional; a call without an id is still
    # judged as a notification, and an invalid one stays invalid.
    "classify_at": ({"spread": True}, [
        (({"jsonrpc": "2.0", "method": 1}, "2025-11-25"), ("invalid", -32600),
         "a method that is no string, without an id"),
        (({"jsonrpc": "2.0", "method": "x", "params": []}, "2026-07-28"), ("invalid", -32600),
         "list params without an id"),
    ]),
}
