"""The setup files agree with each other and with the README."""

import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _name(requirement):
    return re.split(r"[<>=!~ \[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_name(r) for r in project["dependencies"]}
    for extra in project.get("optional-dependencies", {}).values():
        names |= {_name(r) for r in extra}
    return names


def environment_names():
    names, in_deps = set(), False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if line.startswith("dependencies:"):
            in_deps = True
            continue
        if in_deps and re.match(r"^\s+- ", line):
            item = line.split("- ", 1)[1].strip()
            if item.startswith("-e") or item in ("pip", "pip:", "."):
                continue
            names.add(_name(item))
    return names - {"python", "pip"}


def test_pyproject_and_environment_name_the_same_dependencies():
    assert pyproject_names() == environment_names()


def test_environment_installs_the_package_itself():
    assert re.search(r"^\s+- (-e )?\.(\[\w+\])?\s*$", (ROOT / "environment.yml").read_text(), re.M)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "make test" in readme and "make lab" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci and "set -e" in ci
