"""The README and the pages under docs/ stay true: their examples run, their commands
are run or dry-run, their links lead somewhere, and every figure they give is computed
here from the code it comes from."""

import contextlib
import doctest
import importlib.util
import inspect
import io
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import tempfile

import pytest

import mcp_lesson
from mcp_lesson.rules import classification, messages

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The README and the guides it links to (docs/teaching.md, docs/maintaining.md...).
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]


def name_of(page):
    return page.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=name_of)
def test_the_examples_of_each_page(page):
    result = doctest.testfile(str(page), module_relative=False)
    assert result.failed == 0
    if page == README:
        assert result.attempted >= 4


@pytest.mark.parametrize("module", [mcp_lesson, messages, classification])
def test_docstring_examples(module):
    assert doctest.testmod(module).failed == 0


# --- the commands shown ------------------------------------------------------------------
# Every command the README and the pages show is collected here (their sh and bat blocks,
# and inline code that starts with a command), and each is either run in a way that cannot
# change the checkout or .venv, or listed in NOT_RUN with the reason. A new command that
# fits neither fails test_every_command_shown_is_covered.

COMMAND_WORDS = {
    "make",
    "bash",
    "jupyter",
    "conda",
    "sudo",
    "ssh",
    "docker",
    "pip",
    "py",
    "python",
    ".venv/bin/python",
    r".venv\Scripts\python",
    r".venv\Scripts\jupyter",
}
#: Command beginnings that a test cannot run, and why.
NOT_RUN = {
    "conda ": "needs conda (test_setup.py checks environment.yml against pyproject.toml)",
    "bash tools/course_jupyter.sh": "changes an environment's settings "
    "(test_setup.py runs it on a stand-in environment)",
    "jupyter lab ": "the conda route's own Jupyter (test_setup.py starts make lab-learner's)",
    "sudo apt-get ": "installs system packages",
    "ssh ": "needs a second machine",
    "docker ": "needs a container engine",
    "py -3 ": "Windows (this suite runs on Linux)",
    ".venv\\Scripts\\": "Windows (this suite runs on Linux)",
    "pip config list": "shows the reader's own pip settings",
    "sudo make hub": "makes system accounts, as root (tests/classroom/test_hub.py runs make hub's program)",
    "python <checkout>/tools/grading/classroom.py": "a hub teacher's terminal (tests/classroom/test_hub.py "
    "runs each, as the teacher)",
    "python -m tools.insight --course ~/course": "a hub teacher's terminal (tests/classroom/test_hub.py "
    "runs it in the teacher's JupyterLab)",
}
#: Variables a make started by a test must not inherit (the suite may run under make).
MAKE_CONTEXT = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "ARGS")
FENCE = re.compile(r"^\s*```(\w*)\s*$")


def commands_in(text):
    """The commands of one page, in order, without their trailing comments."""
    commands, block = [], None
    for line in text.splitlines():
        fence = FENCE.match(line)
        if fence:
            block = None if block is not None else fence.group(1)
            continue
        if block in ("sh", "bat"):
            command = line.split("  #")[0].strip()
            if command:
                commands.append(command)
        elif block is None:
            for span in re.findall(r"`([^`]+)`", line):
                # A command word and at least one more word: `make test`, not `make`.
                words = [w for w in span.split() if not re.fullmatch(r"[A-Z_]+=\S*", w)]
                if len(words) > 1 and words[0] in COMMAND_WORDS:
                    commands.append(span)
    return list(dict.fromkeys(commands))


def shown_commands():
    """The commands of every page, each once."""
    return list(dict.fromkeys(c for page in PAGES for c in commands_in(page.read_text())))


def split_env(command):
    """('VAR=value' assignments in front, the words of the command)."""
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return env, words


def test_the_command_collector():
    sample = (
        "Run `make test ARGS=-x` or `PYTHON=/x`.\n\n```sh\nmake lab   # open it\n```\n"
        "  ```sh\n  make app\n  ```\n```python\n>>> make\n```\n"
    )
    assert commands_in(sample) == ["make test ARGS=-x", "make lab", "make app"]


def covered(command):
    env, words = split_env(command)
    if (
        words[0] == "make"
        or command.startswith(".venv/bin/python ")
        or (command == "python -m mcp_lesson.server")
    ):
        return True
    return any(command.startswith(start) for start in NOT_RUN)


