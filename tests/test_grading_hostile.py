"""A hostile student's worst case costs that student only (issue 40, SPEC 19), on small
folders and nbgrader's own output, without a whole nbgrader day (tests/test_grading.py runs
one): collect past odd trees and files, honest times, and autograde's lines under the right
name whatever a cell's id says."""

import os

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tools.grading import autograde, course_dir


# --- autograde: whose lines, and odd metadata --------------------------------------------

def record(level, message):
    return f"[AutogradeApp | {level}] {message}"


def test_a_cell_id_naming_another_student_moves_no_line():
    """The red team's attack: a copied cell whose id names an honest student's folder (or
    nbgrader's words for a student) put the attacker's lines under that student."""
    output = "\n".join([
        record("INFO", "Creating/updating student with ID 'bob': {}"),
        record("INFO", "Sanitizing /c/submitted/bob/03_classifying/03_classifying.ipynb"),
        record("INFO", "Creating/updating student with ID 'mallory': {}"),
        record("WARNING", "Cell 'x/submitted/bob/y' does not exist in the database"),
        record("WARNING", "Cell 'student with ID 'bob'' does not exist in the database"),
        record("WARNING", "Cell 'x/autograded/bob/y' does not exist in the database"),
    ])
    sections = autograde.by_student(output)
    assert "does not exist" not in sections["bob"]
    assert sections["mallory"].count("does not exist") == 3
    assert autograde.problems_in(sections["bob"]) == []


def test_a_newline_in_a_name_starts_no_record(tmp_path):
    """A name holding a newline and a copy of nbgrader's line for another student, quoted in
    one of nbgrader's records (here the assignment's name, as a cell's id is in autograde's
    'does not exist in the database'): nbgrader's log indents the record's later lines, so
    the copy starts no student's section."""
    course = course_dir.prepare(tmp_path / "course")
    forged = "x\n[AutogradeApp | INFO] Creating/updating student with ID 'zoe': {}\n"
    code, output = course_dir.nbgrader(course, "generate_assignment", forged)
    assert code != 0 and "Creating/updating student with ID 'zoe'" in output  # quoted by nbgrader
    assert autograde.by_student(output) == {}


def released_and_odd(tmp_path):
    release = new_notebook(cells=[new_code_cell("assert True", metadata={"nbgrader": {
        "grade": True, "grade_id": "t-tests", "locked": True, "points": 1, "solution": False,
        "schema_version": 3}})])
    odd = new_notebook(cells=[new_code_cell("assert True", metadata={"nbgrader": "a string"}),
                              new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": ["a", "list"]}}),
                              new_code_cell("y = 2", metadata={"nbgrader": {"grade_id": 7, "solution": True}})])
    path = tmp_path / "a.ipynb"
    nbformat.write(odd, str(path))
    return release, path


def test_odd_metadata_types_stop_no_step(tmp_path):
    """A cell whose metadata.nbgrader is a string (or whose grade_id is a list or a number)
    stopped `make autograde` before anyone was graded."""
    release, path = released_and_odd(tmp_path)
    assert autograde.restore_renamed(release, path) == []
    assert autograde.tampering(release, path) == ["test cell t-tests was deleted: nbgrader put it back"]
