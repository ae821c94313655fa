"""The checks of every task: cases drawn from a seed, each a `run` and a `judge`.

`run(found)` executes the student's code (`found` holds the task's definitions by name) and
returns plain numbers, lists, dicts and arrays. It runs in a process of its own, on an engine
the grader assembled, and never decides anything. `judge(got)` runs in the grader's process,
on what `run` returned, against the course's own oracles (central differences, PyTorch,
identities such as <unbroadcast(g), x> = <g, broadcast(x)>), and returns None or what is
wrong, in words. So nothing a submission contains can change a verdict: not its engine, not
its tests, not its copy of an oracle.

A run uses the task's definitions and, where it needs more of the engine, only what chapters
up to the task's own have built (tests/test_grading.py checks that against stubs), so that a
student's own checks of chapter N pass as soon as the tasks up to chapter N are done.
Case inputs are drawn from NumPy only, before any student code runs."""
from collections import namedtuple

import numpy as np

Case = namedtuple("Case", "label run judge")
MAKERS = {}     # the first name of a task -> function(rng) -> [Case]


def cases_of(name):
    """Register a function that makes the cases of the task containing `name`."""
    def register(make):
        MAKERS[name] = make
        return make
    return register


def cases(task, seed):
    """The cases of `task` (a tasks.Task) for one student's seed: the same in every process."""
    rng = np.random.default_rng([seed, int(task.id[1:])])
    made, seen = [], {}
    for case in MAKERS[task.names[0]](rng):        # a label names one case: number repeats
        seen[case.label] = seen.get(case.label, 0) + 1
        label = case.label if seen[case.label] == 1 else f"{case.label} ({seen[case.label]})"
        made.append(case._replace(label=label))
    return made


def difference(what, got, expected, rtol=1e-6, atol=1e-8):
    """The book's comparison in words (course.exercises.difference): None if they match."""
    from course.exercises import difference as in_words
    return in_words(what, got, expected, rtol=rtol, atol=atol)


def numerical_gradient(f, x):
    """Central differences of the scalar function f at array x (the book's oracle)."""
    from engine.check import numerical_gradient as central
    return central(f, x)


def all_of(*problems):
    """The first problem among `problems`, or None."""
    return next((p for p in problems if p), None)


def is_array(got, what):
    """A problem if `got` is not an array of numbers."""
    if not isinstance(got, np.ndarray) or got.dtype.kind not in "biuf":
        return f"{what}: expected an array of numbers, got {type(got).__name__}"
    return None


def well_spread(rng, shape, gap=0.05):
    """Random values in [-2, 2] whose entries differ by at least `gap` (no ties, nothing
    within gap/2 of 0): a maximum or a ReLU is smooth around every entry."""
    size = int(np.prod(shape))
    grid = np.arange(-2.0, 2.0, gap) + gap / 2
    return rng.permutation(grid)[:size].reshape(shape)


# --- Chapter 1 -------------------------------------------------------------------------------

class Graph:
    """A graph built with the engine, every node numbered in the order it was made, so that a
    run can report an order as numbers and the judge can check it without the objects."""

    def __init__(self):
        self.nodes = []

    def add(self, tensor):
        """Number `tensor` and return it."""
        self.nodes.append(tensor)
        return tensor

    def structure(self, root, order):
        """What the judge needs: each node's parents, the root and `order`, as numbers."""
        number = {id(node): k for k, node in enumerate(self.nodes)}
        return {"parents": [[number.get(id(p), -1) for p in node.parents]
                            for node in self.nodes],
                "root": number[id(root)],
                "order": [number.get(id(node), -1) for node in order]}


def random_graph(rng, leaves, ops):
    """(leaf values, [(op name, input positions)]): a random computation in which nodes are
    used any number of times, drawn before any engine code runs."""
    program, size = [], leaves
    for _ in range(ops):
        kind = rng.choice(["add", "multiply", "tanh", "exp"])
        arity = 2 if kind in ("add", "multiply") else 1
        program.append((str(kind), [int(i) for i in rng.integers(0, size, arity)]))
        size += 1
    return rng.uniform(-1, 1, leaves), program


def built(values, program):
    """The engine graph of a random computation: (Graph, root)."""
    from engine import Tensor
    graph = Graph()
    nodes = [graph.add(Tensor(v)) for v in values]
    for kind, inputs in program:
        args = [nodes[i] for i in inputs]
        out = {"add": lambda a, b: a + b, "multiply": lambda a, b: a * b,
               "tanh": lambda a: (a * 0.5).tanh(), "exp": lambda a: (a * 0.1).exp()}[kind](*args)
        if kind in ("tanh", "exp"):          # the scaling multiply is a node too
            graph.add(out.parents[0])
        nodes.append(graph.add(out))
    return graph, nodes[-1]


def order_problem(got, what):
    """What is wrong with a sweep order, judged from the graph's structure alone."""
    if not isinstance(got, dict):
        return f"{what}: the run returned nothing to judge"
    parents, root, order = got["parents"], got["root"], got["order"]
    reachable, frontier = {root}, [root]
    while frontier:
        frontier = [p for n in frontier for p in parents[n] if p not in reachable]
        reachable.update(frontier)
    if -1 in order:
        return f"{what}: the order holds something that is not a node of the graph"
    if len(order) != len(set(order)):
        twice = next(n for n in order if order.count(n) > 1)
        return f"{what}: node {twice} appears {order.count(twice)} times"
    if set(order) != reachable:
        return (f"{what}: {len(reachable - set(order))} of the {len(reachable)} nodes "
                f"the root depends on are missing, {len(set(order) - reachable)} others "
                "are listed")
    if order[-1] != root:
        return f"{what}: the root must come last, it is at position {order.index(root)}"
    place = {n: k for k, n in enumerate(order)}
    for k, n in enumerate(order):
        late = [p for p in parents[n] if place[p] > k]
        if late:
            return (f"{what}: node {n} (position {k}) comes before its parent {late[0]} "
                    f"(position {place[late[0]]})")
    return None


@cases_of("topological_order")
def topological_order_cases(rng):
    def chain(length):
        def run(found):
            from engine import Tensor
            graph = Graph()
            node = graph.add(Tensor(0.5))
            for _ in range(length):
                node = graph.add(node * 1.0)
            return graph.structure(node, found.topological_order(node))
        return run

    def random(values, program):
        def run(found):
            graph, root = built(values, program)
            return graph.structure(root, found.topological_order(root))
        return run

    def lone(found):
        from engine import Tensor
        graph = Graph()
        leaf = graph.add(Tensor(1.0))
        return graph.structure(leaf, found.topological_order(leaf))

    made = [Case("a lone leaf", lone, lambda got: order_problem(got, "a lone leaf")),
            Case("a chain of 5 ops", chain(5), lambda got: order_problem(got, "a chain"))]
    for k, (leaves, ops) in enumerate([(2, 6), (3, 12), (4, 40), (1, 8)]):
        values, program = random_graph(rng, leaves, ops)
        label = f"random graph {k + 1} ({leaves} leaves, {ops} ops, nodes used repeatedly)"
        made.append(Case(label, random(values, program),
                         lambda got, label=label: order_problem(got, label)))
    made.append(Case("a chain of 20,000 ops (no recursion)", chain(20_000),
                     lambda got: order_problem(got, "a chain of 20,000 ops")))
    return made