def test_every_command_shown_is_covered():
    readme = commands_in(README.read_text())
    assert "make lab-learner" in readme and "make test" in readme
    assert [c for c in shown_commands() if not covered(c)] == []


def clean_env(extra=()):
    env = {k: v for k, v in os.environ.items() if k not in MAKE_CONTEXT}
    env.update(extra)
    return env


def paths_in(words):
    """The words that name a file of this repository (notebooks/..., tests/..., tools/...)."""
    found = []
    for word in words:
        for part in re.split(r"[= ]", word):
            if re.match(r"(notebooks|tests|tools|benchmarks|docs)/", part) and "*" not in part:
                found.append(part.split("::")[0])
    return found


MAKE_COMMANDS = [c for c in shown_commands() if split_env(c)[1][0] == "make"]


@pytest.mark.skipif(shutil.which("make") is None, reason="`make` is not installed")
@pytest.mark.parametrize("command", MAKE_COMMANDS)
def test_make_command_shown(command):
    """make accepts it as written (a dry run: nothing runs, .venv is left alone),
    ARGS reaches the program, and the files it names exist."""
    env, words = split_env(command)
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "-o", ".venv/.installed", *words[1:]],
        cwd=ROOT,
        env=clean_env(env),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert done.returncode == 0, done.stdout
    for word in words[1:]:
        if word.startswith("ARGS="):
            assert word[len("ARGS=") :] in done.stdout
    for path in paths_in(words):
        assert (ROOT / path).exists(), path


PYTHON_COMMANDS = [c for c in shown_commands() if c.startswith(".venv/bin/python ")]


def _tier(command):
    """A command that runs pytest inside pytest, or re-exports every lesson, is in the full tier."""
    heavy = " -m pytest " in command + " " or "make_learner.py" in command
    return pytest.param(command, marks=pytest.mark.full) if heavy else command


#: Where the README's tap commands run (the record, then its report).
TAP_FOLDER = tempfile.mkdtemp(prefix="readme-tap-")


