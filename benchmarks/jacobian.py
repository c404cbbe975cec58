"""Scenario `jacobian`: jacobian, batch_jacobian and a Hessian-vector product.

The workload is `tanh(x @ w1) @ w2` with x (64, 32), w1 (32, 64), w2 (64, 16):

- `jacobian`: of the (64, 16) output w.r.t. the (32, 64) weight `w1`;
- `batch_jacobian`: of the (64, 16) output w.r.t. the (64, 32) input `x`;
- `hvp`: a Hessian-vector product of `sum(output ** 2)` w.r.t. `w1`, through nested
  tapes (TF-style) against `jax.jvp(jax.grad(...))`.

Each timed call records the forward under a tape and computes the derivative, as TF
code does; the hand-written JAX contenders are the same math under `jax.jit`. TF's
eager `jacobian`/`batch_jacobian` build a `tf.function` for pfor on every call, which
is what users of TF pay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import frameworks
from benchmarks.harness import Case, Contender, register

_rng = np.random.default_rng(0)
X = _rng.standard_normal((64, 32)).astype(np.float32)
W1 = (_rng.standard_normal((32, 64)) * 0.2).astype(np.float32)
W2 = (_rng.standard_normal((64, 16)) * 0.2).astype(np.float32)
V = _rng.standard_normal((32, 64)).astype(np.float32)


def _tf_style(module: Callable[[], Any], what: str) -> Callable[[], Any]:
    tf = module()
    x, w1, w2, v = tf.constant(X), tf.Variable(W1), tf.constant(W2), tf.constant(V)

    if what == "jacobian":

        def run():
            with tf.GradientTape() as tape:
                y = tf.matmul(tf.tanh(tf.matmul(x, w1)), w2)
            return tape.jacobian(y, w1).numpy()

    elif what == "batch_jacobian":

        def run():
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.matmul(tf.tanh(tf.matmul(x, w1)), w2)
            return tape.batch_jacobian(y, x).numpy()

    else:

        def run():
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    y = tf.reduce_sum(tf.matmul(tf.tanh(tf.matmul(x, w1)), w2) ** 2)
                g = inner.gradient(y, w1)
                gv = tf.reduce_sum(g * v)
            return outer.gradient(gv, w1).numpy()

    return run


def _jax(what: str) -> Callable[[], Any]:
    jax = frameworks.jax()
    import jax.numpy as jnp

    x, w1, w2, v = (jnp.asarray(a) for a in (X, W1, W2, V))

    def net(w1_, x_):
        return jnp.tanh(x_ @ w1_) @ w2

    if what == "jacobian":
        f = jax.jit(jax.jacrev(net))
        return lambda: np.asarray(f(w1, x))
    if what == "batch_jacobian":
        per_example = jax.jacrev(lambda xi: jnp.tanh(xi @ w1) @ w2)
        f = jax.jit(jax.vmap(per_example))
        return lambda: np.asarray(f(x))

    def loss(w1_):
        return jnp.sum(net(w1_, x) ** 2)

    f = jax.jit(lambda w, t: jax.jvp(jax.grad(loss), (w,), (t,))[1])
    return lambda: np.asarray(f(w1, v))


def _tolerance() -> tuple[float, str]:
    """Relative tolerance of the check: float32's, or TF32's where JAX runs on a GPU, whose
    float32 dots round their inputs to TF32 by default (on an H100, tapejax's jacobian
    and the hand-written one differed by up to 4.6e-4 of the largest entry)."""
    try:
        gpu = frameworks.jax().default_backend() == "gpu"
    except Exception:
        gpu = False
    return (5e-3, ", TF32 dots") if gpu else (1e-4, "")


def _check(results: dict[str, list[Any]]) -> list[str]:
    ref = results.get("jax jit")
    rtol, why = _tolerance()
    lines = []
    for name, values in results.items():
        if ref and values and name != "jax jit":
            err = float(np.max(np.abs(np.asarray(values[0]) - np.asarray(ref[0]))))
            scale = float(np.max(np.abs(np.asarray(ref[0])))) or 1.0
            status = "ok" if err <= rtol * scale else "WARNING: differs"
            lines.append(
                f"{name} vs jax jit: max abs diff {err:.2e} ({status}; tolerance {rtol:g} of "
                f"the largest entry{why})"
            )
    return lines


def _case(what: str, quick: bool, jax_label: str) -> Case:
    return Case(
        scenario="jacobian",
        size=what,
        contenders=[
            Contender(
                f"tapejax {what}", lambda: _tf_style(frameworks.tapejax, what), uses_jax=True
            ),
            Contender(f"tf {what}", lambda: _tf_style(frameworks.tensorflow, what)),
            Contender("jax jit", lambda: _jax(what), uses_jax=True),
        ],
        baselines=("jax jit", f"tf {what}"),
        warmup=2 if quick else 5,
        min_repeats=3 if quick else 10,
        max_repeats=20 if quick else 200,
        budget_s=3.0 if quick else 15.0,
        check_calls=1,
        check=_check,
    )


@register("jacobian")
def cases(quick: bool) -> list[Case]:
    return [
        _case("jacobian", quick, "jax.jacrev"),
        _case("batch_jacobian", quick, "jax.vmap(jax.jacrev)"),
        _case("hvp", quick, "jax.jvp(jax.grad)"),
    ]