def sweep_problem(got, values, program, seed, what):
    """The gradients a sweep left in the leaves, and what it yielded, against central
    differences of the same computation."""
    if not isinstance(got, dict):
        return f"{what}: the run returned nothing to judge"

    def loss(vector):
        _, root = built(vector, program)
        return float((root.data * seed).sum())
    expected = numerical_gradient(loss, values)
    yielded = got["yielded"]
    if len(yielded) != len(set(yielded)):
        return f"{what}: backpropagate yielded a node more than once"
    return all_of(is_array(got["grads"], f"{what}, leaf gradients"),
                  difference(f"{what}, d root / d leaf after backward()", got["grads"],
                             expected, rtol=1e-5, atol=1e-7),
                  difference(f"{what}, the gradients backpropagate yields for the leaves",
                             got["yielded_leaf_grads"], expected, rtol=1e-5, atol=1e-7))


@cases_of("backpropagate")
def backpropagate_cases(rng):
    def run_for(values, program, seed):
        def run(found):
            graph, root = built(values, program)
            leaves = graph.nodes[:len(values)]
            yielded = {id(node): g for node, g in found.backpropagate(root, seed)}
            number = {id(n): k for k, n in enumerate(graph.nodes)}
            root.backward()
            return {"grads": np.array([0.0 if leaf.grad is None else float(leaf.grad)
                                       for leaf in leaves]) * seed,
                    "yielded": [number.get(key, -1) for key in yielded],
                    "yielded_leaf_grads": np.array([float(np.asarray(yielded.get(id(leaf), 0.0)))
                                                    for leaf in leaves])}
        return run

    made = []
    for k, (leaves, ops) in enumerate([(1, 3), (2, 8), (3, 15), (2, 30), (4, 25)]):
        values, program = random_graph(rng, leaves, ops)
        seed = float(rng.choice([1.0, -0.5, 2.0]))
        label = f"random graph {k + 1} ({leaves} leaves, {ops} ops, nodes used repeatedly)"
        made.append(Case(label, run_for(values, program, seed),
                         lambda got, v=values, p=program, s=seed, label=label:
                         sweep_problem(got, v, p, s, label)))

    def accumulates(found):
        from engine import Tensor
        x = Tensor(np.array([1.0, -2.0]))
        (x * x).sum().backward()
        (x * x).sum().backward()
        return x.grad

    made.append(Case("two backward() calls add up", accumulates,
                     lambda got: difference("x.grad after backward() twice on sum(x * x)",
                                            got, 4 * np.array([1.0, -2.0]))))
    return made


def op_case(rng, name, numpy_forward, shapes, low=-2.0, high=2.0):
    """A case for a reader's op `name` (an Op): its forward on random inputs and each of its
    local rules called on arrays (against NumPy and central differences) and on Tensors (it
    must give a Tensor with the same values: chapter 10 records the rules)."""
    arrays = [rng.uniform(low, high, s) for s in shapes]
    g = rng.normal(size=np.shape(numpy_forward(*arrays)))

    def run(found):
        from engine import Tensor
        op = getattr(found, name)
        if op is None:
            raise NotImplementedError(f"{name} is still None")
        out = op(*[Tensor(a) for a in arrays]).data
        rules = [vjp(g, out, *arrays) for vjp in op.vjps]
        on_tensors = []
        for vjp in op.vjps:
            result = vjp(Tensor(g, requires_grad=False), Tensor(out, requires_grad=False),
                         *[Tensor(a) for a in arrays])
            on_tensors.append(result.data if isinstance(result, Tensor)
                              else f"a {type(result).__name__}, not a Tensor")
        return {"forward": out, "rules": rules, "on tensors": on_tensors}

    def judge(got):
        what = f"{name} on {' and '.join(map(str, shapes))}"
        if len(got["rules"]) != len(arrays):
            return f"{what}: {len(got['rules'])} local rules for {len(arrays)} inputs"
        problems = [difference(f"{what}, forward against np.{name}", got["forward"],
                               numpy_forward(*arrays))]
        for i, (rule, on_tensor) in enumerate(zip(got["rules"], got["on tensors"])):
            def loss(v, i=i):
                values = list(arrays)
                values[i] = v
                return float((numpy_forward(*values) * g).sum())
            expected = numerical_gradient(loss, arrays[i])
            problems.append(difference(f"{what}, rule for input {i}", rule, expected,
                                       rtol=1e-5, atol=1e-7))
            if isinstance(on_tensor, str):
                problems.append(f"{what}, rule for input {i} called with Tensors gave "
                                f"{on_tensor}: use the engine's ops, not NumPy's functions")
            else:
                problems.append(difference(f"{what}, rule for input {i} on Tensors",
                                           on_tensor, expected, rtol=1e-5, atol=1e-7))
        return all_of(*problems)
    return Case(f"{name} on {' and '.join(map(str, shapes))}"
                f"{' near ' + str(low) if low > 100 else ''}", run, judge)


@cases_of("sqrt")
def local_rules_cases(rng):
    return ([op_case(rng, "sqrt", np.sqrt, [s], low=0.5) for s in [(4,), (2, 3), ()]]
            + [op_case(rng, "hypot", np.hypot, [s, s]) for s in [(4,), (2, 3)]]
            + [op_case(rng, "logaddexp", np.logaddexp, [s, s]) for s in [(4,), (2, 3)]]
            + [op_case(rng, "logaddexp", np.logaddexp, [(4,), (4,)], low=799.0, high=801.0)])


# --- Chapter 2 -------------------------------------------------------------------------------

# no operand is broadcast against the other's batch axes (summing those back is unbroadcast's
# job, chapter 3), so the rules' results have their operand's shape
MATMUL_SHAPES = [((3, 3), (3, 3)), ((4, 3), (3, 2)), ((4,), (4,)), ((4,), (4, 3)),
                 ((3, 4), (4,)), ((2, 3, 4), (2, 4, 5)), ((1, 3), (3, 1)), ((2, 2, 3, 4),
                                                                            (2, 2, 4, 2))]


