"""tools/hub: the class's settings (settings.py), each role's Jupyter settings (roles/) and
JupyterHub's config file, read without a hub. The hub itself, with real accounts and a
browser, is tests/test_hub.py's (full tier)."""

import json
from pathlib import Path

from traitlets.config import Config

from tools.hub import environment
from tools.hub.settings import NAMES, ROLES, ROOT, Settings, read_students

CONFIG = ROOT / "tools" / "hub" / "jupyterhub_config.py"
NBGRADER_PARTS = ("assignment-list", "validate-assignment", "formgrader", "create-assignment",
                  "course-list")


def test_the_students_file_is_one_name_a_line(tmp_path):
    path = tmp_path / "students.txt"
    path.write_text("# the class\nalice\n\n  bob  # second row\n")
    assert read_students(path) == ["alice", "bob"]
    assert read_students(tmp_path / "missing.txt") == []


def test_the_settings_travel_in_the_environment_and_back(tmp_path):
    settings = Settings(state=tmp_path / "s", port=9100, teacher="t", students_file=tmp_path / "f",
                        exchange=tmp_path / "x")
    assert Settings.from_environment(settings.to_environment()) == settings
    assert set(settings.to_environment()) == set(NAMES.values())
    assert (settings.hub_port, settings.proxy_api_port) == (9101, 9102)


def test_each_person_gets_their_roles_settings_and_the_course():
    settings = Settings(teacher="tina")
    teacher, student = settings.environment_for("tina"), settings.environment_for("sam")
    assert teacher["JUPYTER_CONFIG_PATH"].split(":") == [str(ROLES / "teacher"), str(ROLES / "common")]
    assert student["JUPYTER_CONFIG_PATH"].split(":") == [str(ROLES / "student"), str(ROLES / "common")]
    for env in (teacher, student):
        assert env["PYTHONPATH"] == str(ROOT)
        assert env["PATH"].startswith(f"{settings.env / 'bin'}:")
        assert env["MCP_LESSON_EXCHANGE"] == str(settings.exchange)


def disabled(role):
    return json.loads((ROLES / role / "labconfig" / "page_config.json").read_text())["disabledExtensions"]


def enabled_server_parts(role):
    found = json.loads((ROLES / role / "jupyter_server_config.json").read_text())
    return {name.rsplit(".", 1)[1]: on for name, on in found["ServerApp"]["jpserver_extensions"].items()}


def test_students_get_the_assignments_tab_and_nothing_of_the_teachers():
    lab = disabled("student")
    assert {part: lab[f"@jupyter/nbgrader:{part}"] for part in NBGRADER_PARTS} == {
        "assignment-list": False, "validate-assignment": False,
        "formgrader": True, "create-assignment": True, "course-list": True}
    assert enabled_server_parts("student") == {"assignment_list": True, "validate_assignment": True,
                                               "formgrader": False, "course_list": False}


def test_the_teacher_gets_formgrader():
    lab = disabled("teacher")
    assert not lab["@jupyter/nbgrader:formgrader"] and not lab["@jupyter/nbgrader:create-assignment"]
    assert lab["@jupyter/nbgrader:assignment-list"]
    assert enabled_server_parts("teacher")["formgrader"] is True


def test_the_teachers_nbgrader_settings_load_the_courses_grading_settings():
    text = (ROLES / "teacher" / "nbgrader_config.py").read_text()
    assert '"grading", "nbgrader_config.py"' in text
    path = Path(ROLES / "teacher", "..", "..", "..", "grading", "nbgrader_config.py").resolve()
    assert path == ROOT / "tools" / "grading" / "nbgrader_config.py"


def load_hub_config(environ, monkeypatch):
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    config = Config()
    namespace = {"get_config": lambda: config, "__file__": str(CONFIG)}
    exec(compile(CONFIG.read_text(), str(CONFIG), "exec"), namespace)
    return config


def test_the_hub_listens_on_loopback_and_lets_in_the_class_only(tmp_path, monkeypatch):
    students = tmp_path / "students.txt"
    students.write_text("ann\nben\n")
    settings = Settings(state=tmp_path / "state", port=9200, teacher="tom", students_file=students,
                        env=tmp_path / "env", exchange=tmp_path / "x")
    config = load_hub_config(settings.to_environment(), monkeypatch)
    assert config.JupyterHub.bind_url == "http://127.0.0.1:9200"
    assert config.JupyterHub.hub_ip == "127.0.0.1"
    assert config.ConfigurableHTTPProxy.api_url == "http://127.0.0.1:9202"
    assert config.Authenticator.allowed_users == {"tom", "ann", "ben"}
    assert config.Spawner.cmd == [str(tmp_path / "env" / "bin" / "jupyterhub-singleuser")]

    class User:
        name = "ann"

    class Spawner:
        user = User()
        environment = {}

    config.Spawner.pre_spawn_hook(Spawner)
    assert Spawner.environment == settings.environment_for("ann")


def test_the_users_environment_installs_jupyterhub_and_the_courses_needs():
    wanted = environment.requirements()
    assert any(spec.startswith("jupyterhub==") for spec in wanted)
    assert any(spec.startswith("nbgrader") for spec in wanted)
    assert any(spec.startswith("jupyterlab") for spec in wanted)
    assert environment.digest() == environment.digest()
    assert environment.digest("/usr/bin/python3") != environment.digest("/other/python3")
