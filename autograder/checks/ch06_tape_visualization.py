"""The checks of chapter 6, looking at the tape (T12): the statistics of random graphs
(nodes, edges, depth, the uses of each leaf), each fact against the course's own count,
toolkit.numbered_stats, made from the numbers Graph gives the nodes as they are built
(an order in which every node comes after its inputs), so it needs no Tensor."""

from autograder.checks.toolkit import (
    built,
    Case,
    cases_of,
    numbered_stats,
    random_graphs,
)


@cases_of("graph_stats")
def graph_stats_cases(rng):
    """T12: graph_stats on random graphs, from a lone leaf to a chain of 3,000 ops."""

    def stats_run(values, program):
        def run(found):
            graph, root = built(values, program)
            stats = found.graph_stats(root)
            number = graph.numbers()
            if not isinstance(stats, dict):
                return {"not a dict": type(stats).__name__}
            reported = dict(stats)
            if isinstance(stats.get("uses"), dict):
                reported["uses"] = {
                    str(number.get(key, -1)): count
                    for key, count in stats["uses"].items()
                }
            return {
                key: reported[key]
                for key in ("nodes", "edges", "depth", "uses")
                if key in reported
            }

        return run

    def judge_for(values, program, what):
        def judge(got):
            graph, root = built(values, program)
            structure = graph.structure(root, [])
            expected = numbered_stats(structure["parents"], structure["root"])
            if set(got) != set(expected):
                return (
                    f"{what}: expected a dict with keys {sorted(expected)}, got {got}"
                )
            for fact in ("nodes", "edges", "depth", "uses"):
                if got[fact] != expected[fact]:
                    return f"{what}: {fact}: got {got[fact]}, expected {expected[fact]}"
            return None

        return judge

    made = []
    sizes = [(1, 0), (1, 1), (2, 6), (3, 20), (2, 3000)]
    for label, values, program in random_graphs(rng, sizes, repeated=False):
        made.append(
            Case(label, stats_run(values, program), judge_for(values, program, label))
        )
    return made
