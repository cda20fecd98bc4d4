"""What the class missed: the judge's verdicts kept case by case while grading (records.py),
and the teacher's page made of them with the gradebook's points (classdata.py, page.py,
charts.py, tables.py; build.py writes it, ``make insight``). It may import mcp_lesson and
tools/grading's names; tools/grading imports only records.py from here."""
