"""The checks of chapter 1, the tape (T1 to T3): the order of the backward sweep on
random graphs whose nodes are used repeatedly, judged from the graph's structure alone;
the sweep's gradients against central differences of the same computation; and three ops
of the reader's own, each forward against NumPy and each local rule against central
differences, on arrays and on Tensors."""

import numpy as np

from autograder.checks.toolkit import (
    all_of,
    built,
    Case,
    cases_of,
    CENTRAL,
    chain_structure,
    difference,
    Graph,
    is_array,
    numerical_gradient,
    random_graphs,
    structure_of,
)


def order_problem(got, what, structure):
    """What is wrong with a sweep order (node numbers), judged from the graph's
    structure alone: (parents, root), known from the program that built the graph."""
    parents, root = structure
    if not isinstance(got, list) or not all(type(n) is int for n in got):
        return f"{what}: the run returned no list of nodes to judge"
    order = got
    if any(not 0 <= n < len(parents) for n in order):
        return f"{what}: the order holds something that is not a node of the graph"
    reachable, frontier = {root}, [root]
    while frontier:
        frontier = [p for n in frontier for p in parents[n] if p not in reachable]
        reachable.update(frontier)
    if len(order) != len(set(order)):
        twice = next(n for n in order if order.count(n) > 1)
        return f"{what}: node {twice} appears {order.count(twice)} times"
    if set(order) != reachable:
        return (
            f"{what}: {len(reachable - set(order))} of the {len(reachable)} nodes "
            f"the root depends on are missing, {len(set(order) - reachable)} others "
            "are listed"
        )
    if order[-1] != root:
        return f"{what}: the root must come last, it is at position {order.index(root)}"
    place = {n: k for k, n in enumerate(order)}
    for k, n in enumerate(order):
        late = [p for p in parents[n] if place[p] > k]
        if late:
            return (
                f"{what}: node {n} (position {k}) comes before its parent {late[0]} "
                f"(position {place[late[0]]})"
            )
    return None


@cases_of("topological_order")
def topological_order_cases(rng):
    """T1: a lone leaf, chains (one of 20,000 ops, too deep for recursion) and random
    graphs, each order judged by order_problem."""

    def chain(length):
        def run(found):
            from engine import Tensor

            graph = Graph()
            node = graph.add(Tensor(0.5))
            for _ in range(length):
                node = graph.add(node * 1.0)
            return graph.numbered(found.topological_order(node))

        return run

    def random(values, program):
        def run(found):
            graph, root = built(values, program)
            return graph.numbered(found.topological_order(root))

        return run

    def lone(found):
        from engine import Tensor

        graph = Graph()
        leaf = graph.add(Tensor(1.0))
        return graph.numbered(found.topological_order(leaf))

    made = [
        Case(
            "a lone leaf",
            lone,
            lambda got: order_problem(got, "a lone leaf", chain_structure(0)),
        ),
        Case(
            "a chain of 5 ops",
            chain(5),
            lambda got: order_problem(got, "a chain", chain_structure(5)),
        ),
    ]
    for label, values, program in random_graphs(
        rng, [(2, 6), (3, 12), (4, 40), (1, 8)]
    ):
        structure = structure_of(len(values), program)
        made.append(
            Case(
                label,
                random(values, program),
                lambda got, label=label, s=structure: order_problem(got, label, s),
            )
        )
    made.append(
        Case(
            "a chain of 20,000 ops (no recursion)",
            chain(20_000),
            lambda got: order_problem(
                got, "a chain of 20,000 ops", chain_structure(20_000)
            ),
        )
    )
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
    return all_of(
        is_array(got["grads"], f"{what}, leaf gradients"),
        difference(
            f"{what}, d root / d leaf after backward()",
            got["grads"],
            expected,
            **CENTRAL,
        ),
        difference(
            f"{what}, the gradients backpropagate yields for the leaves",
            got["yielded_leaf_grads"],
            expected,
            **CENTRAL,
        ),
    )