@pytest.mark.parametrize("command", [_tier(command) for command in PYTHON_COMMANDS])
def test_python_command_shown(command):
    """pytest commands collect what they name; the learner check runs (it only reads);
    the server is run by test_the_server_answers_the_readme_lines."""
    words = shlex.split(command)
    for path in paths_in(words):
        assert (ROOT / path).exists(), path
    if words[1:3] == ["-m", "mcp_lesson.server"]:
        return
    if words[1:3] == ["-m", "mcp_lesson.tap"]:  # run in a folder of its own, on no input
        words = [str(ROOT / word) if word.startswith(".venv/") else word for word in words]
        done = subprocess.run(
            words,
            cwd=TAP_FOLDER,
            env=clean_env(),
            text=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=120,
        )
        assert done.returncode == 0 and "Traceback" not in done.stdout, done.stdout
        return
    if words[1:3] == ["-m", "mcp_lesson.client"]:  # against the course's server, at its address
        from processes import patience, start_guarded

        from mcp_lesson.server.running import HttpServer

        with HttpServer(start=start_guarded, timeout=patience(30)) as server:
            words = [
                server.url if word in ("URL", "http://127.0.0.1:PORT/mcp") else word
                for word in words
            ]
            done = subprocess.run(
                [str(ROOT / words[0]), *words[1:]],
                cwd=ROOT,
                env=clean_env(),
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=patience(60),
            )
        assert done.returncode == 0 and "Traceback" not in done.stdout, done.stdout
        assert done.stdout.startswith("server: mcp-lesson-calculator"), done.stdout
        return
    if words[1:3] == ["-m", "pytest"]:
        words += ["--collect-only", "-q", "-p", "no:cacheprovider"]
        expected = (0,)
    elif words[1:2] == ["tools/lesson_time.py"]:
        expected = (0,)  # it only reads the masters; every sitting fits (test_lessons.py)
    else:
        assert words[1:] == ["tools/make_learner.py", "--check"]
        expected = (0, 1)  # 1: a copy is stale, which the command is there to report
    done = subprocess.run(
        [str(ROOT / words[0]), *words[1:]],
        cwd=ROOT,
        env=clean_env(),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert done.returncode in expected, done.stdout
    assert "Traceback" not in done.stdout


def readme_server_lines():
    """The message lines the README asks the reader to paste into the server, and the
    answer it promises to the first."""
    text = README.read_text()
    start = text.index(".venv/bin/python -m mcp_lesson.server")
    blocks = re.findall(r"```json\n(.*?)```", text[start:], re.S)[:2]
    lines = [line for block in blocks for line in block.splitlines() if line.strip()]
    promised = re.search(r"it answers `([^`]+)`", text[start:]).group(1)
    return lines, promised


def test_the_server_answers_the_readme_lines():
    """`.venv/bin/python -m mcp_lesson.server`, fed the README's lines one at a time as
    a person would paste them, answers each request; end of input stops it."""
    lines, promised = readme_server_lines()
    assert len(lines) == 4
    server = subprocess.Popen(
        [str(ROOT / ".venv/bin/python"), "-m", "mcp_lesson.server"],
        cwd=ROOT,
        env=clean_env(),
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    answers = []
    try:
        for line in lines:
            message = json.loads(line)
            server.stdin.write(line + "\n")
            server.stdin.flush()
            if "id" in message:  # a request: one answer line (pytest-timeout guards a hang)
                answers.append(json.loads(server.stdout.readline()))
        server.stdin.close()
        assert server.wait() == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert answers[0] == json.loads(promised)
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert all("result" in a for a in answers), answers
    assert answers[2]["result"]["content"][0]["text"] == "5"
    assert server.stdout.read() == "" and server.stderr.read() == ""


# --- links and pictures ------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose_lines(text):
    """The lines of a page outside its code blocks."""
    block = False
    for line in text.splitlines():
        if FENCE.match(line):
            block = not block
        elif not block:
            yield line


def anchors(page):
    """The anchors GitHub makes for a page's headings (lower case, punctuation dropped,
    spaces as hyphens, -1, -2... for repeats)."""
    found, seen = set(), {}
    for line in prose_lines(page.read_text()):
        heading = HEADING.match(line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(page):
    return [target for line in prose_lines(page.read_text()) for target in LINK.findall(line)]


def test_the_anchors_are_githubs():
    page = ROOT / "docs" / "teaching.md"
    assert "a-class-on-jupyterhub-make-hub" in anchors(page)
    assert "in-the-browser-nothing-to-install-jupyterlite" in anchors(README)


@pytest.mark.parametrize("page", PAGES, ids=name_of)
def test_every_link_leads_somewhere(page):
    """A link to a file of the repository names one that exists, and a #part names a
    heading of that file. (Addresses on the web are not fetched: the suite is offline.)"""
    targets = links(page)
    if page == README:
        assert targets
    for target in targets:
        if re.match(r"https?://", target):
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        assert where.is_relative_to(ROOT) and where.exists(), f"{name_of(page)}: {target}"
        if anchor:
            assert where.suffix == ".md", f"{name_of(page)}: {target}"
            assert anchor in anchors(where), f"{name_of(page)}: {target}: no such heading"


def test_every_page_is_reached_from_the_readme():
    reached, todo = {README}, [README]
    while todo:
        page = todo.pop()
        for target in links(page):
            path = target.partition("#")[0]
            if path.endswith(".md") and not re.match(r"https?://", target):
                found = (page.parent / path).resolve()
                if found not in reached:
                    reached.add(found)
                    todo.append(found)
    assert set(PAGES) <= reached, sorted(name_of(p) for p in set(PAGES) - reached)


PICTURE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=name_of)
def test_every_picture_comes_from_a_test(page):
    """Each picture shown is one that a test takes (and UPDATE_SCREENSHOTS=1 refreshes)."""
    tests = "".join(
        path.read_text()
        for path in (ROOT / "tests").rglob("*.py")
        if path.name != pathlib.Path(__file__).name
    )
    for target in PICTURE.findall(page.read_text()):
        if re.match(r"https?://", target):  # a badge, not a picture of the course
            continue
        picture = (page.parent / target).resolve().relative_to(ROOT).as_posix()
        assert picture in tests, f"no test takes {picture}"


# --- figures -----------------------------------------------------------------------------
# Every count, limit, port and target the pages give is computed below from the code it
# comes from, and must appear in the page as written. A time, a size, a ratio or an N/M
# in a page that is not one of these fails test_no_figure_goes_unchecked: what no test
# can compute (how long a step takes on some machine) is not given.

WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
FIGURE = re.compile(
    r"\b\d[\d,.]*(?:\s?(?:ms|s|MB|MiB|GB|KB|minutes?|seconds?|hours?)\b|x\b)"
    r"|\b\d+/\d+\b"
)


def flat(text):
    return " ".join(text.split())


def and_list(items):
    """'01, 02 and 08'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def runs(numbers):
    """'00 to 05 and 08': two-digit lesson numbers, consecutive ones as a range."""
    groups = []
    for number in numbers:
        if groups and int(number) == int(groups[-1][-1]) + 1:
            groups[-1].append(number)
        else:
            groups.append([number])
    return and_list(g[0] if len(g) == 1 else f"{g[0]} to {g[-1]}" for g in groups)


def test_the_figure_finder():
    found = FIGURE.findall(
        "about 600 MB, 3.7 s, 11.3x faster, 264/264 tests, 9.17 ms, "
        "on 2025-06-18 in lesson 03, python3.12, a minute"
    )
    assert found == ["600 MB", "3.7 s", "11.3x", "264/264", "9.17 ms"]


def test_the_list_helpers():
    assert runs(["00", "01", "02", "05", "08"]) == "00 to 02, 05 and 08"
    assert and_list(["06", "07"]) == "06 and 07"


def source(path):
    return (ROOT / path).read_text()


def setting(path, pattern):
    """The number that ``pattern`` (one group) finds in a file of the repository."""
    found = re.findall(pattern, source(path), re.M)
    assert len(found) == 1, (path, pattern, found)
    return float(found[0].replace("_", "")) if "." in found[0] else int(found[0].replace("_", ""))


def masters():
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def local_only_lessons():
    """The lessons the site cannot run (the lessons' table, mcp_lesson/exercises/lessons.py)."""
    from mcp_lesson.exercises.lessons import LOCAL_ONLY

    return sorted(LOCAL_ONLY)


def self_check_line():
    from mcp_lesson import classify
    from mcp_lesson.course import self_check

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        self_check(classify)
    return out.getvalue().splitlines()[0]


def expected_figures():
    """(page, phrase, where the figure comes from), for every figure the pages give."""
    from mcp_lesson import CASES, REVISIONS
    from mcp_lesson.exercises.selfcheck import check

    figures = []

    def give(page, phrase, origin):
        figures.append((page, phrase, origin))

    give("README.md", f"a shared table of {len(CASES)} labelled messages", "len(CASES)")
    give("README.md", f'"{self_check_line()}"', "what self_check(classify) prints")
    show = inspect.signature(check).parameters["show"].default
    give("README.md", f"more failures than the first {WORDS[show]}", "check(show=...)")
    give("README.md", f"({REVISIONS[0]} to {REVISIONS[-1]}:", "REVISIONS")

    oldest = re.search(r'^requires-python = ">=(\d+\.\d+)"', source("pyproject.toml"), re.M)[1]
    give("README.md", f"Python {oldest} or newer", "pyproject.toml")
    give("docs/setup.md", f"Python {oldest} or newer", "pyproject.toml")
    give("docs/setup.md", f"older than the {oldest} that", "pyproject.toml")

    # The site, and the lessons that start a process (the stdio client, Unix only).
    numbers = [m.name[:2] for m in masters()]
    local = local_only_lessons()
    # (the course's own stdio client; lesson 10 uses the SDK's, and stored recordings in the browser)
    assert local == sorted(m.name for m in masters() if "mcp_lesson.client.stdio" in m.read_text())
    local = [name[:2] for name in local]
    in_site = [n for n in numbers if n not in local]
    give("README.md", f"Lessons {runs(in_site)}, and the playground", "tools/site/build.py")
    give(
        "README.md",
        f"Lessons {and_list(local)} start a server as a separate process",
        "tools/site/build.py",
    )
    give(
        "docs/setup.md",
        f"runs every lesson but {and_list(local)} in the browser",
        "tools/site/build.py",
    )
    client = (
        source("mcp_lesson/client/stdio.py")
        + source("mcp_lesson/shared/stdio_lines.py")
        + source("mcp_lesson/shared/processes.py")
    )
    assert "select.poll(" in client and "os.killpg(" in client
    give(
        "README.md",
        f"Lessons {and_list(local)} need Linux, macOS or WSL",
        "the lessons that use mcp_lesson.client.stdio",
    )

    # Ports (the Makefile's defaults).
    site_port = setting("Makefile", r"^SITE_PORT \?= (\d+)$")
    app_port = setting("Makefile", r"^PORT +\?= (\d+)$")
    give("README.md", f"http://127.0.0.1:{site_port}", "Makefile SITE_PORT")
    give("docs/teaching.md", f"http://127.0.0.1:{app_port}", "Makefile PORT")

    # Classroom mode (tools/classroom/voila.py).
    voila = "tools/classroom/voila.py"
    idle = setting(voila, r"^c\.ClassroomKernelManager\.cull_idle_timeout = (\d+)")
    most = setting(voila, r"^c\.ClassroomKernelManager\.max_kernels = (\d+)")
    give(
        "docs/teaching.md", f"culled after {idle} s idle; at most {most} kernels run at once", voila
    )

    # Grading (the masters' nbgrader metadata, tools/grading).
    from mcp_lesson.exercises import declared

    graded = declared.points()  # {master: its points}, the graded masters in the lessons' order
    give(
        "docs/teaching.md",
        f"Lessons {and_list([g[:2] for g in graded])} are graded",
        "the masters' nbgrader metadata",
    )
    give(
        "docs/teaching.md",
        "named after its notebook: "
        + and_list([f"`{g}`" for g in graded]).replace(" and ", ", ")
        + ".",
        "the graded masters",
    )
    [json_points] = [
        points
        for _, grade_id, points, _ in declared.graded_cells()
        if grade_id == "classify_json-tests"
    ]
    give(
        "docs/teaching.md",
        f"the test cell of classify_json, 0 of {json_points:g} points",
        "03_classifying's metadata (docs/feedback.png's caption)",
    )
    timeout = setting("tools/grading/course_dir.py", r"^DEFAULT_TIMEOUT = (\d+)")
    assert timeout == setting(
        "tools/grading/nbgrader_config.py", r"^c\.JudgedExecute\.timeout = (\d+)"
    )
    give("docs/teaching.md", f"longer limit per cell; {timeout} s by default", "DEFAULT_TIMEOUT")
    kept = setting(
        "tools/grading/nbgrader_config.py", r"^c\.JudgedExecute\.max_output_chars = ([\d_]+)"
    )
    give("docs/teaching.md", f"each cell keeps its first {kept:,} characters", "max_output_chars")
    # The judge's limits (tools/judge/sandbox.py's Limits, classroom.py's sizes).
    from tools.grading import classroom as grading
    from tools.judge.sandbox import Limits

    limits = Limits()
    assert limits.work_size == limits.tmp_size
    give(
        "README.md", f"small RAM disks of their own ({limits.work_size // 2**20} MB each)", "Limits"
    )
    give(
        "README.md",
        f"memory ({limits.memory // 2**30} GB) and processes ({limits.processes})",
        "Limits",
    )
    give(
        "README.md",
        f"(each of up to {limits.processes} may take {limits.memory // 2**30} GB)",
        "Limits",
    )
    give(
        "README.md",
        f"a notebook over {grading.NOTEBOOK_BYTES // 2**20} MB or a student's hand-in over "
        f"{grading.STUDENT_BYTES // 2**20} MB",
        "classroom.NOTEBOOK_BYTES, STUDENT_BYTES",
    )
    from tools.grading.markup_budget import NOTEBOOK_CELLS

    for page in ("README.md", "docs/teaching.md"):
        give(
            page,
            f"show{'s' * (page == 'README.md')} its first {NOTEBOOK_CELLS} cells",
            "NOTEBOOK_CELLS",
        )
    give(
        "docs/teaching.md",
        f"a submission over {grading.STUDENT_BYTES // 2**20} MB (what collect takes",
        "classroom.STUDENT_BYTES, tools/hub/roles/common/nbgrader_config.py",
    )
    pin = re.search(r'"mcp>=(\d+)\.(\d+),<(\d+)\.(\d+)"', source("pyproject.toml")).groups()
    assert (int(pin[2]), int(pin[3])) == (int(pin[0]), int(pin[1]) + 1), pin
    give("docs/teaching.md", f"pinned to {pin[0]}.{pin[1]}.x", "pyproject.toml")

    # The test suite and the benchmark.
    addopts = re.search(r"^addopts = \[(.*?)^\]", source("pyproject.toml"), re.M | re.S)[1]
    workers = re.search(r'"-n", "(\w+)"', addopts)[1]
    assert workers == "auto", workers  # counted by tests/scheduling.py, as the guide says
    give("docs/maintaining.md", "runs in a worker process per core", "pyproject.toml addopts")
    bench = "benchmarks/bench.py"
    faster = setting(bench, r"^TARGET_CLASSIFY = ([\d.]+)")
    slower = setting(bench, r"^TARGET_JSON = ([\d.]+)")
    give("docs/maintaining.md", f"at least {faster:g}x the SDK's throughput", "TARGET_CLASSIFY")
    give("docs/maintaining.md", f"at most {slower:g}x the time of `json.loads`", "TARGET_JSON")
    goal = setting("benchmarks/bench_grading.py", r"^GOAL_MINUTES = (\d+)")
    give(
        "docs/maintaining.md",
        f"under {goal} minutes on the 2-core machine",
        "bench_grading.GOAL_MINUTES",
    )
    spec = importlib.util.spec_from_file_location("course_bench", ROOT / bench)
    bench_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_module)
    size = round(len(bench_module.one_megabyte_message().encode()) / 1e6)
    give("docs/maintaining.md", f"on a {size} MB message", "bench.one_megabyte_message()")
    # The conformance suite (mcp_lesson/peers/conformance.py) and the server's streams (resumption.py).
    from mcp_lesson.peers import conformance
    from mcp_lesson.server import resumption

    give(
        "docs/conformance.md",
        f"pinned to {conformance.SUITE_VERSION}, and Node.js {conformance.NODE_VERSION}",
        "conformance.SUITE_VERSION, NODE_VERSION",
    )
    give("docs/conformance.md", f"`retry` of {resumption.RETRY_MS} ms", "resumption.RETRY_MS")
    large = re.search(
        r"^SIZES = \(\d+, MIB, (\d+) \* MIB\)", source("benchmarks/bench_tap_large.py"), re.M
    )[1]
    give("docs/maintaining.md", f"answers of 1 and {large} MiB", "bench_tap_large.SIZES")
    # The course's client (mcp_lesson/client/common.py).
    from mcp_lesson.client.common import MAX_MESSAGE, TIMEOUT

    for page in ("README.md", "docs/client.md"):
        give(page, f"({MAX_MESSAGE // 2**20} MiB by default)", "client.common.MAX_MESSAGE")
    give("docs/client.md", f"({TIMEOUT:g} s by default)", "client.common.TIMEOUT")
    # How long a lesson takes: the estimate's rates and limit (tools/lesson_time.py).
    from tools import lesson_time

    give(
        "docs/maintaining.md",
        f"promises that a sitting takes {lesson_time.SITTING} minutes or less",
        "lesson_time.SITTING",
    )
    give(
        "docs/maintaining.md",
        f"holds every sitting to {lesson_time.SITTING} minutes",
        "lesson_time.SITTING",
    )
    give(
        "docs/maintaining.md",
        f"its words (at {lesson_time.WORDS_A_MINUTE} a minute)",
        "lesson_time.WORDS_A_MINUTE",
    )
    give(
        "docs/maintaining.md",
        f"({lesson_time.LINES_READ_A_MINUTE} a minute, hidden tests left out)",
        "lesson_time.LINES_READ_A_MINUTE",
    )
    give(
        "docs/maintaining.md",
        f"the exercises ({lesson_time.MINUTES_AN_EXERCISE:g} minutes each, plus "
        f"{lesson_time.MINUTES_A_LINE:g} a line",
        "lesson_time.MINUTES_AN_EXERCISE, MINUTES_A_LINE",
    )
    return figures


FIGURES = expected_figures()


@pytest.mark.parametrize(
    "page, phrase, origin", FIGURES, ids=[f"{page}: {phrase[:40]}" for page, phrase, _ in FIGURES]
)
def test_the_figure_is_the_codes(page, phrase, origin):
    assert phrase in flat(source(page)), f"{page} should say {phrase!r} (from {origin})"


#: A paragraph that says when its figures were measured ("measured on 2026-12-01"):
#: its figures are a record of one run, not pinned (behaviour, not wording).
MEASURED = re.compile(r"\bmeasured\s+on\s+\d{4}-\d{2}-\d{2}\b")


def unmeasured(text):
    """``text`` without its paragraphs that say when their figures were measured."""
    return "\n\n".join(part for part in re.split(r"\n\s*\n", text) if not MEASURED.search(part))


@pytest.mark.parametrize("page", PAGES, ids=name_of)
def test_no_figure_goes_unchecked(page):
    text = flat(unmeasured(page.read_text()))
    checked = [phrase for where, phrase, _ in FIGURES if where == name_of(page) and phrase in text]
    unchecked = [
        m.group()
        for m in FIGURE.finditer(text)
        if not any(m.group() in phrase for phrase in checked)
    ]
    assert unchecked == [], f"{name_of(page)}: figures no test computes: {unchecked}"
