"""A teacher's day with nbgrader: release, collect, autograde, feedback, grades
(``classroom.py``), and the pieces nbgrader loads through ``nbgrader_config.py``."""
