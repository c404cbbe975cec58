"""Scenario `data`: one epoch of a `tf.data` input pipeline, tapejax.data vs tf.data.

Each timed call builds nothing: the dataset is built once in the setup, and a call
iterates one whole epoch of it (0.05 to a few seconds), touching every element on the
host the same way for every contender. Cases:

- `map-shuffle-batch`: ``from_tensor_slices`` of 20,000 uint8 28x28 images with int32
  labels (fixed NumPy seed), ``map`` to float32 in [0, 1], ``shuffle(1000, seed=0)``,
  ``batch(128)``. Each batch is read to the host (``.numpy()``) and summed into a float64
  total (images) and an int total (labels). Baseline `numpy`: the same math by hand, a
  fresh permutation of the whole epoch then slices of 128 — not the same shuffle (a
  1000-element shuffle buffer orders the elements differently), the same work per
  element otherwise;
- `batch-map`: ``batch(128)`` first, then the same ``map`` on whole batches, no shuffle;
  baseline `numpy`: slices of 128 converted the same way;
- `reduce`: ``Dataset.range(100_000, output_type=int32).reduce(np.int32(0), lambda s,
  x: s + x % 1000)``; no NumPy baseline (a one-line ``np.sum`` says nothing about a
  pipeline), `tf.data` is the ratio baseline;
- `scan`: ``Dataset.range(100_000, output_type=int32).scan(np.int32(0), lambda s, x:
  (s + x % 1000, s * 2))`` iterated to the end, the last output read to the host.

The integer cases use int32 with ``x % 1000`` rather than TF's default int64 and
``s + x``: tapejax holds int64 as int32 unless JAX's x64 mode is on (a process-wide
switch this one-process benchmark does not flip), and the plain sum of 0..99,999
overflows int32. With ``% 1000`` the state stays below 5e7 and ``s * 2`` below 1e8, so
both frameworks compute the same int32 values exactly.

`--quick` shrinks the inputs (5,000 images, ranges of 20,000) and the repeats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import frameworks
from benchmarks.harness import Case, Contender, register

BATCH = 128
SHUFFLE_BUFFER = 1000
SEED = 0


def _images(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=(n,), dtype=np.int32)
    return images, labels


def _epoch(ds: Any) -> Callable[[], tuple[float, int, int]]:
    """One epoch of a batched (images, labels) dataset: (image sum, label sum, batches)."""

    def run():
        total_x, total_y, batches = 0.0, 0, 0
        for x, y in ds:
            total_x += float(x.numpy().sum(dtype=np.float64))
            total_y += int(y.numpy().sum(dtype=np.int64))
            batches += 1
        return total_x, total_y, batches

    return run


def _tf_style(module: Callable[[], Any], what: str, n: int) -> Callable[[], Any]:
    tf = module()
    images, labels = _images(n)

    def to_float(x, y):
        return tf.cast(x, tf.float32) / 255.0, y

    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    if what == "map-shuffle-batch":
        return _epoch(ds.map(to_float).shuffle(SHUFFLE_BUFFER, seed=SEED).batch(BATCH))
    if what == "batch-map":
        return _epoch(ds.batch(BATCH).map(to_float))
    rng = tf.data.Dataset.range(n, output_type=tf.int32)
    if what == "reduce":

        def add(s, x):
            return s + x % 1000

        return lambda: int(rng.reduce(np.int32(0), add).numpy())

    scanned = rng.scan(np.int32(0), lambda s, x: (s + x % 1000, s * 2))

    def run():
        last = None
        for out in scanned:
            last = out
        return int(last.numpy())

    return run


def _numpy(what: str, n: int) -> Callable[[], Any]:
    images, labels = _images(n)
    rng = np.random.default_rng(SEED)

    def run():
        order = rng.permutation(n) if what == "map-shuffle-batch" else None
        total_x, total_y, batches = 0.0, 0, 0
        for start in range(0, n, BATCH):
            if order is None:
                xb, yb = images[start : start + BATCH], labels[start : start + BATCH]
            else:
                idx = order[start : start + BATCH]
                xb, yb = images[idx], labels[idx]
            x = xb.astype(np.float32) / np.float32(255.0)
            total_x += float(x.sum(dtype=np.float64))
            total_y += int(yb.sum(dtype=np.int64))
            batches += 1
        return total_x, total_y, batches

    return run


def _check(results: dict[str, list[Any]]) -> list[str]:
    """Compares each contender's first epoch with `tf.data`'s.

    Integers (label sums, batch counts, reduce/scan results) must be equal; the image
    total is a float64 sum of float32 batch sums taken in a different order per shuffle,
    so it is compared to a relative 1e-6.
    """
    ref = results.get("tf.data")
    lines = []
    for name, values in results.items():
        if not ref or not values or name == "tf.data":
            continue
        got, want = values[0], ref[0]
        if isinstance(want, tuple):
            close = abs(got[0] - want[0]) <= 1e-6 * abs(want[0]) and tuple(got[1:]) == tuple(
                want[1:]
            )
            shown = f"(image sum {got[0]:.6g}, label sum {got[1]}, {got[2]} batches)"
            tolerance = "image sum to 1e-6 relative, label sum and batches exact"
        else:
            close = got == want
            shown = str(got)
            tolerance = "exact"
        status = "ok" if close else f"WARNING: differs from tf.data's {want}"
        lines.append(f"{name} vs tf.data: {shown} ({status}; {tolerance})")
    return lines


def _case(what: str, quick: bool) -> Case:
    slow = what in ("reduce", "scan")  # a few seconds per tf.data epoch
    if what in ("map-shuffle-batch", "batch-map"):
        n = 5_000 if quick else 20_000
    else:
        n = 20_000 if quick else 100_000
    contenders = [
        Contender("tapejax.data", lambda: _tf_style(frameworks.tapejax, what, n), uses_jax=True),
        Contender("tf.data", lambda: _tf_style(frameworks.tensorflow, what, n)),
    ]
    baselines: tuple[str, ...] = ("tf.data",)
    if what in ("map-shuffle-batch", "batch-map"):
        contenders.append(Contender("numpy", lambda: _numpy(what, n)))
        baselines = ("tf.data", "numpy")
    return Case(
        scenario="data",
        size=what,
        contenders=contenders,
        baselines=baselines,
        unit="epoch",
        warmup=1 if quick or slow else 2,
        min_repeats=2 if quick or slow else 3,
        max_repeats=3 if quick or slow else 30,
        budget_s=2.0 if quick else 8.0,
        check_calls=1,
        check=_check,
    )


@register("data")
def cases(quick: bool) -> list[Case]:
    return [_case(what, quick) for what in ("map-shuffle-batch", "batch-map", "reduce", "scan")]
