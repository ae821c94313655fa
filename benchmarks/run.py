"""Benchmark the engine against hand-written NumPy and PyTorch eager (and HIPS autograd
if installed).

    python benchmarks/run.py          # full comparison; writes benchmarks/results.json
    python benchmarks/run.py --quick  # a smoke run in seconds (the tests call it)

Implementations alternate within every round, so that machine load affects them alike;
the table reports medians over rounds and ratios to hand-written NumPy; how many rounds
each benchmark runs is in the table ROUNDS. Every measurement runs in a fresh Python
process, so that no measurement inherits another's: the timings first bring their
process's allocator to the same state (see `warm_allocator`); the memory measurement
leaves it as it starts, so that its peak belongs to the training loop alone. Nothing
here asserts a speed."""

import argparse
from datetime import datetime, UTC
import gc
import json
import os
from pathlib import Path
import platform
import subprocess
import sys
import time

import numpy as np


HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from course.witness import torch_mlp  # noqa: E402
from engine.core import graph_footprint, no_grad, Tensor  # noqa: E402
from engine.forward import jvp  # noqa: E402
from engine.memory import ArrayCensus  # noqa: E402
from engine.nn import cross_entropy, linear, MLP  # noqa: E402
from engine.ops import relu  # noqa: E402
from engine.optim import SGD  # noqa: E402
from engine.transforms import jacobian_forward, jacobian_reverse  # noqa: E402


SPIRAL = "spiral [2,64,64,3] b300"
NETS = {
    SPIRAL: ([2, 64, 64, 3], 300),
    "wide [2,256,256,3] b4096": ([2, 256, 256, 3], 4096),
    "mnist [784,512,512,10] b4096": ([784, 512, 512, 10], 4096),
}
# A network with almost no arithmetic: every op call, node, local rule and update of a
# spiral step is still there, on matrices of a few entries.
NEAR_EMPTY = ([2, 2, 2, 3], 4)
LR = 0.1

# How long each timing runs, (rounds, calls per round), in the quick smoke run and in
# the full one. Every round calls each implementation `calls` times in turn; the report
# is the median over the rounds (for the Jacobian grid's short calls, the fastest
# round).
ROUNDS = {
    "training step": {"quick": (3, 1), "full": (41, 20)},
    "training step, batch over 1000": {"quick": (3, 1), "full": (15, 1)},
    "spiral forward": {"quick": (3, 5), "full": (41, 100)},
    "width sweep": {"quick": (3, 1), "full": (9, 3)},
    "forward mode, spiral": {"quick": (3, 5), "full": (41, 50)},
    "forward mode, Jacobian grid": {"quick": (3, 3), "full": (21, 10)},
    "census": {"quick": (3, 2), "full": (41, 20)},
    "near-empty step": {"quick": (3, 5), "full": (41, 200)},
}


def rounds_for(benchmark, quick):
    """(rounds, calls per round) of `benchmark` from ROUNDS."""
    return ROUNDS[benchmark]["quick" if quick else "full"]


def layers(params):
    """A flat parameter list [W1, b1, W2, b2, ...], as MLP.params holds it, as (W, b)
    pairs."""
    return list(zip(params[0::2], params[1::2]))


