"""Chapter 13's new pieces beyond the catalogue's rows: softmax, layer_norm and the
attention weights op against PyTorch on random shapes and on adversarial inputs (masked
rows, rows of -inf, huge logits, constant rows), attention's causality, the graded mask
checker's diagnoses, and
benchmarks/transformer.py: its quick mode runs and reports what the chapter reads, and
the stored file is a full run of the chapter's current code."""

import json
from pathlib import Path
import sys
import warnings

from helpers import run_quick_benchmark
import numpy as np
import pytest
import torch

from engine import grad, jvp, Tensor
from engine.check import relative_error
from engine.nn import (
    attention,
    attention_weights,
    causal_mask,
    layer_norm,
    layer_norm_forward,
    layer_norm_rule,
    softmax,
)
from engine.transforms import hvp_forward_over_reverse


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
import transformer as benchmark  # noqa: E402

from autograder.checks import mask_problem  # noqa: E402


F = torch.nn.functional
RANDOM_SHAPES = [(1,), (7,), (3, 1), (2, 5), (4, 3, 6), (2, 2, 3, 9), (1, 1, 1, 2)]


def against_torch(engine_f, torch_f, x, seed=0):
    """Relative errors of the value, the gradient of <G, f(x)> and J u, against
    PyTorch."""
    rng = np.random.default_rng(seed)
    t = Tensor(x)
    out = engine_f(t)
    G, u = rng.normal(size=out.shape), rng.normal(size=x.shape)
    (out * G).sum().backward()
    w = torch.tensor(x, requires_grad=True)
    expected = torch_f(w)
    (expected * torch.tensor(G)).sum().backward()
    _, tangent = jvp(engine_f, (x,), (u,))
    _, torch_tangent = torch.func.jvp(torch_f, (torch.tensor(x),), (torch.tensor(u),))
    return (
        relative_error(out.data, expected.detach().numpy()),
        relative_error(t.grad, w.grad.numpy()),
        relative_error(tangent, torch_tangent.numpy()),
    )


@pytest.mark.parametrize("shape", RANDOM_SHAPES, ids=str)
@pytest.mark.parametrize("scale", [0.1, 3.0, 300.0])
def test_softmax_against_pytorch(shape, scale):
    x = np.random.default_rng(len(shape)).normal(size=shape) * scale
    assert max(against_torch(softmax, lambda v: v.softmax(-1), x)) <= 1e-13


@pytest.mark.parametrize("shape", [s for s in RANDOM_SHAPES if s[-1] != 2], ids=str)
@pytest.mark.parametrize(
    "scale, eps", [(1.0, 1e-5), (1e-3, 1e-5), (50.0, 1e-5), (1.0, 0.5)]
)
def test_layer_norm_against_pytorch(shape, scale, eps):
    rng = np.random.default_rng(len(shape))
    x = rng.normal(size=shape) * scale + rng.normal()
    errors = against_torch(
        lambda v: layer_norm(v, eps=eps),
        lambda v: F.layer_norm(v, v.shape[-1:], eps=eps),
        x,
    )
    assert max(errors) <= 1e-12, errors


def test_layer_norm_of_two_entries_agrees_to_rounding():
    """With two entries x̂ = ±sqrt(var / (var + eps)) is almost constant, and its
    gradient is almost zero, a difference of nearly equal terms: a relative error means
    nothing there, an error relative to r |g| (the size of the terms) does."""
    rng = np.random.default_rng(5)
    x, g = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    t = Tensor(x)
    layer_norm(t).backward(g)
    w = torch.tensor(x, requires_grad=True)
    (F.layer_norm(w, (2,)) * torch.tensor(g)).sum().backward()
    r = 1 / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5)
    assert (np.abs(t.grad - w.grad.numpy()) <= 1e-14 * r * np.abs(g).max()).all()


def test_layer_norm_with_gain_and_bias_and_second_order_against_pytorch():
    rng = np.random.default_rng(3)
    x, gain, bias = rng.normal(size=(3, 4, 5)), rng.normal(size=5), rng.normal(size=5)
    u = rng.normal(size=x.shape)

    def f(v):
        return (layer_norm(v, gain, bias) ** 3).sum()

    ours = hvp_forward_over_reverse(f, x, u)
    w = torch.tensor(x, requires_grad=True)
    (first,) = torch.autograd.grad(
        (
            F.layer_norm(w, (5,), torch.tensor(gain), torch.tensor(bias), eps=1e-5) ** 3
        ).sum(),
        [w],
        create_graph=True,
    )
    (theirs,) = torch.autograd.grad((first * torch.tensor(u)).sum(), [w])
    assert relative_error(ours, theirs.numpy()) <= 1e-12


