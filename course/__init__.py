"""The course's own machinery, beside the engine it checks: the op catalogue (catalogue), the
finite-difference verification of its cases (verification), the PyTorch witness (witness), the bug
museum (museum), the exercise checkers (exercises), the toy data (data) and the exporter that
writes engine/ and course/ from the book (export).

It imports the engine; the engine never imports it. This file imports nothing, so that
`course.export` runs with the standard library alone."""
