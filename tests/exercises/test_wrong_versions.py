"""Graduation fails every wrong version a novice writes (tests/wrong_versions.py), in words that
name the call of the wrong function: at least five wrong versions of every function a lesson
builds into the package (the judges are themselves tested). The stored cases alone fail each
one: the batches graduate without the property tests, whose drawn values a verdict must not
hang on (what a property test finds is stored as a case).

For cost, the wrong versions graduate in batches, one graduation per batch: the k-th wrong
version of every function at once. Each is planted as the package's public name only (the
package's other functions still call the right version), so one function's failures are
never taken for another's.
"""

import ast
import re
import shutil
import textwrap

import nbformat
import pytest
from notebook_runs import run_all
from wrong_versions import HIDDEN_ONLY, TAUGHT, WRONG

from exercises.test_graduation import LESSON_LINE, ROOT, export, graduate, stored_only
from mcp_lesson.exercises import declared, registry

pytestmark = pytest.mark.full

#: The batches: the k-th wrong version of each function, [(name, mistake, source)].
BATCHES = [
    [(name, *versions[k]) for name, versions in WRONG.items() if k < len(versions)]
    for k in range(max(map(len, WRONG.values())))
]


def plant(package, wrongs):
    """Make the package's public ``name`` the wrong version, for each of ``wrongs``."""
    lines = [
        "",
        "# --- wrong versions, planted by tests/exercises/test_wrong_versions.py ---",
        "import importlib as _importlib",
    ]
    for name, _, source in wrongs:
        module = registry.BY_NAME[name].module
        lines += [
            f"_module = _importlib.import_module('.{module}', __name__)",
            f"_namespace = dict(vars(_module), _right_{name}=_module.{name})",
            f"exec({textwrap.dedent(source)!r}, _namespace)",
            f"{name} = _namespace[{name!r}]",
        ]
    init = package / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + "\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def masters_package(tmp_path_factory):
    return export(ROOT / "notebooks", tmp_path_factory.mktemp("masters"))


def test_every_graduated_function_has_five_wrong_versions():
    graduated = sorted(registry.GRADUATED)
    assert sorted(WRONG) == graduated
    assert all(len(versions) >= 5 for versions in WRONG.values()), {
        n: len(v) for n, v in WRONG.items()
    }


@pytest.mark.parametrize(
    "batch", range(len(BATCHES)), ids=[f"batch {k + 1}" for k in range(len(BATCHES))]
)
def test_graduation_fails_each_wrong_version_in_words(masters_package, tmp_path, batch):
    package = tmp_path / "my_mcp"
    shutil.copytree(masters_package, package)
    plant(package, BATCHES[batch])
    code, output = graduate(package, *stored_only(), every=True)
    assert code != 0, output[-3000:]
    failures = [line for line in output.splitlines() if re.match(r"\s+x lesson \d\d, ", line)]
    lessons = {m.group(1): m.group(3) is not None for m in LESSON_LINE.finditer(output)}
    survivors = []
    for name, mistake, _ in BATCHES[batch]:
        lesson = registry.BY_NAME[name].lesson
        said = [
            line
            for line in failures
            if line.startswith(f"  x lesson {lesson}, ")
            and f"{name}(" in line
            and re.search(r"(returned|gave|raised|changed)", line)
        ]
        if not said:
            survivors.append(f"{name} that {mistake}")
    assert lessons and not survivors, "graduated although wrong:\n  " + "\n  ".join(survivors)
    assert "error of the course" not in output, output[-3000:]


# --- each mistake the learners made, caught where its rule is taught -------------------------


def _planted_lesson(function, rule, source):
    """The master that teaches ``rule`` to ``function``, cut after the cell that checks it, with
    the wrong version defined right after the cell that defines the right one (``_right_<name>``
    is the right one); returns the notebook and the id of the checking cell to read."""
    from nbformat.v4 import new_code_cell

    [taught] = [
        found for found in declared.rules() if (found.function, found.rule) == (function, rule)
    ]
    nb = nbformat.read(ROOT / "notebooks" / taught.notebook, as_version=4)
    ids = [cell.get("id") for cell in nb.cells]
    defining = next(
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and re.search(rf"^def {function}\(", cell.source, re.M)
    )
    checking = ids.index(taught.checked_in)
    wrong = new_code_cell(
        f"_right_{function} = {function}\n" + textwrap.dedent(source), id="planted-wrong"
    )
    if checking > defining:
        cells = nb.cells[: defining + 1] + [wrong] + nb.cells[defining + 1 : checking + 1]
        read = taught.checked_in
    else:  # the cell that defines it checks it too: its check again, after the wrong version
        tree = ast.parse(nb.cells[checking].source)
        check = "\n".join(
            ast.get_source_segment(nb.cells[checking].source, node)
            for node in tree.body
            if not isinstance(node, ast.FunctionDef)
        )
        cells = nb.cells[: defining + 1] + [wrong, new_code_cell(check, id="planted-check")]
        read = "planted-check"
    for cell in cells:  # the learner's copy: no hidden tests
        if cell.cell_type == "code" and declared.HIDDEN in cell.source:
            cell.source = cell.source.split(declared.HIDDEN)[0]
    nb.cells = cells
    return nb, read, taught


