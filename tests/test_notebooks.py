"""The notebooks' stored outputs follow the rule that keeps the suite portable (README,
"How this repo works"): a compared output is a fact on every machine, and a measured
number sits in a cell that nbval does not compare and that asserts its claim."""

import json
from pathlib import Path
import re

import pytest


BOOK = Path(__file__).resolve().parent.parent / "book"
NOTEBOOKS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))
IGNORE_TAG = "nbval-ignore-output"

# A number in scientific notation with a negative exponent (an error such as 3e-09),
# unless a comparison precedes it (a bound such as "<= 1e-8" is a fact); or a float with
# ten or more significant digits (the last of which depend on the CPU).
SMALL_NUMBER = re.compile(r"\b\d(?:\.\d+)?e-\d+")
BOUND_WORDS = ("<", ">", "<=", ">=", "within", "than", "below", "above")
LONG_FLOAT = re.compile(r"\d*\.\d+")


def code_cells(path):
    """(index, source, tags, outputs) of every code cell of a notebook."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [
        (
            i,
            "".join(c["source"]),
            c.get("metadata", {}).get("tags", []),
            c.get("outputs", []),
        )
        for i, c in enumerate(cells)
        if c["cell_type"] == "code"
    ]


def compared_texts(output):
    """The texts of one output that nbval compares (streams, text/plain, glue
    records)."""
    if output["output_type"] == "stream":
        return ["".join(output["text"])]
    data = output.get("data", {})
    return [
        "".join(value)
        for key, value in data.items()
        if key == "text/plain" or key.startswith("application/papermill.record")
    ]


def problems_in(text):
    """Why a compared output's text looks like a measurement rather than a fact."""
    found = [
        f"measured error {m.group()!r}"
        for m in SMALL_NUMBER.finditer(text)
        if not text[max(0, m.start() - 8) : m.start()].rstrip().endswith(BOUND_WORDS)
    ]
    for match in LONG_FLOAT.finditer(text):
        digits = match.group().replace(".", "").lstrip("0")
        if len(digits) >= 10:
            found.append(
                f"float with {len(digits)} significant digits {match.group()!r}"
            )
    return found


def is_drawing(outputs):
    """True for a cell that only shows pictures (their structure is asserted
    separately)."""
    return bool(outputs) and all(
        any(key.startswith("image/") for key in output.get("data", {}))
        for output in outputs
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_compared_outputs_are_facts(path):
    offenders = []
    for index, source, tags, outputs in code_cells(path):
        if (
            IGNORE_TAG in tags
            or "NBVAL_IGNORE_OUTPUT" in source
            or "NBVAL_SKIP" in source
        ):
            continue
        for output in outputs:
            for text in compared_texts(output):
                offenders += [
                    f"cell {index}: {problem}" for problem in problems_in(text)
                ]
    assert not offenders, (
        f"{path.name}: compared outputs that depend on the CPU's last bits; "
        f"tag the cell '{IGNORE_TAG}' and assert its claim, or print a fact instead:\n"
        + "\n".join(offenders)
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_uncompared_cells_assert_their_claims(path):
    cells = code_cells(path)
    offenders = []
    for k, (index, source, tags, outputs) in enumerate(cells):
        if IGNORE_TAG not in tags:
            continue
        next_source = cells[k + 1][1] if k + 1 < len(cells) else ""
        is_timing = source.lstrip().startswith("# Timing")
        if not (
            "assert" in source
            or "assert" in next_source
            or is_timing
            or is_drawing(outputs)
        ):
            offenders.append(f"cell {index}: {source.splitlines()[0][:70]!r}")
    assert not offenders, (
        f"{path.name}: cells whose output nbval does not compare must assert what the "
        "text claims about it (or be drawings whose structure the next cell asserts, "
        "or start with '# Timing' if they only show a speed):\n" + "\n".join(offenders)
    )


def test_the_checks_catch_measurements():
    assert problems_in("max relative error 3e-09")
    assert problems_in("|loss - loss_torch| = 2.2e-16")
    assert problems_in("loss: 0.6566308437591114")
    assert not problems_in("max error <= 1e-8: True")
    assert not problems_in("finite differences agree within 1e-8: True")
    assert not problems_in("(2, 4, 5, 5)  all <= 1e-9: True  loss 0.656631")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_lines_fit_the_column(path):
    """No code line over 88 characters: the book's column shows 88 at a 1280-px
    window."""
    long = [
        f"cell {index}, line {number}: {len(line)} characters"
        for index, source, _, _ in code_cells(path)
        for number, line in enumerate(source.splitlines(), 1)
        if len(line) > 88
    ]
    assert not long, f"{path.name}: code lines over 88 characters:\n" + "\n".join(long)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_glued_values_are_plain_python(path):
    """A value glued into the prose is stored as its text; the text of a NumPy scalar
    (np.float64(0.5)) is not a number that myst_nb can format, and `jupyter-book build
    -W` fails on it: glue Python numbers (float(x), int(n))."""
    offenders = []
    for index, _source, _tags, outputs in code_cells(path):
        for output in outputs:
            if "scrapbook" not in output.get("metadata", {}):
                continue
            text = "".join(
                "".join(value)
                for key, value in output.get("data", {}).items()
                if key.endswith("text/plain")
            )
            if text.startswith("np.") or "np.float" in text or "np.int" in text:
                offenders.append(
                    f"cell {index}: {output['metadata']['scrapbook'].get('name')}"
                    f" = {text[:60]}"
                )
    assert not offenders, offenders
