"""Graduation fails every wrong version a novice writes (tests/wrong_versions.py), in words that
name the call of the wrong function: at least five wrong versions of every function a lesson
builds into the package (the judges are themselves tested).

For cost, the wrong versions graduate in batches, one graduation per batch: the k-th wrong
version of every function at once. Each is planted as the package's public name only (the
package's other functions still call the right version), so one function's failures are
never taken for another's.
"""

import re
import shutil
import textwrap

import pytest

from mcp_lesson.exercises import registry
from exercises.test_graduation import LESSON_LINE, ROOT, export, graduate
from wrong_versions import WRONG

pytestmark = pytest.mark.full

#: The batches: the k-th wrong version of each function, [(name, mistake, source)].
BATCHES = [[(name, *versions[k]) for name, versions in WRONG.items() if k < len(versions)]
           for k in range(max(map(len, WRONG.values())))]


def plant(package, wrongs):
    """Make the package's public ``name`` the wrong version, for each of ``wrongs``."""
    lines = ["", "# --- wrong versions, planted by tests/exercises/test_wrong_versions.py ---",
             "import importlib as _importlib"]
    for name, _, source in wrongs:
        module = registry.BY_NAME[name].module
        lines += [f"_module = _importlib.import_module('.{module}', __name__)",
                  f"_namespace = dict(vars(_module), _right_{name}=_module.{name})",
                  f"exec({textwrap.dedent(source)!r}, _namespace)",
                  f"{name} = _namespace[{name!r}]"]
    init = package / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + "\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def masters_package(tmp_path_factory):
    return export(ROOT / "notebooks", tmp_path_factory.mktemp("masters"))


def test_every_graduated_function_has_five_wrong_versions():
    graduated = sorted(registry.GRADUATED)
    assert sorted(WRONG) == graduated
    assert all(len(versions) >= 5 for versions in WRONG.values()), {n: len(v) for n, v in WRONG.items()}


@pytest.mark.parametrize("batch", range(len(BATCHES)), ids=[f"batch {k + 1}" for k in range(len(BATCHES))])
def test_graduation_fails_each_wrong_version_in_words(masters_package, tmp_path, batch):
    package = tmp_path / "my_mcp"
    shutil.copytree(masters_package, package)
    plant(package, BATCHES[batch])
    code, output = graduate(package, every=True)
    assert code != 0, output[-3000:]
    failures = [line for line in output.splitlines() if re.match(r"\s+x lesson \d\d, ", line)]
    lessons = {m.group(1): m.group(3) is not None for m in LESSON_LINE.finditer(output)}
    survivors = []
    for name, mistake, _ in BATCHES[batch]:
        lesson = registry.BY_NAME[name].lesson
        said = [line for line in failures if line.startswith(f"  x lesson {lesson}, ")
                and f"{name}(" in line and re.search(r"(returned|gave|raised|changed)", line)]
        if not said:
            survivors.append(f"{name} that {mistake}")
    assert lessons and not survivors, "graduated although wrong:\n  " + "\n  ".join(survivors)
    assert "error of the course" not in output, output[-3000:]