@cases_of("backpropagate")
def backpropagate_cases(rng):
    """T2: the sweep on random graphs with a random seed, judged by sweep_problem, and
    two backward() calls that must add up."""

    def run_for(values, program, seed):
        def run(found):
            graph, root = built(values, program)
            leaves = graph.nodes[: len(values)]
            yielded = {id(node): g for node, g in found.backpropagate(root, seed)}
            number = graph.numbers()
            root.backward()
            grads = [0.0 if leaf.grad is None else float(leaf.grad) for leaf in leaves]
            return {
                "grads": np.array(grads) * seed,
                "yielded": [number.get(key, -1) for key in yielded],
                "yielded_leaf_grads": np.array(
                    [float(np.asarray(yielded.get(id(leaf), 0.0))) for leaf in leaves]
                ),
            }

        return run

    made = []
    sizes = [(1, 3), (2, 8), (3, 15), (2, 30), (4, 25)]
    for label, values, program in random_graphs(rng, sizes):
        seed = float(rng.choice([1.0, -0.5, 2.0]))
        made.append(
            Case(
                label,
                run_for(values, program, seed),
                lambda got, v=values, p=program, s=seed, label=label: sweep_problem(
                    got, v, p, s, label
                ),
            )
        )

    def accumulates(found):
        from engine import Tensor

        x = Tensor(np.array([1.0, -2.0]))
        (x * x).sum().backward()
        (x * x).sum().backward()
        return x.grad

    made.append(
        Case(
            "two backward() calls add up",
            accumulates,
            lambda got: difference(
                "x.grad after backward() twice on sum(x * x)",
                got,
                4 * np.array([1.0, -2.0]),
            ),
        )
    )
    return made


def op_case(rng, name, numpy_forward, shapes, low=-2.0, high=2.0):
    """A case for a reader's op `name` (an Op): its forward on random inputs and each of
    its local rules called on arrays (against NumPy and central differences) and on
    Tensors (it must give a Tensor with the same values: chapter 10 records the
    rules)."""
    arrays = [rng.uniform(low, high, s) for s in shapes]
    g = rng.normal(size=np.shape(numpy_forward(*arrays)))
    what = f"{name} on {' and '.join(map(str, shapes))}"

    def run(found):
        from engine import Tensor

        op = getattr(found, name)
        if op is None:
            raise NotImplementedError(f"{name} is still None")
        out = op(*[Tensor(a) for a in arrays]).data
        rules = [vjp(g, out, *arrays) for vjp in op.vjps]
        on_tensors = []
        for vjp in op.vjps:
            result = vjp(
                Tensor(g, requires_grad=False),
                Tensor(out, requires_grad=False),
                *[Tensor(a) for a in arrays],
            )
            on_tensors.append(
                result.data
                if isinstance(result, Tensor)
                else f"a {type(result).__name__}, not a Tensor"
            )
        return {"forward": out, "rules": rules, "on tensors": on_tensors}

    def judge(got):
        if len(got["rules"]) != len(arrays):
            return f"{what}: {len(got['rules'])} local rules for {len(arrays)} inputs"
        problems = [
            difference(
                f"{what}, forward against np.{name}",
                got["forward"],
                numpy_forward(*arrays),
            )
        ]
        for i, (rule, on_tensor) in enumerate(zip(got["rules"], got["on tensors"])):

            def loss(v, i=i):
                values = list(arrays)
                values[i] = v
                return float((numpy_forward(*values) * g).sum())

            expected = numerical_gradient(loss, arrays[i])
            problems.append(
                difference(f"{what}, rule for input {i}", rule, expected, **CENTRAL)
            )
            if isinstance(on_tensor, str):
                problems.append(
                    f"{what}, rule for input {i} called with Tensors gave "
                    f"{on_tensor}: it works on arrays, not on Tensors"
                )
            else:
                problems.append(
                    difference(
                        f"{what}, rule for input {i} on Tensors",
                        on_tensor,
                        expected,
                        **CENTRAL,
                    )
                )
        return all_of(*problems)

    return Case(f"{what}{' near ' + str(low) if low > 100 else ''}", run, judge)


@cases_of("sqrt")
def local_rules_cases(rng):
    """T3: sqrt on positive inputs, hypot, and logaddexp, also near 800, where e^x
    overflows; each an op_case."""
    return (
        [op_case(rng, "sqrt", np.sqrt, [s], low=0.5) for s in [(4,), (2, 3), ()]]
        + [op_case(rng, "hypot", np.hypot, [s, s]) for s in [(4,), (2, 3)]]
        + [op_case(rng, "logaddexp", np.logaddexp, [s, s]) for s in [(4,), (2, 3)]]
        + [op_case(rng, "logaddexp", np.logaddexp, [(4,), (4,)], low=799.0, high=801.0)]
    )
