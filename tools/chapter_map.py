"""Write book/images/chapter_map.dot and chapter_map.svg, the map of the chapters that
book/intro.md shows: a box per chapter, coloured by its part of the book, an arrow from
each chapter to a later one that builds on it, and a legend that says both.

    python tools/chapter_map.py

The colours are from Okabe and Ito's palette, which readers with the common forms of
colour blindness tell apart (and grey, which has no hue to confuse)."""

from pathlib import Path
import sys

import graphviz


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.viz import use_available_dot  # noqa: E402


PARTS = {  # part: (fill colour, what its chapters do)
    "core": ("#56B4E9", "the core: build and verify the engine"),
    "extension": ("#F0E442", "extensions: the engine put to new uses"),
    "frameworks": ("#D9D9D9", "the engine beside PyTorch and JAX"),
}
CHAPTERS = {  # number: (title, part)
    1: ("The tape", "core"),
    2: ("Matmul VJP", "core"),
    3: ("Broadcasting", "core"),
    4: ("Verification", "core"),
    5: ("Spiral", "core"),
    6: ("Seeing the tape", "core"),
    7: ("Adam", "extension"),
    8: ("no_grad", "extension"),
    9: ("Forward mode", "extension"),
    10: ("Double backprop", "extension"),
    11: ("Convolution", "extension"),
    12: ("Checkpointing", "extension"),
    13: ("A small transformer", "extension"),
    14: ("Real frameworks", "frameworks"),
}
BUILDS_ON = [  # (chapter, a later chapter that builds on it)
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 5),
    (4, 6),
    (5, 7),
    (5, 8),
    (4, 9),
    (9, 10),
    (6, 10),
    (5, 11),
    (3, 11),
    (8, 12),
    (10, 12),
    (7, 13),
    (11, 13),
    (12, 13),
    (13, 14),
]


def legend_table():
    """The legend, a Graphviz HTML table: a sample box per part, and the arrow."""
    rows = "".join(
        f'<TR><TD BGCOLOR="{fill}" BORDER="1" STYLE="rounded" WIDTH="26"> </TD>'
        f'<TD ALIGN="LEFT">{text}</TD></TR>'
        for fill, text in PARTS.values()
    )
    arrow = (  # the arrow's cell has a width of its own: dot may not know the glyph's
        '<TR><TD WIDTH="26"><FONT POINT-SIZE="14">&#8594;</FONT></TD>'
        '<TD ALIGN="LEFT">from a chapter to one that builds on it</TD></TR>'
    )
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="4" CELLPADDING="2">'
        f"{rows}{arrow}</TABLE>>"
    )


def chapter_map():
    """The map as a graphviz.Digraph, its legend below the last chapter."""
    dot = graphviz.Digraph(
        graph_attr={
            "bgcolor": "transparent",
            "rankdir": "TB",
            "ranksep": "0.35",
            "nodesep": "0.25",
        },
        node_attr={
            "fontname": "Helvetica",
            "fontsize": "11",
            "shape": "box",
            "style": "filled,rounded",
            "margin": "0.2,0.06",  # room for a browser font wider than Helvetica
        },
    )
    for number, (title, part) in CHAPTERS.items():
        dot.node(str(number), f"{number} {title}", fillcolor=PARTS[part][0])
    for before, after in BUILDS_ON:
        dot.edge(str(before), str(after))
    with dot.subgraph(name="cluster_legend") as box:
        box.attr(
            label="legend",
            fontname="Helvetica",
            fontsize="10",
            color="gray60",
            style="rounded",
            margin="10",
        )
        box.node(
            "parts",
            legend_table(),
            shape="plaintext",
            style="solid",
            fontsize="10",
            margin="0",
        )
    dot.edge(str(max(CHAPTERS)), "parts", style="invis")  # the legend at the bottom
    return dot


def main():
    if use_available_dot() is None:
        sys.exit("chapter_map: no dot and no graphviz-pure to lay the map out")
    dot = chapter_map()
    images = ROOT / "book" / "images"
    (images / "chapter_map.dot").write_text(dot.source, encoding="utf-8")
    (images / "chapter_map.svg").write_bytes(dot.pipe(format="svg"))
    print("wrote", images / "chapter_map.dot", "and", images / "chapter_map.svg")


if __name__ == "__main__":
    main()
