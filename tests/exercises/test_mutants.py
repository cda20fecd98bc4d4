"""make mutants (tools/mutants.py): mutmut mutates the masters' exported package and graduation
is the test; it prints each module's score and the survivors, in one line for bad input."""

import re
import shutil
import sys
from pathlib import Path

import pytest
from processes import run_to_end

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = [sys.executable, str(ROOT / "tools" / "mutants.py")]


def test_a_module_that_holds_no_graduated_function_is_said_in_one_line():
    run = run_to_end(MUTANTS + ["codes"], 120, cwd=ROOT)
    assert run.returncode == 1
    assert len(run.stdout.strip().splitlines()) == 1 and "Traceback" not in run.stdout + run.stderr
    assert "conversation" in run.stdout  # it names the modules there are


@pytest.mark.full
@pytest.mark.skipif(
    shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None,
    reason="mutmut is not installed (pip install -e .[test])",
)
def test_graduation_kills_every_mutant_of_lesson_06_s_module():
    run = run_to_end(MUTANTS + ["conversation"], 1800, cwd=ROOT)
    said = re.search(r"in all: killed (\d+) of (\d+) mutants", run.stdout)
    assert said, run.stdout + run.stderr[-2000:]
    killed, total = map(int, said.groups())
    assert total >= 5 and killed == total and run.returncode == 0, run.stdout
