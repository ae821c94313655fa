"""What the chapters' checks share: the case (a label, a `run`, a `judge`) and the
registry of each task's case maker, the course's oracles (its comparison in words,
central differences), the one validator of a returned array, and the inputs more than
one chapter draws: random graphs built with the engine, the settings of the maximum and
its ties, and optimiser runs pinned to torch.optim. Everything drawn comes from NumPy's
`rng`, before any student code runs; the engine, the course and PyTorch are imported
only when a run or a judge needs them."""

from collections import namedtuple

import numpy as np


Case = namedtuple("Case", "label run judge")
MAKERS = {}  # the first name of a task -> function(rng) -> [Case]


def cases_of(name):
    """Register a function that makes the cases of the task containing `name`."""

    def register(make):
        MAKERS[name] = make
        return make

    return register


def cases(task, seed, shuffled=True):
    """The cases of `task` (a tasks.Task) for one student's seed, in an order drawn
    from that seed: the same in every process."""
    rng = np.random.default_rng([seed, int(task.id[1:])])
    made, seen = [], {}
    for case in MAKERS[task.names[0]](rng):  # a label names one case: number repeats
        seen[case.label] = seen.get(case.label, 0) + 1
        label = (
            case.label
            if seen[case.label] == 1
            else f"{case.label} ({seen[case.label]})"
        )
        made.append(case._replace(label=label))
    return [made[k] for k in case_order(task, seed, len(made))] if shuffled else made


def case_order(task, seed, count):
    """The order in which one student's `count` cases of `task` run: drawn from their
    seed, so that a submission cannot tell a case by its place."""
    return np.random.default_rng([seed, int(task.id[1:]), 1]).permutation(count)


# --- the course's oracles -------------------------------------------------------------


# how close a result must come to central differences (looser than difference's default)
CENTRAL = {"rtol": 1e-5, "atol": 1e-7}


def difference(what, got, expected, rtol=1e-6, atol=1e-8):
    """The book's comparison in words (course.exercises.difference): None if they
    match."""
    from course.exercises import difference as in_words

    return in_words(what, got, expected, rtol=rtol, atol=atol)


def numerical_gradient(f, x):
    """Central differences of the scalar function f at array x (the book's oracle)."""
    from engine.check import numerical_gradient as central

    return central(f, x)


def directional(f, arrays, us):
    """J u by central differences, f on NumPy arrays: the course's oracle
    (course.verification.directional_derivative)."""
    from course.verification import directional_derivative

    return directional_derivative(f, arrays, us)


def all_of(*problems):
    """The first problem among `problems`, or None."""
    return next((p for p in problems if p), None)


def is_array(got, what, shape=None):
    """A problem if `got` is not an array of numbers, or, given `shape`, not of that
    shape; else None."""
    if not isinstance(got, np.ndarray) or got.dtype.kind not in "biuf":
        return f"{what}: expected an array of numbers, got {type(got).__name__}"
    if shape is not None and got.shape != shape:
        return f"{what}: shape {got.shape}, expected {shape}"
    return None


# --- inputs ---------------------------------------------------------------------------


def well_spread(rng, shape, gap=0.05):
    """Random values in [-2, 2] whose entries differ by at least `gap` (no ties, nothing
    within gap/2 of 0): a maximum or a ReLU is smooth around every entry."""
    size = int(np.prod(shape))
    grid = np.arange(-2.0, 2.0, gap) + gap / 2
    return rng.permutation(grid)[:size].reshape(shape)


def max_settings(rng):
    """(axis, keepdims, x, label) for each reduction of the maximum the checks try: x of
    shape (2, 3, 4) drawn well spread for each, and what the reduction is called."""
    for axis in [None, 0, 1, -1, (0, 2)]:
        for keepdims in (False, True):
            x = well_spread(rng, (2, 3, 4))
            yield axis, keepdims, x, f"max over axis={axis}, keepdims={keepdims}"


def tied():
    """A fresh 3 x 3 array whose rows have two, one and three maxima."""
    return np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 3.0], [4.0, 4.0, 4.0]])


# --- random graphs --------------------------------------------------------------------


class Graph:
    """A graph built with the engine, every node numbered in the order it was made, so
    that a run can report an order as numbers and the judge can check it without the
    objects."""

    def __init__(self):
        self.nodes = []

    def add(self, tensor):
        """Number `tensor` and return it."""
        self.nodes.append(tensor)
        return tensor

    def numbers(self):
        """{id(node): its number} for every node made so far."""
        return {id(node): k for k, node in enumerate(self.nodes)}

    def numbered(self, order):
        """`order` (nodes) as the nodes' numbers, -1 for anything else: all a run
        reports; the judge knows the graph's structure from the program that built it
        (structure_of), not from the task's process."""
        number = self.numbers()
        return [number.get(id(node), -1) for node in order]


def structure_of(leaves, program):
    """(each node's parents, the root), as numbers, of the graph `built` makes from
    `leaves` leaf values and `program`: computed here, from the program alone."""
    parents = [[] for _ in range(leaves)]
    nodes = list(range(leaves))
    for kind, inputs in program:
        args = [nodes[i] for i in inputs]
        if kind in ("tanh", "exp"):  # the scaling multiply, then the function
            parents.append(args)
            args = [len(parents) - 1]
        parents.append(args)
        nodes.append(len(parents) - 1)
    return parents, nodes[-1]


def chain_structure(length):
    """(parents, root) of a leaf followed by `length` ops, each on the one before."""
    return [[]] + [[k] for k in range(length)], length


