"""Chapter 13's transformer, run longer than a test suite can: several seeds, a minute
of training each, step times against the same model written by hand in NumPy and in
PyTorch eager, and memory with and without checkpoints.

    python benchmarks/transformer.py  # the full run: writes benchmarks/transformer.json
    python benchmarks/transformer.py --quick --output OUT.json  # a smoke run (tests)

The code that runs is the chapter's own: the cells of book/13_transformer.ipynb that
begin with MARKER ("The experiment's code") and its cells for engine.nn (the ops, the
mask, attention), executed in order after the chapter's first code cell (its imports);
nothing here re-implements the model, the baselines or the training loop. `code` in the
output is a hash of those cells (all but the imports), so the tests can tell whether the
stored file was made by the code the chapter now holds.

In the full run every measurement runs in a fresh Python process with one BLAS thread
and one PyTorch thread (as benchmarks/run.py does), up to PARALLEL at a time: first the
training runs (the short runs, and the long runs of every seed), then the step times of
each depth, then the memory of each depth. On a machine shared with other programs
that keeps the run's wall-clock time bounded; the losses do not depend on timing, and
every time is its own process's processor time, which other processes do not add to
(they do share caches and memory bandwidth). The quick run calls them one by one in
this process. Training times and
step times are processor seconds of the measuring process (evaluations excluded), so
that other programs on a shared machine slow them less than they would wall-clock
time; the load average is stored beside them. The chapter reads the file and asserts
the claims its text makes about it."""

import argparse
from concurrent.futures import ThreadPoolExecutor
import functools
import hashlib
import json
import os
from pathlib import Path
import platform
import subprocess
import sys
import time
from types import SimpleNamespace


HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHAPTER = ROOT / "book" / "13_transformer.ipynb"
MARKER = "# The experiment's code"
EXPORT = "#| export"

# What each part runs, in the full run and in the quick smoke run.
PLAN = {
    "full": {
        "short_seeds": 5,
        "short_steps": 300,
        "mlp_short_steps": 1500,
        "long_seeds": 5,
        "long_steps": 6000,
        "long_every": 1000,
        "mlp_long_steps": 32_000,
        "mlp_long_every": 4000,
        "timing_rounds": 30,
        "timing_layers": [1, 4],
        "memory_layers": [1, 2, 4, 8],
        "memory_repeats": 3,
    },
    "quick": {
        "short_seeds": 2,
        "short_steps": 20,
        "mlp_short_steps": 40,
        "long_seeds": 1,
        "long_steps": 30,
        "long_every": 15,
        "mlp_long_steps": 60,
        "mlp_long_every": 30,
        "timing_rounds": 2,
        "timing_layers": [1],
        "memory_layers": [1, 2],
        "memory_repeats": 1,
    },
}
BATCH, MLP_BATCH, WINDOW = 64, 256, 5
SCHEDULES = {"none": False, "blocks": "blocks", "sublayers": "sublayers"}
SHOWN = "kowalski"
PARALLEL = 12  # measurements at a time in the full run (fresh processes)


def cells():
    """The chapter's code cells as (index, source)."""
    notebook = json.loads(CHAPTER.read_text(encoding="utf-8"))
    return [
        (i, "".join(c["source"]))
        for i, c in enumerate(notebook["cells"])
        if c["cell_type"] == "code"
    ]


def code_hash():
    """A hash of the cells that chapter() runs but the first: what made the numbers."""
    chosen = [s for _, s in cells() if s.startswith((MARKER, EXPORT + " nn"))]
    return hashlib.sha256("\n\n".join(chosen).encode("utf-8")).hexdigest()[:16]


@functools.cache
def chapter():
    """The chapter's imports (its first code cell), its engine cells for `engine.nn` and
    its experiment definitions, executed in order: a namespace."""
    found = cells()
    namespace = {"__name__": "chapter13"}
    chosen = [found[0]] + [
        (i, s) for i, s in found[1:] if s.startswith((MARKER, EXPORT + " nn"))
    ]
    for index, source in chosen:
        exec(compile(source, f"{CHAPTER}, cell {index}", "exec"), namespace)
    return SimpleNamespace(**namespace)


DATA = {}


