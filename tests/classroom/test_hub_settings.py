"""tools/hub: the class's settings (settings.py), each role's Jupyter settings (roles/) and
JupyterHub's config file, read without a hub. The hub itself, with real accounts and a
browser, is tests/classroom/test_hub.py's (full tier)."""

import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from traitlets.config import Config

from tools.hub import accounts, environment
from tools.hub.settings import (
    NAMES,
    PERSON_MEMORY,
    PERSON_TASKS,
    ROLES,
    ROOT,
    Settings,
    read_students,
)

CONFIG = ROOT / "tools" / "hub" / "jupyterhub_config.py"
NBGRADER_PARTS = (
    "assignment-list",
    "validate-assignment",
    "formgrader",
    "create-assignment",
    "course-list",
)


def test_the_students_file_is_one_name_a_line(tmp_path):
    path = tmp_path / "students.txt"
    path.write_text("# the class\nalice\n\n  bob  # second row\n")
    assert read_students(path) == ["alice", "bob"]
    assert read_students(tmp_path / "missing.txt") == []


def test_the_settings_travel_in_the_environment_and_back(tmp_path):
    settings = Settings(
        state=tmp_path / "s",
        port=9100,
        teacher="t",
        students_file=tmp_path / "f",
        exchange=tmp_path / "x",
    )
    assert Settings.from_environment(settings.to_environment()) == settings
    assert set(settings.to_environment()) == set(NAMES.values())
    assert (settings.hub_port, settings.proxy_api_port) == (9101, 9102)


def test_each_person_gets_their_roles_settings_and_the_course():
    settings = Settings(teacher="tina")
    teacher, student = settings.environment_for("tina"), settings.environment_for("sam")
    assert teacher["JUPYTER_CONFIG_PATH"].split(":") == [
        str(ROLES / "teacher"),
        str(ROLES / "common"),
    ]
    assert student["JUPYTER_CONFIG_PATH"].split(":") == [
        str(ROLES / "student"),
        str(ROLES / "common"),
    ]
    for env in (teacher, student):
        assert env["PYTHONPATH"] == str(ROOT)
        assert env["PATH"].startswith(f"{settings.env / 'bin'}:")
        assert env["MCP_LESSON_EXCHANGE"] == str(settings.exchange)


def disabled(role):
    return json.loads((ROLES / role / "labconfig" / "page_config.json").read_text())[
        "disabledExtensions"
    ]


def enabled_server_parts(role):
    found = json.loads((ROLES / role / "jupyter_server_config.json").read_text())
    return {
        name.rsplit(".", 1)[1]: on for name, on in found["ServerApp"]["jpserver_extensions"].items()
    }


def test_students_get_the_assignments_tab_and_nothing_of_the_teachers():
    lab = disabled("student")
    assert {part: lab[f"@jupyter/nbgrader:{part}"] for part in NBGRADER_PARTS} == {
        "assignment-list": False,
        "validate-assignment": False,
        "formgrader": True,
        "create-assignment": True,
        "course-list": True,
    }
    assert enabled_server_parts("student") == {
        "assignment_list": True,
        "validate_assignment": True,
        "formgrader": False,
        "course_list": False,
    }


def test_the_teacher_gets_formgrader():
    lab = disabled("teacher")
    assert (
        not lab["@jupyter/nbgrader:formgrader"] and not lab["@jupyter/nbgrader:create-assignment"]
    )
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
    settings = Settings(
        state=tmp_path / "state",
        port=9200,
        teacher="tom",
        students_file=students,
        env=tmp_path / "env",
        exchange=tmp_path / "x",
    )
    config = load_hub_config(settings.to_environment(), monkeypatch)
    assert config.JupyterHub.bind_url == "http://127.0.0.1:9200"
    assert config.JupyterHub.hub_ip == "127.0.0.1"
    # each person's server on a host of its own (NAME.localhost), the hub on localhost
    assert config.JupyterHub.subdomain_host == settings.hub_url == "http://localhost:9200"
    assert settings.server_url("ann") == "http://ann.localhost:9200/user/ann"
    assert config.ConfigurableHTTPProxy.api_url == "http://127.0.0.1:9202"
    assert config.Authenticator.allowed_users == {"tom", "ann", "ben"}
    assert config.Spawner.cmd == [str(tmp_path / "env" / "bin" / "jupyterhub-singleuser")]
    # each person's server within limits of their own (tools/hub/spawner.py)
    assert config.JupyterHub.spawner_class == "tools.hub.spawner.PersonSpawner"
    assert (config.Spawner.mem_limit, config.PersonSpawner.processes) == (
        PERSON_MEMORY,
        PERSON_TASKS,
    )

    class User:
        name = "ann"

    class Spawner:
        user = User()
        environment = {}

    config.Spawner.pre_spawn_hook(Spawner)
    assert Spawner.environment == settings.environment_for("ann")
    assert (Spawner.mem_limit, Spawner.processes) == (PERSON_MEMORY, PERSON_TASKS)
    assert all(
        teacher > student
        for teacher, student in zip(settings.limits_for("tom"), settings.limits_for("ann"))
    )


