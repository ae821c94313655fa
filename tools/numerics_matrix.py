"""Re-run every notebook under configurations that change the floating-point bits on
this machine.

    python tools/numerics_matrix.py          # every configuration, all notebooks
    python tools/numerics_matrix.py --probe  # only show what each configuration changes
    python tools/numerics_matrix.py --only one-blas-thread book/05_spiral.ipynb

The stored outputs must not depend on the last bits of a float (README, "How this repo
works"). Each configuration sets environment variables that the notebook kernels
inherit: which SIMD loops NumPy dispatches, which OpenBLAS kernel and how many threads
it runs, which CPU capability PyTorch uses. Before the notebooks, a probe computes a few
products and transcendental functions under each configuration and prints their
fingerprint, so the run shows that the bits really changed; if no configuration changes
any bit, the matrix proves nothing and fails."""

import argparse
import os
from pathlib import Path
import platform
import subprocess
import sys


ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import hashlib, json, numpy as np, torch, threadpoolctl
rng = np.random.default_rng(0)
a, b, v = (rng.normal(size=(300, 64)), rng.normal(size=(64, 64)),
           rng.normal(size=100_000))
results = {"matmul": a @ b, "exp": np.exp(a), "tanh": np.tanh(a),
           "log": np.log(np.abs(a)), "dot": np.array(v @ v),
           "torch": (torch.from_numpy(a) @ torch.from_numpy(b)).exp().numpy()}
blas = [f"{i['internal_api']} {i.get('architecture')} x{i['num_threads']}"
        for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
from numpy._core._multiarray_umath import __cpu_features__, __cpu_dispatch__
print(json.dumps({
    "bits": {k: hashlib.sha1(r.tobytes()).hexdigest()[:8] for k, r in results.items()},
    "blas": ", ".join(blas),
    "numpy loops": " ".join(f for f in __cpu_dispatch__ if __cpu_features__.get(f))
                   or "baseline",
    "torch": torch.backends.cpu.get_cpu_capability(),
}))
"""


def dispatched_features():
    """NumPy's dispatched SIMD extensions (above its compiled baseline) on this
    machine."""
    from numpy._core._multiarray_umath import __cpu_dispatch__

    return list(__cpu_dispatch__)


def configurations():
    """Name -> environment changes. The first is the machine as installed."""
    features = dispatched_features()
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    above_avx2 = [f for f in features if f.startswith("AVX512") or f == "X86_V4"]
    configs = {"as-installed": {}}
    if x86:
        # An AVX2-class machine: Haswell's BLAS kernel, NumPy's AVX2 loops, PyTorch's
        # AVX2 kernels.
        configs["avx2-class"] = {
            "NPY_DISABLE_CPU_FEATURES": " ".join(above_avx2),
            "OPENBLAS_CORETYPE": "Haswell",
            "ATEN_CPU_CAPABILITY": "avx2",
        }
        # An old machine: Sandybridge's BLAS kernel, NumPy's baseline loops, PyTorch's
        # portable code.
        configs["baseline-simd"] = {
            "NPY_DISABLE_CPU_FEATURES": " ".join(features),
            "OPENBLAS_CORETYPE": "Sandybridge",
            "ATEN_CPU_CAPABILITY": "default",
        }
    else:
        configs["baseline-simd"] = {
            "NPY_DISABLE_CPU_FEATURES": " ".join(features),
            "ATEN_CPU_CAPABILITY": "default",
        }
    configs["one-blas-thread"] = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    if x86:
        # A mixture no real machine has: an old BLAS kernel with newer NumPy loops, one
        # thread.
        configs["mixed"] = {
            "NPY_DISABLE_CPU_FEATURES": " ".join(above_avx2),
            "OPENBLAS_CORETYPE": "Prescott",
            "OPENBLAS_NUM_THREADS": "1",
            "ATEN_CPU_CAPABILITY": "default",
        }
    return configs


def environment(changes):
    """This process's environment with `changes` applied (and no inherited overrides
    left)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY")
    }
    env.update({k: v for k, v in changes.items() if v})
    return env


def probe(changes):
    """What the configuration runs (BLAS kernel, NumPy loops, PyTorch capability) and
    its bits."""
    import json

    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=environment(changes),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--probe", action="store_true", help="only probe the configurations"
    )
    parser.add_argument("--only", action="append", help="run only these configurations")
    parser.add_argument(
        "notebooks", nargs="*", help="default: every notebook under book/"
    )
    args = parser.parse_args(argv)
    configs = configurations()
    if args.only:
        configs = {name: configs[name] for name in args.only}

    reference = probe({})["bits"]
    print(
        f"{'configuration':<17} {'BLAS':<26} {'NumPy loops':<28} {'torch':<8} "
        "bits that differ"
    )
    changed_any = False
    for name, changes in configs.items():
        seen = probe(changes)
        differ = [k for k, h in seen["bits"].items() if h != reference[k]]
        changed_any |= bool(differ)
        print(
            f"{name:<17} {seen['blas']:<26} "
            f"{seen['numpy loops']:<28} {seen['torch']:<8} "
            f"{', '.join(differ) or '(none: same bits as installed)'}"
        )
    if len(configs) > 1 and not changed_any:
        print(
            "No configuration changed any bit on this machine: "
            "the matrix would prove nothing."
        )
        return 1
    if args.probe:
        return 0

    notebooks = args.notebooks or [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
    ]
    failed = []
    for name, changes in configs.items():
        print(
            f"\n=== {name}: "
            f"{' '.join(f'{k}={v}' for k, v in changes.items()) or 'as installed'}",
            flush=True,
        )
        command = [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            "--nbval-current-env",
            "-q",
            "-p",
            "no:cacheprovider",
            *notebooks,
        ]
        if subprocess.run(command, cwd=ROOT, env=environment(changes)).returncode != 0:
            failed.append(name)
    print(
        f"\nnumerics matrix: {len(configs) - len(failed)} of {len(configs)} "
        "configurations passed" + (f"; failed: {', '.join(failed)}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
