"""Scenario `mlp`: one SGD training step of a TF-style MLP, six ways.

The step is written once, TF-style (`make_step`), and run with `tf = tapejax`
and `tf = tensorflow`, eagerly and wrapped in each library's `function`. Two
hand-written baselines do the same math: `jax.jit(jax.value_and_grad(...))` with
the SGD update inside the jitted function (what a JAX user would write), and
PyTorch eager. All start from the same numpy weights and data, in float32.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks import frameworks
from benchmarks.harness import Case, Contender, Skip, register

LEARNING_RATE = 0.01
CHECK_STEPS = 4  # losses of steps 1..4, i.e. after 0..3 SGD updates
CHECK_RTOL = 1e-4

# name: (batch, [input dim, hidden dims..., classes], full-run timing budget in s)
SIZES = {
    "small": (32, [32, 32, 10], 15.0),
    "medium": (256, [784, 512, 512, 10], 40.0),
    "large": (1024, [1024, 2048, 2048, 10], 90.0),
}


# ----------------------------------------------------------------------------
# The TF-style step, shared by tapejax and TensorFlow.


def make_step(tf: Any, init: Sequence[np.ndarray], lr: float = LEARNING_RATE):
    """Builds the training step for `tf` (the tapejax or tensorflow module).

    Args:
      tf: `tapejax` or `tensorflow`.
      init: weights and biases alternating, [W0, b0, W1, b1, ...].
      lr: SGD learning rate.

    Returns:
      `(step, variables)`: `step(x, y)` runs one SGD step and returns the loss
      computed before the update.
    """
    variables = [tf.Variable(w) for w in init]

    def step(x, y):
        with tf.GradientTape() as tape:
            h = x
            n_layers = len(variables) // 2
            for i in range(n_layers):
                h = tf.matmul(h, variables[2 * i]) + variables[2 * i + 1]
                if i < n_layers - 1:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h)
            )
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads, strict=True):
            v.assign_sub(lr * g)
        return loss

    return step, variables


# ----------------------------------------------------------------------------
# Data and weights, identical for every contender.


def make_problem(batch: int, dims: Sequence[int], seed: int = 0):
    """Returns `(init, x, y)` as float32/int32 numpy arrays."""
    rng = np.random.default_rng(seed)
    init = []
    for fan_in, fan_out in zip(dims[:-1], dims[1:], strict=True):
        init.append(
            (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        )
        init.append((0.01 * rng.standard_normal(fan_out)).astype(np.float32))
    x = rng.standard_normal((batch, dims[0])).astype(np.float32)
    y = rng.integers(0, dims[-1], size=batch).astype(np.int32)
    return init, x, y


# ----------------------------------------------------------------------------
# Contenders. Each setup returns a callable running one step to completion and
# returning the loss as a float-convertible value.


def _tapejax_waiter(variables: Sequence[Any]) -> Callable[[], None]:
    """Waits for tapejax's asynchronously dispatched updates of `variables`.

    JAX dispatches asynchronously: blocking on the loss alone would leave the
    backward pass and the updates running into the next contender's time slot.
    """
    jax = frameworks.jax()

    def arrays():
        # The protocol method, not jnp.asarray, which costs ~10 µs per call.
        return [v.__jax_array__() for v in variables]

    try:
        if all(isinstance(a, jax.Array) for a in arrays()):
            return lambda: jax.block_until_ready(arrays())
    except Exception:
        pass
    # Slower but certain: a host copy of every variable.
    return lambda: [v.numpy() for v in variables]


def _tf_style(module: Callable[[], Any], wrap: str | None, problem) -> Callable[[], Any]:
    """Setup for the shared TF-style step under `module` (tapejax or tensorflow)."""
    tf = module()
    if wrap is not None and not hasattr(tf, wrap):
        raise Skip(f"{tf.__name__} has no `{wrap}` yet")
    init, x, y = problem
    step, variables = make_step(tf, init)
    if wrap is not None:
        step = getattr(tf, wrap)(step)
    xt, yt = tf.constant(x), tf.constant(y)
    if tf.__name__ == "tensorflow":  # eager TF on CPU runs synchronously
        return lambda: step(xt, yt).numpy()
    wait = _tapejax_waiter(variables)

    def run():
        loss = step(xt, yt)
        wait()
        return loss.numpy()

    return run


def _jax_jit(problem) -> Callable[[], Any]:
    jax = frameworks.jax()
    import jax.numpy as jnp

    init, x, y = problem

    def loss_fn(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jax.nn.relu(h)
        logp = jax.nn.log_softmax(h)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @functools.partial(jax.jit, donate_argnums=0)
    def train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
        return params, loss

    state = {
        "params": [(jnp.asarray(init[i]), jnp.asarray(init[i + 1])) for i in range(0, len(init), 2)]
    }
    xj, yj = jnp.asarray(x), jnp.asarray(y)

    def run():
        state["params"], loss = train_step(state["params"], xj, yj)
        # Wait for the new params too, as the tapejax contenders wait for
        # their variables, and read the loss to the host, as every contender does
        # (TF-style steps return `loss.numpy()`).
        jax.block_until_ready(state["params"])
        return np.asarray(loss)

    return run


def _torch_eager(problem) -> Callable[[], Any]:
    torch = frameworks.torch()
    device = frameworks.torch_device()
    init, x, y = problem
    params = [torch.tensor(w, requires_grad=True, device=device) for w in init]
    xt, yt = torch.from_numpy(x).to(device), torch.from_numpy(y.astype(np.int64)).to(device)

    def run():
        h = xt
        n_layers = len(params) // 2
        for i in range(n_layers):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < n_layers - 1:
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, yt)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LEARNING_RATE * p.grad
                p.grad = None
        # On a GPU, the copy to the host waits for the step, updates included.
        return loss.detach().cpu().numpy()

    return run


def contenders(problem) -> list[Contender]:
    return [
        Contender(
            "tapejax eager", lambda: _tf_style(frameworks.tapejax, None, problem), uses_jax=True
        ),
        Contender(
            "tapejax.function",
            lambda: _tf_style(frameworks.tapejax, "function", problem),
            uses_jax=True,
        ),
        Contender("tf eager", lambda: _tf_style(frameworks.tensorflow, None, problem)),
        Contender("tf.function", lambda: _tf_style(frameworks.tensorflow, "function", problem)),
        Contender("jax jit", lambda: _jax_jit(problem), uses_jax=True),
        Contender("torch eager", lambda: _torch_eager(problem)),
    ]


# ----------------------------------------------------------------------------
# Correctness check, on the first steps of the timed contenders themselves.

REQUIRED_AGREEMENT = ("tapejax eager", "tf eager")  # checked against "jax jit"


def check_losses(outputs: dict[str, list[Any]]) -> list[str]:
    reference = "jax jit" if "jax jit" in outputs else "tf eager"
    if reference not in outputs:
        return ["WARNING: loss check not run (neither jax jit nor tf eager ran)"]
    ref = np.array([float(v) for v in outputs[reference]])
    lines = []
    agreeing = []
    for name, values in outputs.items():
        if name == reference:
            continue
        got = np.array([float(v) for v in values])
        if got.shape != ref.shape:
            lines.append(f"WARNING: {name} ran {got.size} of {ref.size} check steps")
            continue
        rel = float(np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-30)))
        if not rel <= CHECK_RTOL:  # also catches NaN
            lines.append(
                f"WARNING: {name} losses differ from {reference} by {rel:.2g} relative "
                f"(> {CHECK_RTOL:g}) over steps 1–{ref.size}: {got.tolist()} vs {ref.tolist()}"
            )
        else:
            agreeing.append(f"{name} {rel:.1g}")
    missing = [n for n in REQUIRED_AGREEMENT if n not in outputs and n != reference]
    if missing:
        lines.append(f"loss check could not include {', '.join(missing)} (did not run)")
    lines.insert(
        0,
        f"loss check: steps 1–{ref.size} from identical weights (losses {ref[0]:.6g} → "
        f"{ref[-1]:.6g} for {reference}); max relative difference within {CHECK_RTOL:g}: "
        + (", ".join(agreeing) or "none"),
    )
    return lines


@register("mlp")
def cases(quick: bool) -> list[Case]:
    out = []
    for size, (batch, dims, budget) in SIZES.items():
        problem = make_problem(batch, dims)
        label = f"{size} (batch {batch}, {'-'.join(map(str, dims))})"
        out.append(
            Case(
                scenario="mlp",
                size=label,
                contenders=contenders(problem),
                baselines=("jax jit", "tf eager"),
                unit="step",
                warmup=(1 if quick else 3) if size == "large" else (2 if quick else 10),
                min_repeats=3 if quick else 10,
                max_repeats=5 if quick else 1000,
                budget_s=min(budget, 2.0) if quick else budget,
                check_calls=CHECK_STEPS,
                check=check_losses,
            )
        )
    return out
