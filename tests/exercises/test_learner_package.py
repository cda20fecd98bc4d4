"""The learner's package (mcp_lesson.exercises.learner_package): how running and saving
the lessons' ``#| export`` cells builds ``my_mcp``.

The kernel tests talk to a real IPython kernel through jupyter_client and send
each cell the way JupyterLab does: the cell's id in the execute request's
metadata (``cellId``), with the ids of the cells deleted since the last run
(``deletedCells``). nbclient and nbval send no cell id; the tests that leave
the metadata out stand for them.
"""

import json
import os
import queue
import re
import time
from pathlib import Path

import pytest
from processes import patience

from mcp_lesson.exercises.carry import load
from mcp_lesson.exercises.learner_package import ENVIRONMENT, MARKER, export_cell, export_notebook

ROOT = Path(__file__).resolve().parents[2]


class Kernel:
    """A real IPython kernel, and a way to run cells in it as a front end does."""

    def __init__(self, folder):
        from jupyter_client import KernelManager

        self.manager = KernelManager(kernel_name="python3", transport_encryption="auto")
        env = {**os.environ, "PYTHONWARNINGS": "ignore"}
        env.pop(ENVIRONMENT, None)
        self.manager.start_kernel(cwd=str(folder), env=env)
        self.client = None
        try:
            self.client = self.manager.client()
            self.client.start_channels()
            self.client.wait_for_ready(timeout=patience(60))
        except BaseException:
            self.shutdown()
            raise

    def run(self, code, cell_id=None, deleted=(), interrupt_when=None):
        """Run ``code``; return (what it printed, the names of the errors it raised).

        With a ``cell_id`` the request carries the metadata JupyterLab sends;
        without one, none (as nbclient and nbval send it). ``interrupt_when``: a
        function polled while the cell runs; when it says True, the kernel is
        interrupted (the stop button), once."""
        metadata = {}
        if cell_id is not None:
            metadata = {"deletedCells": list(deleted), "recordTiming": False, "cellId": cell_id}
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        }
        request = self.client.session.msg("execute_request", content, metadata=metadata)
        self.client.shell_channel.send(request)
        printed, errors = [], []
        deadline = time.monotonic() + patience(60)
        while True:  # the kernel says "idle" for this request when the cell is done
            if interrupt_when is not None and interrupt_when():
                self.manager.interrupt_kernel()
                interrupt_when = None
            try:
                message = self.client.get_iopub_msg(
                    timeout=0.05 if interrupt_when else patience(60)
                )
            except queue.Empty:
                if interrupt_when is not None and time.monotonic() < deadline:
                    continue
                raise AssertionError(f"the kernel did not finish running {code!r}") from None
            if message["parent_header"].get("msg_id") != request["header"]["msg_id"]:
                continue
            kind, body = message["msg_type"], message["content"]
            if kind == "stream":
                printed.append(body["text"])
            elif kind == "error":
                errors.append(body["ename"])
            elif kind == "status" and body["execution_state"] == "idle":
                break
        return "".join(printed), errors

    def start(self, package, lesson):
        """A lesson's first cell, with its own package folder ``package``."""
        printed, errors = self.run(
            f"import os\nos.environ[{ENVIRONMENT!r}] = {str(package)!r}\n"
            f"from mcp_lesson.course import start_lesson\nstart_lesson({lesson!r})",
            cell_id=f"start-{lesson}",
        )
        assert not errors and printed.startswith(f"Cells marked {MARKER} go into"), printed

    def shutdown(self):
        if self.client is not None:
            self.client.stop_channels()
        if self.manager.has_kernel:
            self.manager.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """One kernel for this file's kernel tests (each has a package of its own),
    shut down however the tests end (and should pytest itself be killed, the
    kernel ends too: jupyter_client gives it JPY_PARENT_PID, and ipykernel
    watches that process)."""
    started = Kernel(tmp_path_factory.mktemp("kernel"))
    try:
        yield started
    finally:
        started.shutdown()


