"""The checks of chapter 6, looking at the tape (T12): the statistics of random graphs
(nodes, edges, depth, the uses of each leaf), each fact against the course's own count,
toolkit.numbered_stats, made from the graph's structure as the program that built it
gives it (toolkit.structure_of: no Tensor, nothing the task's process reports)."""

from autograder.checks.toolkit import (
    built,
    Case,
    cases_of,
    numbered_stats,
    random_graphs,
    structure_of,
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
            expected = numbered_stats(*structure_of(len(values), program))
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
