"""Deep JSON in the browser's Python: a RecursionError, as on a computer, never a dead kernel.

Why this exists: the course's JupyterLite site runs CPython compiled to
WebAssembly (Pyodide), on the browser's call stack, which is much smaller
than a computer's. The C scanner of :mod:`json` recurses once per level of
nesting and relies on Python's recursion guard to stop it in time; in the
browser that guard comes too late: ``json.loads`` on a text nested some 6,000
deep (Pyodide 314, Chromium) overflows the stack, and the whole kernel dies
("Pyodide has suffered a fatal error"). On a computer the same call raises
``RecursionError``, which :func:`mcp_lesson.classify_json` turns into a parse
error, and lesson 03 teaches just that.

:func:`install` makes every ``json`` decoder send a text holding
:data:`C_DEPTH` opening brackets or more to json's own pure-Python scanner,
which recurses in Python frames and raises ``RecursionError`` at Python's
recursion limit. Other texts, nearly all of them, keep the fast C scanner.
Results are the same either way; only the failure on very deep nesting
changes, from a crash to the error Python gives everywhere else.

``mcp_lesson/__init__.py`` calls :func:`install` when ``sys.platform`` is
``"emscripten"`` (Pyodide) and never elsewhere: on a computer, json is left as
it is. The lessons import ``mcp_lesson`` before they parse anything deep, so
the guard is in place for them; code run in a kernel that has not imported
``mcp_lesson`` yet still has the plain C scanner.
"""

import json
import json.decoder
import json.scanner

#: Texts with fewer opening brackets than this cannot nest deeper, and the C
#: scanner reads them safely in the browser (it survives some 5,000 levels).
C_DEPTH = 1000


def make_scanner(context):
    """A ``scan_once`` for ``context`` (a JSONDecoder) that is safe on any nesting."""
    fast = json.scanner.c_make_scanner(context) if json.scanner.c_make_scanner else None
    safe = json.scanner.py_make_scanner(context)

    def scan_once(string, idx):
        if fast is not None and string.count("[", idx) + string.count("{", idx) < C_DEPTH:
            return fast(string, idx)
        return safe(string, idx)

    return scan_once


def install():
    """Route every json decoder made from now on, and ``json.loads`` without
    arguments, through :func:`make_scanner`. Calling it again does nothing."""
    if json.scanner.make_scanner is make_scanner:
        return
    json.scanner.make_scanner = make_scanner
    json._default_decoder = json.JSONDecoder()


def installed():
    """True once :func:`install` has run in this Python."""
    return json.scanner.make_scanner is make_scanner