def parts(path):
    """The exported cells in a lesson file, as written: [(header, code)]."""
    text = path.read_text(encoding="utf-8")
    chunks = text.split("\n# --- cell")[1:]
    return [
        ("# --- cell" + chunk.split("\n", 1)[0], chunk.split("\n", 1)[1].strip("\n"))
        for chunk in chunks
    ]


CELL = (
    "#| export\n{helper}def create_request(method, params=None, request_id=None):\n"
    "    return {body}, None\n"
)
HELPER = "def _mark():\n    return {mark!r}\n\n\n"
#: One exercise cell, run three times: with a helper, without it, with a helper again.
THREE_RUNS = [
    CELL.format(helper=HELPER.format(mark="A"), body="_mark()"),
    CELL.format(helper="", body="'B'"),
    CELL.format(helper=HELPER.format(mark="C"), body="_mark()"),
]


# --- cells known by their id -------------------------------------------------------


def test_an_edited_cell_run_three_times_leaves_only_its_latest_version(kernel, tmp_path):
    """The create_request cell of lesson 02, edited and run again in JupyterLab:
    with a helper, without it, with a helper again. The package holds the cell
    exactly as it was run last, as the kernel does."""
    package = tmp_path / "my_mcp"
    kernel.start(package, "02")
    runs = THREE_RUNS
    for source in runs:
        assert kernel.run(source, cell_id="c02-11") == ("", [])
    assert kernel.run("print(create_request('ping'))", cell_id="c02-12") == ("('C', None)\n", [])

    lesson = package / "messages.py"
    latest = runs[-1].replace(MARKER + "\n", "").strip()
    assert parts(lesson) == [("# --- cell c02-11 ---", latest)]
    mine = load(package=package)
    assert mine.PROBLEMS == {}
    assert mine.create_request("ping") == ("C", None)


SOLVED = "#| export\ndef is_integer(value):\n    return type(value) is int\n"
STUBBED = (
    "#| export\ndef is_integer(value):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
)


def test_the_released_stub_run_again_never_replaces_the_learner_s_work(kernel, tmp_path):
    """The learner solved the cell (in a copy of their own, same cell id),
    then ran the lesson's untouched copy: the package keeps the solution, and the
    cell says so in one line."""
    package = tmp_path / "my_mcp"
    kernel.start(package, "02")
    assert kernel.run(SOLVED, cell_id="c02-20") == ("", [])
    printed, errors = kernel.run(STUBBED, cell_id="c02-20")
    assert errors == [] and printed.count("\n") == 1, printed
    assert printed.startswith("not exported: this cell is still the released stub"), printed
    assert "keeps your earlier version" in printed
    assert load(package=package).is_integer(3) is True
    # A stub with nothing earlier to keep is exported, as the lesson's copy runs.
    assert kernel.run(STUBBED.replace("is_integer", "is_number"), cell_id="c02-21") == ("", [])
    assert "def is_number" in (package / "messages.py").read_text(encoding="utf-8")


def test_an_edit_that_does_not_run_says_the_package_keeps_the_earlier_version(kernel, tmp_path):
    """A SyntaxError in an edited cell is said in the cell's output."""
    package = tmp_path / "my_mcp"
    kernel.start(package, "02")
    assert kernel.run(SOLVED, cell_id="c02-30") == ("", [])
    printed, errors = kernel.run(SOLVED.replace("return", "return (", 1), cell_id="c02-30")
    assert errors == ["SyntaxError"], (printed, errors)
    assert re.fullmatch(
        r"not exported: this cell stopped at line 3 with a SyntaxError; "
        r"my_mcp/messages\.py keeps the version you ran at \d\d:\d\d",
        printed.strip(),
    ), printed
    assert load(package=package).is_integer(3) is True
    printed, errors = kernel.run(
        "#| export\nimport no_such_module_here\n" + SOLVED[10:], cell_id="c02-30"
    )
    assert errors == ["ModuleNotFoundError"], (printed, errors)
    assert printed.startswith(
        "not exported: this cell stopped at line 2 with a ModuleNotFoundError; "
        "my_mcp/messages.py keeps the version you ran at "
    ), printed