def test_a_row_of_minus_infinity_but_one_entry_is_one_hot_with_zero_gradient():
    x = np.full((2, 5), -np.inf)
    x[0, 3], x[1, 0] = 7.0, -2.0
    t = Tensor(x)
    out = softmax(t)
    assert (out.data == np.eye(5)[[3, 0]]).all()
    out.backward(np.random.default_rng(0).normal(size=(2, 5)))
    assert (t.grad == 0).all()
    _, tangent = jvp(softmax, (x,), (np.ones((2, 5)),))
    assert (tangent == 0).all()


def test_a_fully_masked_row_gives_nan_as_in_pytorch_and_other_rows_are_unharmed():
    """A row of -inf only has no softmax: -inf - (-inf) is NaN, here as in PyTorch. The
    causal mask never makes one (every position sees itself); a padding mask over a
    left-padded row would."""
    x = np.random.default_rng(1).normal(size=(3, 4))
    x[1] = -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = softmax(Tensor(x)).data
    expected = torch.tensor(x).softmax(-1).numpy()
    assert np.isnan(out[1]).all() and np.isnan(expected[1]).all()
    assert np.allclose(out[[0, 2]], expected[[0, 2]], rtol=1e-14)


def test_huge_logits_neither_overflow_nor_lose_the_gradient():
    x = np.array([[1000.0, 999.0, -1000.0], [-1e300, 0.0, 1e300]])
    t = Tensor(x)
    out = softmax(t)
    assert np.isfinite(out.data).all()
    assert np.allclose(out.data, torch.tensor(x).softmax(-1).numpy(), rtol=1e-14)
    out[0, 0].backward()
    s = out.data[0]
    assert np.allclose(t.grad[0], s[0] * (np.eye(3)[0] - s), rtol=1e-14)


def test_layer_norm_of_constant_rows():
    """A constant row has no spread: x̂ = 0, and with r = 1/sqrt(eps) the gradient is
    r (g - mean g), large but finite, as PyTorch computes it."""
    x = np.array([[2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0], [1.0, -1.0, 3.0, 0.5]])
    g = np.random.default_rng(2).normal(size=x.shape)
    t = Tensor(x)
    out = layer_norm(t)
    out.backward(g)
    assert (out.data[:2] == 0).all()
    r = 1 / np.sqrt(1e-5)
    assert np.allclose(
        t.grad[:2], r * (g[:2] - g[:2].mean(axis=-1, keepdims=True)), rtol=1e-12
    )
    w = torch.tensor(x, requires_grad=True)
    (F.layer_norm(w, (4,)) * torch.tensor(g)).sum().backward()
    assert relative_error(t.grad, w.grad.numpy()) <= 1e-13
    assert np.array_equal(layer_norm_forward(np.full((1, 1), 5.0), 1e-5), [[0.0]])


def torch_weights(q, k, mask):
    """softmax(q kᵀ / √dₕ + mask) in PyTorch."""
    scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    return (scores if mask is None else scores + torch.tensor(mask)).softmax(-1)


@pytest.mark.parametrize(
    "shape, masked",
    [((5, 4), True), ((2, 3, 5, 4), True), ((2, 3, 5, 4), False), ((1, 1, 1, 2), True)],
    ids=str,
)
def test_attention_weights_op_against_pytorch(shape, masked):
    """Value, both gradients, the forward-mode tangent and a Hessian-vector product of
    the attention weights op against the same composition in PyTorch."""
    rng = np.random.default_rng(len(shape))
    q0, k0 = rng.normal(size=shape), rng.normal(size=shape)
    uq, uk, G = (rng.normal(size=a.shape) for a in (q0, k0, q0 @ k0.swapaxes(-1, -2)))
    mask = causal_mask(shape[-2]) if masked else None
    q, k = Tensor(q0), Tensor(k0)
    out = attention_weights(q, k, mask=mask)
    (first_q, first_k) = grad((out * G).sum() ** 2, [q, k], create_graph=True)
    hv = grad((first_q * uq).sum() + (first_k * uk).sum(), [q, k])
    _, tangent = jvp(
        lambda a, b: attention_weights(a, b, mask=mask), (q0, k0), (uq, uk)
    )
    tq, tk = (torch.tensor(a, requires_grad=True) for a in (q0, k0))
    expected = torch_weights(tq, tk, mask)
    tfirst = torch.autograd.grad(
        (expected * torch.tensor(G)).sum() ** 2, [tq, tk], create_graph=True
    )
    thv = torch.autograd.grad(
        (tfirst[0] * torch.tensor(uq)).sum() + (tfirst[1] * torch.tensor(uk)).sum(),
        [tq, tk],
    )
    _, ttangent = torch.func.jvp(
        lambda a, b: torch_weights(a, b, mask),
        (torch.tensor(q0), torch.tensor(k0)),
        (torch.tensor(uq), torch.tensor(uk)),
    )
    errors = [
        relative_error(out.data, expected.detach().numpy()),
        relative_error(tangent, ttangent.numpy()),
    ] + [relative_error(a, b.numpy()) for a, b in zip(list(hv), thv)]
    errors += [
        relative_error(a.data, b.detach().numpy())
        for a, b in zip((first_q, first_k), tfirst)
    ]
    assert max(errors) <= 1e-13, errors