@cases_of("matmul_vjp_a")
def matmul_cases(rng):
    made = []
    for a_shape, b_shape in MATMUL_SHAPES:
        a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
        g = rng.normal(size=np.matmul(a, b).shape)

        def run(found, a=a, b=b, g=g):
            out = np.matmul(a, b)
            return [found.matmul_vjp_a(g, out, a, b), found.matmul_vjp_b(g, out, a, b)]

        def judge(got, a=a, b=b, g=g, label=f"{a_shape} @ {b_shape}"):
            da = numerical_gradient(lambda v: float((np.matmul(v, b) * g).sum()), a)
            db = numerical_gradient(lambda v: float((np.matmul(a, v) * g).sum()), b)
            return all_of(is_array(got[0], f"{label}, dL/dA"),
                          is_array(got[1], f"{label}, dL/dB"),
                          difference(f"{label}, dL/dA (matmul_vjp_a)", got[0], da),
                          difference(f"{label}, dL/dB (matmul_vjp_b)", got[1], db))
        made.append(Case(f"A @ B with A {a_shape}, B {b_shape}", run, judge))
    return made


# --- Chapter 3 -------------------------------------------------------------------------------

def broadcast_pair(rng):
    """(big, small): a shape and one that broadcasts to it, with axes added and stretched."""
    big = tuple(int(n) for n in rng.integers(2, 5, rng.integers(1, 5)))
    keep = int(rng.integers(0, len(big) + 1))
    small = tuple(1 if rng.random() < 0.4 else n for n in big[len(big) - keep:])
    return big, small


@cases_of("unbroadcast")
def unbroadcast_cases(rng):
    pairs = [((4, 3), (4, 3)), ((2, 4, 3), (3,)), ((2, 4, 3), (4, 1)), ((2, 4, 3), ()),
             ((2, 4, 3), (1, 1, 1))] + [broadcast_pair(rng) for _ in range(5)]
    made = []
    for big, small in pairs:
        g = rng.normal(size=big)
        probes = [rng.normal(size=small) for _ in range(2)]

        def judge(got, g=g, big=big, small=small, probes=probes):
            what = f"unbroadcast(g of shape {big}, {small})"
            if is_array(got, what):
                return is_array(got, what)
            if got.shape != small:
                return f"{what}: shape {got.shape}, expected {small}"
            for x in probes:   # <unbroadcast(g), x> = <g, x broadcast>: sums, nothing else
                expected = float((g * np.broadcast_to(x, big)).sum())
                problem = difference(f"{what}: <result, x> against <g, x broadcast to {big}>",
                                     float((got * x).sum()), expected, rtol=1e-10)
                if problem:
                    return problem
            return None
        made.append(Case(f"g of shape {big} back to {small}",
                         lambda found, g=g, small=small: found.unbroadcast(g, small), judge))
    return made


@cases_of("max_vjp")
def max_vjp_cases(rng):
    made = []
    for axis in [None, 0, 1, -1, (0, 2)]:
        for keepdims in (False, True):
            x = well_spread(rng, (2, 3, 4))
            out = np.max(x, axis=axis, keepdims=keepdims)
            g = rng.normal(size=np.shape(out))

            def judge(got, x=x, g=g, axis=axis, keepdims=keepdims):
                what = f"max over axis={axis}, keepdims={keepdims}"
                expected = numerical_gradient(
                    lambda v: float((np.max(v, axis=axis, keepdims=keepdims) * g).sum()), x)
                return all_of(is_array(got, what), difference(what, got, expected))
            made.append(Case(f"max over axis={axis}, keepdims={keepdims}",
                             lambda found, x=x, out=out, g=g, axis=axis, keepdims=keepdims:
                             found.max_vjp(g, out, x, axis=axis, keepdims=keepdims), judge))
    tied = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 3.0], [4.0, 4.0, 4.0]])
    g = rng.uniform(0.5, 2.0, 3)

    def tie_judge(got, g=g):
        what = "max over rows with ties: each row's gradient shared equally by its maxima"
        expected = np.array([[0, g[0] / 2, g[0] / 2], [g[1], 0, 0], [g[2] / 3] * 3])
        return all_of(is_array(got, what), difference(what, got, expected))
    made.append(Case("ties share the gradient equally", lambda found, g=g: found.max_vjp(
        g, tied.max(axis=1), tied, axis=1, keepdims=False), tie_judge))
    return made


@cases_of("scatter_add_forward")
def scatter_add_cases(rng):
    keys = [np.array([0, 2, 2, 1]), (slice(1, None), slice(None, None, 2)),
            np.array([3, 3, 3]), (np.array([0, 0, 4]), np.array([1, 1, 2])),
            rng.integers(0, 5, 7), rng.random((5, 3)) > 0.5, (Ellipsis, 1)]
    names = ["repeated rows", "slices", "one row thrice", "pairs with repeats",
             "random rows", "a random mask", "an ellipsis"]
    made = []
    for name, key in zip(names, keys):
        x_shape = (5, 3)
        g = rng.normal(size=np.zeros(x_shape)[key].shape)
        probes = [rng.normal(size=x_shape) for _ in range(2)]

        def judge(got, g=g, key=key, probes=probes, name=name):
            what = f"scatter_add_forward with {name}"
            if is_array(got, what):
                return is_array(got, what)
            if got.shape != (5, 3):
                return f"{what}: shape {got.shape}, expected (5, 3)"
            for x in probes:          # <scatter(g), x> = <g, x[key]>: it adds, every time
                problem = difference(f"{what}: <result, x> against <g, x[key]>",
                                     float((got * x).sum()), float((g * x[key]).sum()),
                                     rtol=1e-10)
                if problem:
                    return problem
            return None
        made.append(Case(f"key: {name}", lambda found, g=g, key=key:
                         found.scatter_add_forward(g, key, (5, 3)), judge))
    return made


# --- Chapter 4 -------------------------------------------------------------------------------