HALF_WRITTEN = (
    "#| export\ndef is_integer(value):\n    # YOUR CODE HERE\n    if type(value) is int:\n"
    "        return True\n    raise NotImplementedError()\n"
)


def test_a_half_written_cell_is_not_the_released_stub_and_the_package_says_what_it_keeps(
    kernel, tmp_path
):
    """One part written under its YOUR CODE HERE, a raise NotImplementedError() left below it:
    the package holds what is on the screen, and the cell says it is half written."""
    package = tmp_path / "my_mcp"
    kernel.start(package, "02")
    assert kernel.run(SOLVED, cell_id="c02-40") == ("", [])
    printed, errors = kernel.run(HALF_WRITTEN, cell_id="c02-40")
    assert errors == [] and "released stub" not in printed, printed
    assert printed.startswith(
        "exported to my_mcp/messages.py in place of your earlier version: this cell "
        "is half written (line 6 still raises NotImplementedError)"
    ), printed
    assert "if type(value) is int" in (package / "messages.py").read_text(encoding="utf-8")


def test_a_check_says_when_the_cell_on_screen_did_not_run(kernel, tmp_path):
    """An edit that stops before its def (a SyntaxError, an error above the def): the check
    says so, and that it judges the version that ran; once the cell runs, nothing is said."""
    kernel.start(tmp_path / "my_mcp", "02")
    define = "def create_request(method, params=None, request_id=None):\n    return {}\n"
    assert kernel.run(define, cell_id="c02-50") == ("", [])
    check = "from mcp_lesson import check\ncheck(create_request)"
    for edit, error, line in (
        (define.replace("return {}", "return {("), "SyntaxError", 2),
        ("ID = undefined_name\n" + define, "NameError", 1),
    ):
        assert kernel.run(edit, cell_id="c02-50")[1] == [error]
        printed, errors = kernel.run(check, cell_id="c02-51")
        first = printed.splitlines()[0]
        assert not errors and re.fullmatch(
            rf"\(the cell that defines create_request stopped at line {line} with an? {error} at \d\d:\d\d, "
            r"so create_request is still the version you ran at \d\d:\d\d: this check judges that one, not "
            r"the code on the screen\)",
            first,
        ), printed
    assert kernel.run(define, cell_id="c02-50") == ("", [])
    printed, _ = kernel.run(check, cell_id="c02-51")
    assert printed.startswith("create_request: "), printed


LOOPS = (
    "def classify(msg):\n    from pathlib import Path\n    Path({flag!r}).touch()\n"
    "    while True:\n        pass\n"
)


def test_a_loop_in_a_check_is_stopped_and_the_kernel_stays_usable(kernel, tmp_path):
    """A function that never returns costs its calls' time limit: the check ends on its own,
    in words, with no traceback, and the kernel runs the next cell."""
    kernel.start(tmp_path / "my_mcp", "03")
    assert kernel.run("from mcp_lesson.exercises import calling\ncalling.CALL_LIMIT = 0.5") == (
        "",
        [],
    )
    assert kernel.run(LOOPS.format(flag=str(tmp_path / "started"))) == ("", [])
    printed, errors = kernel.run("from mcp_lesson import check\ncheck(classify)", cell_id="c03-90")
    assert errors == [] and "Traceback" not in printed, printed
    assert "did not finish in 0.5 s: a loop that never ends?" in printed, printed
    assert "did not finish 3 times, so the check stopped calling it" in printed, printed
    assert kernel.run("print(1 + 1)") == ("2\n", [])


