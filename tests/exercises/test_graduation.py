"""Graduation (mcp_lesson.exercises.learner_package, tools/graduate.py): the course's own
tests run against a package exported from the lessons.

The masters' export must pass every one of them: the lessons' solutions and
mcp_lesson are proven to agree by the same tests. The untouched learner copies,
a package with one planted bug, a broken one and a missing one get a count and
reasons in plain words, never a traceback.

Graduation judges behaviour, not wording: TypeErrors in other honest words
pass. Its report speaks to a learner: real failures first, then the
functions not written yet, every failure on asking (ALL=1), and no pytest
vocabulary. Any ordinary package folder can graduate, and one that cannot be
imported is reported as such. The packages here are the masters' export with
a function or two redefined at the end of the file that defines it.
"""

import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from processes import run_to_end

from mcp_lesson.exercises import registry
from mcp_lesson.exercises.learner_package import PACKAGE, export_notebook
from mcp_lesson.exercises.lessons import FILES as LESSONS

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = re.compile(r"your package passes (\d+)/(\d+) of the course's tests")
#: A graduation of the hand-written tests of lessons 02 to 04 only, for a case that changes
#: only their functions (each graduation of all 850 tests costs seconds; the masters' and the
#: untouched learner package's graduations run them all, with every function's table and
#: hidden cases, tests/exercises/test_each_case.py).
EARLY_TESTS = "not test_each_case"
EARLY = ("-k", EARLY_TESTS)


def stored_only(expression=None):
    """pytest's ``-k`` for the stored cases only (``expression``'s, when given): no property
    test (tests/rules/test_properties.py draws about 60,000 values, most of a graduation's
    seconds). For a case about the report's shape or the package's form, which drawn values
    would not change; what a property test once found is a stored case (a judge a learner can
    trust gives the same verdict on every run). The masters' graduation, and the cases about
    a failure's words, run the property tests too."""
    return (
        "-k",
        f"({expression}) and not test_properties" if expression else "not test_properties",
    )


#: A lesson's line of the report: "lesson 03 (classify and classify_json): passed 287/287",
#: "... passed 138/142, 4 failed (above)" or "...: not written yet (...)".
LESSON_LINE = re.compile(
    r"^  lesson (\d\d) \((.*?)\): (?:passed (\d+)/(\d+)|(not written yet))", re.MULTILINE
)


def lessons_said(output):
    """{lesson: (passed, total) or "not written yet"} from a graduation's report."""
    return {
        m.group(1): (int(m.group(3)), int(m.group(4))) if m.group(3) else m.group(5)
        for m in LESSON_LINE.finditer(output)
    }


def graduate(package, *pytest_args, every=False):
    command = [
        sys.executable,
        str(ROOT / "tools" / "graduate.py"),
        *(["--all"] if every else []),
        str(package),
    ]
    run = run_to_end(command + (["--", *pytest_args] if pytest_args else []), 900, cwd=ROOT)
    output = run.stdout + run.stderr
    assert "Traceback" not in output, output[-3000:]
    return run.returncode, output


def export(folder, tmp_path):
    package = tmp_path / PACKAGE
    for name in LESSONS:
        if (folder / name).exists():
            export_notebook(folder / name, package)
    return package


@pytest.fixture(scope="module")
def masters_package(tmp_path_factory):
    return export(ROOT / "notebooks", tmp_path_factory.mktemp("masters"))


def test_the_masters_solutions_pass_every_test_of_the_course(masters_package):
    code, output = graduate(masters_package)
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code == 0 and passed == total and total >= 200, output[-2000:]


def test_the_untouched_learner_package_gets_a_count_and_reasons(tmp_path):
    code, output = graduate(export(ROOT / "notebooks" / "learner", tmp_path))
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code != 0 and passed < total
    assert "not written yet: classify and classify_json" in output or re.search(
        r"lesson 03 .*: not written yet", output
    ), output[-3000:]
    assert "create_request" in output and "error_response" in output


