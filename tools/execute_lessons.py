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
  JupyterLab. Running the cell starts the tool again.
"""

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ROOT = Path(__file__).resolve().parent.parent


def execute(path):
    path = Path(path)
    nb = nbformat.read(str(path), as_version=4)
    # Encrypted kernel transport, as the course's Jupyter settings ask: no
    # "running over TCP without encryption" warning per kernel.
    client = NotebookClient(nb, timeout=120, kernel_name="python3", record_timing=False,
                            config=Config({"KernelManager": {"transport_encryption": "auto"}}),
                            store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, str(path))
    return path


def main(argv):
    # As in the test suite (conftest.py): a library's warning on stderr must not
    # be stored in a lesson, where nbval would compare it.
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.path.insert(0, str(ROOT / "tools"))
    sys.path.insert(0, str(ROOT))
    from make_learner import masters

    # As in the test suite (conftest.py): the lessons see a private package of
    # the learner's functions, exported from the masters, never a real one.
    import tempfile

    from mcp_lesson.learner_package import ENVIRONMENT, export_notebook

    package = Path(tempfile.mkdtemp(prefix="mcp-lesson-masters-")) / "my_mcp"
    os.environ[ENVIRONMENT] = str(package)
    for master in masters():
        export_notebook(master, package)
    paths = [Path(p) for p in argv] or masters()
    for path in paths:
        print(f"executed {execute(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
