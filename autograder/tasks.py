"""The graded tasks: what a student implements, where, in which week, and for how many
points.

One table, read by the grader (tools/grade.py), the student edition
(tools/student_edition.py), the student's own checks and the syllabus test. Standard
library only.

A task is one or more definitions in one notebook of the book: functions, classes, or
methods written `Class.method`. In the student edition their bodies are stubs; the
grader takes the student's definitions from that notebook and nothing else."""

from collections import namedtuple


Task = namedtuple("Task", "id notebook names title week hours points")


def numbered(rows):
    """Task rows (without ids) as Tasks T1, T2, ... in the order given."""
    return [Task(f"T{k}", *row) for k, row in enumerate(rows, 1)]


TASKS = numbered(
    [
        # notebook, names, title, week, hours, points
        (
            "01_tape.ipynb",
            ("topological_order",),
            "The order of the backward sweep, without recursion",
            1,
            1.0,
            8,
        ),
        ("01_tape.ipynb", ("backpropagate",), "The backward sweep", 1, 1.5, 10),
        (
            "01_tape.ipynb",
            ("sqrt", "hypot", "logaddexp"),
            "Three ops of your own, each with its local rules",
            1,
            1.0,
            6,
        ),
        (
            "02_matmul_vjp.ipynb",
            ("matmul_vjp_a", "matmul_vjp_b"),
            "The matrix product's two local rules, batched and 1-D operands included",
            1,
            1.5,
            10,
        ),
        (
            "03_broadcasting.ipynb",
            ("unbroadcast",),
            "Undo broadcasting in a gradient",
            1,
            1.0,
            8,
        ),
        (
            "03_broadcasting.ipynb",
            ("max_vjp",),
            "The maximum's local rule, ties included",
            1,
            1.0,
            6,
        ),
        (
            "03_broadcasting.ipynb",
            ("scatter_add_forward",),
            "Scatter-add, the forward of indexing's local rule",
            1,
            0.5,
            5,
        ),
        (
            "04_verification.ipynb",
            ("log_softmax_vjp",),
            "The local rule of log-softmax",
            2,
            1.0,
            8,
        ),
        (
            "04_verification.ipynb",
            ("nll_vjp",),
            "The local rule of the negative log-likelihood",
            2,
            0.5,
            5,
        ),
        (
            "04_verification.ipynb",
            ("directional_check",),
            "A gradient check along one random direction",
            2,
            1.0,
            8,
        ),
        (
            "05_spiral.ipynb",
            ("Momentum",),
            "SGD with momentum, pinned to torch.optim.SGD",
            2,
            1.0,
            8,
        ),
        (
            "06_tape_visualization.ipynb",
            ("graph_stats",),
            "The statistics of a graph: nodes, edges, depth, uses",
            2,
            1.0,
            8,
        ),
        (
            "07_adam.ipynb",
            ("Adam.step",),
            "Adam's step, pinned to torch.optim.Adam",
            3,
            0.5,
            6,
        ),
        (
            "07_adam.ipynb",
            ("AdamW",),
            "AdamW, decoupled weight decay, pinned to torch.optim.AdamW",
            3,
            1.0,
            8,
        ),
        (
            "08_no_grad.ipynb",
            ("ModeBlock.__enter__", "ModeBlock.__exit__", "no_grad.changed"),
            "A block that changes the mode of its thread, and no_grad",
            3,
            0.5,
            6,
        ),
        (
            "08_no_grad.ipynb",
            ("OpCounter",),
            "A mode layer that counts op calls",
            3,
            1.0,
            8,
        ),
        (
            "09_forward_mode.ipynb",
            ("forward_rule",),
            "Forward rules: the elementwise ops' from their backward rules",
            3,
            1.0,
            6,
        ),
        (
            "09_forward_mode.ipynb",
            ("tangents_times", "times_tangents"),
            "The matrix product's forward rules, k directions in one product",
            3,
            1.5,
            10,
        ),
        (
            "09_forward_mode.ipynb",
            ("max_jvp",),
            "The maximum's forward rule, ties included",
            3,
            0.5,
            6,
        ),
        (
            "10_double_backprop.ipynb",
            ("grad",),
            "Gradients that can be differentiated again",
            4,
            1.0,
            8,
        ),
        (
            "10_double_backprop.ipynb",
            ("gauss_newton_product",),
            "A Gauss-Newton product from three passes",
            4,
            1.0,
            8,
        ),
        (
            "11_conv2d.ipynb",
            ("avg_pool2d_forward", "avg_pool2d_vjp", "avg_pool2d"),
            "Average pooling as an op of its own, both rules",
            4,
            1.5,
            10,
        ),
        (
            "12_checkpointing.ipynb",
            ("two_level",),
            "A two-level checkpoint schedule",
            4,
            1.0,
            8,
        ),
        (
            "13_transformer.ipynb",
            ("causal_mask",),
            "The causal mask of self-attention",
            4,
            0.5,
            5,
        ),
    ]
)

BY_ID = {task.id: task for task in TASKS}


def task_named(name):
    """The task that contains the definition `name` (a function, class or
    'Class.method')."""
    return next(task for task in TASKS if name in task.names)


def chapter(task):
    """The chapter number of a task: 3 for '03_broadcasting.ipynb'."""
    return int(task.notebook[:2])


def selector(task):
    """The task's name among the student edition's tests: T01 to T24, so that
    `pytest -k T01` selects that task alone."""
    return f"T{int(task.id[1:]):02d}"
