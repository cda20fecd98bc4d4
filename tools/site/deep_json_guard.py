"""Deep JSON in the browser's Python: a RecursionError, as on a computer, never a dead kernel.

The course's site runs CPython compiled to WebAssembly (Pyodide), on the
browser's call stack, which is much smaller than a computer's. The C half of
:mod:`json` recurses once per level of nesting and relies on Python's guard to
stop it in time; in the browser the guard comes too late: ``json.loads`` on a
text nested some 6,000 deep (Pyodide 314, Chromium) overflows the stack, and
the whole Python dies ("Pyodide has suffered a fatal error"). On a computer
the same call raises ``RecursionError``, and lesson 03 teaches just that.

:func:`install` makes every ``json`` decoder send a text holding more than
:data:`C_DEPTH` opening brackets to json's own pure-Python scanner, which
recurses in Python frames and raises ``RecursionError`` at Python's recursion
limit. Other texts, nearly all of them, keep the fast C scanner. Results are
the same either way; only the failure on very deep nesting changes, from a
crash to the error Python gives elsewhere.

The site's build (tools/site/build.py) packs this module into a wheel the
kernel loads at start, and points ``PYTHONSTARTUP`` at a one-line file that
calls :func:`install` before the first cell runs (IPython runs that file).
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
    """Route every json decoder, the default one too, through :func:`make_scanner`."""
    if json.scanner.make_scanner is make_scanner:
        return
    json.scanner.make_scanner = make_scanner
    json._default_decoder = json.JSONDecoder()