def test_the_stop_button_during_a_check_says_one_line(kernel, tmp_path):
    """The kernel's interrupt during a check: one line, no frame of the course's code."""
    kernel.start(tmp_path / "my_mcp", "03")
    assert kernel.run("from mcp_lesson.exercises import calling\ncalling.CALL_LIMIT = 600") == (
        "",
        [],
    )
    flag = tmp_path / "started"
    assert kernel.run(LOOPS.format(flag=str(flag))) == ("", [])
    printed, errors = kernel.run(
        "from mcp_lesson import check\ncheck(classify)",
        cell_id="c03-91",
        interrupt_when=flag.exists,
    )
    assert errors == [] and "Traceback" not in printed and "mcp_lesson" not in printed, printed
    assert "was stopped: you interrupted it" in printed, printed
    assert "did not run: you stopped the check" in printed, printed
    assert kernel.run("print(1 + 1)") == ("2\n", [])


def test_a_cell_no_longer_marked_leaves_the_package(kernel, tmp_path):
    package = tmp_path / "my_mcp"
    kernel.start(package, "03")
    kernel.run(
        "#| export\ndef is_object(msg):\n    return isinstance(msg, dict)\n", cell_id="c03-05"
    )
    kernel.run(
        "#| export\ndef has_version(msg):\n    return msg.get('jsonrpc') == '2.0'\n",
        cell_id="c03-07",
    )
    assert kernel.run("def is_object(msg):\n    return True\n", cell_id="c03-05") == ("", [])

    assert [header for header, _ in parts(package / "classification.py")] == [
        "# --- cell c03-07 ---"
    ]
    mine = load(package=package)
    assert not hasattr(mine, "is_object") and mine.has_version({"jsonrpc": "2.0"})


def test_a_cell_deleted_in_jupyterlab_leaves_the_package_when_the_next_cell_runs(kernel, tmp_path):
    """JupyterLab sends the ids of the cells deleted since the last run with the
    next cell it runs (``deletedCells``)."""
    package = tmp_path / "my_mcp"
    kernel.start(package, "04")
    kernel.run("#| export\nimport json\n", cell_id="ef1a9576")
    kernel.run("#| export\ndef reply_for(msg):\n    return None\n", cell_id="c04-09")
    assert kernel.run("1 + 1", cell_id="c04-10", deleted=["c04-09"]) == ("", [])

    assert parts(package / "errors.py") == [("# --- cell ef1a9576 ---", "import json")]
    assert not hasattr(load(package=package), "reply_for")


def test_without_a_cell_id_an_edited_cell_replaces_the_parts_with_its_names(kernel, tmp_path):
    """nbclient and nbval send no cell id: a cell then replaces the parts that
    define any name it defines, so the package still has the latest version."""
    package = tmp_path / "my_mcp"
    kernel.start(package, "05")
    runs = THREE_RUNS
    for source in runs:
        assert kernel.run(source) == ("", [])
    assert kernel.run("print(create_request('ping'))") == ("('C', None)\n", [])

    assert [code for _, code in parts(package / "lesson_05.py")] == [
        runs[-1].replace(MARKER + "\n", "").strip()
    ]
    assert load(package=package).create_request("ping") == ("C", None)


def test_cells_of_imports_only_are_kept_apart(tmp_path):
    """Two cells that define no names: neither takes the other's place, with a
    cell id or without one."""
    package = tmp_path / "my_mcp"
    export_cell("#| export\nimport json\n", "03", package)
    export_cell("#| export\nfrom string import ascii_letters\n", "03", package)
    export_cell("#| export\nimport json\n", "03", package)  # the first one, run again
    export_cell("#| export\nimport math\n", "04", package, cell_id="one")
    export_cell("#| export\nimport cmath\n", "04", package, cell_id="two")
    assert [code for _, code in parts(package / "classification.py")] == [
        "import json",
        "from string import ascii_letters",
    ]
    assert parts(package / "errors.py") == [
        ("# --- cell one ---", "import math"),
        ("# --- cell two ---", "import cmath"),
    ]
    mine = load(package=package)
    # imports stay in their modules (a package re-exports only what its modules define)
    assert mine.PROBLEMS == {} and mine.classification.ascii_letters and mine.errors.cmath


