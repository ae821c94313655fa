"""benchmarks/conv.py's quick mode runs end to end and reports every case, so the code
that made benchmarks/conv.json (which chapter 11 reads) never rots; no speed is asserted
here."""

import json
from pathlib import Path

from helpers import run_quick_benchmark


ROOT = Path(__file__).resolve().parent.parent
IMPLEMENTATIONS = {
    "engine",
    "engine, first version",
    "torch eager f64",
    "torch eager f32",
}


def test_quick_conv_benchmark_runs_and_reports_every_case(tmp_path):
    results, printed = run_quick_benchmark("conv.py", tmp_path, timeout=600)
    stored = json.loads((ROOT / "benchmarks" / "conv.json").read_text())
    assert results["quick"] is True and set(results["seconds"]) == set(
        stored["seconds"]
    )
    for case, medians in results["seconds"].items():
        assert set(medians) == IMPLEMENTATIONS, case
        assert all(t > 0 for t in medians.values()), case
    machine = results["machine"]
    assert machine["cpu_count"] and machine["blas"] and machine["torch_threads"] == 1
    assert len(machine["load_average_at_start"]) == 3
    assert "engine / torch f64" in printed


def test_stored_conv_results_are_a_full_run():
    stored = json.loads((ROOT / "benchmarks" / "conv.json").read_text())
    assert stored["quick"] is False
    assert len(stored["seconds"]) == 6
    assert all(set(m) == IMPLEMENTATIONS for m in stored["seconds"].values())
    assert all(rounds[0] >= 21 for rounds in stored["rounds"].values())