def problem(sizes, batch, seed=0):
    """Random inputs and labels for a network of `sizes`, and initial weights."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(batch, sizes[0]))
    y = rng.integers(0, sizes[-1], size=batch)
    weights = [p.data.copy() for p in MLP(sizes, seed=seed).params]
    return X, y, weights


def mlp_logits(params, X, activation, affine=lambda h, W, b: h @ W + b):
    """The logits of the MLP with flat parameters `params` on X, each layer
    `affine(h, W, b)` and `activation` between layers: written once for the engine,
    NumPy and HIPS autograd."""
    h, pairs = X, layers(params)
    for k, (W, b) in enumerate(pairs):
        h = affine(h, W, b)
        if k < len(pairs) - 1:
            h = activation(h)
    return h


def numpy_relu(h):
    return np.maximum(h, 0)


def engine_net(sizes, weights, copy=True):
    """An engine MLP of `sizes` holding `weights` (copies of them if `copy`)."""
    net = MLP(sizes)
    for p, w in zip(net.params, weights):
        p.data = w.copy() if copy else w
    return net


def unfused_forward(net, X):
    """The MLP's logits with each layer written `x @ W + b`, a matmul and an add instead
    of one linear op."""
    return mlp_logits(net.params, X, relu)


def engine_step(sizes, X, y, weights, forward=MLP.__call__, constant_batch=True):
    """One SGD step of the engine; `forward(net, X)` computes the logits
    (unfused_forward: what fusing buys). The batch is a constant Tensor made once, as
    torch_step's is a torch.tensor made once: the tape copies its array at the first
    step only (chapter 8). With constant_batch=False it is the NumPy array X itself,
    which its owner could edit, so the tape copies it at every step."""
    net = engine_net(sizes, weights)
    optimizer = SGD(net.params, lr=LR)
    batch = Tensor(X, requires_grad=False) if constant_batch else X

    def step():
        optimizer.zero_grad()
        loss = cross_entropy(forward(net, batch), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def numpy_step(sizes, X, y, weights):
    """Forward and backward written out by hand: the floor the engine is measured
    against."""
    pairs = layers(
        [w.copy() for w in weights]
    )  # (W, b) of every layer, updated in place
    n = len(y)

    def step():
        activations, h = [X], X
        for k, (W, b) in enumerate(pairs):
            h = h @ W + b
            if k < len(pairs) - 1:
                h = np.maximum(h, 0)
            activations.append(h)
        shifted = h - h.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        probs = exp / exp.sum(axis=1, keepdims=True)
        loss = -np.log(probs[np.arange(n), y]).mean()
        g = probs
        g[np.arange(n), y] -= 1
        g /= n
        for k in reversed(range(len(pairs))):
            W, b = pairs[k]
            grad_W, grad_b = activations[k].T @ g, g.sum(axis=0)
            if k > 0:
                g = (g @ W.T) * (activations[k] > 0)
            W -= LR * grad_W
            b -= LR * grad_b
        return loss

    return step


def torch_step(sizes, X, y, weights, dtype):
    import torch

    params = [torch.tensor(w, dtype=dtype, requires_grad=True) for w in weights]
    Xt, yt = torch.tensor(X, dtype=dtype), torch.tensor(y)

    def step():
        loss = torch.nn.functional.cross_entropy(torch_mlp(params, Xt), yt)
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LR * p.grad
        return loss

    return step


def autograd_step(sizes, X, y, weights):
    import autograd
    import autograd.numpy as anp

    params = [w.copy() for w in weights]
    n = len(y)

    def loss_of(ps):
        h = mlp_logits(
            ps, X, lambda h: anp.maximum(h, 0), lambda h, W, b: anp.dot(h, W) + b
        )
        shifted = h - anp.max(h, axis=1, keepdims=True)
        return -anp.mean(
            shifted[np.arange(n), y] - anp.log(anp.sum(anp.exp(shifted), axis=1))
        )

    gradient = autograd.grad(loss_of)

    def step():
        grads = gradient(params)
        for i, g in enumerate(grads):
            params[i] = params[i] - LR * g

    return step


def implementations(sizes, batch, include_autograd):
    X, y, weights = problem(sizes, batch)
    found = {
        "numpy (by hand)": numpy_step(sizes, X, y, weights),
        "engine": engine_step(sizes, X, y, weights),
        "engine, unfused layers": engine_step(sizes, X, y, weights, unfused_forward),
        "engine, batch as an array": engine_step(
            sizes, X, y, weights, constant_batch=False
        ),
    }
    try:
        import torch

        torch.set_num_threads(numpy_threads())
        found["torch eager f64"] = torch_step(sizes, X, y, weights, torch.float64)
        found["torch eager f32"] = torch_step(sizes, X, y, weights, torch.float32)
    except ImportError:
        pass
    if include_autograd:
        try:
            found["HIPS autograd"] = autograd_step(sizes, X, y, weights)
        except ImportError:
            pass
    return found


def numpy_threads():
    """The number of BLAS threads NumPy uses (1 if threadpoolctl cannot tell)."""
    try:
        from threadpoolctl import threadpool_info

        return max(
            [
                info["num_threads"]
                for info in threadpool_info()
                if info["user_api"] == "blas"
            ]
            or [1]
        )
    except ImportError:
        return 1


def blas_description():
    try:
        from threadpoolctl import threadpool_info

        return [
            {
                k: info.get(k)
                for k in ("internal_api", "version", "architecture", "num_threads")
            }
            for info in threadpool_info()
            if info["user_api"] == "blas"
        ]
    except ImportError:
        return "threadpoolctl not installed"


def interleaved_medians(functions, rounds, repeats, statistic=np.median):
    """Median (or another statistic) of seconds per call of each function over the
    rounds, alternating between the functions in every round."""
    for f in functions.values():
        f()  # warm-up
    times = {name: [] for name in functions}
    for _ in range(rounds):
        for name, f in functions.items():
            start = time.perf_counter()
            for _ in range(repeats):
                f()
            times[name].append((time.perf_counter() - start) / repeats)
    return {name: float(statistic(t)) for name, t in times.items()}


def in_fresh_process(function, *args):
    """function(*args), a function of this module, run in a new Python process; its JSON
    result.

    It inherits the thread settings main() puts in the environment."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import run; "
        f"print(json.dumps(run.{function}(*{args!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise RuntimeError(f"{function}{args} failed:\n{result.stderr}")
    return json.loads(result.stdout.splitlines()[-1])