def test_a_file_written_by_the_older_course_is_taken_over_cell_by_cell(tmp_path):
    """Parts that older versions of the course keyed by names (marker line and
    all) are replaced by the cell with an id that defines those names."""
    package = tmp_path / "my_mcp"
    package.mkdir()
    (package / "messages.py").write_text(
        "# Lesson 02: your exported cells, written by the course when they ran.\n\n"
        "# --- cell: create_request ---\n"
        "#| export\ndef create_request(method):\n    return 'old'\n\n"
        "# --- cell: is_integer, is_valid_id ---\n"
        "#| export\ndef is_integer(value):\n    return True\n\n"
        "def is_valid_id(value):\n    return True\n",
        encoding="utf-8",
    )
    export_cell(
        "#| export\ndef create_request(method):\n    return 'new'\n",
        "02",
        package,
        cell_id="c02-11",
    )
    assert parts(package / "messages.py") == [
        ("# --- cell c02-11 ---", "def create_request(method):\n    return 'new'"),
        (
            "# --- cell (no id) defining is_integer, is_valid_id ---",
            "def is_integer(value):\n    return True\n\ndef is_valid_id(value):\n    return True",
        ),
    ]
    assert load(package=package).create_request("ping") == "new"


# --- IPython's own syntax is not Python ----------------------------------------------


def test_magics_and_shell_lines_are_left_out_and_the_cell_says_so(kernel, tmp_path):
    package = tmp_path / "my_mcp"
    kernel.start(package, "06")
    kernel.run("#| export\nREQUEST = ('request', None)\n", cell_id="c06-01")
    printed, errors = kernel.run(
        "#| export\n%load_ext autoreload\n!echo from the shell\n"
        "def is_object(msg):\n    return isinstance(msg, dict)\n",
        cell_id="c06-02",
    )

    assert errors == []
    assert printed.splitlines() == [
        "from the shell",
        "exported to my_mcp/conversation.py without line 2, `%load_ext autoreload`, and line 3, "
        "`!echo from the shell`: IPython magics and shell commands are not Python",
    ]
    text = (package / "conversation.py").read_text(encoding="utf-8")
    assert MARKER not in text and "%load_ext" not in text and "!echo" not in text
    mine = load(package=package)
    assert mine.PROBLEMS == {}
    assert mine.REQUEST == ("request", None) and mine.is_object({})


def test_a_cell_that_is_python_only_with_its_magics_is_left_out_and_the_rest_kept(kernel, tmp_path):
    """A shell line that is the whole body of a function: without it the cell
    is not Python, so the cell (and its earlier version) stays out of the
    package, and the lesson's other cells load."""
    package = tmp_path / "my_mcp"
    kernel.start(package, "12")  # a lesson the registry has no topic for
    kernel.run("#| export\ndef classify(msg):\n    return 'old'\n", cell_id="a")
    kernel.run("#| export\ndef is_id(value):\n    return True\n", cell_id="b")
    printed, errors = kernel.run("#| export\ndef classify(msg):\n    !ls\n", cell_id="a")

    assert errors == []
    assert printed == (
        "my_mcp/lesson_12.py leaves this cell out: without line 3, `!ls`, it is not "
        "Python (IPython magics and shell commands are not Python)\n"
    )
    mine = load(package=package)
    assert mine.PROBLEMS == {} and mine.is_id(1) and not hasattr(mine, "classify")


# --- a saved notebook --------------------------------------------------------------------


