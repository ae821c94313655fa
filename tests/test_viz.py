"""engine.viz.draw: the structure of the drawn graph, its options, rendering with the
available dot, and a long recurrence drawn without a hub."""

import re

import numpy as np

from engine.core import Tensor, topological_order
from engine.nn import cross_entropy, MLP
from engine.viz import draw, use_available_dot


def neuron():
    x, w, b = Tensor(0.5), Tensor(-2.0), Tensor(1.5)
    return x, w, b, (w * x + b).tanh()


def test_one_box_per_tensor_one_ellipse_per_op_edges_in_data_flow_direction():
    x, w, b, L = neuron()
    source = draw(L, names={"x": x, "w": w, "b": b, "L": L}).source
    assert source.count("shape=box") == 6 and source.count("shape=ellipse") == 3
    assert source.count("->") == 8
    # data flows from each input box into its op, and from the op into its result's box
    assert "o5 -> t5" in source and "t4 -> o5" in source and "t5 -> o5" not in source


def test_labels_values_grads_and_order():
    x, w, b, L = neuron()
    source = draw(L, names={"w": w}, values=True, grads=True, order=True).source
    assert "grad 0.3932" in source  # dL/dw = x (1 - tanh² 0.5)
    assert "value -2" in source and "backward visits #1" in source
    assert source.count("backward visits #") == 6


def test_constants_collapse_depth_and_layout():
    X = np.ones((5, 2))
    net = MLP([2, 8, 8, 8, 3], seed=0)
    loss = cross_entropy(net(X), [0, 1, 2, 0, 1])
    full = draw(loss).source
    assert "constant" in full and "5x2" in full
    folded = draw(loss, collapse_leaves=True).source
    assert folded.count("shape=box") == full.count("shape=box") - len(net.params)
    cut = draw(loss, max_depth=3).source
    assert "..." in cut and cut.count("shape=ellipse") < full.count("shape=ellipse")
    assert "rankdir=LR" in draw(loss, rankdir="LR").source


def test_draw_does_not_change_the_graph_or_gradients():
    x, w, b, L = neuron()
    before = [id(n) for n in topological_order(L)]
    draw(L, grads=True)
    assert [id(n) for n in topological_order(L)] == before
    assert w.grad is None


def test_renders_svg_with_the_available_layout_program():
    assert use_available_dot() is not None, (
        "neither a system dot nor graphviz-pure is installed"
    )
    x, w, b, L = neuron()
    svg = draw(L).pipe(format="svg").decode()
    assert (
        svg.lstrip().startswith("<?xml")
        and "<svg" in svg
        and svg.count('class="node"') == 6 + 3 + 1  # and the legend's table
        and svg.count('class="cluster"') == 1
    )
    bare = draw(L, legend=False).pipe(format="svg").decode()
    assert bare.count('class="node"') == 6 + 3 and 'class="cluster"' not in bare


def legend_rows(source):
    """The sample of each row of a drawing's legend, in order."""
    return re.findall(r"<TR><TD[^>]*>(.*?)</TD>", source)


def test_the_legend_names_each_kind_of_node_drawn_and_no_other():
    x, w, b, L = neuron()
    source = draw(L).source
    assert "subgraph cluster_legend" in source
    assert legend_rows(source) == ["root", "leaf", "result", "op", "arrows"]
    # the root is the one box with a thick outline; leaves and ops keep their colours
    assert source.count("penwidth=2") == 1
    assert source.count('fillcolor="#56B4E9"') == 3  # the three leaves
    assert source.count('fillcolor="#F0E442"') == 3  # the three ops
    assert 'BGCOLOR="#56B4E9"' in source and 'BGCOLOR="#F0E442"' in source  # samples
    # the legend adds no box, ellipse or edge: counts of the graph stay the graph's
    bare = draw(L, legend=False).source
    assert "cluster_legend" not in bare and not legend_rows(bare)
    for mark in ("shape=box", "shape=ellipse", "->"):
        assert source.count(mark) == bare.count(mark)

    X = np.ones((5, 2))
    net = MLP([2, 8, 8, 8, 3], seed=0)
    loss = cross_entropy(net(X), [0, 1, 2, 0, 1])
    assert "constant" in "".join(legend_rows(draw(loss).source))
    cut = legend_rows(draw(loss, collapse_leaves=True, max_depth=3).source)
    assert "leaf" not in cut and {"op<BR/>W", "..."} <= set(cut)

    W, h = Tensor(np.eye(3) * 0.5), Tensor(np.ones(3))
    for _ in range(4):
        h = (W @ h).tanh()
    rows = legend_rows(draw(h.sum(), max_uses=3).source)
    assert "(used nx)" in rows and "..." not in rows
    assert "more than 3 ops" in draw(h.sum(), max_uses=3).source


def test_a_long_recurrence_is_drawn_without_a_hub():
    """One box with an edge to each of 200 steps made Graphviz's layout take minutes:
    a Tensor used more than max_uses times is drawn again beside each op that uses it,
    so no box of the drawing feeds more than max_uses ops."""
    from engine.viz import draw

    W, h = Tensor(np.eye(3) * 0.5), Tensor(np.ones(3))
    x0 = (W @ h).tanh()
    for _ in range(200):  # a recurrent weight, and a residual stream every step reuses
        h = (W @ h).tanh() + x0
    dot = draw(h.sum(), max_uses=3)
    tails = re.findall(r"^\s*(\w+) -> ", dot.source, flags=re.MULTILINE)
    assert max(tails.count(t) for t in set(tails)) <= 3
    assert (
        dot.source.count("(used 200x)") == 200
        and dot.source.count("(used 201x)") == 201
    )
    assert dot.pipe(format="svg").decode().count('class="node"') > 600


def test_the_chapter_map_on_disk_is_the_one_its_script_draws():
    """book/images/chapter_map.dot is tools/chapter_map.py's output, legend included,
    and names every chapter of the book's table of contents up to 14."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(
        "chapter_map", root / "tools" / "chapter_map.py"
    )
    chapter_map = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(chapter_map)
    source = chapter_map.chapter_map().source
    assert (root / "book" / "images" / "chapter_map.dot").read_text() == source
    assert "cluster_legend" in source
    assert all(f'BGCOLOR="{fill}"' in source for fill, _ in chapter_map.PARTS.values())
    toc = (root / "_toc.yml").read_text()
    assert all(f"book/{n:02d}_" in toc for n in chapter_map.CHAPTERS)