def torch_or_none():
    """PyTorch if it is installed (the second oracle), else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch


@cases_of("log_softmax_vjp")
def log_softmax_cases(rng):
    made = []
    for shape in [(4, 3), (2, 3, 5), (6,), (1, 7)]:
        x = rng.normal(size=shape) * 2
        out = x - x.max(axis=-1, keepdims=True)
        out = out - np.log(np.exp(out).sum(axis=-1, keepdims=True))
        g = rng.normal(size=shape)

        def judge(got, x=x, g=g, shape=shape):
            what = f"log_softmax's rule on shape {shape}"

            def loss(v):
                z = v - v.max(axis=-1, keepdims=True)
                return float(((z - np.log(np.exp(z).sum(axis=-1, keepdims=True))) * g).sum())
            problem = all_of(is_array(got, what),
                             difference(what, got, numerical_gradient(loss, x)))
            torch = torch_or_none()
            if problem or torch is None:
                return problem
            witness = torch.tensor(x, requires_grad=True)
            (witness.log_softmax(-1) * torch.tensor(g)).sum().backward()
            return difference(f"{what}, against PyTorch", got, witness.grad.numpy(),
                              rtol=1e-12, atol=1e-14)
        made.append(Case(f"shape {shape}", lambda found, x=x, out=out, g=g:
                         found.log_softmax_vjp(g, out, x), judge))
    return made


@cases_of("nll_vjp")
def nll_cases(rng):
    made = []
    for n, classes in [(4, 3), (1, 5), (7, 2), (6, 6)]:
        log_probs = -rng.uniform(0.1, 3.0, (n, classes))
        targets = rng.integers(0, classes, n)
        out = -log_probs[np.arange(n), targets].mean()
        g = float(rng.uniform(0.5, 2.0))

        def judge(got, log_probs=log_probs, targets=targets, g=g, n=n, classes=classes):
            what = f"nll's rule for {n} rows of {classes} classes"

            def loss(v):
                return g * float(-v[np.arange(len(targets)), targets].mean())
            return all_of(is_array(got, what),
                          difference(what, got, numerical_gradient(loss, log_probs)))
        made.append(Case(f"{n} rows, {classes} classes",
                         lambda found, lp=log_probs, t=targets, out=out, g=g:
                         found.nll_vjp(np.float64(g), out, lp, targets=t), judge))
    return made


# --- Chapter 6 -------------------------------------------------------------------------------

@cases_of("graph_stats")
def graph_stats_cases(rng):
    def stats_run(values, program):
        def run(found):
            graph, root = built(values, program)
            stats = found.graph_stats(root)
            number = {id(node): k for k, node in enumerate(graph.nodes)}
            if not isinstance(stats, dict):
                return {"not a dict": type(stats).__name__}
            reported = dict(stats)
            if isinstance(stats.get("uses"), dict):
                reported["uses"] = {str(number.get(key, -1)): count
                                    for key, count in stats["uses"].items()}
            return {key: reported[key] for key in ("nodes", "edges", "depth", "uses")
                    if key in reported}
        return run

    def judge_for(values, program, what):
        def judge(got):
            from course.exercises import counted_stats
            graph, root = built(values, program)
            expected = counted_stats(root)
            number = {id(node): k for k, node in enumerate(graph.nodes)}
            expected["uses"] = {str(number[key]): n for key, n in expected["uses"].items()}
            if set(got) != set(expected):
                return f"{what}: expected a dict with keys {sorted(expected)}, got {got}"
            for fact in ("nodes", "edges", "depth", "uses"):
                if got[fact] != expected[fact]:
                    return f"{what}: {fact}: got {got[fact]}, expected {expected[fact]}"
            return None
        return judge

    made = []
    for k, (leaves, ops) in enumerate([(1, 0), (1, 1), (2, 6), (3, 20), (2, 3000)]):
        values, program = random_graph(rng, leaves, ops)
        label = f"random graph {k + 1} ({leaves} leaves, {ops} ops)"
        made.append(Case(label, stats_run(values, program), judge_for(values, program, label)))
    return made


# --- Chapters 5 and 7: optimisers, pinned to torch.optim -------------------------------------

def sparse_gradients(rng, shapes, steps):
    """Gradients for some steps of an optimiser: now and then a parameter gets none (None),
    as when it took no part in a step's loss."""
    return [[None if (t % 3 == 1 and i == 1) else
             rng.normal(size=s) * float(rng.choice([1e-3, 1.0, 50.0]))
             for i, s in enumerate(shapes)] for t in range(steps)]


def optimiser_case(rng, make, witness, label, steps=6, shapes=((3, 2), (4,)), skips=False):
    """A case that runs the student's optimiser `make(found, params)` for some steps on given
    gradients and compares every parameter after every step with the PyTorch optimiser
    `witness(torch, params)`; with skips, some parameters get no gradient on some steps."""
    start = [rng.normal(size=s) for s in shapes]
    grads = (sparse_gradients(rng, shapes, steps) if skips else
             [[rng.normal(size=s) * float(rng.choice([1e-3, 1.0, 50.0])) for s in shapes]
              for _ in range(steps)])

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
                problem = difference(f"{label}, parameter {i} after step {t + 1}", got[t][i],
                                     p.detach().numpy(), rtol=1e-10, atol=1e-12)
                if problem:
                    return problem
        return None
    return Case(label, run, judge)


def optimiser_cases(rng, name, torch_name, settings, with_skips=None):
    """One case per setting of the student's optimiser `name` against torch.optim's
    `torch_name`, and, with `with_skips` (a setting), one in which a parameter misses its
    gradient now and then."""
    def case(s, label, **options):
        return optimiser_case(
            rng, lambda found, params: getattr(found, name)(params, **s),
            lambda torch, params: getattr(torch.optim, torch_name)(params, **s),
            label, **options)

    def written(s):
        return f"{name}({', '.join(f'{k}={v}' for k, v in s.items())})"

    made = [case(s, written(s)) for s in settings]
    if with_skips is not None:
        made.append(case(with_skips, f"{written(with_skips)}, a parameter without gradient "
                                     "now and then", steps=8, skips=True))
    return made


@cases_of("Adam.step")
def adam_cases(rng):
    return optimiser_cases(
        rng, "Adam", "Adam",
        [dict(lr=1e-3), dict(lr=0.1, betas=(0.8, 0.99)), dict(lr=0.05, eps=1e-3),
         dict(lr=0.01, betas=(0.0, 0.9))])


@cases_of("Momentum")
def momentum_cases(rng):
    return optimiser_cases(
        rng, "Momentum", "SGD",
        [dict(lr=0.1, momentum=0.9), dict(lr=0.01, momentum=0.5),
         dict(lr=0.3, momentum=0.0), dict(lr=0.05, momentum=0.99)],
        dict(lr=0.1, momentum=0.9))


@cases_of("AdamW")
def adamw_cases(rng):
    return optimiser_cases(
        rng, "AdamW", "AdamW",
        [dict(lr=1e-3, weight_decay=1e-2), dict(lr=0.1, weight_decay=0.5),
         dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1), dict(lr=0.01, weight_decay=0.0)],
        dict(lr=0.1, weight_decay=0.1))


# --- Chapter 8 -------------------------------------------------------------------------------