def data(c):
    """The chapter's data: (chars, context, train (X, Y), validation (X, Y), names)."""
    if id(c) not in DATA:
        names = c.census_names()
        chars = c.vocabulary(names)
        context = max(len(n) for n in names) + 1
        train, validation = c.split(names)
        DATA[id(c)] = (
            chars,
            context,
            c.encode(train, chars, context),
            c.encode(validation, chars, context),
            names,
        )
    return DATA[id(c)]


def short_runs(plan):
    """The chapter's short run, for several seeds of each network; and the bigram."""
    c = chapter()
    chars, context, (X, Y), (Xv, Yv), names = data(c)
    result = {
        "data": {
            "names": len(names),
            "train": len(X),
            "validation": len(Xv),
            "validation_targets": int((Yv >= 0).sum()),
            "bigram": c.bigram_loss(X, Y, Xv, Yv, len(chars)),
        },
        "transformer": {
            "steps": plan["short_steps"],
            "batch": BATCH,
            "validation": [],
            "seconds": [],
        },
        "mlp": {
            "steps": plan["mlp_short_steps"],
            "batch": MLP_BATCH,
            "k": WINDOW,
            "validation": [],
            "seconds": [],
        },
    }
    windows, windows_val = c.pairs(X, Y, WINDOW), c.pairs(Xv, Yv, WINDOW)
    for seed in range(plan["short_seeds"]):
        model = c.Transformer(len(chars), context, seed=seed)
        seconds, _ = c.train(model, X, Y, plan["short_steps"], BATCH, seed=seed)
        result["transformer"]["validation"].append(c.evaluate(model, Xv, Yv))
        result["transformer"]["seconds"].append(seconds)
        mlp = c.WindowMLP(len(chars), k=WINDOW, seed=seed)
        seconds, _ = c.train(
            mlp, *windows, plan["mlp_short_steps"], MLP_BATCH, seed=seed
        )
        result["mlp"]["validation"].append(c.evaluate(mlp, *windows_val))
        result["mlp"]["seconds"].append(seconds)
        if seed == 0:
            result["samples"] = c.sample(model, chars, 10, seed=0)
    return result


def long_run(kind, seed, plan):
    """One long run of one network: its curve, final loss and training seconds; for the
    transformer of seed 0 also its samples and its attention weights for SHOWN."""
    c = chapter()
    chars, context, (X, Y), (Xv, Yv), names = data(c)
    if kind == "transformer":
        model = c.Transformer(len(chars), context, seed=seed)
        seconds, curve = c.train(
            model,
            X,
            Y,
            plan["long_steps"],
            BATCH,
            seed=seed,
            every=plan["long_every"],
            validation=(Xv, Yv),
        )
        final = c.evaluate(model, Xv, Yv)
    else:
        model = c.WindowMLP(len(chars), k=WINDOW, seed=seed)
        validation = c.pairs(Xv, Yv, WINDOW)
        seconds, curve = c.train(
            model,
            *c.pairs(X, Y, WINDOW),
            plan["mlp_long_steps"],
            MLP_BATCH,
            seed=seed,
            every=plan["mlp_long_every"],
            validation=validation,
        )
        final = c.evaluate(model, *validation)
    result = {"validation": final, "seconds": seconds, "curve": curve}
    if kind == "transformer" and seed == 0:
        drawn = c.sample(model, chars, 200, seed=1)
        known = set(names)
        n = len(SHOWN) + 1
        weights = model.attention_weights(c.encode([SHOWN], chars, context)[0])
        result.update(
            samples=c.sample(model, chars, 10, seed=0),
            new_of_200=sum(name not in known for name in drawn),
            attention=weights[0, :, :n, :n].tolist(),
        )
    return result


