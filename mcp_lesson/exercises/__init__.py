"""The lessons and their exercises: the catalogue of lessons (:mod:`.lessons`), the
shared case table (:mod:`.cases`), what each lesson builds (:mod:`.registry`), the
tables that check a learner's function (:mod:`.tables`, run by :mod:`.selfcheck`;
compared with the course's version by :mod:`.agreement`, on :mod:`.inputs`), a
lesson's hidden tests (:mod:`.hidden_tests`), calling a learner's function safely
(:mod:`.calling`), which version of it a check judges (:mod:`.on_screen`), and the learner's own package: a cell as the package gets it
(:mod:`.cells`), the exporter (:mod:`.learner_package`), and later lessons'
carry-forward (:mod:`.carry`) and graduation (:mod:`.graduation`).

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`, :mod:`mcp_lesson.rules`,
:mod:`mcp_lesson.shared`.
"""