@cases_of("ModeBlock.__enter__")
def mode_cases(rng):
    def constants(found):
        from engine import Tensor
        w = Tensor([1.0, 2.0])
        with found.no_grad():
            y = (w * 3.0).exp()
        z = y * w
        return {"op": y.op is None, "parents": y.parents == (), "requires_grad": y.requires_grad,
                "after": z.op is not None and z.requires_grad}

    def nesting(found):
        from engine import Tensor
        from engine.core import modes
        outside = modes.current
        with found.no_grad():
            with found.no_grad():
                inner = (Tensor(1.0) * 2.0).op is None
            between = (Tensor(1.0) * 2.0).op is None
        return {"inner": inner, "between": between, "after": (Tensor(1.0) * 2.0).op is not None,
                "restored": modes.current is outside}

    def error(found):
        from engine import Tensor
        from engine.core import modes
        outside = modes.current
        try:
            with found.no_grad():
                raise KeyError("inside the block")
        except KeyError:
            pass
        return {"restored": modes.current is outside,
                "records": (Tensor(1.0) * 2.0).op is not None}

    def threads(found):
        import threading
        from engine import Tensor
        inside, done, seen = threading.Event(), threading.Event(), {}

        def evaluate():
            with found.no_grad():
                inside.set()
                done.wait(10)
                seen["worker"] = (Tensor(1.0) * 2.0).op is None

        worker = threading.Thread(target=evaluate)
        worker.start()
        inside.wait(10)
        seen["main"] = (Tensor(1.0) * 2.0).op is not None
        done.set()
        worker.join()
        return seen

    def expect(what, wanted):
        def judge(got):
            wrong = [key for key, value in wanted.items() if got.get(key) != value]
            return f"{what}: wrong for {', '.join(wrong)} (got {got})" if wrong else None
        return judge

    return [Case("a result computed inside no_grad is a constant", constants,
                 expect("inside no_grad", {"op": True, "parents": True, "requires_grad": False,
                                           "after": True})),
            Case("blocks nest: the inner one restores what it found", nesting,
                 expect("nested no_grad", {"inner": True, "between": True, "after": True,
                                           "restored": True})),
            Case("an exception inside the block restores the mode", error,
                 expect("after an exception", {"restored": True, "records": True})),
            Case("another thread keeps recording", threads,
                 expect("two threads", {"worker": True, "main": True}))]


# --- Chapter 9 -------------------------------------------------------------------------------

def directional(f, arrays, us):
    """J u by central differences, f on NumPy arrays: the course's oracle (engine.check)."""
    from course.verification import directional_derivative
    return directional_derivative(f, arrays, us)


def jvp_case(rng, label, engine_f, numpy_f, shapes, k=None, low=-2.0, high=2.0):
    """A case: engine.jvp of engine_f (k directions at once if k is given) against central
    differences of numpy_f along the same directions."""
    arrays = [rng.uniform(low, high, s) for s in shapes]
    directions = [rng.normal(size=((k,) if k else ()) + s) for s in shapes]

    def run(found):
        from engine import jvp
        return jvp(engine_f, arrays, directions, batched=k is not None)

    def judge(got):
        value, tangent = got
        if k is None:
            expected = directional(numpy_f, arrays, directions)
        else:
            expected = np.stack([directional(numpy_f, arrays, [d[j] for d in directions])
                                 for j in range(k)])
        return all_of(difference(f"{label}, value", value, numpy_f(*arrays)),
                      difference(f"{label}, tangent", tangent, expected, rtol=1e-5,
                                 atol=1e-7))
    return Case(label, run, judge)


@cases_of("forward_rule")
def forward_rule_cases(rng):
    def no_rule(found):
        from engine import Op, jvp
        cos = Op("cos", np.cos, lambda g, out, x: -g * np.sin(x))
        try:
            jvp(lambda x: cos(x), (np.ones(3),), (np.ones(3),))
        except NotImplementedError as error:
            return "cos" in str(error)
        return "no error"

    return [jvp_case(rng, "tanh(x) * x", lambda x: x.tanh() * x, lambda x: np.tanh(x) * x,
                     [(5,)]),
            jvp_case(rng, "x * y, broadcast", lambda x, y: x * y, lambda x, y: x * y,
                     [(4, 3), (3,)]),
            jvp_case(rng, "x / y - exp(x)", lambda x, y: x / y - x.exp(),
                     lambda x, y: x / y - np.exp(x), [(2, 3), (2, 3)], low=0.5),
            jvp_case(rng, "sigmoid(x) ** 3, 4 directions", lambda x: x.sigmoid() ** 3,
                     lambda x: (1 / (1 + np.exp(-x))) ** 3, [(3, 2)], k=4),
            jvp_case(rng, "log(x) + relu(y), 3 directions", lambda x, y: x.log() + y.relu(),
                     lambda x, y: np.log(x) + np.maximum(y, 0), [(4,), ()], k=3, low=0.5),
            Case("an op that declares no forward rule is refused by name", no_rule,
                 lambda got: None if got is True else
                 f"jvp through an op with no rule and not elementwise: expected a "
                 f"NotImplementedError naming the op, got {got!r}")]


def per_direction(function, t, other, first):
    """function applied direction by direction: the oracle of the batched matmul rules."""
    return np.stack([function(tj, other) if first else function(other, tj) for tj in t])


@cases_of("tangents_times")
def matmul_rule_cases(rng):
    made = []
    shapes = [((3, 4), (4, 2)), ((4,), (4, 3)), ((3, 4), (4,)), ((4,), (4,)),
              ((2, 3, 4), (2, 4, 5)), ((4,), (2, 4, 3)), ((3, 4), (2, 4, 5)),
              ((2, 3, 4), (4, 5))]
    for a_shape, b_shape in shapes:
        for k in (1, 3):
            a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
            ta, tb = rng.normal(size=(k,) + a_shape), rng.normal(size=(k,) + b_shape)

            def run(found, a=a, b=b, ta=ta, tb=tb):
                return [found.tangents_times(ta, b), found.times_tangents(a, tb)]

            def judge(got, a=a, b=b, ta=ta, tb=tb, label=f"{a_shape} @ {b_shape}, k={k}"):
                return all_of(
                    difference(f"{label}, tangents_times (dA B)", got[0],
                               per_direction(np.matmul, ta, b, True)),
                    difference(f"{label}, times_tangents (A dB)", got[1],
                               per_direction(np.matmul, tb, a, False)))
            made.append(Case(f"A {a_shape} @ B {b_shape}, {k} direction{'s' * (k > 1)}",
                             run, judge))
    return made


