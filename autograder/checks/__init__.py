"""The checks of every graded task, one module a chapter (ch01_tape ...
ch13_transformer) beside a shared toolkit: cases drawn from a seed, each a `run` and a
`judge`. `cases(task, seed)` gives a task's cases, the same in every process.
`run(found)` executes the student's code (`found` holds the task's definitions by name),
in a process of its own on an engine the grader assembled, and returns plain numbers,
lists, dicts and arrays; it never decides anything. `judge(got)` runs in the grader's
process, on what `run` returned, against the course's own oracles (central differences,
PyTorch, identities such as <unbroadcast(g), x> = <g, broadcast(x)>), and returns None
or what is wrong, in words, so that nothing a submission contains (its engine, its
tests, its copy of an oracle) can change a verdict. A run uses the task's definitions
and, where it needs more of the engine, only what chapters up to the task's own have
built (tests/test_grading.py checks that against stubs), so that a student's own checks
of chapter N pass as soon as the tasks up to chapter N are done. Case inputs are drawn
from NumPy only, before any student code runs."""

from autograder.checks import (  # noqa: F401  (each registers its tasks' cases)
    ch01_tape,
    ch02_matmul_vjp,
    ch03_broadcasting,
    ch04_verification,
    ch05_spiral,
    ch06_tape_visualization,
    ch07_adam,
    ch08_no_grad,
    ch09_forward_mode,
    ch10_double_backprop,
    ch11_conv2d,
    ch12_checkpointing,
    ch13_transformer,
)
from autograder.checks.ch13_transformer import mask_problem
from autograder.checks.toolkit import (
    all_of,
    Case,
    cases,
    cases_of,
    difference,
    is_array,
    MAKERS,
    numerical_gradient,
)


__all__ = [
    "MAKERS",
    "Case",
    "all_of",
    "cases",
    "cases_of",
    "difference",
    "is_array",
    "mask_problem",
    "numerical_gradient",
]
