"""JAX's CPU dispatch hand-off against the host time between steps:
``python -m benchmarks.dispatch_gap [--sync-cpu]``.

Times the hand-written JAX training step of ``benchmarks.mlp`` (small size: batch 32,
32-32-10, SGD inside the jitted step, new params and loss waited for) when each call
follows a busy-wait of a given length: the host work a training loop does between
steps (reading the loss, the next batch, a TF-style step's own Python). With JAX's
default asynchronous CPU dispatch, a program reaching the worker thread after it went
to sleep pays a wake-up; ``--sync-cpu`` runs programs on the calling thread instead
(``jax_cpu_enable_async_dispatch`` False, set before JAX starts its CPU client).

Prints, per gap, the median and quartiles of the step time over 2,000 calls.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

GAPS_US = (0, 5, 10, 20, 40, 80, 160)
CALLS = 2000


def _busy(us: float) -> None:
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dispatch_gap")
    parser.add_argument("--sync-cpu", action="store_true", help="synchronous CPU dispatch")
    args = parser.parse_args(argv)
    import jax

    if args.sync_cpu:
        jax.config.update("jax_cpu_enable_async_dispatch", False)
    from benchmarks import mlp

    batch, dims, _ = mlp.SIZES["small"]
    step = mlp._jax_jit(mlp.make_problem(batch, dims))
    for _ in range(200):
        step()
    mode = "synchronous" if args.sync_cpu else "asynchronous (default)"
    print(f"hand-written JAX MLP step, small size; JAX CPU dispatch: {mode}\n")
    print("| gap before each call | median | lower quartile | upper quartile |")
    print("| ---: | ---: | ---: | ---: |")
    for gap in GAPS_US:
        times = []
        for _ in range(CALLS):
            _busy(gap)
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
        q1, med, q3 = np.percentile(np.array(times) * 1e6, [25, 50, 75])
        print(f"| {gap} µs | {med:.1f} µs | {q1:.1f} µs | {q3:.1f} µs |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
