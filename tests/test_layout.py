"""The layout shows the design: a folder of mcp_lesson per concern, imports that go one
way only (down the layers below), no cycle between modules (lazy imports inside
functions count too), no private name taken from another folder, and a docstring at
the top of each folder that says what it holds and what it may import.

The layers, from the bottom: each folder may import only the folders before it in
LAYERS (and itself). The root ``mcp_lesson/__init__.py`` (the public API) may import
anything; nothing inside the package imports the root.
"""

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mcp_lesson"

#: The folders (and the one-module concerns) of mcp_lesson, bottom first, each with the
#: layer it sits on. A folder may import those on lower layers, never a higher or an
#: equal one (but itself).
LAYERS = {
    "version": 0,
    "protocol": 0,
    "core": 1,
    "rules": 2,
    "shared": 3,
    "exercises": 4,
    "server": 5,
    "client": 5,
    "peers": 6,
    "tap": 7,
    "widgets": 8,
    "course": 9,
    "data": 0,
}
#: What the file list should show a newcomer: the folders of mcp_lesson.
FOLDERS = {name for name in LAYERS if (PACKAGE / name).is_dir()}


def modules():
    """Every module of the package, by dotted name, with its file."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = modules()


def imports_of(name, path):
    """(imported module, names taken from it, line) for every import of mcp_lesson in the
    module ``name``, at any depth (a lazy import inside a function counts)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [
                (alias.name, (), node.lineno)
                for alias in node.names
                if alias.name.split(".")[0] == "mcp_lesson"
            ]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "mcp_lesson":
                continue
            names = tuple(alias.name for alias in node.names)
            # "from mcp_lesson.exercises import cases" imports the module cases
            submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
            if submodules:
                found += [(sub, (), node.lineno) for sub in submodules]
                names = tuple(n for n in names if f"{target}.{n}" not in MODULES)
                if not names:
                    continue
            found.append((target, names, node.lineno))
    return found


