"""Time the engine's conv2d and max_pool2d, forward and backward, against PyTorch eager
(float64, and float32 for information) on chapter 11's shapes and on one larger input.

    python benchmarks/conv.py          # full run; writes benchmarks/conv.json
    python benchmarks/conv.py --quick --output OUT.json  # a smoke run (the tests):
        # few rounds, and two images instead of 32 in the large cases

Every case runs in a fresh Python process with one BLAS thread and one PyTorch thread
(as benchmarks/run.py does). Within a process the implementations alternate within every
round, so that machine load affects them alike, and the report is the median over the
rounds, as a ratio to PyTorch float64. One call is a forward pass and a backward pass
seeded with a fixed random gradient, from fresh leaves (the input, the weight and the
bias all need gradients).

Besides the package's conv2d and max_pool2d ("engine"), it times the chapter's first
versions ("engine, first version"): the code of the first cell of
book/11_conv2d.ipynb that exports conv2d to engine.nn, run on the package's ops, as the
chapter runs it. Nothing here asserts a speed: chapter 11 reads the stored file and
states its ratios."""

import argparse
import json
import os
from pathlib import Path
import platform
import subprocess
import sys


HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHAPTER = ROOT / "book" / "11_conv2d.ipynb"
FIRST = "engine, first version"

# case: (function, shape of x, shape of w or pooling size); conv2d with padding 1
CASES = {
    "conv2d, chapter 11 layer 1": ("conv2d", (64, 1, 8, 8), (8, 1, 3, 3)),
    "conv2d, chapter 11 layer 2": ("conv2d", (64, 8, 4, 4), (16, 8, 3, 3)),
    "conv2d, (32, 16, 64, 64)": ("conv2d", (32, 16, 64, 64), (16, 16, 3, 3)),
    "max_pool2d, chapter 11 layer 1": ("max_pool2d", (64, 8, 8, 8), 2),
    "max_pool2d, chapter 11 layer 2": ("max_pool2d", (64, 16, 4, 4), 2),
    "max_pool2d, (32, 16, 64, 64)": ("max_pool2d", (32, 16, 64, 64), 2),
}
LARGE = {"conv2d, (32, 16, 64, 64)", "max_pool2d, (32, 16, 64, 64)"}
# (rounds, calls per round) of the small and the large cases
ROUNDS = {
    "quick": {"small": (3, 1), "large": (2, 1)},
    "full": {"small": (51, 20), "large": (21, 1)},
}
REFERENCE = "torch eager f64"


def rounds_for(case, quick):
    """(rounds, calls per round) of `case`."""
    return ROUNDS["quick" if quick else "full"]["large" if case in LARGE else "small"]


def first_versions():
    """(conv2d, max_pool2d) as chapter 11 first defines them: its first cell that
    exports conv2d, executed in a copy of engine.nn's namespace."""
    import engine.nn

    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    first = next(
        "".join(c["source"])
        for c in cells
        if "".join(c["source"]).startswith("#| export nn\n")
        and "def conv2d(" in "".join(c["source"])
    )
    namespace = dict(vars(engine.nn))
    exec(compile(first, f"{CHAPTER.name}, the first conv2d", "exec"), namespace)
    return namespace["conv2d"], namespace["max_pool2d"]


def engine_call(kind, x0, second, G, first=False):
    """One forward and backward pass of the engine (or of the chapter's first version)
    from fresh leaves."""
    from engine.core import Tensor
    from engine.nn import conv2d, max_pool2d

    if first:
        conv2d, max_pool2d = first_versions()

    if kind == "conv2d":
        w0, b0 = second

        def call():
            x, w, b = Tensor(x0), Tensor(w0), Tensor(b0)
            conv2d(x, w, b, padding=1).backward(G)
            return x.grad

    else:

        def call():
            x = Tensor(x0)
            max_pool2d(x, second).backward(G)
            return x.grad

    return call


def torch_call(kind, x0, second, G, dtype):
    """One forward and backward pass of PyTorch eager in `dtype` from fresh leaves."""
    import torch

    F = torch.nn.functional
    x1 = torch.tensor(x0, dtype=dtype)
    g = torch.tensor(G, dtype=dtype)
    if kind == "conv2d":
        w1, b1 = (torch.tensor(a, dtype=dtype) for a in second)

        def call():
            x, w, b = (t.clone().requires_grad_() for t in (x1, w1, b1))
            F.conv2d(x, w, b, padding=1).backward(g)
            return x.grad

    else:

        def call():
            x = x1.clone().requires_grad_()
            F.max_pool2d(x, second).backward(g)
            return x.grad

    return call