@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e200])
def test_layer_norm_rule_reads_the_forwards_r_and_agrees_with_recomputing_it(scale):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(3, 4, 6)) * scale
    g = rng.normal(size=x.shape)
    saved = {}
    out = layer_norm_forward(x, 1e-5, saved)
    assert np.array_equal(out, layer_norm_forward(x, 1e-5))
    assert saved["r"].shape == (3, 4, 1)
    with_saved = layer_norm_rule(g, out, x, 1e-5, saved)
    recomputed = layer_norm_rule(g, out, x, 1e-5)
    assert relative_error(with_saved, recomputed) <= 1e-15


def test_attention_is_causal_and_refuses_heads_that_do_not_divide_the_width():
    rng = np.random.default_rng(4)
    weights = [rng.normal(size=s) for s in [(6, 6), 6, (6, 6), (6, 6), 6, (6, 6), 6]]
    x0 = rng.normal(size=(2, 5, 6))
    for i in range(5):
        x = Tensor(x0)
        (g,) = grad(
            attention(x, *weights, heads=3, mask=causal_mask(5))[:, i].sum(), [x]
        )
        assert (g[:, i + 1 :] == 0).all() and (
            np.abs(g[:, : i + 1]).sum(axis=-1) > 0
        ).all()
    out, attended = attention(
        Tensor(x0), *weights, heads=2, mask=causal_mask(5), with_weights=True
    )
    assert attended.shape == (2, 2, 5, 5) and out.shape == (2, 5, 6)
    assert (
        np.allclose(attended.data.sum(axis=-1), 1)
        and (np.triu(attended.data, 1) == 0).all()
    )
    with pytest.raises(ValueError, match="4 heads do not divide the width 6"):
        attention(Tensor(x0), *weights, heads=4)


@pytest.mark.parametrize(
    "mistake, mask, says",
    [
        ("right", lambda T: np.triu(np.full((T, T), -np.inf), k=1), None),
        ("-1e9 is as good", lambda T: np.triu(np.full((T, T), -1e9), k=1), None),
        (
            "diagonal masked",
            lambda T: np.triu(np.full((T, T), -np.inf)),
            "the diagonal is masked",
        ),
        (
            "one too far up",
            lambda T: np.triu(np.full((T, T), -np.inf), k=2),
            "one diagonal too far",
        ),
        (
            "below the diagonal",
            lambda T: np.tril(np.full((T, T), -np.inf), k=-1),
            "below the diagonal",
        ),
        ("too weak", lambda T: np.triu(np.full((T, T), -1.0), k=1), "too weak"),
        ("a 0/1 mask", lambda T: np.tril(np.ones((T, T))), "0/1 mask"),
        ("the sign", lambda T: np.triu(np.full((T, T), np.inf), k=1), "wrong sign"),
        (
            "integers",
            lambda T: np.triu(np.full((T, T), -(10**9)), k=1),
            "cannot hold -inf",
        ),
        ("shape", lambda T: np.zeros((T, T + 1)), "shape"),
        (
            "allowed entries changed",
            lambda T: np.triu(np.full((T, T), -np.inf), k=1) + 0.5,
            "allowed score must get 0",
        ),
    ],
)
def test_the_graded_mask_checks_name_each_mistake(mistake, mask, says):
    scores = np.random.default_rng(0).normal(size=(6, 6))
    problem = mask_problem(np.asarray(mask(6)), 6, scores)
    if says is None:
        assert problem is None, problem
    else:
        assert problem is not None and says in problem, (mistake, problem)