@cases_of("max_jvp")
def max_jvp_cases(rng):
    made = []
    for axis in [None, 0, 1, -1, (0, 2)]:
        for keepdims in (False, True):
            x = well_spread(rng, (2, 3, 4))
            u = rng.normal(size=(2, 3, 4))

            def run(found, x=x, u=u, axis=axis, keepdims=keepdims):
                from engine import jvp
                return jvp(lambda t: t.max(axis=axis, keepdims=keepdims), (x,), (u,))[1]

            def judge(got, x=x, u=u, axis=axis, keepdims=keepdims):
                expected = directional(lambda v: np.max(v, axis=axis, keepdims=keepdims),
                                       [x], [u])
                return difference(f"max over axis={axis}, keepdims={keepdims}", got, expected,
                                  rtol=1e-5, atol=1e-7)
            made.append(Case(f"max over axis={axis}, keepdims={keepdims}", run, judge))
    tied = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 3.0], [4.0, 4.0, 4.0]])
    u = rng.normal(size=(3, 3))

    def tie_run(found):
        from engine import jvp
        return jvp(lambda t: t.max(axis=1), (tied,), (u,))[1]

    expected = np.array([(u[0, 1] + u[0, 2]) / 2, u[1, 0], u[2].mean()])
    made.append(Case("ties share the tangent equally", tie_run,
                     lambda got: difference("max over rows with ties", got, expected)))
    return made


# --- Chapter 10 ------------------------------------------------------------------------------

@cases_of("grad")
def grad_cases(rng):
    x0 = rng.uniform(-2, 2, 5)

    def derivatives(found):
        from engine import Tensor
        x = Tensor(x0)
        (first,) = found.grad(x.tanh().sum(), [x], create_graph=True)
        (second,) = found.grad(first.sum(), [x], create_graph=True)
        (third,) = found.grad(second.sum(), [x])
        return [first.data, second.data, third]

    def judge(got):
        t = np.tanh(x0)
        exact = [1 - t ** 2, -2 * t * (1 - t ** 2), -2 * (1 - t ** 2) * (1 - 3 * t ** 2)]
        return all_of(*[difference(f"derivative {k + 1} of tanh", g, e, rtol=1e-12,
                                   atol=1e-14) for k, (g, e) in enumerate(zip(got, exact))])

    def leaves_alone(found):
        from engine import Tensor
        x, unused = Tensor(x0), Tensor(np.ones(2))
        gx, gu = found.grad((x * x).sum(), [x, unused])
        return {"x.grad untouched": x.grad is None, "gx": gx, "unused": gu,
                "arrays": isinstance(gx, np.ndarray) and isinstance(gu, np.ndarray)}

    def judge_alone(got):
        if not got["x.grad untouched"]:
            return "grad() wrote into x.grad: it must leave every .grad as it was"
        if not got["arrays"]:
            return "without create_graph, grad() must return arrays"
        return all_of(difference("d sum(x²)/dx", got["gx"], 2 * x0),
                      difference("an input the output does not depend on", got["unused"],
                                 np.zeros(2)))

    def mixed(found):
        from engine import Tensor
        x, y = Tensor(x0[:3]), Tensor(x0[3:4])
        (gx,) = found.grad((x * y).sum() * y, [x], create_graph=True)
        (gy,) = found.grad(gx.sum(), [y])
        return gy

    return [Case("three derivatives of tanh, each from the last", derivatives, judge),
            Case("grad leaves .grad alone and gives zeros for an unused input",
                 leaves_alone, judge_alone),
            Case("a mixed second derivative", mixed,
                 lambda got: difference("d/dy of sum(d(sum(x y) y)/dx)", got,
                                        [2 * 3 * x0[3]]))]


@cases_of("gauss_newton_product")
def gauss_newton_cases(rng):
    made = []
    for n, m in [(3, 4), (5, 2), (4, 4)]:
        x0, v0 = rng.normal(size=n), rng.normal(size=n)
        W = rng.normal(size=(m, n))
        target = rng.normal(size=m)

        def model(x, W=W):
            return (x @ W.T).tanh()

        def loss(y, target=target):
            return ((y - target) ** 2).sum() + (y ** 4).sum() * 0.1

        def run(found, model=model, loss=loss, x0=x0, v0=v0):
            return found.gauss_newton_product(model, loss, x0, v0)

        def judge(got, x0=x0, v0=v0, W=W, target=target, n=n, m=m):
            import torch
            Wt, tt = torch.tensor(W), torch.tensor(target)
            J = torch.func.jacrev(lambda x: torch.tanh(x @ Wt.T))(torch.tensor(x0))
            y = torch.tanh(torch.tensor(x0) @ Wt.T)
            H = torch.func.hessian(lambda y: ((y - tt) ** 2).sum() + 0.1 * (y ** 4).sum())(y)
            expected = (J.T @ H @ J @ torch.tensor(v0)).numpy()
            return difference(f"Gauss-Newton product, {n} inputs, {m} outputs", got, expected,
                              rtol=1e-10, atol=1e-12)
        made.append(Case(f"tanh(W x) with {n} inputs and {m} outputs", run, judge))
    return made


# --- Chapter 11 ------------------------------------------------------------------------------

