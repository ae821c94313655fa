"""The course's own machinery, beside the engine it checks.

- catalogue: the op catalogue, every op with its shapes, inputs and PyTorch spelling;
- verification: a catalogue case's rules against central differences, the error tables;
- witness: the same against PyTorch (imported only when a witness runs);
- museum: the bug museum, planting classic backward-pass bugs in the running engine;
- exercises: the checkers that the book's exercises call on a reader's code;
- data: the toy data sets (the spiral);
- export: the exporter that writes engine/ and course/ from the book's notebooks.

It imports the engine; the engine never imports it. This file imports nothing, so that
`course.export` runs with the standard library alone.
"""