def warm_allocator():
    """Allocate and free one 16 MiB array, as any program that has handled a large array
    has done.

    glibc's malloc hands out arrays above 128 KiB as fresh pages from the kernel and
    gives them back when they are freed, so a loop over such arrays pays page faults on
    every pass; the first time it frees a large block it raises that threshold for good,
    and from then on such arrays are recycled from its heap. Whether a process is in the
    first state or the second depends on what it happened to allocate before (importing
    PyTorch is enough to switch it), and it moves the hand-written spiral step by a
    factor of almost two: so every measurement starts from the second, the state of any
    real training program."""
    np.ones(2 * 2**20).sum()


def training_step(net, quick, include_autograd):
    """Median seconds per training step of every implementation on one network of
    NETS."""
    warm_allocator()
    sizes, batch = NETS[net]
    if quick:
        sizes, batch = (
            sizes[:1] + [min(s, 32) for s in sizes[1:-1]] + sizes[-1:],
            min(batch, 64),
        )
    benchmark = "training step, batch over 1000" if batch > 1000 else "training step"
    return interleaved_medians(
        implementations(sizes, batch, include_autograd), *rounds_for(benchmark, quick)
    )


def training_steps(quick, include_autograd):
    return {
        net: in_fresh_process("training_step", net, quick, include_autograd)
        for net in NETS
    }


def near_empty_step(quick, include_autograd):
    """Median seconds per training step of every implementation on NEAR_EMPTY: what a
    step costs besides its arithmetic, which no size of the arrays removes."""
    warm_allocator()
    return interleaved_medians(
        implementations(*NEAR_EMPTY, include_autograd),
        *rounds_for("near-empty step", quick),
    )


def forward_only(quick):
    """Median seconds of the spiral network's forward pass: NumPy, the engine under
    no_grad and recording."""
    warm_allocator()
    sizes, batch = NETS[SPIRAL]
    X, y, weights = problem(sizes, batch)
    net = engine_net(sizes, weights, copy=False)

    def numpy_forward():
        return mlp_logits(weights, X, numpy_relu)

    def engine_no_grad():
        with no_grad():
            return net(X)

    return interleaved_medians(
        {
            "numpy (by hand)": numpy_forward,
            "engine, no_grad": engine_no_grad,
            "engine, recording": lambda: net(X),
        },
        *rounds_for("spiral forward", quick),
    )


