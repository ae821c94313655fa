"""The benchmark's quick mode runs end to end, so the benchmark code never rots (it
times nothing that is asserted: speed is reported by `python benchmarks/run.py`, not
tested)."""

import json
from pathlib import Path

from helpers import run_quick_benchmark


ROOT = Path(__file__).resolve().parent.parent


def test_quick_benchmark_runs_and_reports_every_measurement(tmp_path):
    results, printed = run_quick_benchmark("run.py", tmp_path, timeout=600)
    for net, medians in results["training_step_seconds"].items():
        assert {
            "numpy (by hand)",
            "engine",
            "engine, batch as an array",
            "torch eager f64",
            "torch eager f32",
        } <= set(medians), net
        assert all(t > 0 for t in medians.values())
    near_empty = results["near_empty_step_seconds"]
    assert set(results["training_step_seconds"]["spiral [2,64,64,3] b300"]) == set(
        near_empty
    ) and all(t > 0 for t in near_empty.values())
    assert "near-empty step" in printed
    assert results["utc"]["start"] <= results["utc"]["end"]
    assert set(results["forward_spiral_seconds"]) == {
        "numpy (by hand)",
        "engine, no_grad",
        "engine, recording",
    }
    assert (
        results["memory"]["graph_nodes_per_step"] > 0
        and len(results["memory"]["peak_rss_mib_by_step"]) > 2
    )
    assert (
        len(results["deep_chain_seconds_per_node"]) >= 2
        and results["width_sweep_seconds"]
    )
    assert "training step" in printed and "BLAS" in printed


def test_stored_results_are_a_full_run():
    stored = json.loads(
        (ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8")
    )
    assert stored["quick"] is False
    assert set(stored["deep_chain_seconds_per_node"]) == {"1000", "10000", "100000"}
    assert len(stored["width_sweep_seconds"]) == 6
    assert set(stored["near_empty_step_seconds"]) == set(
        stored["training_step_seconds"]["spiral [2,64,64,3] b300"]
    )