@pytest.mark.parametrize(
    "function, rule, mistake, source", TAUGHT, ids=[f"{f} {r}" for f, r, _, _ in TAUGHT]
)
def test_each_learners_mistake_fails_the_visible_check_of_its_own_lesson(
    function, rule, mistake, source
):
    """Planted in its lesson, right after the cell that defines the function, the mistake fails
    the cell that checks the rule, in words that name the rule: one of its cases (or the words of
    a judge that changed its argument)."""
    nb, read, taught = _planted_lesson(function, rule, source)
    run_all(nb, ROOT / "notebooks")
    [cell] = [cell for cell in nb.cells if cell.get("id") == read]
    printed = "".join(
        output.get("text", "") for output in cell.outputs if output.output_type == "stream"
    )
    errors = [
        output
        for cell in nb.cells
        for output in cell.get("outputs", ())
        if output.output_type == "error"
    ]
    assert not errors, errors[0]
    scores = re.findall(r"(\d+)/(\d+) (?:cases pass|right|cases)\b", printed)
    assert scores and any(int(a) < int(b) for a, b in scores), (
        f"{function} that {mistake} passed:\n{printed}"
    )
    words = ("changed its argument",) if rule == "leaves-its-argument" else taught.cases
    assert any(word in printed for word in words), (
        f"{function} that {mistake}, said without its rule:\n{printed}"
    )


def test_every_mistake_of_a_graduated_function_is_a_wrong_version_graduation_fails():
    for name, _, mistake, source in TAUGHT:
        if name in registry.GRADUATED:
            assert (mistake, source) in WRONG[name]
    assert all((mistake, source) in WRONG[name] for name, mistake, source in HIDDEN_ONLY)


def _lesson_namespace(notebook):
    """The functions the solution cells of ``notebook`` define, as its master has them, with the
    package's functions a practice lesson borrows (lesson 05's ``package_*``)."""
    import json as _json

    import mcp_lesson

    namespace = {
        "json": _json,
        "PARSE_ERROR": mcp_lesson.PARSE_ERROR,
        "package_classify": mcp_lesson.classify,
        "package_classify_json": mcp_lesson.classify_json,
        "package_error_response": mcp_lesson.error_response,
        "package_reply_for": mcp_lesson.reply_for,
    }
    for cell in nbformat.read(ROOT / "notebooks" / notebook, as_version=4).cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            tree = ast.parse(
                "\n".join(line for line in cell.source.splitlines() if not line.startswith("#|"))
            )
            tree.body = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
            exec(compile(tree, notebook, "exec"), namespace)
    return namespace


NOT_GRADUATED = [entry for entry in TAUGHT if entry[0] not in registry.GRADUATED]


@pytest.mark.parametrize(
    "function, rule, mistake, source",
    NOT_GRADUATED,
    ids=[f"{f} {r}" for f, r, _, _ in NOT_GRADUATED],
)
def test_a_mistake_of_a_function_that_does_not_graduate_fails_the_grader(
    function, rule, mistake, source
):
    """A step (is_valid_id) or a practice lesson's function (lesson 05's) never graduates on its
    own: the grader's hidden tests, the master's graded cell as nbgrader runs it, catch the
    mistake and name the call."""
    from graded_cells import run_cell

    [taught] = [
        found for found in declared.rules() if (found.function, found.rule) == (function, rule)
    ]
    namespace = _lesson_namespace(taught.notebook)
    namespace[f"_right_{function}"] = namespace[function]
    exec(textwrap.dedent(source), namespace)
    [graded] = [
        source
        for _, grade_id, _, source in declared.graded_cells()
        if grade_id == f"{function}-tests"
    ]
    functions = {name: value for name, value in namespace.items() if callable(value)}
    with pytest.raises(AssertionError, match=rf"\b{function}\("):
        run_cell(graded, functions)