def memory(quick):
    """Peak RSS of a training loop, and the graph's size for one step. Call it in a
    fresh process (its allocator not warmed), so that the peak belongs to the loop
    alone."""
    steps = 50 if quick else 1000
    sizes, batch = NETS[SPIRAL]
    step = engine_step(sizes, *problem(sizes, batch))
    samples = []
    for k in range(steps):
        loss = step()
        if k % max(steps // 10, 1) == 0 or k == steps - 1:
            samples.append((k + 1, peak_rss_mib()))
    nodes, size = graph_footprint(loss)
    return {
        "peak_rss_mib_by_step": samples,
        "graph_nodes_per_step": nodes,
        "graph_bytes_per_step": size,
    }


def peak_rss_mib():
    """This process's peak resident memory. /proc's VmHWM starts afresh at exec;
    ru_maxrss, the fallback, may carry over the parent's peak on Linux."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def width_sweep(quick):
    """Median step time of every implementation for [2, w, w, 3] at batch 4096, over
    widths w."""
    warm_allocator()
    widths = [16, 64] if quick else [16, 32, 64, 128, 256, 512]
    sweep = {}
    for width in widths:
        sizes, batch = [2, width, width, 3], (256 if quick else 4096)
        sweep[width] = interleaved_medians(
            implementations(sizes, batch, include_autograd=False),
            *rounds_for("width sweep", quick),
        )
    return sweep


def deep_chain(quick):
    """Seconds per node of backward over chains of n multiplications (after one warm-up
    chain): the fastest of several chains of each length, the one least disturbed by
    other work on the machine."""
    warm_allocator()
    result = {}
    warm_up = Tensor(np.ones(4))
    (warm_up * 1.0).backward(np.ones(4))
    repeats = {1_000: 21, 10_000: 7, 100_000: 3}
    for n in [1_000, 10_000] if quick else [1_000, 10_000, 100_000]:
        times = []
        for _ in range(repeats[n]):
            x = Tensor(np.ones(4))
            y = x
            for _ in range(n):
                y = y * 1.000001
            gc.collect()
            start = time.perf_counter()
            y.backward(np.ones(4))
            times.append((time.perf_counter() - start) / n)
            del x, y
        result[n] = min(times)
    return result


def chain_pass(n=1_000):
    """A recorded chain of n multiplications on 4 numbers and its backward pass."""
    x = Tensor(np.ones(4))
    y = x
    for _ in range(n):
        y = y * 1.000001
    y.backward(np.ones(4))


def census(quick):
    """Seconds of a spiral training step and of a recorded chain of 1,000 ops with its
    backward pass, each plain and inside chapter 12's ArrayCensus, interleaved."""
    warm_allocator()
    sizes, batch = NETS[SPIRAL]
    plain, counted = (engine_step(sizes, *problem(sizes, batch)) for _ in range(2))

    def counted_step():
        with ArrayCensus():
            counted()

    def counted_chain():
        with ArrayCensus():
            chain_pass()

    return interleaved_medians(
        {
            "spiral step": plain,
            "spiral step, census": counted_step,
            "chain of 1,000 ops": chain_pass,
            "chain of 1,000 ops, census": counted_chain,
        },
        *rounds_for("census", quick),
    )


def jacobian_network(n, m, hidden=32, seed=0):
    """Chapter 9's f(x) = tanh(W2 tanh(W1 x)), n inputs, m outputs."""
    rng = np.random.default_rng(seed)
    W1 = Tensor(rng.normal(size=(hidden, n)) / np.sqrt(n))
    W2 = Tensor(rng.normal(size=(m, hidden)) / np.sqrt(hidden))
    return lambda x: (W2 @ (W1 @ x).tanh()).tanh()


def chain_peak_bytes(depth, mode):
    """tracemalloc's peak while a chain of `depth` tanh ops runs on 10,000 numbers,
    under jvp (a value and its tangent) or under no_grad."""
    import tracemalloc

    x0 = np.random.default_rng(0).normal(size=10_000)

    def chain(x):
        for _ in range(depth):
            x = x.tanh()
        return x

    tracemalloc.start()
    if mode == "jvp":
        jvp(chain, (x0,), (x0,))
    else:
        with no_grad():
            chain(Tensor(x0))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def forward_mode(quick):
    """Chapter 9's forward mode: one JVP pass of the spiral network against its forward
    pass under no_grad; the memory of a deep chain under jvp; full Jacobians forward and
    reverse."""
    warm_allocator()
    sizes, batch = NETS[SPIRAL]
    X, y, weights = problem(sizes, batch)
    net = engine_net(sizes, weights, copy=False)
    rng = np.random.default_rng(1)
    U = rng.normal(size=X.shape)
    directions = [rng.normal(size=w.shape) for w in weights]

    def logits(*params):
        return mlp_logits(params, X, relu, linear)

    def engine_no_grad():
        with no_grad():
            return net(X)

    spiral = interleaved_medians(
        {
            "engine, no_grad": engine_no_grad,
            "jvp, direction in the inputs X": lambda: jvp(net, (X,), (U,)),
            "jvp, direction in all parameters": lambda: jvp(
                logits, weights, directions
            ),
        },
        *rounds_for("forward mode, spiral", quick),
    )
    depths = [100, 1_000] if quick else [1_000, 100_000]
    memory = {
        "jvp": {depth: chain_peak_bytes(depth, "jvp") for depth in depths},
        "no_grad": {depths[-1]: chain_peak_bytes(depths[-1], "no_grad")},
    }
    grid_sizes = [1, 4] if quick else [1, 4, 16, 64]
    grid = {}
    for n in grid_sizes:
        for m in grid_sizes:
            f = jacobian_network(n, m)
            x = np.random.default_rng(2).normal(size=n)
            times = interleaved_minimums(
                {
                    # called here, in this iteration: the defaults bind this f, x
                    "forward, n passes": lambda f=f, x=x: jacobian_forward(
                        f, x, batched=False
                    ),
                    "forward, one batched pass": lambda f=f, x=x: jacobian_forward(
                        f, x
                    ),
                    "reverse, m passes": lambda f=f, x=x: jacobian_reverse(f, x),
                },
                *rounds_for("forward mode, Jacobian grid", quick),
            )
            grid[f"{n},{m}"] = times
    return {
        "spiral_seconds": spiral,
        "chain_peak_bytes": memory,
        "jacobian_seconds": grid,
    }


def interleaved_minimums(functions, rounds, repeats):
    """The fastest round's seconds per call of each function, alternating between them:
    for the Jacobian grid's short calls, the least disturbed measurement."""
    return interleaved_medians(functions, rounds, repeats, statistic=np.min)


def report(results):
    """Print what the benchmark measured: times as ratios to hand-written NumPy (or to
    the engine's forward pass under no_grad, for forward mode)."""
    machine = results["machine"]
    print(
        "BLAS:",
        machine["blas"],
        "| threads:",
        machine["threads"],
        "| libc:",
        machine["libc"],
        "| OPENBLAS_CORETYPE:",
        machine["OPENBLAS_CORETYPE"],
    )
    steps = results["training_step_seconds"]
    print(
        f"\n{'training step (median)':<32}"
        + "".join(f"{name:>24}" for name in next(iter(steps.values())))
    )
    for net, medians in steps.items():
        base = medians["numpy (by hand)"]
        print(
            f"{net:<32}"
            + "".join(
                f"{t * 1e3:>15.3f} ms {t / base:>5.2f}x" for t in medians.values()
            )
        )
    near_empty = results["near_empty_step_seconds"]
    base = near_empty["numpy (by hand)"]
    print(
        f"\nnear-empty step {NEAR_EMPTY}:",
        ", ".join(
            f"{k} {v * 1e6:.1f} µs ({v / base:.2f}x)" for k, v in near_empty.items()
        ),
    )
    forward = results["forward_spiral_seconds"]
    print(
        "\nspiral forward:",
        ", ".join(
            f"{k} {v * 1e6:.1f} µs ({v / forward['numpy (by hand)']:.2f}x)"
            for k, v in forward.items()
        ),
    )
    mem = results["memory"]
    print(
        "memory: peak RSS (MiB) by step:",
        [(k, round(v, 1)) for k, v in mem["peak_rss_mib_by_step"]],
        f"| graph per step: {mem['graph_nodes_per_step']} nodes, "
        f"{mem['graph_bytes_per_step'] / 1024:.0f} KiB",
    )
    print(
        "width sweep [2,w,w,3] b4096, ratio to numpy:",
        {
            w: {k: round(v / m["numpy (by hand)"], 2) for k, v in m.items()}
            for w, m in results["width_sweep_seconds"].items()
        },
    )
    print(
        "deep chain backward, µs per node:",
        {
            n: round(t * 1e6, 2)
            for n, t in results["deep_chain_seconds_per_node"].items()
        },
    )
    counted = results["census_seconds"]
    print(
        "array census / plain:",
        ", ".join(
            f"{k} {counted[k + ', census'] / counted[k]:.2f}x"
            for k in ("spiral step", "chain of 1,000 ops")
        ),
        "| load average at start and end:",
        results["load_average"],
    )
    forward_mode = results["forward_mode"]
    spiral = forward_mode["spiral_seconds"]
    base = spiral["engine, no_grad"]
    print(
        "forward mode, spiral net: "
        + ", ".join(
            f"{k} {v * 1e6:.0f} µs ({v / base:.2f}x)" for k, v in spiral.items()
        )
    )
    chain = forward_mode["chain_peak_bytes"]
    print(
        "chain peak (KiB): jvp "
        + ", ".join(f"{int(d):,} ops {b / 1024:.0f}" for d, b in chain["jvp"].items())
        + "; no_grad "
        + ", ".join(
            f"{int(d):,} ops {b / 1024:.0f}" for d, b in chain["no_grad"].items()
        )
    )
    ratios = {
        cell: (
            t["forward, n passes"] / t["reverse, m passes"],
            t["forward, one batched pass"] / t["reverse, m passes"],
        )
        for cell, t in forward_mode["jacobian_seconds"].items()
    }
    print(
        "Jacobian, time forward / time reverse (n passes; batched): "
        + ", ".join(f"({cell}) {a:.2f}; {b:.2f}" for cell, (a, b) in ratios.items())
    )


def utc_now():
    """The time now, in UTC, to the second (ISO 8601)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes and few rounds: a smoke test"
    )
    parser.add_argument(
        "--no-autograd",
        action="store_true",
        help="skip HIPS autograd even if installed",
    )
    parser.add_argument(
        "--output", default=None, help="where to write the JSON results"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help=(
            "BLAS and PyTorch threads "
            "(default 1: the cost of bookkeeping, not of thread scheduling)"
        ),
    )
    args = parser.parse_args(argv)
    threads = str(
        args.threads
    )  # BLAS (NumPy's) and PyTorch threads of every measuring process
    os.environ.update(
        OMP_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads, MKL_NUM_THREADS=threads
    )

    load_at_start, started = os.getloadavg(), utc_now()
    results = {
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "processor": platform.machine(),
            "cpu_count": os.cpu_count(),
            "threads": args.threads,
            "blas": in_fresh_process("blas_description"),
            "libc": " ".join(platform.libc_ver()),
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        },
        "quick": args.quick,
        "training_step_seconds": training_steps(
            args.quick, include_autograd=not args.no_autograd
        ),
        "near_empty_step_seconds": in_fresh_process(
            "near_empty_step", args.quick, not args.no_autograd
        ),
        "forward_spiral_seconds": in_fresh_process("forward_only", args.quick),
        "memory": in_fresh_process("memory", args.quick),
        "width_sweep_seconds": in_fresh_process("width_sweep", args.quick),
        "deep_chain_seconds_per_node": in_fresh_process("deep_chain", args.quick),
        "forward_mode": in_fresh_process("forward_mode", args.quick),
        "census_seconds": in_fresh_process("census", args.quick),
    }
    # 1, 5 and 15 minute load averages: other work on the machine during the run
    results["load_average"] = {"start": load_at_start, "end": os.getloadavg()}
    results["utc"] = {"start": started, "end": utc_now()}  # when the run was made
    report(results)
    output = args.output or (
        None if args.quick else ROOT / "benchmarks" / "results.json"
    )
    if output:
        Path(output).write_text(json.dumps(results, indent=1))
        print(f"\nwrote {output}")
    return results


if __name__ == "__main__":
    main()
