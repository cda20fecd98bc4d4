"""Settings for the whole suite, notebooks included (this file sits at the root
so that it is loaded before nbval starts any kernel)."""

import os
from pathlib import Path

# nbval compares everything a cell prints, stderr too. A library that starts
# printing a DeprecationWarning must not turn a lesson red at random, so the
# kernels (and the servers the lessons start) inherit "ignore warnings". Only
# child processes read this variable; the pytest process itself is unchanged.
os.environ.setdefault("PYTHONWARNINGS", "ignore")

#: Test files that start servers and a browser before their first test ends.
#: They run last, so that the progress counter moves from the first second.
RUN_LAST = {"test_browser.py"}


def pytest_collection_modifyitems(session, config, items):
    """Move the items of RUN_LAST to the end, keeping every other order as it is
    (nbval needs a notebook's cells in sequence)."""
    items[:] = sorted(items, key=lambda item: Path(str(item.fspath)).name in RUN_LAST)

# The lessons export the learner's functions into a package of their own (see
# mcp_lesson.learner_package). While the suite runs, the masters' kernels use a
# private one, exported from the masters first, so what a lesson prints about
# "your" functions is the same on every run and no real package is touched.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from mcp_lesson.course import LESSONS  # noqa: E402
from mcp_lesson.learner_package import ENVIRONMENT, export_notebook, package_dir  # noqa: E402

_PACKAGES = Path(tempfile.mkdtemp(prefix="mcp-lesson-packages-"))
atexit.register(shutil.rmtree, _PACKAGES, ignore_errors=True)
os.environ[ENVIRONMENT] = str(_PACKAGES / "masters" / "my_mcp")
for _lesson in LESSONS:
    _path = Path(__file__).parent / "notebooks" / _lesson
    if _path.exists():
        export_notebook(_path, package_dir())
