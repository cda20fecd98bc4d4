"""Re-execute lesson masters from a fresh kernel and save them, outputs included.

    python tools/execute_lessons.py                      # every notebooks/NN_*.ipynb
    python tools/execute_lessons.py notebooks/03_x.ipynb # just these

This is how a master's stored outputs are made (nbval then compares against
them), so every master is saved the same way:

* one fresh kernel per notebook, cells run top to bottom, in the notebook's
  own folder;
* no execution timestamps in the cell metadata (they would change every run);
* widgets keep only their plain-text form: the widget-view output and the
  widget state are dropped, since their model ids differ every run and a
  saved state without a live kernel only shows "model not found" in
  JupyterLab. Running the cell starts the tool again;
* what a cell prints in several writes is stored as one output (nbconvert's
  CoalesceStreamsPreprocessor, as nbval compares it), so the split, which
  depends on timing, never shows in a diff;
* a notebook whose new outputs equal its stored ones, read as nbval reads
  them (notebooks/sanitize.cfg: addresses, temporary paths, timings), is not
  written at all: a re-execution that changes nothing changes no byte.
"""

import configparser
import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from traitlets.config import Config

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ROOT = Path(__file__).resolve().parent.parent


def _sanitizers(path=ROOT / "notebooks" / "sanitize.cfg"):
    """The (pattern, replacement) pairs of nbval's sanitize file."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(path, encoding="utf-8")
    return [
        (re.compile(config[section]["regex"]), config[section]["replace"])
        for section in config.sections()
    ]


def comparable(nb, sanitizers=None):
    """The text of ``nb`` with what nbval ignores replaced, for comparing runs."""
    text = nbformat.writes(nb)
    for pattern, replacement in sanitizers if sanitizers is not None else _sanitizers():
        text = pattern.sub(replacement, text)
    return text


def execute(path):
    """Run the notebook at ``path`` and save it when its outputs changed;
    returns True when it was written."""
    path = Path(path)
    stored = nbformat.read(str(path), as_version=4)
    nb = nbformat.read(str(path), as_version=4)
    # Encrypted kernel transport, as the course's Jupyter settings ask: no
    # "running over TCP without encryption" warning per kernel.
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        record_timing=False,
        config=Config({"KernelManager": {"transport_encryption": "auto"}}),
        store_widget_state=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    nb.metadata.pop("widgets", None)
    nb, _ = CoalesceStreamsPreprocessor().preprocess(nb, {})
    stored, _ = CoalesceStreamsPreprocessor().preprocess(stored, {})
    if comparable(nb) == comparable(stored):
        return False
    nbformat.write(nb, str(path))
    return True


def main(argv):
    # As in the test suite (conftest.py): a library's warning on stderr must not
    # be stored in a lesson, where nbval would compare it.
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    # As in the test suite: a graduate() cell says what it would do, so the
    # stored output is what nbval sees (mcp_lesson.exercises.learner_package.NO_NESTED_RUNS).
    os.environ["MCP_LESSON_NO_NESTED_RUNS"] = "1"
    if str(ROOT) not in sys.path:  # run as a script
        sys.path.insert(0, str(ROOT))
    # As in the test suite (conftest.py): the lessons see a private package of
    # the learner's functions, exported from the masters, never a real one.
    import tempfile

    from mcp_lesson.exercises.learner_package import ENVIRONMENT, export_notebook
    from tools.make_learner import masters

    package = Path(tempfile.mkdtemp(prefix="mcp-lesson-masters-")) / "my_mcp"
    os.environ[ENVIRONMENT] = str(package)
    for master in masters():
        export_notebook(master, package)
    paths = [Path(p) for p in argv] or masters()
    for path in paths:
        written = execute(path)
        print(
            f"executed {path}: "
            + ("saved, its outputs changed" if written else "unchanged, not written")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
