"""Scenario `keras_dense`: the per-call cost of a bridged Keras Dense layer.

A `tapejax.keras.layers.Dense` call is one recorded op that runs Keras's own layer
(see `tapejax/keras/_call.py`). Its overhead is compared with the same dense layer
hand-written with tapejax ops (`tf.nn.bias_add(tf.matmul(x, w), b)`: two ops) and
with Keras 3's own eager call on JAX arrays. Small sizes, so that what is measured
is dispatch and recording, not arithmetic: each timed call runs a chain of
`CHAIN` layer calls (each layer's output feeds the next) and blocks once at the end;
times are per layer call. The target is the bridged layer within 2x of the
hand-written op, recording or not.

Keras picks its backend once per process; this module asks for JAX when it is
imported, before any scenario imports TensorFlow (which imports Keras).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import frameworks
from benchmarks.harness import Case, CaseResult, Contender, Skip, register

os.environ.setdefault("KERAS_BACKEND", "jax")

CHAIN = 20
UNITS = 32
BATCH = 8
_RNG = np.random.default_rng(0)
X = _RNG.standard_normal((BATCH, UNITS)).astype(np.float32)
W = (_RNG.standard_normal((UNITS, UNITS)) / np.sqrt(UNITS)).astype(np.float32)
B = np.zeros((UNITS,), np.float32)


def _keras():
    tf = frameworks.tapejax()
    try:
        import tapejax.keras as keras
    except ImportError as exc:
        raise Skip(f"tapejax.keras is not importable ({exc})") from exc
    return tf, keras


def _chain(layer: Callable[[Any], Any], x: Any) -> Any:
    for _ in range(CHAIN):
        x = layer(x)
    return x


def _tapejax_hand_written(recording: bool) -> Callable[[], Any]:
    tf = frameworks.tapejax()
    w, b = tf.Variable(W), tf.Variable(B)
    x = tf.constant(X)

    def dense(h):
        return tf.nn.bias_add(tf.matmul(h, w), b)

    return _timed(tf, dense, x, recording)


def _tapejax_bridged(recording: bool) -> Callable[[], Any]:
    tf, keras = _keras()
    layer = keras.layers.Dense(UNITS)
    layer.build((None, UNITS))
    layer.set_weights([W, B])
    return _timed(tf, layer, tf.constant(X), recording)


def _timed(tf: Any, layer: Callable[[Any], Any], x: Any, recording: bool) -> Callable[[], Any]:
    if not recording:
        return lambda: _chain(layer, x).numpy()

    def run():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = _chain(layer, x)
        return y.numpy()

    return run


def _keras_eager() -> Callable[[], Any]:
    _keras()  # Keras up on JAX
    import keras

    layer = keras.layers.Dense(UNITS)
    layer.build((None, UNITS))
    layer.set_weights([W, B])
    x = keras.ops.convert_to_tensor(X)
    return lambda: np.asarray(_chain(layer, x))


CONTENDERS = [
    Contender("tapejax matmul+bias_add", lambda: _tapejax_hand_written(False), uses_jax=True),
    Contender("tapejax.keras Dense", lambda: _tapejax_bridged(False), uses_jax=True),
    Contender(
        "tapejax matmul+bias_add, recording",
        lambda: _tapejax_hand_written(True),
        uses_jax=True,
    ),
    Contender("tapejax.keras Dense, recording", lambda: _tapejax_bridged(True), uses_jax=True),
    Contender("keras 3 (jax) eager Dense", _keras_eager, uses_jax=True),
]


def ratios(cr: CaseResult) -> list[str]:
    """The bridge's overhead: bridged Dense over the hand-written dense, side by side."""
    lines = []
    for label, a, b in (
        ("bridged / hand-written", "tapejax.keras Dense", "tapejax matmul+bias_add"),
        (
            "bridged / hand-written, recording",
            "tapejax.keras Dense, recording",
            "tapejax matmul+bias_add, recording",
        ),
    ):
        ratio = cr.paired_ratio(a, b)
        lines.append(f"{label}: " + ("n/a" if ratio is None else f"{ratio:.2f}x (target <= 2x)"))
    return lines


def check(outputs: dict[str, list[Any]]) -> list[str]:
    """Every contender computes the same chain."""
    values = {k: np.asarray(v[0]) for k, v in outputs.items() if v}
    if not values:
        return []
    reference = next(iter(values.values()))
    return [
        f"WARNING: {name} differs from the others (max abs diff "
        f"{np.max(np.abs(v - reference)):.3g})"
        for name, v in values.items()
        if not np.allclose(v, reference, rtol=1e-4, atol=1e-5)
    ]


@register("keras_dense")
def cases(quick: bool) -> list[Case]:
    return [
        Case(
            scenario="keras_dense",
            size=f"{CHAIN} x Dense({UNITS}), batch {BATCH}",
            contenders=CONTENDERS,
            baselines=("tapejax matmul+bias_add", "tapejax matmul+bias_add, recording"),
            items_per_call=CHAIN,
            unit="call",
            warmup=3 if quick else 20,
            min_repeats=10 if quick else 50,
            max_repeats=50 if quick else 1000,
            budget_s=3.0 if quick else 20.0,
            check_calls=1,
            check=check,
            report=ratios,
        )
    ]
