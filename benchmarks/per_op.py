"""Scenario `per_op`: the cost of one small eager op, with and without a tape.

A chain of `CHAIN_OPS` elementwise ops (`y = y * 1.0001 + 0.0001`, a multiply
and an add per iteration) on a (16,) float32 vector, so that the arithmetic is
negligible and what is measured is dispatch plus, under a tape, recording. Each
timed call runs the whole chain and blocks once at its end; times are per op.

The "+ gradient" rows also call the framework's backward on the chain's sum
(amortized over the chain's ops); they show what recording buys and are not
part of the per-op overhead itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import frameworks
from benchmarks.harness import Case, CaseResult, Contender, register

CHAIN_OPS = 100
VECTOR = np.linspace(0.0, 1.0, 16, dtype=np.float32)


def chain(y: Any) -> Any:
    """`CHAIN_OPS` elementwise ops; the same code for every framework."""
    for _ in range(CHAIN_OPS // 2):
        y = y * 1.0001 + 0.0001
    return y


def _tf_style(module: Callable[[], Any], mode: str) -> Callable[[], Any]:
    """tapejax or tensorflow: no tape, recording under a tape, or + gradient."""
    tf = module()
    x = tf.constant(VECTOR)
    if mode == "no tape":
        return lambda: chain(x).numpy()
    if mode == "recording":

        def run():
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = chain(x)
            return y.numpy()

        return run

    def run_with_gradient():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(chain(x))
        return tape.gradient(y, x).numpy()

    return run_with_gradient


def _jax_eager() -> Callable[[], Any]:
    frameworks.jax()
    import jax.numpy as jnp

    x = jnp.asarray(VECTOR)
    return lambda: chain(x).block_until_ready()


def _torch(mode: str) -> Callable[[], Any]:
    torch = frameworks.torch()
    if mode == "no grad":
        x = torch.from_numpy(VECTOR.copy())

        def run():
            with torch.no_grad():
                return chain(x)

        return run
    x = torch.from_numpy(VECTOR.copy()).requires_grad_(True)
    if mode == "requires_grad":
        return lambda: chain(x)

    def run_with_backward():
        chain(x).sum().backward()
        x.grad = None

    return run_with_backward


CONTENDERS = [
    Contender("jax eager (raw)", _jax_eager, uses_jax=True),
    Contender("tapejax, no tape", lambda: _tf_style(frameworks.tapejax, "no tape"), uses_jax=True),
    Contender(
        "tapejax, recording", lambda: _tf_style(frameworks.tapejax, "recording"), uses_jax=True
    ),
    Contender(
        "tapejax, + gradient", lambda: _tf_style(frameworks.tapejax, "gradient"), uses_jax=True
    ),
    Contender("tf eager, no tape", lambda: _tf_style(frameworks.tensorflow, "no tape")),
    Contender("tf eager, recording", lambda: _tf_style(frameworks.tensorflow, "recording")),
    Contender("tf eager, + gradient", lambda: _tf_style(frameworks.tensorflow, "gradient")),
    Contender("torch, no grad", lambda: _torch("no grad")),
    Contender("torch, requires_grad", lambda: _torch("requires_grad")),
    Contender("torch, + backward", lambda: _torch("backward")),
]


def differences(cr: CaseResult) -> list[str]:
    """Recording overhead per op, as differences of medians measured side by side."""
    lines = []
    for label, a, b in (
        ("tapejax recording − raw JAX", "tapejax, recording", "jax eager (raw)"),
        ("tapejax no tape − raw JAX", "tapejax, no tape", "jax eager (raw)"),
        ("tapejax recording − tapejax no tape", "tapejax, recording", "tapejax, no tape"),
        ("tf recording − tf no tape", "tf eager, recording", "tf eager, no tape"),
        ("torch requires_grad − torch no grad", "torch, requires_grad", "torch, no grad"),
    ):
        ra, rb = cr.by_name(a), cr.by_name(b)
        if ra is None or rb is None or ra.median is None or rb.median is None:
            lines.append(f"{label}: n/a")
        else:
            lines.append(f"{label}: {(ra.median - rb.median) * 1e6:+.2f} µs/op")
    return lines


@register("per_op")
def cases(quick: bool) -> list[Case]:
    return [
        Case(
            scenario="per_op",
            size=f"{CHAIN_OPS} ops, (16,) f32",
            contenders=CONTENDERS,
            baselines=("jax eager (raw)", "tf eager, no tape"),
            items_per_call=CHAIN_OPS,
            unit="op",
            warmup=3 if quick else 20,
            min_repeats=10 if quick else 50,
            max_repeats=50 if quick else 2000,
            budget_s=3.0 if quick else 25.0,
            check_calls=0,
            report=differences,
        )
    ]