#: The modules of the package that lessons 06 to 11 write.
LATER_MODULES = ("conversation.py", "revisions.py", "transport.py", "traffic.py", "server.py")


@pytest.mark.parametrize("later", ["missing", "stubs"])
def test_a_package_of_lessons_01_to_04_is_told_it_is_complete_so_far(
    masters_package, tmp_path, later
):
    """Lesson 04 invites the learner to graduate: lessons 01 to 04 pass in full, the later ones
    are "not written yet" (whether their modules are missing or still hold the released stubs),
    no line blames the course, and the report says what comes next."""
    package = copy_of(masters_package, tmp_path)
    stubs = (
        export(ROOT / "notebooks" / "learner", tmp_path / "learner") if later == "stubs" else None
    )
    for name in LATER_MODULES:
        (package / name).unlink()
        if stubs is not None:
            shutil.copy(stubs / name, package / name)
    if later == "missing" and shutil.which("make"):  # as the learner types it: no "make: ***" line
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        run = run_to_end(
            [
                "make",
                "--no-print-directory",
                "-o",
                ".venv/.installed",
                "graduate",
                f"PKG={package}",
            ],
            900,
            cwd=ROOT,
            env=env,
        )
        code, output = run.returncode, run.stdout + run.stderr
        assert "make: ***" not in output and "Traceback" not in output, output[-3000:]
    else:
        code, output = graduate(package, *stored_only())
    lessons = lessons_said(output)
    assert code == 0, output[
        -3000:
    ]  # everything it has written passes, and it is complete up to 04
    assert sorted(lessons) == sorted(registry.MODULES), output[-3000:]
    for lesson in ("01", "02", "03", "04"):
        passed, total = lessons[lesson]
        assert passed == total > 0, output[-3000:]
    for lesson in ("06", "08", "09", "10", "11"):
        assert lessons[lesson] == "not written yet", output[-3000:]
    assert not re.search(r"^\s+x ", output, re.MULTILINE), output[-3000:]
    assert "of the course" not in output.replace("of the course's tests", ""), output[-3000:]
    assert re.search(
        r"complete up to lesson 04.*Next: lesson 06, which builds is_reply_to", output
    ), output[-3000:]


def test_one_wrong_function_fails_its_own_lesson_only_in_words(masters_package, tmp_path):
    """error_response drops data that is falsy: lesson 04 fails, every other lesson passes in
    full, and each failure names the call, what came back and what was expected."""
    package = copy_of(masters_package, tmp_path)
    errors = package / "errors.py"
    text = errors.read_text(encoding="utf-8")
    assert "    if data is not OMITTED:\n" in text
    errors.write_text(
        text.replace("    if data is not OMITTED:\n", "    if data is not OMITTED and data:\n"),
        encoding="utf-8",
    )
    code, output = graduate(package, every=True)
    lessons = lessons_said(output)
    assert code != 0
    for lesson, (passed, total) in lessons.items():
        assert (passed < total) == (lesson == "04"), output[-3000:]
    failures = [line for line in output.splitlines() if re.match(r"\s+x ", line)]
    assert len(failures) == lessons["04"][1] - lessons["04"][0], output[-3000:]
    for line in failures:
        assert line.startswith("  x lesson 04, "), line
        assert "error_response(" in line, line
        assert re.search(r"(returned|gave) .*(expected|should be) ", line), line
    assert "of the course" not in output.replace("of the course's tests", ""), output[-3000:]


def test_a_planted_bug_fails_and_is_named_in_plain_words(masters_package, tmp_path):
    planted = tmp_path / PACKAGE
    planted.mkdir()
    for path in masters_package.iterdir():
        text = path.read_text(encoding="utf-8")
        if (
            path.name == "messages.py"
        ):  # is_integer takes a bool for an integer (and so is_valid_id)
            text = text.replace(
                "return isinstance(value, int) and not isinstance(value, bool)",
                "return isinstance(value, int)",
            )
            assert "return isinstance(value, int)\n" in text
        (planted / path.name).write_text(text, encoding="utf-8")
    code, output = graduate(planted, "-k", "id")
    assert code != 0
    assert re.search(r"x lesson 03, bool is not an integer id \[True\]: .*request", output), output[
        -2000:
    ]


