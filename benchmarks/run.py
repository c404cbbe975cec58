"""Command line: runs the scenarios and prints Markdown tables.

    python -m benchmarks [--quick] [--only NAME[:SIZE]] [--json PATH] [--device]

Progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import sys
import time
from typing import Any

from benchmarks import cnn_lstm as _cnn_lstm  # noqa: F401  (registers cnn and lstm)
from benchmarks import data as _data  # noqa: F401  (registers the scenario)
from benchmarks import frameworks, harness
from benchmarks import jacobian as _jacobian  # noqa: F401  (registers the scenario)
from benchmarks import keras_dense as _keras_dense  # noqa: F401  (registers the scenario)
from benchmarks import mlp as _mlp  # noqa: F401  (registers the scenario)
from benchmarks import per_op as _per_op  # noqa: F401  (registers the scenario)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def device_info() -> dict[str, Any]:
    info: dict[str, Any] = {}
    try:
        jax = frameworks.jax()
        d = jax.devices()[0]
        info["jax_device"] = f"{d} (platform {d.platform}, kind {d.device_kind})"
    except Exception as exc:
        info["jax_device"] = f"unavailable ({exc})"
    info["platform.processor()"] = platform.processor() or "(empty)"
    info["cpu_model"] = _cpu_model() or "(unknown)"
    info["cpu_count"] = os.cpu_count()
    info["cpus_usable"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    info["load_average_at_start"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    info["python"] = platform.python_version()
    info["machine"] = platform.machine()
    info["versions"] = frameworks.versions()
    info["omp_wait_policy"] = os.environ.get("OMP_WAIT_POLICY", "(unset)")
    try:
        info["jax_cpu_async_dispatch"] = bool(
            frameworks.jax().config.read("jax_cpu_enable_async_dispatch")
        )
    except Exception:
        pass
    try:
        info["torch_threads"] = frameworks.torch().get_num_threads()
    except harness.Skip:
        pass
    return info


def device_note(info: dict[str, Any]) -> str:
    load = info.get("load_average_at_start")
    lines = [
        f"- device: JAX `{info['jax_device']}`; CPU `{info['cpu_model']}` "
        f"(platform.processor(): `{info['platform.processor()']}`), "
        f"{info['cpu_count']} CPUs ({info['cpus_usable']} usable), {info['machine']}",
        "- load average at start: "
        + (", ".join(f"{x:.2f}" for x in load) if load else "n/a")
        + (f"; torch threads: {info['torch_threads']}" if "torch_threads" in info else "")
        + f"; OMP_WAIT_POLICY={info['omp_wait_policy']}"
        + (
            f"; JAX CPU async dispatch: {info['jax_cpu_async_dispatch']}"
            if "jax_cpu_async_dispatch" in info
            else ""
        ),
        f"- python {info['python']}; " + "; ".join(f"{k} {v}" for k, v in info["versions"].items()),
    ]
    return "\n".join(lines)


def _selected(only: list[str] | None) -> list[tuple[str, str | None]]:
    """[(scenario, size prefix or None)] from --only values."""
    if not only:
        return [(name, None) for name in harness.SCENARIOS]
    out = []
    for item in only:
        name, _, size = item.partition(":")
        if name not in harness.SCENARIOS:
            raise SystemExit(
                f"unknown scenario {name!r}; choose from {', '.join(harness.SCENARIOS)}"
            )
        out.append((name, size or None))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="tapejax vs TensorFlow, JAX and PyTorch, timed side by side in one process.",
    )
    parser.add_argument("--quick", action="store_true", help="few repeats: a smoke test")
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME[:SIZE]",
        help=f"run only this scenario ({', '.join(harness.SCENARIOS)}), optionally only "
        "sizes starting with SIZE (e.g. mlp:small); repeatable",
    )
    parser.add_argument(
        "--budget",
        type=float,
        metavar="S",
        help="cap every case's timing budget at S seconds (its minimum and maximum numbers "
        "of rounds still hold): for a short lease on a machine whose timings are steady",
    )
    parser.add_argument("--json", metavar="PATH", help="also write every measurement as JSON")
    parser.add_argument("--device", action="store_true", help="print the device note and exit")
    parser.add_argument(
        "--sync-cpu",
        action="store_true",
        help="run JAX's CPU programs on the calling thread (jax_cpu_enable_async_dispatch "
        "False) for every JAX contender, tapejax and hand-written alike",
    )
    args = parser.parse_args(argv)
    if args.sync_cpu:  # before anything starts JAX's CPU client, which reads it once
        frameworks.jax().config.update("jax_cpu_enable_async_dispatch", False)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    selected = _selected(args.only)
    start = time.perf_counter()
    info = device_info()
    print("# tapejax benchmarks\n")
    command = " ".join(["python -m benchmarks", *(sys.argv[1:] if argv is None else argv)])
    print(
        f"`{command}` — {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}"
        + (" (quick: few repeats, figures are rough)" if args.quick else "")
        + (f" (timing budget capped at {args.budget:g} s per case)" if args.budget else "")
        + "\n"
    )
    print(device_note(info) + "\n", flush=True)
    if args.device:
        return 0

    report: dict[str, Any] = {"argv": sys.argv, "quick": args.quick, "device": info, "cases": []}
    for name, size in selected:
        cases = [
            c
            for c in harness.SCENARIOS[name](args.quick)
            if size is None or c.size.startswith(size)
        ]
        if args.budget is not None:
            cases = [dataclasses.replace(c, budget_s=min(c.budget_s, args.budget)) for c in cases]
        results = []
        for case in cases:
            log(f"{case.scenario}/{case.size}")
            results.append(harness.run_case(case, log=log))
            report["cases"].append(harness.to_json(results[-1]))
        if not results:
            continue
        print(f"## {name}\n")
        print(harness.timing_table(results) + "\n")
        print(
            f"Median time per {results[0].case.unit} over the timed calls (n of them, in "
            "interleaved rounds); IQR/median is their spread; ratios are this median over "
            "the baseline's (lower is faster).\n"
        )
        print("Warm-up and recompilation (call 1 includes compilation):\n")
        print(harness.compile_table(results) + "\n")
        lines = harness.notes(results)
        if lines:
            print("Notes:\n")
            print("\n".join(lines) + "\n")
        sys.stdout.flush()

    total = time.perf_counter() - start
    print(f"Total wall time: {total:.0f} s")
    report["wall_s"] = total
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        log(f"wrote {args.json}")
    return 0