def concern(module):
    """The folder (or lone module) a module belongs to: "rules" for mcp_lesson.rules.x;
    None for the package's root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def test_every_folder_has_a_layer_and_says_what_it_may_import():
    for path in PACKAGE.iterdir():
        if path.name.startswith((".", "__")):
            continue
        name = path.stem if path.suffix == ".py" else path.name
        if path.is_dir() and not (path / "__init__.py").exists():
            continue
        assert name in LAYERS, f"mcp_lesson/{path.name} is in no layer of tests/test_layout.py"
        if path.is_dir():
            doc = ast.get_docstring(ast.parse((path / "__init__.py").read_text(encoding="utf-8")))
            assert doc, f"mcp_lesson/{name}/__init__.py says nothing of what the folder holds"
            if name != "data":
                assert "may import" in doc.lower(), (
                    f"mcp_lesson/{name}/ does not say what it may import"
                )


def test_imports_go_down_the_layers():
    wrong = []
    for name, found in GRAPH.items():
        mine = concern(name)
        if mine is None:  # the root, the public API, may import anything
            continue
        for target, _names, line in found:
            theirs = concern(target)
            if theirs is None:
                wrong.append(f"{name}:{line} imports the package's root")
            elif theirs != mine and LAYERS[theirs] >= LAYERS[mine]:
                wrong.append(
                    f"{name}:{line} ({mine}, layer {LAYERS[mine]}) imports {target} "
                    f"({theirs}, layer {LAYERS[theirs]})"
                )
    assert not wrong, "\n".join(wrong)


def test_no_cycle_between_modules():
    edges = {
        name: {target for target, _n, _l in found if target in MODULES and target != name}
        for name, found in GRAPH.items()
    }
    # a module's package is imported first: count the edge from a module to its
    # folder's __init__ only where that __init__ really imports something
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(stack[stack.index(nxt) :] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert not cycles, "\n".join(cycles)


def test_no_private_name_crosses_a_folder():
    wrong = []
    for name, found in GRAPH.items():
        for target, names, line in found:
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            private += [
                part
                for part in target.split(".")
                if part.startswith("_") and not part.startswith("__")
            ]
            if private and concern(target) != concern(name):
                wrong.append(f"{name}:{line} takes {', '.join(private)} from {target}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_holds_one_idea(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= 650, f"{name} has {lines} lines: split it by idea"


TESTS = Path(__file__).resolve().parent


def test_the_tests_mirror_the_folders():
    """Each folder of mcp_lesson has its tests in the folder of tests/ of the same name (the
    lessons' exported core is tested by exercises/test_core.py, data by what reads it)."""
    missing = [
        name
        for name in sorted(FOLDERS - {"core", "data"})
        if not sorted((TESTS / name).glob("test_*.py"))
    ]
    assert not missing, f"no tests/<folder>/ for: {', '.join(missing)}"


ROOT = PACKAGE.parent


def the_map():
    """docs/maintaining.md's map of the repository ("What is in here"), entry by entry:
    ``{path: its words}``, the path as the entry starts ("tools/judge", "mcp_lesson/tap",
    "benchmarks/bench.py"), a folder's entries inside it joined to its path, the words all its
    lines (a deeper indent goes on the entry above)."""
    guide = (ROOT / "docs" / "maintaining.md").read_text(encoding="utf-8")
    start = guide.index("\n## What is in here")
    begin = guide.index("```\n", start) + 4
    block = guide[begin : guide.index("\n```", begin)]
    entries, top, last = {}, None, None
    for line in block.splitlines():
        depth = len(line) - len(line.lstrip(" "))
        name = line.split()[0] if line.strip() else ""
        if depth == 0:
            top = last = name.rstrip("/")
        elif depth == 2 and top:
            last = f"{top}/{name.rstrip('/')}"
        else:
            entries[last] += " " + line.strip()
            continue
        entries[last] = line.strip()
    return entries


def _modules_in(folder):
    """The modules of ``folder`` a reader looks for by name (not ``__init__.py``, which is the
    folder itself, nor ``__main__.py``, which the folder's ``python -m`` runs)."""
    return {
        path.name for path in folder.glob("*.py") if path.name not in ("__init__.py", "__main__.py")
    }


def _named_modules(words):
    return set(re.findall(r"(?<![\w/.])(\w+\.py)\b", words))


def test_the_maintainers_map_names_every_folder_and_module():
    """docs/maintaining.md's map of the repository ("What is in here") names each folder of
    mcp_lesson and each of their modules (but core/'s, which make export writes, and data/'s
    stored results), each folder and module of tools/ and benchmarks/, each folder of tests/
    and each module at its top, and names nothing that is not there."""
    entries = the_map()
    named = {path.removeprefix("mcp_lesson/") for path in entries if path.startswith("mcp_lesson/")}
    assert FOLDERS | {"version.py"} <= named, sorted(FOLDERS - named)
    problems = []
    for path, words in entries.items():
        place = ROOT / path
        if not place.exists() and not any(
            place.parent.glob(f"{place.name}.*")
        ):  # (a lesson, named without .ipynb)
            problems.append(f"the map names {path}, which is not there")
        elif (
            place.is_dir()
            and path.startswith(("mcp_lesson/", "tools/"))
            and path not in ("mcp_lesson/core", "mcp_lesson/data")
        ):
            missing = sorted(_modules_in(place) - _named_modules(words))
            gone = sorted(name for name in _named_modules(words) if not any(place.rglob(name)))
            problems += [f"{path}/: the map does not name {', '.join(missing)}"] * bool(missing)
            problems += [f"{path}/: the map names {', '.join(gone)}, which is not there"] * bool(
                gone
            )
    for folder in ("tools", "benchmarks"):
        for place in sorted((ROOT / folder).iterdir()):
            if (place.suffix == ".py" or place.is_dir()) and place.name not in (
                "__init__.py",
                "__pycache__",
            ):
                if place.relative_to(ROOT).as_posix() not in entries:
                    problems.append(
                        f"the map has no entry for {place.relative_to(ROOT).as_posix()}"
                    )
    tests = entries["tests"]
    for place in sorted(TESTS.iterdir()):
        if place.is_dir() and place.name != "__pycache__" and f"tests/{place.name}/" not in tests:
            problems.append(f"tests/: the map does not name tests/{place.name}/")
        elif place.suffix == ".py" and place.name not in _named_modules(tests):
            problems.append(f"tests/: the map does not name {place.name}")
    assert not problems, "\n".join(problems)


def test_no_citation_of_a_document_the_repository_lacks():
    """Code, tests and guides explain themselves: none cites the course's contract or an
    issue by number, which no reader of the repository has."""
    import re

    root = PACKAGE.parent
    cited = re.compile(r"\bSPEC \d|\b[Ii]ssues? #?\d")
    found = []
    for folder in ("mcp_lesson", "tools", "tests", "docs", "benchmarks"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in {".py", ".md", ".sh", ".j2"} or "node_modules" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if cited.search(line) and path != Path(__file__).resolve():
                    found.append(f"{path.relative_to(root)}:{number}: {line.strip()[:80]}")
    for name in ("README.md", "Makefile", "conftest.py"):
        text = (root / name).read_text(encoding="utf-8")
        found += [
            f"{name}: {line.strip()[:80]}" for line in text.splitlines() if cited.search(line)
        ]
    assert not found, "\n".join(found)


#: The tests that drive a browser or a server's page, and what they share.
BROWSER_TESTS = (
    "test_browser.py",
    "test_site.py",
    "chromium.py",
    "widgets/viewing.py",
    "widgets/test_classifier.py",
)
#: A wait or hang guard given in plain seconds (or milliseconds): each must go through
#: tests/processes.py's ``patience``, which MCP_LESSON_TEST_SLACK scales on a slower machine.
FIXED_WAIT = re.compile(
    r"(?:\btimeout=|set_default_timeout\(|wait_for_timeout\(|mark\.timeout\(|asyncio\.sleep\()"
    r"\s*[\d(]"
)


@pytest.mark.parametrize("name", BROWSER_TESTS)
def test_every_browser_wait_scales_with_the_tests_patience(name):
    """No browser test waits a fixed time: a machine busy with other work would fail it. A
    poll's own pause (said so on its line) is not a limit and may stay as it is; a function's
    default is scaled where the function waits."""
    fixed = [
        f"{name}:{number}: {line.strip()}"
        for number, line in enumerate((TESTS / name).read_text(encoding="utf-8").splitlines(), 1)
        if FIXED_WAIT.search(line)
        and "a poll's pause" not in line
        and not line.lstrip().startswith("def ")
    ]
    assert not fixed, "\n".join(fixed)