@cases_of("avg_pool2d_forward")
def avg_pool_cases(rng):
    made = []
    for shape, size in [((2, 3, 4, 6), 2), ((1, 2, 6, 6), 3), ((3, 4, 4), 2), ((1, 1, 5, 5), 5),
                        ((2, 1, 4, 4), 1)]:
        x = rng.normal(size=shape)
        out_shape = shape[:-2] + (shape[-2] // size, shape[-1] // size)
        g = rng.normal(size=out_shape)
        u = rng.normal(size=shape)

        def run(found, x=x, g=g, u=u, size=size):
            from engine import Tensor, jvp
            t = Tensor(x)
            out = found.avg_pool2d(t, size)
            (out * g).sum().backward()
            tangent = jvp(lambda v: found.avg_pool2d(v, size), (x,), (u,))[1]
            return [out.data, t.grad, tangent]

        def judge(got, x=x, g=g, u=u, size=size, shape=shape):
            import torch
            what = f"avg_pool2d of shape {shape}, size {size}"
            witness = torch.tensor(x, requires_grad=True)
            expected = torch.nn.functional.avg_pool2d(witness, size)
            (expected * torch.tensor(g)).sum().backward()
            _, tangent = torch.func.jvp(lambda v: torch.nn.functional.avg_pool2d(v, size),
                                        (torch.tensor(x),), (torch.tensor(u),))
            return all_of(difference(f"{what}, value", got[0], expected.detach().numpy()),
                          difference(f"{what}, gradient", got[1], witness.grad.numpy()),
                          difference(f"{what}, forward mode", got[2], tangent.numpy()))
        made.append(Case(f"shape {shape}, size {size}", run, judge))

    def second_order(found):
        from engine import Tensor, grad
        x = Tensor(rng_x)
        (first,) = grad((found.avg_pool2d(x, 2) ** 2).sum(), [x], create_graph=True)
        return grad((first * first).sum(), [x])[0]

    rng_x = rng.normal(size=(1, 1, 4, 4))

    def judge_second(got):
        import torch
        x = torch.tensor(rng_x, requires_grad=True)
        first, = torch.autograd.grad((torch.nn.functional.avg_pool2d(x, 2) ** 2).sum(), [x],
                                     create_graph=True)
        expected, = torch.autograd.grad((first * first).sum(), [x])
        return difference("second derivatives through avg_pool2d", got, expected.numpy())
    made.append(Case("its rule runs on Tensors: second derivatives", second_order, judge_second))
    return made


# --- Chapter 12 ------------------------------------------------------------------------------

@cases_of("two_level")
def two_level_cases(rng):
    made = []
    for depth, k in [(16, 2), (64, 4), (27, 3)]:
        width = 3
        X = rng.normal(size=(5, width))
        params = [rng.normal(size=s) * 0.5 for _ in range(depth)
                  for s in [(width, width), (width,)]]

        def run(found, X=X, params=params, k=k):
            from engine import ArrayCensus, Tensor, grad
            from engine.nn import linear

            def blocks(h, *ps):
                for W, b in zip(ps[::2], ps[1::2]):
                    h = h + linear(h, W, b).tanh()
                return h
            tensors = [Tensor(p) for p in params]
            with ArrayCensus() as census:
                loss = (found.two_level(Tensor(X, requires_grad=False), tensors, k) ** 2).mean()
                gradients = grad(loss, tensors)
            plain = grad((blocks(Tensor(X, requires_grad=False), *tensors) ** 2).mean(),
                         tensors)
            return {"gradients": gradients, "plain": plain, "peak": census.peak}

        def judge(got, depth=depth, k=k):
            what = f"depth {depth}, k = {k}"
            for i, (a, b) in enumerate(zip(got["gradients"], got["plain"])):
                problem = difference(f"{what}, gradient of parameter {i}", a, b, rtol=1e-12,
                                     atol=1e-14)
                if problem:
                    return problem
            # outer boundaries + inner boundaries + one inner segment (3 arrays a block) +
            # the loss's 3; the plain sweep keeps 3 arrays a block
            bound = depth // (k * k) + k + 3 * k + 3 + 2
            if got["peak"] > bound:
                return (f"{what}: {got['peak']} arrays alive at the peak; two levels of "
                        f"segments of {k} blocks need at most about {bound}")
            return None
        made.append(Case(f"depth {depth}, segments of {k} blocks in segments of {k * k}", run,
                         judge))
    return made


# --- Chapter 8 (continued) -------------------------------------------------------------------

@cases_of("OpCounter")
def op_counter_cases(rng):
    X = rng.normal(size=(5, 2))
    targets = rng.integers(0, 3, 5)

    def mlp_loss(found):
        from engine import MLP, cross_entropy
        net = MLP([2, 4, 3], seed=0)
        with found.OpCounter() as counter:
            loss = cross_entropy(net(X), targets)
        return {"counts": counter.counts, "recorded": loss.op is not None}

    def inside_no_grad(found):
        from engine import MLP, no_grad
        from engine.core import modes
        net, outside = MLP([2, 4, 3], seed=0), modes.current
        with no_grad():
            with found.OpCounter() as counter:
                out = net(X)
        return {"counts": counter.counts, "recorded": out.op is not None,
                "restored": modes.current is outside}

    def after_error(found):
        from engine import Tensor
        from engine.core import modes
        outside = modes.current
        try:
            with found.OpCounter() as counter:
                (Tensor(1.0) * 2.0).exp()
                raise KeyError("inside the block")
        except KeyError:
            pass
        after = (Tensor(1.0) * 2.0).op is not None
        return {"counts": counter.counts, "restored": modes.current is outside,
                "recorded": after}

    def two_threads(found):
        import threading
        from engine import Tensor
        inside, done = threading.Event(), threading.Event()

        def other():
            inside.wait(10)
            for _ in range(7):
                Tensor(1.0).tanh()
            done.set()

        worker = threading.Thread(target=other)
        worker.start()
        with found.OpCounter() as counter:
            inside.set()
            done.wait(10)
            Tensor(2.0) * 3.0
        worker.join()
        return {"counts": counter.counts}

    def expect(what, counts, **facts):
        def judge(got):
            if got.get("counts") != counts:
                return f"{what}: counts {got.get('counts')}, expected {counts}"
            wrong = [k for k, v in facts.items() if got.get(k) != v]
            return f"{what}: {', '.join(wrong)} should be {[facts[k] for k in wrong]}" \
                if wrong else None
        return judge

    return [Case("the ops of an MLP's loss", mlp_loss,
                 expect("an MLP's loss", {"linear": 2, "relu": 1, "cross_entropy": 1},
                        recorded=True)),
            Case("inside no_grad: counted, and still not recorded", inside_no_grad,
                 expect("inside no_grad", {"linear": 2, "relu": 1}, recorded=False,
                        restored=True)),
            Case("an error inside the block", after_error,
                 expect("after an error", {"multiply": 1, "exp": 1}, restored=True,
                        recorded=True)),
            Case("another thread's ops are not counted", two_threads,
                 expect("two threads", {"multiply": 1}))]


# --- Chapter 4 (continued) -------------------------------------------------------------------

@cases_of("directional_check")
def directional_check_cases(rng):
    def counted(f, calls):
        def wrapped(*args):
            calls.append(1)
            return f(*args)
        return wrapped

    def correct_run(name, f, shapes, low=-2.0, high=2.0):
        arrays = [rng.uniform(low, high, s) for s in shapes]
        seed = int(rng.integers(0, 1000))

        def run(found):
            calls = []
            error = found.directional_check(counted(f, calls), arrays, seed=seed)
            return {"error": float(error), "calls": len(calls)}

        def judge(got):
            if got["calls"] > 3:
                return f"{name}: f was called {got['calls']} times, at most 3 are needed"
            if not got["error"] <= 1e-6:
                return (f"{name}: a correct gradient gave a relative error of "
                        f"{got['error']:.1e}, above 1e-6")
            return None
        return Case(f"a correct gradient: {name}", run, judge)

    def bug_run(bug, name, f, shapes):
        arrays = [rng.uniform(-2, 2, s) for s in shapes]

        def run(found):
            from course.museum import planted
            unplanted = float(found.directional_check(f, arrays, seed=1))
            with planted(bug):
                try:
                    error = float(found.directional_check(f, arrays, seed=1))
                except Exception as raised:         # a crash reports the bug too
                    return {"unplanted": unplanted, "raised": type(raised).__name__}
            return {"unplanted": unplanted, "error": error}

        def judge(got):
            if not got["unplanted"] <= 1e-6:
                return (f"{name} without a bug gave a relative error of "
                        f"{got['unplanted']:.1e}: a check must pass a correct gradient "
                        "before its alarms count")
            if "raised" in got or got["error"] > 1e-3:
                return None
            return (f"with the museum's '{bug}' planted, {name} gave a relative error of "
                    f"{got['error']:.1e}: the bug went unreported")
        return Case(f"the bug '{bug}' on {name}", run, judge)

    return [correct_run("tanh(x) * y", lambda x, y: x.tanh() * y, [(3, 4), (4,)]),
            correct_run("A @ B", lambda a, b: a @ b, [(3, 4), (4, 2)]),
            correct_run("log_softmax(x), sum over rows", lambda x: log_softmax_of(x).sum(axis=0),
                        [(4, 3)]),
            correct_run("x * x, a reused node", lambda x: x * x, [(5,)]),
            correct_run("an input that does not matter", lambda x, y: x.exp(), [(3,), (2,)]),
            bug_run("missing transpose", "A @ B, square", lambda a, b: a @ b, [(3, 3), (3, 3)]),
            bug_run("forgotten unbroadcast", "x + b, b broadcast", lambda x, b: x + b,
                    [(4, 3), (3,)]),
            bug_run("assigned, not accumulated", "x * x", lambda x: x * x, [(4,)]),
            bug_run("order that does not wait", "tanh(x) * x", lambda x: x.tanh() * x, [(4,)])]


def log_softmax_of(x):
    """The engine's log_softmax, imported when a run needs it."""
    from engine.nn import log_softmax
    return log_softmax(x)


# --- Chapter 13 ------------------------------------------------------------------------------

HIDDEN = -1e4     # a mask entry this negative (or -inf) leaves exp(score + entry) at 0


def mask_problem(mask, T, scores):
    """What is wrong with a causal mask for T positions, in words (None if nothing): its
    shape and dtype, the usual slips by name, then what a softmax of `scores` + mask does."""
    what = f"causal_mask({T})"
    if not isinstance(mask, np.ndarray):
        return f"{what}: expected an array of shape ({T}, {T}), got {type(mask).__name__}"
    if mask.shape != (T, T):
        return f"{what}: shape {mask.shape}, expected ({T}, {T})"
    if mask.dtype.kind != "f":
        return (f"{what}: an array of {mask.dtype} cannot hold -inf: make a float array, "
                "such as np.full((T, T), -np.inf)")
    if np.isnan(mask).any():
        return f"{what}: it holds NaN at {tuple(int(i) for i in np.argwhere(np.isnan(mask))[0])}"
    if (mask == np.inf).any():
        i, j = np.argwhere(mask == np.inf)[0]
        return (f"{what}: entry ({i}, {j}) is +inf, the wrong sign: a masked score must get "
                "-inf added, so that exp gives 0")
    allowed, diagonal = np.tri(T, dtype=bool), np.eye(T, dtype=bool)
    hidden = mask <= HIDDEN
    strictly_below = allowed & ~diagonal
    if T > 1 and hidden[strictly_below].all() and not hidden[~allowed].any():
        return (f"{what}: the mask is below the diagonal: position i sees the positions "
                "after it and none before it (np.tril where np.triu is meant, or the mask "
                "transposed)")
    if hidden[diagonal].any():
        i = int(np.argmax(hidden[diagonal]))
        blind = hidden[i, :i + 1].all()
        return (f"{what}: the diagonal is masked: position {i} does not see itself"
                + (f", and row {i} has no entry left, so its softmax is NaN "
                   "(-inf minus -inf)" if blind else "")
                + ": use np.triu(..., k=1), which leaves the diagonal at 0, not k=0")
    if (mask[allowed] == 1).all() and (mask[~allowed] == 0).all():
        return (f"{what}: a 0/1 mask (1 where allowed) added to the scores hides "
                "nothing: it only tilts the weights (by a factor e) towards the allowed "
                "positions. An additive mask holds 0 where a position may attend and -inf "
                "where not (a 0/1 mask is for np.where or masked_fill)")
    superdiagonal = np.eye(T, k=1, dtype=bool)
    if T > 2 and not hidden[superdiagonal].any() and hidden[~allowed & ~superdiagonal].all():
        return (f"{what}: position i sees position i + 1, the character it has to predict: "
                "the mask starts one diagonal too far up (np.triu(..., k=2) instead of k=1)")
    if hidden[allowed].any():
        i, j = np.argwhere(hidden & allowed)[0]
        return (f"{what}: position {i} does not see position {j} <= {i}: "
                f"{int((hidden & allowed).sum())} entries on or below the diagonal hide "
                "the past")
    if (mask[allowed] != 0).any():
        i, j = np.argwhere(allowed & (mask != 0))[0]
        return (f"{what}: entry ({i}, {j}) is {mask[i, j]:g}, but j <= i may be attended "
                "to: an allowed score must get 0 added")
    if not hidden[~allowed].all():
        i, j = np.argwhere(~allowed & ~hidden)[0]
        if mask[i, j] == 0:
            return (f"{what}: entry ({i}, {j}) is 0, so position {i} sees position {j}, "
                    f"which comes after it: {int((~allowed & ~hidden).sum())} entries "
                    "above the diagonal hide nothing; they must be -inf")
        return (f"{what}: entry ({i}, {j}) is {mask[i, j]:g}, too weak to hide position "
                f"{j} from position {i}: exp({mask[i, j]:g}) is not small, so the future "
                f"leaks into the weights; use -inf above the diagonal")
    shifted = scores + mask
    weights = np.exp(shifted - shifted.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    if (np.triu(weights, 1) != 0).any() or not np.allclose(weights.sum(axis=-1), 1):
        return f"{what}: the softmax of scores plus this mask still weights the future"
    return None


@cases_of("causal_mask")
def causal_mask_cases(rng):
    made = []
    sizes = [1, 2, 3] + sorted(int(T) for T in rng.choice(np.arange(4, 15), 3,
                                                           replace=False))
    for T in sizes:
        scores = rng.normal(size=(T, T)) * 3

        def run(found, T=T):
            return np.asarray(found.causal_mask(T))

        made.append(Case(f"T = {T}", run, lambda got, T=T, scores=scores:
                         mask_problem(got, T, scores)))

    def fresh(found):
        first = np.asarray(found.causal_mask(4))
        second = np.asarray(found.causal_mask(4))
        return {"same": bool(np.array_equal(first, second)),
                "separate": not np.shares_memory(first, second)}

    made.append(Case("two calls give equal, separate arrays", fresh, lambda got: None
                     if got["same"] and got["separate"] else
                     "causal_mask(4) twice: the two masks differ, or they are one array "
                     "(a caller that edits one would change the other)"))
    return made