def measure(case, quick):
    """Median seconds per call of each implementation on one case of CASES; run it in
    a fresh process."""
    sys.path[:0] = [str(ROOT), str(HERE)]
    import numpy as np
    from run import interleaved_medians, warm_allocator
    import torch

    torch.set_num_threads(1)
    warm_allocator()
    kind, shape, other = CASES[case]
    if quick and case in LARGE:  # the smoke run: two images of the large input
        shape = (2,) + shape[1:]
    rng = np.random.default_rng(0)
    x0 = rng.normal(size=shape)
    if kind == "conv2d":
        second = (rng.normal(size=other), rng.normal(size=other[0]))
        out_shape = (shape[0], other[0]) + shape[2:]
    else:
        second = other
        out_shape = shape[:2] + (shape[2] // other, shape[3] // other)
    G = rng.normal(size=out_shape)
    calls = {
        "engine": engine_call(kind, x0, second, G),
        FIRST: engine_call(kind, x0, second, G, first=True),
        REFERENCE: torch_call(kind, x0, second, G, torch.float64),
        "torch eager f32": torch_call(kind, x0, second, G, torch.float32),
    }
    # every input gradient is PyTorch's (a check that the timed code is right)
    for name in ("engine", FIRST):
        assert np.allclose(calls[name](), calls[REFERENCE]().numpy(), atol=1e-9), name
    return interleaved_medians(calls, *rounds_for(case, quick))


def in_fresh_process(function, *args):
    """function(*args), a function of this module, in a new Python process; its JSON
    result. It inherits the thread settings main() puts in the environment."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import conv; "
        f"print(json.dumps(conv.{function}(*{args!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT
    )
    if result.returncode != 0:
        raise RuntimeError(f"{function}{args} failed:\n{result.stderr}")
    return json.loads(result.stdout.splitlines()[-1])


def machine_facts():
    """Python, NumPy, PyTorch, the BLAS, the processor and the threads."""
    sys.path[:0] = [str(ROOT), str(HERE)]
    import numpy as np
    from run import blas_description
    import torch

    torch.set_num_threads(1)
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "processor": platform.machine(),
        "cpu_count": os.cpu_count(),
        "blas": blas_description(),
        "torch_threads": torch.get_num_threads(),
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "thread_variables": {
            k: os.environ.get(k)
            for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        },
    }


def report(results):
    """Print the medians and the ratios to PyTorch float64."""
    machine = results["machine"]
    print(
        "BLAS:",
        machine["blas"],
        "| cpus:",
        machine["cpu_count"],
        "| load average at start, end:",
        machine["load_average_at_start"],
        machine["load_average_at_end"],
    )
    for case, medians in results["seconds"].items():
        print(
            f"{case:<32}"
            + "".join(f"{name} {t * 1e3:9.3f} ms   " for name, t in medians.items())
            + f"engine / torch f64: {results['ratios'][case]:.2f} "
            + f"(first version {results['first_version_ratios'][case]:.2f})"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few rounds: a smoke test")
    parser.add_argument("--output", default=None, help="where to write the JSON")
    args = parser.parse_args(argv)
    os.environ.update(
        OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1"
    )
    results = {
        "command": "python benchmarks/conv.py" + " --quick" * args.quick,
        "quick": args.quick,
        "rounds": {case: rounds_for(case, args.quick) for case in CASES},
        "machine": in_fresh_process("machine_facts"),
    }
    results["machine"]["load_average_at_start"] = list(os.getloadavg())
    results["seconds"] = {
        case: in_fresh_process("measure", case, args.quick) for case in CASES
    }
    results["machine"]["load_average_at_end"] = list(os.getloadavg())
    results["ratios"] = {
        case: medians["engine"] / medians[REFERENCE]
        for case, medians in results["seconds"].items()
    }
    results["first_version_ratios"] = {
        case: medians[FIRST] / medians[REFERENCE]
        for case, medians in results["seconds"].items()
    }
    report(results)
    output = args.output or (None if args.quick else HERE / "conv.json")
    if output:
        Path(output).write_text(json.dumps(results, indent=1) + "\n")
        print(f"\nwrote {output}")
    return results


if __name__ == "__main__":
    main()
