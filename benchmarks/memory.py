"""Memory of a deep MLP's backward with and without ``recompute_grad``.

Run ``python -m benchmarks.memory``. For each variant it reports, measured in the same
process:

- **tape-held bytes**: the activations the tape keeps alive for the backward (the
  unique arrays referenced by its recorded nodes), which is what ``recompute_grad``
  saves: the wrapped blocks' inner activations are not recorded;
- **backward program temp bytes**: XLA's own buffer need for the compiled derivative
  program (``memory_analysis()``), which grows when activations are recomputed;
- the gradients' largest difference from the plain variant (they must agree).

Numbers are bytes of float32 arrays; they do not depend on the machine.
"""

from __future__ import annotations

import numpy as np

import tapejax as tf
from tapejax._src import lowering

DEPTH, WIDTH, BATCH, BLOCK = 16, 512, 256, 4


def _model():
    rng = np.random.default_rng(0)
    ws = [
        tf.Variable((rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32))
        for _ in range(DEPTH)
    ]
    x = tf.constant(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    return ws, x


def _block(ws):
    def run(h):
        for w in ws:
            h = tf.tanh(tf.matmul(h, w))
        return h

    return run


def _held_bytes(trace) -> int:
    seen, total = set(), 0
    for _, _, args, outs in trace.nodes:
        for t in list(args) + list(outs):
            value = getattr(t, "_value", None)
            if value is not None and id(value) not in seen:
                seen.add(id(value))
                total += value.nbytes
    return total


def measure(recompute: bool):
    ws, x = _model()
    blocks = [_block(ws[i : i + BLOCK]) for i in range(0, DEPTH, BLOCK)]
    if recompute:
        blocks = [tf.recompute_grad(b) for b in blocks]
    with tf.GradientTape(persistent=True) as tape:
        h = x
        for b in blocks:
            h = b(h)
        loss = tf.reduce_mean(h * h)
    held = _held_bytes(tape._tape)
    lowered = lowering.lower(tape._tape, [loss], ws, "gradient")
    args = [a._value if hasattr(a, "_value") else a for a in lowered.args]
    analysis = lowered.op.compiled(()).lower(*args).compile().memory_analysis()
    temp = getattr(analysis, "temp_size_in_bytes", None)
    grads = [g.numpy() for g in tape.gradient(loss, ws)]
    return held, temp, grads


def main() -> None:
    plain = measure(False)
    remat = measure(True)
    diff = max(float(np.max(np.abs(a - b))) for a, b in zip(plain[2], remat[2]))
    mib = 2.0**20
    print(
        f"deep MLP: {DEPTH} layers of {WIDTH}x{WIDTH}, batch {BATCH}, recompute blocks of {BLOCK}"
    )
    print("| variant | tape-held activations | backward program temp |")
    print("| --- | ---: | ---: |")
    for name, (held, temp, _) in (("plain", plain), ("recompute_grad", remat)):
        temp_text = "n/a" if temp is None else f"{temp / mib:.1f} MiB"
        print(f"| {name} | {held / mib:.1f} MiB | {temp_text} |")
    print(f"largest gradient difference: {diff:.2e}")


if __name__ == "__main__":
    main()