def step_times(layers, plan):
    """Median processor seconds of one training step (forward, backward, Adam) of the
    engine, with and without checkpoints, of the same model written by hand in NumPy,
    and in PyTorch eager float64 and float32, interleaved in every round; and the
    machine's load average before and after."""
    import numpy as np
    import torch

    torch.set_num_threads(1)
    c = chapter()
    chars, context, (X, Y), _, _ = data(c)
    batches = [np.random.default_rng(k).integers(0, len(X), BATCH) for k in range(64)]

    def engine_stepper(checkpointed):
        model = c.Transformer(len(chars), context, layers=layers, seed=0)
        optimizer = c.Adam(model.params, lr=1e-3)

        def step(rows):
            optimizer.zero_grad()
            model.loss(X[rows], Y[rows], checkpointed).backward()
            optimizer.step()

        return step

    def by_hand_stepper():
        reference = c.TransformerByHand(
            c.Transformer(len(chars), context, layers=layers, seed=0), lr=1e-3
        )

        def step(rows):
            reference.step(X[rows], Y[rows])

        return step

    def torch_stepper(dtype):
        witness = c.TorchTransformer(
            c.Transformer(len(chars), context, layers=layers), dtype=dtype
        )
        optimizer = torch.optim.Adam(witness.params, lr=1e-3)
        Xt, Yt = torch.as_tensor(X), torch.as_tensor(Y)

        def step(rows):
            index = torch.as_tensor(rows)
            optimizer.zero_grad()
            witness.loss(Xt[index], Yt[index]).backward()
            optimizer.step()

        return step

    steppers = {
        "engine": engine_stepper(False),
        "engine, checkpoint per block": engine_stepper("blocks"),
        "engine, checkpoint per sublayer": engine_stepper("sublayers"),
        "NumPy by hand": by_hand_stepper(),
        "PyTorch eager, float64": torch_stepper(torch.float64),
        "PyTorch eager, float32": torch_stepper(torch.float32),
    }
    for step in steppers.values():  # warm-up
        for rows in batches[:5]:
            step(rows)
    times = {name: [] for name in steppers}
    repeats, load = 10, [list(os.getloadavg())]
    for k in range(plan["timing_rounds"]):
        for name, step in steppers.items():
            start = time.process_time()  # this process's time: others' is not
            for j in range(repeats):
                step(batches[(k * repeats + j) % len(batches)])
            times[name].append((time.process_time() - start) / repeats)
    load.append(list(os.getloadavg()))
    return {
        "medians": {name: float(np.median(t)) for name, t in times.items()},
        "load_average": load,
    }


def memory(layers, plan):
    """For each schedule of checkpoints: the census of one forward pass and sweep (peak
    arrays alive, op calls) and tracemalloc's peak in MiB, parameters excluded."""
    import gc
    import tracemalloc

    import numpy as np

    c = chapter()
    chars, context, (X, Y), _, _ = data(c)
    rows = np.random.default_rng(0).integers(0, len(X), BATCH)
    xb, yb = X[rows], Y[rows]
    model = c.Transformer(len(chars), context, layers=layers, seed=0)
    found = []
    for name, checkpointed in SCHEDULES.items():
        with c.ArrayCensus() as census:
            loss = model.loss(xb, yb, checkpointed)
            c.grad(loss, model.params)
            del loss
        peaks = []
        for _ in range(plan["memory_repeats"]):
            gc.collect()
            tracemalloc.start()
            loss = model.loss(xb, yb, checkpointed)
            gradients = c.grad(loss, model.params)
            del loss, gradients
            peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
            tracemalloc.stop()
        found.append(
            {
                "layers": layers,
                "checkpointed": name,
                "peak_arrays": census.peak,
                "op_calls": census.ops,
                "peak_mib": min(peaks),
            }
        )
    return found