def test_a_broken_lesson_file_is_reported_and_the_others_still_load(masters_package, tmp_path):
    broken = tmp_path / PACKAGE
    broken.mkdir()
    for path in masters_package.iterdir():
        (broken / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (broken / "errors.py").write_text("def error_response(:\n", encoding="utf-8")
    code, output = graduate(broken, "-k", "error")
    assert code != 0
    assert "errors.py: SyntaxError" in output
    assert "error_response" in output


def test_no_package_at_all(tmp_path):
    code, output = graduate(tmp_path / "nowhere")
    assert code != 0 and "There is no package" in output


# --- packages made from the masters' export -------------------------------------------


def copy_of(masters_package, tmp_path, name=PACKAGE):
    package = tmp_path / name
    shutil.copytree(masters_package, package)
    return package


def redefine(package, name, source):
    """Append ``source`` to the package file that defines function ``name``, so
    that its definitions replace the earlier ones."""
    files = [
        path
        for path in sorted(package.rglob("*.py"))
        if re.search(rf"^def {name}\(", path.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert files, f"no file of {package} defines {name}"
    path = files[-1]
    path.write_text(
        path.read_text(encoding="utf-8") + "\n\n" + textwrap.dedent(source), encoding="utf-8"
    )


HONEST_BUILDERS = {
    "create_request": """
        def create_request(method, params=None, request_id=None):
            if not isinstance(method, str):
                raise TypeError(f"the method has to be text, not {type(method).__name__}")
            if params is not None and not isinstance(params, dict):
                raise TypeError(f"params should be a dictionary; this is a {type(params).__name__}")
            message = {"jsonrpc": "2.0", "method": method}
            if request_id is not None:
                if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
                    raise TypeError(f"request_id must be a str or an int, got {type(request_id).__name__}")
                message["id"] = request_id
            if params is not None:
                message["params"] = params
            return message
        """,
    "error_response": """
        _NO_DATA = object()

        def error_response(id, code, message, data=_NO_DATA):
            if id is not None and (isinstance(id, bool) or not isinstance(id, (str, int))):
                raise TypeError(f"{id!r} cannot be an id")
            if isinstance(code, bool) or not isinstance(code, int):
                raise TypeError(f"error codes are whole numbers, and {code!r} is not one")
            if not isinstance(message, str):
                raise TypeError(f"wanted text for the message, got {type(message)}")
            error = {"code": code, "message": message}
            if data is not _NO_DATA:
                error["data"] = data
            return {"jsonrpc": "2.0", "id": id, "error": error}
        """,
}


def test_honest_type_errors_in_other_words_graduate(masters_package, tmp_path):
    """TypeErrors that name the offending type or value, in words no lesson
    gave ("request_id must be a str or an int, got bool", "1.5 cannot be an
    id"), pass every test: graduation judges behaviour, not wording."""
    package = copy_of(masters_package, tmp_path)
    for name, source in HONEST_BUILDERS.items():
        redefine(package, name, source)
    code, output = graduate(package, "-k", "create_request or error_response or builders")
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code == 0 and passed == total and total >= 30, output[-3000:]


#: A TypeError of the learner's own, whose text comes from its __str__.
OWN_TYPE_ERROR = """
    _right_create_request = create_request


    class BadRequest(TypeError):
        def __init__(self, what, value):
            super().__init__()
            self.what, self.kind = what, type(value).__name__

        def __str__(self):
            return f"{self.what} must not be a {self.kind}"


    def create_request(method, params=None, request_id=None):
        try:
            return _right_create_request(method, params, request_id)
        except TypeError:
            if not isinstance(method, str):
                raise BadRequest("the method", method) from None
            if params is not None and not isinstance(params, dict):
                raise BadRequest("params", params) from None
            raise BadRequest("request_id", request_id) from None
    """


def test_an_exception_s_text_is_read_as_python_prints_it(masters_package, tmp_path):
    """A TypeError subclass that builds its message in __str__ says what was wrong,
    as Python prints it: graduation reads str(exc), not the base class's text."""
    package = copy_of(masters_package, tmp_path)
    redefine(package, "create_request", OWN_TYPE_ERROR)
    code, output = graduate(package, "-k", "create_request")
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code == 0 and passed == total > 0, output[-3000:]


def test_a_link_out_of_the_package_fails_in_one_line_and_shows_nothing(masters_package, tmp_path):
    """Nothing outside the package folder enters the sandbox, never through a link."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the teacher's secret: 8f1c2e\n", encoding="utf-8")
    package = copy_of(masters_package, tmp_path)
    (package / "shadow.txt").symlink_to(secret)
    redefine(
        package,
        "classify_json",
        "def classify_json(text):\n    import os\n"
        "    return open(os.path.join(os.path.dirname(__file__), 'shadow.txt')).read()\n",
    )
    code, output = graduate_with(package, "-k", "classify_json")
    assert code != 0, output
    assert "8f1c2e" not in output, output
    assert "shadow.txt is a symbolic link" in output, output


#: A create_request that puts "method" first: a real failure, in key order.
METHOD_FIRST = """
    _right_create_request = create_request

    def create_request(method, params=None, request_id=None):
        message = _right_create_request(method, params, request_id)
        return {"method": message.pop("method"), **message}
    """


def half_done(masters_package, tmp_path):
    """A package with real failures (create_request puts "method" first) and two
    functions not written yet (classify and classify_json are the learner's stubs)."""
    package = copy_of(masters_package, tmp_path)
    redefine(package, "create_request", METHOD_FIRST)
    redefine(
        package,
        "classify",
        """
        def classify(msg):
            raise NotImplementedError()
        """,
    )
    redefine(
        package,
        "classify_json",
        """
        def classify_json(text):
            raise NotImplementedError()
        """,
    )
    return package


def test_real_failures_are_listed_before_the_functions_not_written_yet(masters_package, tmp_path):
    code, output = graduate(half_done(masters_package, tmp_path), *stored_only(EARLY_TESTS))
    lines = output.splitlines()
    failures = [i for i, line in enumerate(lines) if line.startswith("  x ")]
    unwritten = [i for i, line in enumerate(lines) if "not written yet" in line]
    assert code != 0 and failures and unwritten, output
    assert max(failures) < min(unwritten), output
    for i in failures:  # the key order, said as what was called and what came back
        assert re.search(r"create_request\(.*\) returned .*; expected ", lines[i]), lines[i]
    assert lessons_said(output)["03"] == "not written yet", output


def test_all_lists_every_failure(masters_package, tmp_path):
    code, output = graduate(
        half_done(masters_package, tmp_path), *stored_only(EARLY_TESTS), every=True
    )
    passed, total = map(int, SUMMARY.search(output).groups())
    listed = [line for line in output.splitlines() if re.match(r"\s+(x |- waits for )", line)]
    assert code != 0 and len(listed) == total - passed > 5, output[-3000:]
    assert "... and" not in output


@pytest.mark.skipif(shutil.which("make") is None, reason="`make` is not installed")
def test_make_graduate_all_asks_for_every_failure():
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    dry = run_to_end(
        [
            "make",
            "--no-print-directory",
            "-n",
            "-o",
            ".venv/.installed",
            "graduate",
            "ALL=1",
            "PKG=some dir/my_mcp",
        ],
        120,
        cwd=ROOT,
        env=env,
    )
    assert "tools/graduate.py --all 'some dir/my_mcp'" in dry.stdout, dry.stdout + dry.stderr


PYTEST_WORDS = (
    "Regex pattern",
    "did not match",
    "Omitting",
    "identical items",
    "-vv",
    "assert",
    "where",
    "AssertionError",
    "DID NOT RAISE",
    "Falsifying",
    "Full diff",
    "Traceback",
)


def test_no_pytest_words_reach_the_learner(masters_package, tmp_path):
    """Every failure is said as what was called, what was expected and what came
    back; a long value is cut around its first difference."""
    package = copy_of(masters_package, tmp_path)
    redefine(package, "create_request", METHOD_FIRST)
    redefine(
        package,
        "error_response",
        """
        _right_error_response = error_response

        def error_response(*args, **kwargs):
            try:
                return _right_error_response(*args, **kwargs)
            except TypeError:
                raise TypeError("bad arguments") from None
        """,
    )
    redefine(
        package,
        "reply_for",
        """
        _right_reply_for = reply_for

        def reply_for(msg):
            reply = _right_reply_for(msg)
            if reply is not None and reply["error"]["message"] == "Invalid Request":
                reply["error"]["message"] = "Invalid request"
            return reply
        """,
    )
    code, output = graduate(package, *EARLY, every=True)
    assert code != 0
    for words in PYTEST_WORDS:
        assert words.lower() not in output.lower(), (words, output)
    assert re.search(
        r"x lesson 04, error response refuses bad arguments \[id True\]: error_response\(True, "
        r"-32600, 'x'\) rightly raised TypeError \(bad arguments\), but its words do "
        r"not say what was wrong; expected them to name the type \(bool\) or the "
        r"value \(True\)",
        output,
    ), output
    replies = [line for line in output.splitlines() if re.search(r"x .*: reply_for\(", line)]
    assert replies, output
    for line in replies:  # cut around the difference, which the reader sees on both sides
        assert re.search(
            r"returned \.\.\..*'Invalid request'.*; expected \.\.\..*'Invalid Request'", line
        ), line


def test_a_package_that_imports_its_modules_graduates(masters_package, tmp_path):
    """An ordinary package: __init__.py says `from .core import *`, and core is
    the masters' export (a subpackage here)."""
    package = tmp_path / PACKAGE
    package.mkdir()
    shutil.copytree(masters_package, package / "core")
    (package / "__init__.py").write_text(
        '"""My MCP functions."""\n\nfrom .core import *  # noqa: F403\n', encoding="utf-8"
    )
    code, output = graduate(
        package, *stored_only("create_request or classify or audit or call_tool")
    )
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code == 0 and passed == total >= 100, output[-3000:]


@pytest.mark.parametrize(
    "init, problem",
    [
        (
            '"""Not ready."""\n\nraise RuntimeError("not ready yet")\n',
            "my_mcp/__init__.py could not be imported: RuntimeError at line 3 (not ready yet)",
        ),
        (
            "import json\n\ndef create_request(:\n",
            "my_mcp/__init__.py could not be imported: SyntaxError at line 3",
        ),
    ],
    ids=["raises", "syntax error"],
)
def test_a_package_that_cannot_be_imported_is_reported_as_such(
    masters_package, tmp_path, init, problem
):
    package = copy_of(masters_package, tmp_path)
    (package / "__init__.py").write_text(init, encoding="utf-8")
    code, output = graduate(package)
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code != 0 and passed < total
    assert problem in output, output
    assert "your package did not import" in output
    assert "not written yet" not in output


# --- graduation is judged: the package runs in the sandbox, never in pytest ----


def graduate_with(package, *pytest_args, limit="5", cwd=ROOT):
    command = [
        sys.executable,
        str(ROOT / "tools" / "graduate.py"),
        str(package),
        *(["--", *pytest_args] if pytest_args else []),
    ]
    env = dict(os.environ, MCP_LESSON_JUDGE_LIMIT=limit)
    run = run_to_end(command, 900, cwd=cwd, env=env)
    output = run.stdout + run.stderr
    assert "Traceback" not in output, output[-3000:]
    return run.returncode, output


def test_a_package_that_ends_its_process_at_import_fails_in_words(masters_package, tmp_path):
    package = copy_of(masters_package, tmp_path)
    with open(package / "__init__.py", "a", encoding="utf-8") as init:
        init.write("\nimport os\nos._exit(0)\n")
    code, output = graduate_with(package)
    assert code != 0, output
    assert "could not be imported" in output and "os._exit() or a crash" in output, output


def test_os_exit_in_one_function_costs_that_function_only(masters_package, tmp_path):
    package = copy_of(masters_package, tmp_path)
    redefine(
        package,
        "create_request",
        "def create_request(*args, **kwargs):\n    import os\n    os._exit(0)\n",
    )
    code, output = graduate_with(package, "-k", "create_request or classify_json")
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code != 0 and 0 < passed < total, output
    assert "create_request" in output and "os._exit() or a crash" in output, output


def test_a_loop_at_import_costs_one_time_limit(masters_package, tmp_path):
    package = copy_of(masters_package, tmp_path)
    with open(package / "classification.py", "a", encoding="utf-8") as module:
        module.write("\nwhile True:\n    pass\n")
    code, output = graduate_with(package, limit="2")
    assert code != 0, output
    assert "did not finish within" in output, output


FLIP = """
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_sessionfinish(session, exitstatus):
    yield
    session.exitstatus = 0
    import os
    os._exit(0)
"""


def test_no_conftest_beside_or_above_the_package_is_loaded(masters_package, tmp_path):
    folder = tmp_path / "a folder with spaces" / "inner"
    package = copy_of(masters_package, folder)
    redefine(package, "classify", "def classify(msg):\n    return ('request', None)\n")
    for place in (package, package.parent, package.parent.parent):
        (place / "conftest.py").write_text(FLIP, encoding="utf-8")
    code, output = graduate_with(package, *stored_only("classify"), cwd=package.parent)
    assert code != 0 and SUMMARY.search(output), output


def test_a_path_with_spaces_graduates(masters_package, tmp_path):
    package = copy_of(masters_package, tmp_path / "my course" / "with spaces")
    code, output = graduate_with(package, *stored_only("classify"), limit="10")
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code == 0 and passed == total, output[-2000:]


def test_the_released_stub_copy_run_again_keeps_the_learner_s_work(
    masters_package, tmp_path, monkeypatch
):
    """A learner solved the lessons, then ran the lesson's own copy from the
    course (its cells still raise NotImplementedError) top to bottom, as nbclient runs
    it (no cell ids: each cell is known by what it defines). Their package keeps every
    passing function: graduation still passes everything."""
    import nbformat
    from nbclient import NotebookClient

    from mcp_lesson.exercises.learner_package import ENVIRONMENT, NO_NESTED_RUNS

    package = copy_of(masters_package, tmp_path)
    monkeypatch.setenv(ENVIRONMENT, str(package))
    monkeypatch.setenv(NO_NESTED_RUNS, "1")  # lesson 04's graduate() cell: no run inside a run
    learner = ROOT / "notebooks" / "learner"
    for lesson in ("02_building_requests.ipynb", "03_classifying.ipynb", "04_errors.ipynb"):
        nb = nbformat.read(str(learner / lesson), as_version=4)
        NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(learner)}},
        ).execute()
        said = "".join(
            output.get("text", "")
            for cell in nb.cells
            if cell.cell_type == "code"
            for output in cell.get("outputs", [])
        )
        assert "this cell is still the released stub" in said, lesson
    code, output = graduate(package, *stored_only(EARLY_TESTS))
    passed, total = map(int, SUMMARY.search(output).groups())
    assert code == 0 and passed == total > 0, output[-3000:]