def test_the_quick_benchmark_runs_and_reports_what_the_chapter_reads(tmp_path):
    quick, _ = run_quick_benchmark("transformer.py", tmp_path, timeout=900)
    assert quick["quick"] is True and quick["code"] == benchmark.code_hash()
    assert structure_problems(quick) == []
    assert quick["data"] == {
        "names": 88_799,
        "train": 79_919,
        "validation": 8_880,
        "validation_targets": 69_507,
        "bigram": quick["data"]["bigram"],
    }
    assert 2.55 < quick["data"]["bigram"] < 2.59
    for part in ("short", "long"):  # a few steps already beat a uniform guess
        for runs in quick[part].values():
            assert all(2.0 < v < np.log(27) for v in runs["validation"])
    census = {
        (r["layers"], r["checkpointed"]): r["peak_arrays"]
        for r in quick["memory"]["rows"]
    }
    assert census == {
        (1, "none"): 39,
        (1, "blocks"): 40,
        (1, "sublayers"): 32,
        (2, "none"): 68,
        (2, "blocks"): 41,
        (2, "sublayers"): 34,
    }


def structure_problems(results):
    """What the chapter reads from the file and does not find in `results`."""
    plan, problems = results["plan"], []
    for part, seeds in (("short", plan["short_seeds"]), ("long", plan["long_seeds"])):
        for kind in ("transformer", "mlp"):
            runs = results[part][kind]
            if len(runs["validation"]) != seeds or len(runs["seconds"]) != seeds:
                problems.append(f"{part} {kind}: not {seeds} seeds")
    for curves, every, steps in (
        (
            results["long"]["transformer"]["curves"],
            plan["long_every"],
            plan["long_steps"],
        ),
        (
            results["long"]["mlp"]["curves"],
            plan["mlp_long_every"],
            plan["mlp_long_steps"],
        ),
    ):
        if any(
            [point[0] for point in curve] != list(range(every, steps + 1, every))
            for curve in curves
        ):
            problems.append("a curve without one point per evaluation")
    if len(results["samples"]["long"]) != 10 or len(results["samples"]["short"]) != 10:
        problems.append("not 10 samples")
    weights = np.array(results["attention"]["long"])
    n = len(results["attention"]["name"]) + 1
    if weights.shape != (4, n, n) or not np.allclose(weights.sum(-1), 1):
        problems.append(
            "attention weights of the wrong shape, or rows that do not sum to 1"
        )
    names = {
        "engine",
        "engine, checkpoint per block",
        "engine, checkpoint per sublayer",
        "NumPy by hand",
        "PyTorch eager, float64",
        "PyTorch eager, float32",
    }
    for layers, medians in results["step_seconds"]["medians"].items():
        if set(medians) != names or not all(t > 0 for t in medians.values()):
            problems.append(f"step times for {layers} block(s) incomplete")
    for layers, load in results["step_seconds"]["load_average"].items():
        if len(load) != 2 or not all(len(a) == 3 for a in load):
            problems.append(f"no load average around the step times of {layers}")
    rows = {(r["layers"], r["checkpointed"]) for r in results["memory"]["rows"]}
    if rows != {
        (L, c) for L in plan["memory_layers"] for c in ("none", "blocks", "sublayers")
    }:
        problems.append("memory rows missing")
    return problems


def test_the_stored_results_are_a_full_run_of_the_chapters_current_code():
    stored = json.loads((ROOT / "benchmarks" / "transformer.json").read_text())
    assert stored["quick"] is False and stored["plan"] == benchmark.PLAN["full"]
    assert stored["code"] == benchmark.code_hash(), (
        "benchmarks/transformer.json was made by other code than chapter 13 now holds: "
        "run `python benchmarks/transformer.py` and re-execute the chapter"
    )
    assert structure_problems(stored) == []
    assert set(stored["step_seconds"]["medians"]) == {"1", "4"}
    census = {
        (r["layers"], r["checkpointed"]): r["peak_arrays"]
        for r in stored["memory"]["rows"]
    }
    for L in (1, 2, 4, 8):
        assert (census[L, "none"], census[L, "blocks"], census[L, "sublayers"]) == (
            10 + 29 * L,
            39 + L,
            30 + 2 * L,
        )