def numbered_stats(parents, root):
    """The facts graph_stats reports (nodes, edges, depth, the uses of each leaf) for a
    graph given by numbers: parents[k] the numbers of node k's inputs, every one smaller
    than k (Graph numbers its nodes as they are made), `root` the root's number. Only
    the nodes the root depends on count; uses are keyed by the leaf's number (text)."""
    reached = {root}
    for k in range(root, -1, -1):  # made after its inputs: one pass down the numbers
        if k in reached:
            reached.update(parents[k])
    depth, uses = {}, {}
    for k in sorted(reached):
        depth[k] = max((depth[p] + 1 for p in parents[k]), default=0)
        for p in parents[k]:
            uses[p] = uses.get(p, 0) + 1
    return {
        "nodes": len(reached),
        "edges": sum(len(parents[k]) for k in reached),
        "depth": depth[root],
        "uses": {str(k): uses.get(k, 0) for k in sorted(reached) if not parents[k]},
    }


def random_graph(rng, leaves, ops):
    """(leaf values, [(op name, input positions)]): a random computation in which nodes
    are used any number of times, drawn before any engine code runs."""
    program, size = [], leaves
    for _ in range(ops):
        kind = rng.choice(["add", "multiply", "tanh", "exp"])
        arity = 2 if kind in ("add", "multiply") else 1
        program.append((str(kind), [int(i) for i in rng.integers(0, size, arity)]))
        size += 1
    return rng.uniform(-1, 1, leaves), program


def random_graphs(rng, sizes, repeated=True):
    """(label, leaf values, program) of one random graph for each (leaves, ops) of
    `sizes`, drawn one at a time; the label numbers it from 1 and, if `repeated`, says
    that its nodes are used repeatedly."""
    used = ", nodes used repeatedly" if repeated else ""
    for k, (leaves, ops) in enumerate(sizes):
        values, program = random_graph(rng, leaves, ops)
        yield (
            f"random graph {k + 1} ({leaves} leaves, {ops} ops{used})",
            values,
            program,
        )


def built(values, program):
    """The engine graph of a random computation: (Graph, root)."""
    from engine import Tensor

    graph = Graph()
    nodes = [graph.add(Tensor(v)) for v in values]
    for kind, inputs in program:
        args = [nodes[i] for i in inputs]
        out = {
            "add": lambda a, b: a + b,
            "multiply": lambda a, b: a * b,
            "tanh": lambda a: (a * 0.5).tanh(),
            "exp": lambda a: (a * 0.1).exp(),
        }[kind](*args)
        if kind in ("tanh", "exp"):  # the scaling multiply is a node too
            graph.add(out.parents[0])
        nodes.append(graph.add(out))
    return graph, nodes[-1]


# --- optimisers, pinned to torch.optim ------------------------------------------------


def gradient_steps(rng, shapes, steps, skips=False):
    """Gradients for `steps` steps of an optimiser, one per shape, of sizes from 1e-3 to
    50; with `skips`, now and then a parameter gets none (None), as when it took no part
    in a step's loss."""
    return [
        [
            None
            if (skips and t % 3 == 1 and i == 1)
            else rng.normal(size=s) * float(rng.choice([1e-3, 1.0, 50.0]))
            for i, s in enumerate(shapes)
        ]
        for t in range(steps)
    ]


def optimiser_case(
    rng, make, witness, label, steps=6, shapes=((3, 2), (4,)), skips=False
):
    """A case that runs the student's optimiser `make(found, params)` for some steps on
    given gradients and compares every parameter after every step with the PyTorch
    optimiser `witness(torch, params)`; with skips, some parameters get no gradient on
    some steps."""
    start = [rng.normal(size=s) for s in shapes]
    grads = gradient_steps(rng, shapes, steps, skips)

    def run(found):
        from engine import Tensor

        params = [Tensor(p.copy()) for p in start]
        optimiser = make(found, params)
        trajectory = []
        for step in grads:
            for p, g in zip(params, step):
                p.grad = None if g is None else g.copy()
            optimiser.step()
            trajectory.append([p.data.copy() for p in params])
        return trajectory

    def judge(got):
        import torch

        params = [torch.tensor(p, requires_grad=True) for p in start]
        optimiser = witness(torch, params)
        for t, step in enumerate(grads):
            for p, g in zip(params, step):
                p.grad = None if g is None else torch.tensor(g)
            optimiser.step()
            if t >= len(got):
                return f"{label}: only {len(got)} steps were recorded"
            for i, p in enumerate(params):
                problem = difference(
                    f"{label}, parameter {i} after step {t + 1}",
                    got[t][i],
                    p.detach().numpy(),
                    rtol=1e-10,
                    atol=1e-12,
                )
                if problem:
                    return problem
        return None

    return Case(label, run, judge)


def optimiser_cases(rng, name, torch_name, settings, with_skips=None):
    """One case per setting of the student's optimiser `name` against torch.optim's
    `torch_name`, and, with `with_skips` (a setting), one in which a parameter misses
    its gradient now and then."""

    def case(s, label, **options):
        return optimiser_case(
            rng,
            lambda found, params: getattr(found, name)(params, **s),
            lambda torch, params: getattr(torch.optim, torch_name)(params, **s),
            label,
            **options,
        )

    def written(s):
        return f"{name}({', '.join(f'{k}={v}' for k, v in s.items())})"

    made = [case(s, written(s)) for s in settings]
    if with_skips is not None:
        label = f"{written(with_skips)}, a parameter without gradient now and then"
        made.append(case(with_skips, label, steps=8, skips=True))
    return made
