"""What a tape keeps alive, tapejax vs TF eager: ``python -m benchmarks.tape_memory``.

The workload is the 16-layer tanh MLP of ``benchmarks.memory`` (batch 256, width 512,
float32). For each framework, in one process, it reports the bytes of live device
arrays (tapejax: ``jax.live_arrays()``; TF: its CPU allocator's ``current`` bytes from
``tf.config.experimental.get_memory_info``), relative to before the tape opened:

- after the forward pass under the tape (the activations the tape holds);
- after ``tape.gradient`` with a non-persistent tape, the gradients dropped (what is
  left: nothing, if the tape released its recording);
- after ``tape.gradient`` with a persistent tape still referenced (its recording stays);
- after ``del tape`` (released);
- the growth over 500 training steps (SGD updates, tape per step) after 20 warm-up steps.

Peak memory *during* the backward is not compared: JAX's CPU client reports no
allocator statistics (``memory_stats()`` is None); the compiled backward's own need is
what ``benchmarks.memory`` reports from XLA's ``memory_analysis()``.
"""

from __future__ import annotations

import gc
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

DEPTH, WIDTH, BATCH = 16, 512, 256
STEPS, WARMUP = 500, 20


def _live_bytes(tf) -> int:
    gc.collect()
    if tf.__name__ == "tapejax":
        import jax

        for a in jax.live_arrays():
            a.block_until_ready()
        return sum(a.nbytes for a in jax.live_arrays())
    return tf.config.experimental.get_memory_info("CPU:0")["current"]


def _model(tf):
    rng = np.random.default_rng(0)
    ws = [
        tf.Variable((rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32))
        for _ in range(DEPTH)
    ]
    x = tf.constant(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    return ws, x


def _forward(tf, ws, x):
    h = x
    for w in ws:
        h = tf.tanh(tf.matmul(h, w))
    return tf.reduce_mean(h * h)


def measure(tf) -> dict:
    ws, x = _model(tf)
    # Warm up (compilation, allocator pools), then measure from a settled baseline.
    for persistent in (False, True):
        with tf.GradientTape(persistent=persistent) as tape:
            loss = _forward(tf, ws, x)
        tape.gradient(loss, ws)
        del tape, loss
    out = {}
    base = _live_bytes(tf)
    with tf.GradientTape() as tape:
        loss = _forward(tf, ws, x)
    out["held after the forward pass"] = _live_bytes(tf) - base
    grads = tape.gradient(loss, ws)
    del grads, loss
    out["left after gradient (non-persistent tape)"] = _live_bytes(tf) - base
    del tape
    base = _live_bytes(tf)
    with tf.GradientTape(persistent=True) as tape:
        loss = _forward(tf, ws, x)
    grads = tape.gradient(loss, ws)
    del grads, loss
    out["held after gradient (persistent tape alive)"] = _live_bytes(tf) - base
    del tape
    out["left after `del tape` (persistent)"] = _live_bytes(tf) - base

    def step():
        with tf.GradientTape() as tape:
            loss = _forward(tf, ws, x)
        for w, g in zip(ws, tape.gradient(loss, ws)):
            w.assign_sub(1e-3 * g)

    for _ in range(WARMUP):
        step()
    base = _live_bytes(tf)
    for _ in range(STEPS):
        step()
    out[f"growth over {STEPS} training steps"] = _live_bytes(tf) - base
    return out


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def main() -> None:
    import tapejax

    results = {"tapejax": measure(tapejax)}
    try:
        import tensorflow

        results["TF eager"] = measure(tensorflow)
    except ImportError:
        pass
    names = list(results)
    print(
        f"{DEPTH}-layer tanh MLP, batch {BATCH}, width {WIDTH}, float32 "
        f"(one activation: {_mib(BATCH * WIDTH * 4)})\n"
    )
    print("| live device bytes, relative to before the tape | " + " | ".join(names) + " |")
    print("| --- |" + " ---: |" * len(names))
    for row in results["tapejax"]:
        print(f"| {row} | " + " | ".join(_mib(results[n][row]) for n in names) + " |")


if __name__ == "__main__":
    main()