def test_the_users_environment_installs_jupyterhub_and_the_courses_needs():
    wanted = environment.requirements()
    assert any(spec.startswith("jupyterhub==") for spec in wanted)
    assert any(spec.startswith("nbgrader") for spec in wanted)
    # the charts of the page of what the class missed, which the teacher builds on the hub
    assert any(spec.startswith("matplotlib") for spec in wanted)
    assert any(spec.startswith("jupyterlab") for spec in wanted)
    assert environment.digest() == environment.digest()
    assert environment.digest("/usr/bin/python3") != environment.digest("/other/python3")


# --- the exchange make hub makes (accounts.make_exchange; as root) ---------------------


@pytest.fixture
def open_folder():
    """A folder every account can reach (tmp_path's parents are root's alone), removed after."""
    if os.geteuid() != 0:
        pytest.skip("making the exchange needs root (chown): run as root, as CI does")
    made = Path(tempfile.mkdtemp(prefix="mcp-exchange-", dir="/tmp"))
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def as_account(name, command):
    return subprocess.run(
        ["runuser", "-u", name, "--", "sh", "-c", command], capture_output=True, text=True
    )


def refused(call):
    """The one line of a refusal (SystemExit with a message); fails when nothing is refused."""
    with pytest.raises(SystemExit) as refusal:
        call()
    line = str(refusal.value.code)
    assert line and "\n" not in line
    return line


def test_the_exchange_is_roots_and_each_students_submission_stays_theirs(open_folder):
    exchange = accounts.make_exchange(open_folder / "exchange", "backup")
    course, inbound = exchange / accounts.COURSE_ID, exchange / accounts.COURSE_ID / "inbound"
    assert (exchange.stat().st_uid, exchange.stat().st_mode & 0o7777) == (0, 0o1777)
    assert course.stat().st_uid == inbound.stat().st_uid == pwd.getpwnam("backup").pw_uid
    # daemon hands in; nobody can neither remove nor rename it, nor put its own in its place
    assert as_account("daemon", f"mkdir '{inbound}/daemon+03+x'").returncode == 0
    assert (
        as_account(
            "nobody",
            f"rmdir '{inbound}/daemon+03+x' || mv '{inbound}/daemon+03+x' '{inbound}/moved'",
        ).returncode
        != 0
    )
    assert (inbound / "daemon+03+x").stat().st_uid == 1 and not (inbound / "moved").exists()
    assert accounts.make_exchange(exchange, "backup") == exchange  # again: kept as it is
    assert (inbound / "daemon+03+x").is_dir()


@pytest.mark.parametrize("where", ["exchange", "course"])
def test_a_link_at_the_exchange_is_refused_and_its_target_untouched(open_folder, where):
    target = open_folder / "etc"
    target.mkdir(mode=0o700)
    exchange = open_folder / "exchange"
    if where == "exchange":
        exchange.symlink_to(target)
    else:
        exchange.mkdir()
        (exchange / accounts.COURSE_ID).symlink_to(target)
    line = refused(lambda: accounts.make_exchange(exchange, "backup"))
    assert str(exchange) in line and str(target) in line  # (the link and where it leads)
    assert (target.stat().st_uid, target.stat().st_mode & 0o7777) == (0, 0o700)
    if where == "exchange":  # the folder the line names works as the exchange
        assert accounts.make_exchange(target, "backup") == target


@pytest.mark.parametrize("where", ["exchange", "course", "inbound"])
def test_a_folder_of_another_account_at_the_exchange_is_refused_and_kept_as_it_is(
    open_folder, where
):
    exchange = open_folder / "exchange"
    planted = {
        "exchange": exchange,
        "course": exchange / accounts.COURSE_ID,
        "inbound": exchange / accounts.COURSE_ID / "inbound",
    }[where]
    planted.mkdir(parents=True)
    os.chown(planted, 1, 1)  # daemon's
    planted.chmod(0o700)
    line = refused(lambda: accounts.make_exchange(exchange, "backup"))
    assert str(planted) in line
    assert (planted.stat().st_uid, planted.stat().st_mode & 0o7777) == (1, 0o700)


def test_make_hub_names_a_busy_port_in_one_line():
    from tools.hub import hub

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = Settings(port=port - 1)  # its hub's own port is the one taken
        assert port in hub.ports_in_use(settings)
        lines = hub.problems(settings)
        assert any(str(port) in line and "\n" not in line for line in lines), lines
    assert port not in hub.ports_in_use(settings)