def notebook(path, *cells):
    """Write a notebook of code cells ``(id, source)`` to ``path``."""
    path.write_text(
        json.dumps(
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
                "cells": [
                    {
                        "cell_type": "code",
                        "id": cell_id,
                        "metadata": {},
                        "execution_count": None,
                        "outputs": [],
                        "source": source.splitlines(keepends=True),
                    }
                    for cell_id, source in cells
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_export_notebook_rebuilds_the_lesson_file_from_the_notebooks_cells(kernel, tmp_path):
    """A cell gone from the saved notebook is gone from the package; running the
    saved cells afterwards without cell ids (as nbval does) adds no copies."""
    package = tmp_path / "my_mcp"
    first = ("c1", "#| export\nimport json\n")
    second = (
        "c2",
        "#| export\n%load_ext autoreload\ndef is_object(msg):\n    return isinstance(msg, dict)\n",
    )
    third = ("c3", "#| export\ndef has_version(msg):\n    return msg.get('jsonrpc') == '2.0'\n")
    plain = ("c4", "print('not exported')")
    saved = notebook(tmp_path / "07_saved.ipynb", first, second, third, plain)
    assert export_notebook(saved, package) == package / "lesson_07.py"
    notebook(saved, first, third)  # the learner deletes the is_object cell and saves
    export_notebook(saved, package)

    expected = [
        ("# --- cell c1 ---", "import json"),
        ("# --- cell c3 ---", third[1].replace(MARKER + "\n", "").strip()),
    ]
    assert parts(package / "lesson_07.py") == expected
    kernel.start(package, "07")
    for _, source in (first, third):
        assert kernel.run(source) == ("", [])
    assert parts(package / "lesson_07.py") == expected
    mine = load(package=package)
    assert mine.PROBLEMS == {} and not hasattr(mine, "is_object")


# --- a package file in another encoding ---------------------------------------------------


def test_a_package_file_in_latin_1_gets_one_sentence_naming_it(kernel, tmp_path):
    package = tmp_path / "my_mcp"
    package.mkdir()
    latin_1 = "# caf\u00e9\nNAME = 'cr\u00e8me'\n".encode("latin-1")
    (package / "revisions.py").write_bytes(latin_1)
    kernel.start(package, "08")
    printed, errors = kernel.run(
        "#| export\ndef classify(msg):\n    return None\n", cell_id="c08-01"
    )

    assert errors == []
    assert printed == (
        "my_mcp/revisions.py is not UTF-8 text, so this cell cannot be added to "
        "it: save it as UTF-8, or delete it and run the lesson's #| export cells "
        "again\n"
    )
    assert (package / "revisions.py").read_bytes() == latin_1  # left as it was
    assert load(package=package).PROBLEMS == {
        "revisions.py": "not UTF-8 text (byte 0xe9 at position 5); save it as UTF-8 or delete it"
    }


def test_an_init_file_in_latin_1_is_written_again(tmp_path):
    package = tmp_path / "my_mcp"
    package.mkdir()
    (package / "__init__.py").write_bytes("# d\u00e9j\u00e0\n".encode("latin-1"))
    export_cell("#| export\ndef is_id(value):\n    return True\n", "03", package)
    assert load(package=package).is_id(1)


# --- a real package: one module per topic, each importable on its own ---------------------


def _masters_package(tmp_path):
    from mcp_lesson.exercises.lessons import FILES as LESSONS

    package = tmp_path / "my_mcp"
    for name in LESSONS:
        master = ROOT / "notebooks" / name
        export_notebook(master, package)
    return package


def test_the_package_has_one_module_per_topic_each_importable_on_its_own(tmp_path):
    import subprocess
    import sys

    from mcp_lesson.exercises import registry

    package = _masters_package(tmp_path)
    modules = sorted(path.name for path in package.glob("*.py"))
    assert modules == sorted(
        [
            "__init__.py",
            "_loading.py",
            "codes.py",
            "kinds.py",
            "messages.py",
            "classification.py",
            "errors.py",
            "conversation.py",
            "revisions.py",
            "transport.py",
            "traffic.py",
            "server.py",
        ]
    )
    errors = (package / "errors.py").read_text(encoding="utf-8")
    assert (
        "from .classification import classify, classify_json" in errors
    )  # explicit, found from use
    for path in package.glob("*.py"):
        assert "#| export" not in path.read_text(encoding="utf-8"), path.name
    for module in (
        "kinds",
        "messages",
        "classification",
        "errors",
        "conversation",
        "revisions",
        "transport",
        "traffic",
        "server",
    ):
        # each on its own, in a fresh Python, as a learner would import it
        done = subprocess.run(
            [sys.executable, "-c", f"import my_mcp.{module} as m; print(m.__all__)"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
    mine = load(package=package)
    assert mine.PROBLEMS == {}
    for built in registry.BUILT:  # the package root re-exports every function a lesson builds
        assert callable(getattr(mine, built.name)), built.name
        if built.graduates:  # (lesson 03 writes its own is_integer again, which then wins)
            assert getattr(getattr(mine, built.module), built.name) is getattr(mine, built.name)


def test_the_package_stands_alone_without_the_course(tmp_path):
    """Nothing in my_mcp imports mcp_lesson. A copy of the package in a folder of
    its own, in a Python that cannot import the course (no site-packages), imports and
    classifies; its error codes are its own codes.py."""
    import shutil
    import subprocess
    import sys

    package = _masters_package(tmp_path / "made")
    alone = tmp_path / "alone"
    shutil.copytree(package, alone / "my_mcp")
    import ast

    for path in (alone / "my_mcp").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                named = (
                    [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else [a.name for a in node.names]
                )
                assert not any(name.split(".")[0] == "mcp_lesson" for name in named), (
                    path.name,
                    named,
                )
    script = (
        "import sys\nsys.path.insert(0, sys.argv[1])\n"
        "try:\n    import mcp_lesson\nexcept ImportError:\n    pass\n"
        "else:\n    sys.exit('the course is importable here')\n"
        "import my_mcp\nassert my_mcp.PROBLEMS == {}, my_mcp.PROBLEMS\n"
        'print(my_mcp.classify_json(\'{"jsonrpc": "2.0", "id": true, "method": "ping"}\'),'
        " my_mcp.reply_for_json('oops')['error']['code'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(alone)],
        cwd=alone,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.strip() == "('invalid', -32600) -32700", done.stdout


def test_the_package_s_init_is_short_and_plain(tmp_path):
    """The learner's __init__ is a few plain statements (the import machinery is
    _loading.py's, a module of its own): its docstring, one import, the modules, PROBLEMS."""
    import ast

    tree = ast.parse((_masters_package(tmp_path) / "__init__.py").read_text(encoding="utf-8"))
    statements = tree.body[1:]  # after the docstring
    assert [type(node).__name__ for node in statements] == ["ImportFrom", "Assign", "Assign"]
    assert statements[0].module == "_loading" and statements[0].level == 1
    assert [target.id for node in statements[1:] for target in node.targets] == [
        "MODULES",
        "PROBLEMS",
    ]


def test_a_broken_module_is_reported_by_name_and_the_others_still_import(tmp_path):
    package = _masters_package(tmp_path)
    (package / "classification.py").write_text("def classify(:\n", encoding="utf-8")
    mine = load(package=package)
    # every later module imports from it, so each fails too, by name
    assert set(mine.PROBLEMS) == {
        "classification.py",
        "errors.py",
        "conversation.py",
        "revisions.py",
        "transport.py",
        "traffic.py",
        "server.py",
    }
    assert mine.PROBLEMS["classification.py"].startswith("SyntaxError at line 1")
    assert "classification" in mine.PROBLEMS["errors.py"]
    assert mine.create_request("ping") == {
        "jsonrpc": "2.0",
        "method": "ping",
    }  # messages.py still imports


def test_a_package_of_the_earlier_course_moves_into_the_modules(tmp_path):
    package = tmp_path / "my_mcp"
    package.mkdir()
    (package / "lesson_02.py").write_text(
        "# --- cell c1 ---\ndef create_request(method, params=None, request_id=None):\n"
        "    return {'jsonrpc': '2.0', 'method': method}\n",
        encoding="utf-8",
    )
    export_cell(
        "#| export\ndef is_integer(value):\n    return type(value) is int\n",
        "02",
        package,
        cell_id="c2",
    )
    assert not (package / "lesson_02.py").exists()
    assert [header for header, _ in parts(package / "messages.py")] == [
        "# --- cell c1 ---",
        "# --- cell c2 ---",
    ]