def in_fresh_process(function, *args):
    """function(*args), a function of this module, in a new Python process: its JSON
    result. It inherits the thread settings that main() puts in the environment."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import transformer; "
        f"print(json.dumps(transformer.{function}(*{args!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT
    )
    if result.returncode != 0:
        raise RuntimeError(f"{function}{args} failed:\n{result.stderr}")
    return json.loads(result.stdout.splitlines()[-1])


def in_this_process(function, *args):
    """function(*args), a function of this module, called here, its result through
    JSON."""
    return json.loads(json.dumps(globals()[function](*args)))


def blas_description():
    import numpy  # noqa: F401  (threadpoolctl sees only the BLAS of modules already loaded)
    from threadpoolctl import threadpool_info

    return [
        {
            k: info.get(k)
            for k in ("internal_api", "version", "architecture", "num_threads")
        }
        for info in threadpool_info()
        if info["user_api"] == "blas"
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny runs: a smoke test")
    parser.add_argument(
        "--output", default=None, help="where to write the JSON results"
    )
    args = parser.parse_args(argv)
    os.environ.update(
        OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1"
    )
    plan = PLAN["quick" if args.quick else "full"]
    started = time.perf_counter()
    measure = in_this_process if args.quick else in_fresh_process

    def say(what):
        print(f"[{time.perf_counter() - started:6.0f} s] {what}", flush=True)

    import numpy as np

    results = {
        "command": "python benchmarks/transformer.py" + " --quick" * args.quick,
        "quick": args.quick,
        "code": code_hash(),
        "plan": plan,
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "processor": platform.machine(),
            "cpu_count": os.cpu_count(),
            "blas": measure("blas_description"),
            "load_average_at_start": list(os.getloadavg()),
        },
    }
    # every measurement counts its own process's processor time or does not time at
    # all: in the full run up to PARALLEL fresh processes run at a time
    say("short and long runs")
    kinds = (("transformer", "long_steps"), ("mlp", "mlp_long_steps"))
    with ThreadPoolExecutor(1 if args.quick else PARALLEL) as pool:
        short_run = pool.submit(measure, "short_runs", plan)
        long_runs = {
            kind: [
                pool.submit(measure, "long_run", kind, seed, plan)
                for seed in range(plan["long_seeds"])
            ]
            for kind, _ in kinds
        }
        short = short_run.result()
        found = {
            kind: [run.result() for run in runs] for kind, runs in long_runs.items()
        }
    results["processes_at_a_time"] = 1 if args.quick else PARALLEL
    results["data"] = short.pop("data")
    results["samples"] = {"short": short.pop("samples")}
    results["short"] = short
    results["long"] = {}
    for kind, steps in kinds:
        runs = found[kind]
        results["long"][kind] = {
            "steps": plan[steps],
            "batch": BATCH if kind == "transformer" else MLP_BATCH,
            "validation": [r["validation"] for r in runs],
            "seconds": [r["seconds"] for r in runs],
            "curves": [r["curve"] for r in runs],
        }
        if kind == "transformer":
            first = runs[0]
            results["samples"].update(
                long=first["samples"], long_new_of_200=first["new_of_200"]
            )
            results["attention"] = {"name": SHOWN, "long": first["attention"]}
    say("step times")
    with ThreadPoolExecutor(1 if args.quick else PARALLEL) as pool:
        timed = {
            str(layers): pool.submit(measure, "step_times", layers, plan)
            for layers in plan["timing_layers"]
        }
        timed = {layers: t.result() for layers, t in timed.items()}
    results["step_seconds"] = {
        "batch": BATCH,
        "rounds": plan["timing_rounds"],
        "clock": "process time",
        "medians": {layers: t["medians"] for layers, t in timed.items()},
        "load_average": {layers: t["load_average"] for layers, t in timed.items()},
    }
    say("memory")
    with ThreadPoolExecutor(1 if args.quick else PARALLEL) as pool:
        measured = [
            pool.submit(measure, "memory", layers, plan)
            for layers in plan["memory_layers"]
        ]
        rows = [row for m in measured for row in m.result()]
    results["memory"] = {"batch": BATCH, "rows": rows}
    results["machine"]["load_average_at_end"] = list(os.getloadavg())
    results["seconds"] = time.perf_counter() - started
    report(results)
    output = args.output or (None if args.quick else HERE / "transformer.json")
    if output:
        Path(output).write_text(json.dumps(results, indent=1) + "\n")
        print(f"\nwrote {output}")
    return results


def report(results):
    """Print what was measured."""
    print(f"bigram {results['data']['bigram']:.4f}")
    for part in ("short", "long"):
        for kind, runs in results[part].items():
            print(
                f"{part:<5} {kind:<11} {runs['steps']:>6} steps: validation "
                + ", ".join(f"{v:.4f}" for v in runs["validation"])
                + "; seconds "
                + ", ".join(f"{s:.1f}" for s in runs["seconds"])
            )
    print(
        "samples:",
        ", ".join(results["samples"]["long"]),
        f"({results['samples']['long_new_of_200']} of 200 not in the list)",
    )
    for layers, medians in results["step_seconds"]["medians"].items():
        reference = medians["NumPy by hand"]
        print(
            f"step, {layers} block(s): "
            + ", ".join(
                f"{name} {t * 1e3:.1f} ms ({t / reference:.2f}x)"
                for name, t in medians.items()
            )
        )
    for row in results["memory"]["rows"]:
        print(
            f"memory, {row['layers']} block(s), checkpoints {row['checkpointed']:<9}: "
            f"{row['peak_arrays']:>3} arrays, {row['op_calls']:>3} op calls, "
            f"{row['peak_mib']:.2f} MiB"
        )
    print(f"{results['seconds']:.0f} s in all")


if __name__ == "__main__":
    main()
