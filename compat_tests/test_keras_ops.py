"""``tapejax.keras.ops`` against TensorFlow's ``tf.keras.ops`` (Keras on its TF backend).

Each case computes a sample of Keras's ops and the gradient, under the framework's own
``GradientTape``, of a fixed weighted sum of the outputs with respect to the float
inputs. TensorFlow's side runs in a subprocess (``test_keras_harness``).
"""

from __future__ import annotations

import numpy as np

from compat_tests import harness
from compat_tests.test_keras_harness import keras_case

_RNG = np.random.default_rng(7)
_A = _RNG.standard_normal((3, 4)).astype(np.float32)
_B = _RNG.standard_normal((4, 5)).astype(np.float32)
_IMG = _RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)
_KERNEL = _RNG.standard_normal((3, 3, 3, 2)).astype(np.float32)

TOL = {"rtol": 1e-5, "atol": 1e-5}


def _value_and_grads(tf, fn, *floats):
    """``fn(*floats)``'s outputs and the gradients of their weighted sum."""
    xs = [tf.constant(x) for x in floats]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        out = fn(*xs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        total = 0.0
        for o in outs:
            if o.dtype.is_floating:
                w = np.linspace(-1.0, 1.0, int(np.prod(o.shape))).reshape(o.shape)
                total += tf.reduce_sum(o * tf.constant(w.astype(np.float32)))
    return {"out": list(outs), "grads": tape.gradient(total, xs)}


@keras_case(**TOL)
def case_matmul_einsum(tf):
    ops = tf.keras.ops
    return {
        "matmul": _value_and_grads(tf, ops.matmul, _A, _B),
        "einsum": _value_and_grads(tf, lambda a, b: ops.einsum("ij,jk->ik", a, b), _A, _B),
    }


@keras_case(**TOL)
def case_activations(tf):
    ops = tf.keras.ops
    return {
        "relu": _value_and_grads(tf, ops.relu, _A),
        "softmax": _value_and_grads(tf, lambda a: ops.softmax(a, axis=-1), _A),
        "logsumexp": _value_and_grads(tf, lambda a: ops.logsumexp(a, axis=1), _A),
        "gelu": _value_and_grads(tf, ops.nn.gelu, _A),
        "gelu_exact": _value_and_grads(tf, lambda a: ops.nn.gelu(a, approximate=False), _A),
    }


@keras_case(**TOL)
def case_conv(tf):
    ops = tf.keras.ops
    return {
        "valid": _value_and_grads(tf, lambda x, k: ops.conv(x, k), _IMG, _KERNEL),
        "same_strided": _value_and_grads(
            tf, lambda x, k: ops.conv(x, k, strides=2, padding="same"), _IMG, _KERNEL
        ),
    }


@keras_case(**TOL)
def case_where_take_split_stack(tf):
    ops = tf.keras.ops
    return {
        "where": _value_and_grads(tf, lambda a: ops.where(a > 0, a, 2.0 * a), _A),
        "take": _value_and_grads(tf, lambda a: ops.take(a, np.array([2, 0, 2]), axis=1), _A),
        "split": _value_and_grads(tf, lambda a: ops.split(a, [1, 3], axis=1), _A),
        "stack": _value_and_grads(tf, lambda a, b: ops.stack([a, b[:3, :4]], axis=1), _A, _B),
    }


@keras_case(**TOL)
def case_norm_segment_sum_top_k_cumsum(tf):
    ops = tf.keras.ops
    return {
        "norm": _value_and_grads(tf, ops.linalg.norm, _A),
        "norm_axis": _value_and_grads(tf, lambda a: ops.linalg.norm(a, ord=1, axis=0), _A),
        "segment_sum": _value_and_grads(
            tf, lambda a: ops.segment_sum(a, np.array([0, 2, 0]), num_segments=3), _A
        ),
        "top_k": _value_and_grads(tf, lambda a: ops.top_k(a, k=2), _A),
        "cumsum": _value_and_grads(tf, lambda a: ops.cumsum(a, axis=1), _A),
    }


@keras_case(**TOL)
def case_image_resize(tf):
    ops = tf.keras.ops
    return {
        method: _value_and_grads(
            tf, lambda x, m=method: ops.image.resize(x, (4, 9), interpolation=m), _IMG
        )
        for method in ("bilinear", "nearest")
    }


@keras_case(rtol=1e-5, atol=2e-3)
def case_image_resize_bicubic_is_jaxs(tf):
    """Keras's JAX backend resizes bicubically with ``jax.image.resize``, its TF backend
    with TF's kernel: the values differ by up to ~1e-3 (docs/compat.md)."""
    return _value_and_grads(
        tf, lambda x: tf.keras.ops.image.resize(x, (4, 9), interpolation="bicubic"), _IMG
    )


@keras_case()
def case_visualization_returns_numpy_arrays(tf):
    """``keras.visualization`` is Keras's own module: NumPy out, from Tensors too."""
    images = np.zeros((1, 5, 5, 3), np.float32)
    masks = np.zeros((1, 5, 5, 1), np.int32)
    masks[0, 1:4, 2:4] = 1
    out = tf.keras.visualization.draw_segmentation_masks(
        tf.constant(images), tf.constant(masks), num_classes=2
    )
    return {"type": type(out).__name__, "out": out}


test_matches_tensorflow = harness.compat_test(globals())
