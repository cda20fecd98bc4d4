"""mcp_lesson/protocol/deep_json.py, the package's guard against deep JSON, on this Python.

In the browser (Pyodide, ``sys.platform == "emscripten"``) json's C scanner
overflows the page's small stack on deep nesting and kills the kernel;
``import mcp_lesson`` there installs the guard, which sends such texts to
json's pure-Python scanner, so that a RecursionError comes instead, as on a
computer. tests/test_site.py checks that in the site's own Python. Here, fast
and without a browser:

* install() on this Python: json.loads of 100,000 nested brackets raises
  RecursionError from Python frames (the pure-Python scanner), and every other
  text, the shared case table's among them, parses to the same value or fails
  with the same error as before;
* ``import mcp_lesson`` on this platform leaves json as it is, and the same
  ``__init__`` run with ``sys.platform`` set to ``"emscripten"`` installs it.

Each check runs in a Python of its own, since install() changes the json
module of the process it runs in.
"""

import json
import sys
from pathlib import Path

from processes import run_to_end

ROOT = Path(__file__).resolve().parents[2]

#: What each check's Python prints last: one line of JSON.
PREAMBLE = """
import json, json.scanner, sys, traceback

def outcome(text, **options):
    try:
        return "value " + repr(json.loads(text, **options))
    except RecursionError as exc:
        frames = len(traceback.extract_tb(exc.__traceback__))
        return f"RecursionError, {'many' if frames > 100 else 'few'} Python frames"
    except ValueError as exc:
        return f"{type(exc).__name__} {exc}"

def c_scanner_in_place():
    return json.scanner.make_scanner is (json.scanner.c_make_scanner or json.scanner.py_make_scanner)
"""

INSTALL = (
    PREAMBLE
    + """
from mcp_lesson.protocol import deep_json as _deep_json
from mcp_lesson.exercises.cases import TEXT_CASES

deep = "[" * 100_000 + "]" * 100_000
texts = [case.text for case in TEXT_CASES if case.text != deep] + [
    '{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": [1, 2.5, null, true]}}',
    '"caf\\\\u00e9 \\\\ud83d\\\\ude00"', '{"a": 1, "a": 2}', "1e400", "-0", "123456789" * 10,
    "[" * 500 + "]" * 500,                         # under the guard's bracket count: C scanner
    "[" + ", ".join(['{"a": [1]}'] * 2000) + "]",  # over it, yet shallow: the Python scanner
    '{"a": 1,}', "[1, 2", '{"a" 1}', '"\\\\x"', "nul", '{"a": 1} x', "", "NaN",
]
hooks = {"parse_constant": lambda name: "constant " + name, "object_pairs_hook": list}

before = [outcome(text) for text in texts] + [outcome(text, **hooks) for text in texts]
deep_before = outcome(deep)
untouched = c_scanner_in_place()
_deep_json.install()
_deep_json.install()  # a second call changes nothing
after = [outcome(text) for text in texts] + [outcome(text, **hooks) for text in texts]
print(json.dumps({
    "untouched_before_install": untouched,
    "installed": _deep_json.installed(),
    "default_decoder": json._default_decoder.scan_once.__module__,
    "deep_before": deep_before,
    "deep": outcome(deep),
    "deep_with_options": outcome(deep, parse_constant=str),
    "deep_bytes": outcome(deep.encode()),
    "cases": [len(TEXT_CASES), sum(case.text != deep for case in TEXT_CASES)],
    "differ": [[b, a] for b, a in zip(before, after) if b != a],
}))
"""
)

IMPORT = (
    PREAMBLE
    + """
import importlib
import mcp_lesson

on_this_platform = {"platform": sys.platform, "untouched": c_scanner_in_place(),
                    "guard_imported": "mcp_lesson.protocol.deep_json" in sys.modules,
                    "deep": outcome("[" * 100_000 + "]" * 100_000)}
# The same __init__ as the browser's Python runs it (only the platform's name
# differs: the modules it imports are not imported again).
real, sys.platform = sys.platform, "emscripten"
try:
    importlib.reload(mcp_lesson)
finally:
    sys.platform = real
print(json.dumps({"here": on_this_platform, "emscripten": not c_scanner_in_place(),
                  "scanner": json.scanner.make_scanner.__module__}))
"""
)


def run_python(code):
    """Run ``code`` in a Python of its own (the checkout's package first); its last line, read as JSON."""
    done = run_to_end([sys.executable, "-c", code], limit=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_install_makes_deep_json_a_recursion_error_and_changes_nothing_else():
    found = run_python(INSTALL)
    assert found["untouched_before_install"] is True
    assert found["installed"] is True
    assert found["default_decoder"] == "mcp_lesson.protocol.deep_json"
    # This Python's C scanner stops deep nesting itself (a few frames); with
    # the guard, the pure-Python scanner recurses and reaches Python's limit.
    assert found["deep_before"] == "RecursionError, few Python frames"
    for key in ("deep", "deep_with_options", "deep_bytes"):
        assert found[key] == "RecursionError, many Python frames", (key, found[key])
    cases, parsed = found["cases"]
    assert parsed == cases - 1 > 0  # every case of the table but the deep one
    assert found["differ"] == []


def test_importing_the_package_here_leaves_json_alone():
    found = run_python(IMPORT)
    assert found["here"]["platform"] != "emscripten"
    assert found["here"]["untouched"] is True
    assert found["here"]["guard_imported"] is False  # not even imported
    assert found["here"]["deep"] == "RecursionError, few Python frames"
    assert found["emscripten"] is True
    assert found["scanner"] == "mcp_lesson.protocol.deep_json"
