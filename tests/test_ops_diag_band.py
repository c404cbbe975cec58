"""Bands of diagonals in ``tapejax.linalg.diag``, ``diag_part`` and ``set_diag``, side by side
with real TensorFlow.

A band ``k=(lo, hi)`` uses TF's compact layout ``[..., hi - lo + 1, max_diag_len]`` with its
four ``align`` modes; values, dtypes, shapes, tape gradients (padding entries included) and
error types and texts equal TF's (TF's text less its ``{{function_node ...}}`` prefix and
`` name: ...`` suffix).
"""

from __future__ import annotations

import re

import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import tapejax
from tapejax._src.ops import linalg_ops

tensorflow = pytest.importorskip("tensorflow")

from opcheck import raised  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
# (matrix shape, k): square, wide, tall and batched matrices; all-sub, all-super and mixed
# bands, a band the width of the matrix, and a single diagonal given as (k, k).
BANDS = (
    ((3, 3), (-1, 1)),
    ((3, 5), (-2, -1)),
    ((3, 5), (1, 3)),
    ((5, 3), (-4, 1)),
    ((2, 4, 3), (-1, 2)),
    ((4, 3), (1, 1)),
)


def rand(dt, shape, seed=0):
    rng = np.random.default_rng(seed + sum(shape))
    x = rng.uniform(-1.0, 1.0, shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.uniform(-1.0, 1.0, shape)
    if np.dtype(dt).kind in "iu":
        x = rng.integers(-9, 10, shape)
    return x.astype(dt)


def compact_shape(shape, k):
    """The shape ``diag_part(x, k)`` gives for a matrix of ``shape``."""
    m, n = shape[-2:]
    lo, hi = k
    width = max(min(m + min(d, 0), n - max(d, 0)) for d in range(lo, hi + 1))
    return shape[:-2] + ((hi - lo + 1,) if lo != hi else ()) + (width,)


def assert_same(got, want):
    assert got.dtype.name == want.dtype.name
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def same_error(fn):
    """``fn(tf)`` raises the same exception type with the same text in both frameworks."""
    want, got = raised(fn, tensorflow), raised(fn, tapejax)
    assert want is not None, "TF raises nothing: fix the test"
    assert got is not None, f"tapejax raised nothing; TF raises {want!r}"
    assert type(got).__name__ == type(want).__name__, (got, want)
    text = re.sub(r"^\{\{function_node [^}]*\}\} | name: \w+$", "", str(want))
    assert str(got) == text


# -- values -------------------------------------------------------------------------------


@pytest.mark.parametrize("align", ALIGNS)
def test_diag_part_of_a_band_is_tfs(align):
    for shape, k in BANDS:
        x = rand("float32", shape)
        for pad in (0, 7.5):
            want = tensorflow.linalg.diag_part(x, k=k, padding_value=pad, align=align)
            got = tapejax.linalg.diag_part(x, k=k, padding_value=pad, align=align)
            assert_same(got, want)


@pytest.mark.parametrize("align", ALIGNS)
def test_diag_of_a_band_is_tfs(align):
    for shape, k in BANDS:
        d = rand("float32", compact_shape(shape, k), seed=1)
        want = tensorflow.linalg.diag(d, k=k, padding_value=-2.0, align=align)
        got = tapejax.linalg.diag(d, k=k, padding_value=-2.0, align=align)
        assert_same(got, want)
        # The matrix the diagonals came from, whose shape is not the inferred square one.
        m, n = shape[-2:]
        want = tensorflow.linalg.diag(d, k=k, num_rows=m, num_cols=n, align=align)
        got = tapejax.linalg.diag(d, k=k, num_rows=m, num_cols=n, align=align)
        assert_same(got, want)


@pytest.mark.parametrize("align", ALIGNS)
def test_set_diag_of_a_band_is_tfs(align):
    for shape, k in BANDS:
        x = rand("float32", shape)
        d = rand("float32", compact_shape(shape, k), seed=1)
        want = tensorflow.linalg.set_diag(x, d, k=k, align=align)
        got = tapejax.linalg.set_diag(x, d, k=k, align=align)
        assert_same(got, want)


def test_diag_part_and_diag_round_trip_the_band():
    x = rand("float32", (2, 4, 5))
    for align in ALIGNS:
        band = tapejax.linalg.diag_part(x, k=(-2, 1), align=align)
        back = tapejax.linalg.diag(band, k=(-2, 1), num_rows=4, num_cols=5, align=align)
        want = tapejax.linalg.band_part(x, 2, 1)
        np.testing.assert_array_equal(back.numpy(), want.numpy())


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_rows": 4},
        {"num_cols": 5},
        {"num_rows": 6, "num_cols": 3},
        {"num_rows": 3, "num_cols": 7},
    ],
)
def test_diag_num_rows_and_num_cols_with_a_band_are_tfs(kwargs):
    for k in ((-1, 1), (-2, -1), (1, 2)):
        d = rand("float32", (2, k[1] - k[0] + 1, 3), seed=2)

        def fn(tf, d=d, k=k):
            return tf.linalg.diag(d, k=k, **kwargs)

        if raised(fn, tensorflow) is not None:
            same_error(fn)
            continue
        want = tensorflow.linalg.diag(d, k=k, padding_value=5.0, **kwargs)
        got = tapejax.linalg.diag(d, k=k, padding_value=5.0, **kwargs)
        assert_same(got, want)


@pytest.mark.parametrize(
    ("dt", "pad"), [("int32", -1), ("uint8", 300), ("complex64", 1 + 2j), ("float16", 0.5)]
)
def test_bands_of_other_dtypes_are_tfs(dt, pad):
    x = rand(dt, (3, 4))
    d = rand(dt, (3, 3), seed=1)
    want = tensorflow.linalg.diag_part(x, k=(-1, 1), padding_value=pad, align="LEFT_RIGHT")
    got = tapejax.linalg.diag_part(x, k=(-1, 1), padding_value=pad, align="LEFT_RIGHT")
    assert_same(got, want)
    want = tensorflow.linalg.diag(d, k=(-1, 1), padding_value=pad, num_cols=4)
    got = tapejax.linalg.diag(d, k=(-1, 1), padding_value=pad, num_cols=4)
    assert_same(got, want)
    want = tensorflow.linalg.set_diag(x, d, k=(-1, 1), align="LEFT_LEFT")
    got = tapejax.linalg.set_diag(x, d, k=(-1, 1), align="LEFT_LEFT")
    assert_same(got, want)


def test_bool_bands_and_padding_are_tfs():
    x = np.array([[True, False, True], [False, True, True]])
    for fn in (
        lambda tf: tf.linalg.diag_part(x, k=(-1, 1), padding_value=True),
        lambda tf: tf.linalg.diag_part(x, k=(-1, 1)),
        lambda tf: tf.linalg.diag(x, k=(0, 1)),
        lambda tf: tf.linalg.diag(x[:, :2], k=(0, 1), padding_value=1),
    ):
        assert_same(fn(tapejax), fn(tensorflow))


def test_k_and_padding_conversions_are_tfs(x64):
    x = rand("float32", (3, 4))
    for fn in (
        lambda tf: tf.linalg.diag_part(x, k=[-1, 2], padding_value=np.float64(0.5)),
        lambda tf: tf.linalg.diag_part(x, k=np.array([-1, 2]), padding_value=[0.5]),
        lambda tf: tf.linalg.diag_part(x, k=tf.constant([-1, 2])),
        # A Tensor padding value sets the dtype a non-Tensor input converts to.
        lambda tf: tf.linalg.diag_part(x, k=(0, 1), padding_value=tf.constant(1, tf.int32)),
        lambda tf: tf.linalg.diag([[1, 2], [3, 4]], k=(0, 1), padding_value=tf.constant(0.5)),
        lambda tf: tf.linalg.diag(x[:2], k=(-1, 0), num_rows=tf.constant(4), num_cols=5),
        lambda tf: tf.linalg.set_diag(x, tf.ones((4, 3), tf.int32), k=(-1, 2)),
    ):
        assert_same(fn(tapejax), fn(tensorflow))


def test_empty_bands_are_tfs():
    for fn in (
        lambda tf: tf.linalg.diag_part(np.zeros((0, 3), np.float32), k=(0, 1)),
        lambda tf: tf.linalg.diag(np.zeros((3, 0), np.float32), k=(-1, 1)),
        lambda tf: tf.linalg.diag(np.zeros((2, 0), np.float32), k=(0, 1), num_rows=2),
        lambda tf: tf.linalg.set_diag(
            np.zeros((0, 3), np.float32), np.zeros((2, 0), np.float32), k=(0, 1)
        ),
    ):
        assert_same(fn(tapejax), fn(tensorflow))


def test_tensor_diag_aliases_are_unaffected():
    x = rand("float32", (2, 3, 2, 3))
    assert_same(tapejax.linalg.tensor_diag_part(x), tensorflow.linalg.tensor_diag_part(x))
    d = rand("float32", (2, 3))
    assert_same(tapejax.linalg.tensor_diag(d), tensorflow.linalg.tensor_diag(d))


# -- gradients ----------------------------------------------------------------------------


def tape_grads(fw, fn, *values):
    """Gradients of ``sum(w * fn(*values))`` (``w`` fixed, nonzero at padding entries)."""
    xs = [fw.constant(v) for v in values]
    with fw.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(fw, *xs)
        w = np.arange(1, np.prod(y.shape) + 1, dtype=np.float32).reshape(y.shape)
        loss = fw.reduce_sum(fw.cast(w, y.dtype) * y)
    return [g.numpy() for g in tape.gradient(loss, xs)]


@pytest.mark.parametrize("align", ["RIGHT_LEFT", "LEFT_RIGHT"])
@pytest.mark.parametrize(("shape", "k"), [((2, 3, 5), (-1, 2)), ((5, 3), (-4, -1))])
def test_band_gradients_are_tfs(align, shape, k):
    x = rand("float32", shape)
    d = rand("float32", compact_shape(shape, k), seed=1)
    m, n = shape[-2:]
    cases = [
        (lambda tf, x: tf.linalg.diag_part(x, k=k, padding_value=3.0, align=align), (x,)),
        (lambda tf, d: tf.linalg.diag(d, k=k, num_rows=m, num_cols=n, align=align), (d,)),
        (lambda tf, x, d: tf.linalg.set_diag(x, d, k=k, align=align), (x, d)),
    ]
    for fn, values in cases:
        want = tape_grads(tensorflow, fn, *values)
        got = tape_grads(tapejax, fn, *values)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-6)
    # Padding entries of the compact layout get no gradient.
    (g,) = tape_grads(tapejax, cases[1][0], d)
    pad = tapejax.linalg.diag_part(np.ones((m, n), np.float32), k=k, align=align).numpy() == 0
    assert pad.any()
    assert (g[..., pad] == 0).all()


def test_complex_band_gradients_are_tfs():
    x = rand("complex64", (3, 4))
    d = rand("complex64", (3, 3), seed=1)
    fns = [
        (lambda tf, x: tf.linalg.diag_part(x, k=(-1, 1), align="LEFT_LEFT"), (x,)),
        (lambda tf, d: tf.linalg.diag(d, k=(-1, 1), num_cols=4), (d,)),
        (lambda tf, x, d: tf.linalg.set_diag(x, d, k=(-1, 1)), (x, d)),
    ]
    for fn, values in fns:
        for g, w in zip(tape_grads(tapejax, fn, *values), tape_grads(tensorflow, fn, *values)):
            np.testing.assert_allclose(g, w, rtol=1e-6)


def test_band_functions_pass_check_grads(x64):
    x = jnp.asarray(rand("float64", (4, 3)))
    d = jnp.asarray(rand("float64", (3, 3), seed=1))
    one = np.float64(1.0).tobytes()  # the padding static: its bytes in the input's dtype
    check_grads(
        lambda x: linalg_ops._band_diag_part_fn(
            x, lower=-2, upper=0, padding=one, align="RIGHT_RIGHT"
        ),
        (x,),
        order=2,
    )
    check_grads(
        lambda d: linalg_ops._band_diag_fn(
            d, lower=-2, upper=0, rows=4, cols=3, padding=one, align="LEFT_RIGHT"
        ),
        (d,),
        order=2,
    )
    check_grads(
        lambda x, d: linalg_ops._band_set_diag_fn(
            jnp.asarray(x), d, lower=-2, upper=0, align="RIGHT_LEFT"
        ),
        (x, d),
        order=2,
    )


# -- errors -------------------------------------------------------------------------------

X = np.arange(12, dtype=np.float32).reshape(3, 4)
D = np.ones((3, 3), np.float32)

ERRORS = [
    # diag_part
    lambda tf: tf.linalg.diag_part(X, k=(2, 1)),
    lambda tf: tf.linalg.diag_part(X, k=(-3, 1)),
    lambda tf: tf.linalg.diag_part(X, k=(-1, 4)),
    lambda tf: tf.linalg.diag_part(X, k=4),
    lambda tf: tf.linalg.diag_part(X, k=(-5, 7)),
    lambda tf: tf.linalg.diag_part(np.zeros((0, 0), np.float32), k=(-1, 0)),
    lambda tf: tf.linalg.diag_part(X, k=(0, 1), align="FOO"),
    lambda tf: tf.linalg.diag_part(X, align="FOO"),
    lambda tf: tf.linalg.diag_part(X, k=(0, 1, 2)),
    lambda tf: tf.linalg.diag_part(X, k=[]),
    lambda tf: tf.linalg.diag_part(X, k=[[0, 1]]),
    lambda tf: tf.linalg.diag_part(X, k=(0.0, 1.0)),
    lambda tf: tf.linalg.diag_part(X, k=(0, 1), padding_value=[1.0, 2.0]),
    lambda tf: tf.linalg.diag_part(X.astype(np.int32), k=(0, 1), padding_value=1.5),
    lambda tf: tf.linalg.diag_part(np.zeros(3, np.float32), k=(0, 1)),
    # diag
    lambda tf: tf.linalg.diag(D, k=(-1, 1), num_rows=2),
    lambda tf: tf.linalg.diag(D, k=(-1, 1), num_cols=2),
    lambda tf: tf.linalg.diag(D, k=(-1, 1), num_rows=6, num_cols=6),
    lambda tf: tf.linalg.diag(D[0], k=1, num_rows=2, num_cols=4),
    lambda tf: tf.linalg.diag(D, k=(-1, 0)),
    lambda tf: tf.linalg.diag(D, k=(1, -1)),
    lambda tf: tf.linalg.diag(D[0], k=(0, 1)),
    lambda tf: tf.linalg.diag(np.float32(1), k=(0, 1)),
    lambda tf: tf.linalg.diag(D, k=(-1, 1), align="X"),
    lambda tf: tf.linalg.diag(D, k=(-1, 0, 1)),
    lambda tf: tf.linalg.diag(D, k=(-1, 1), padding_value=[1.0]),
    lambda tf: tf.linalg.diag(D, k=(-1, 1), num_rows=[4]),
    lambda tf: tf.linalg.diag(D, k=(-1, 1), num_rows=3.0),
    lambda tf: tf.linalg.diag(np.zeros((2, 0), np.float32), k=(0, 1), num_rows=2, num_cols=2),
    # set_diag
    lambda tf: tf.linalg.set_diag(X, np.ones((4, 3), np.float32), k=(2, -1)),
    lambda tf: tf.linalg.set_diag(X, np.ones((5, 3), np.float32), k=(-3, 1)),
    lambda tf: tf.linalg.set_diag(X, np.ones((5, 3), np.float32), k=(0, 4)),
    lambda tf: tf.linalg.set_diag(X, np.ones((0,), np.float32), k=-3),
    lambda tf: tf.linalg.set_diag(X, np.ones((3, 3), np.float32), k=(-1, 2)),
    lambda tf: tf.linalg.set_diag(X, np.ones((4, 2), np.float32), k=(-1, 2)),
    lambda tf: tf.linalg.set_diag(X, np.ones(3, np.float32), k=(-1, 2)),
    lambda tf: tf.linalg.set_diag(X, np.ones((4, 3), np.float32), k=(-1, 2), align="Z"),
    lambda tf: tf.linalg.set_diag(X, np.ones((4, 3), np.float32), k=(-1, 0, 2)),
    lambda tf: tf.linalg.set_diag(
        np.zeros((2, 3, 4), np.float32), np.ones((4, 3), np.float32), k=(-1, 2)
    ),
    lambda tf: tf.linalg.set_diag(tf.constant(X), tf.ones((4, 3), tf.int32), k=(-1, 2)),
]


@pytest.mark.parametrize("fn", ERRORS, ids=range(len(ERRORS)))
def test_band_errors_are_tfs(fn):
    same_error(fn)


def test_int64_k_and_mismatched_padding_dtypes_are_tfs_errors(x64):
    for fn in (
        lambda tf: tf.linalg.diag_part(X, k=tf.constant([0, 1], tf.int64)),
        lambda tf: tf.linalg.diag(
            tf.constant(D), k=(0, 1), padding_value=tf.constant(1.0, tf.float64)
        ),
        lambda tf: tf.linalg.diag_part(
            tf.constant(X), k=(0, 1), padding_value=tf.constant(1.0, tf.float64)
        ),
    ):
        same_error(fn)


def test_bands_inside_a_function_and_traced_k_refused():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)

    @tapejax.function
    def band(m):
        part = tapejax.linalg.diag_part(m, k=(-1, 1), padding_value=9.0)
        return part, tapejax.linalg.diag(part, k=(-1, 1), num_rows=3, num_cols=4)

    part, back = band(tapejax.constant(x))
    want = tensorflow.linalg.diag_part(x, k=(-1, 1), padding_value=9.0)
    np.testing.assert_array_equal(part.numpy(), want.numpy())
    np.testing.assert_array_equal(back.numpy(), tensorflow.linalg.band_part(x, 1, 1).numpy())

    @tapejax.function
    def traced_k(m, k):
        return tapejax.linalg.diag_part(m, k=k)

    traced_k(tapejax.constant(x), tapejax.constant(1))  # the first call runs eagerly
    with pytest.raises(NotImplementedError, match="k given as a traced tensor"):
        traced_k(tapejax.constant(x), tapejax.constant(1))


def test_padding_programs_are_told_apart_by_dtype_and_nan_reuses_its_program():
    """``0j == 0.0`` in Python: a complex padding's program must not serve a float one."""
    d = np.ones((2, 3), np.float32)
    for dtype in (np.complex64, np.float32, np.int32):
        got = tapejax.linalg.diag(d.astype(dtype), k=(-1, 0), padding_value=0)
        want = tensorflow.linalg.diag(d.astype(dtype), k=(-1, 0), padding_value=0)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    compiled = linalg_ops._band_diag_part_op._compiled
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    for _ in range(2):
        got = tapejax.linalg.diag_part(x, k=(-1, 1), padding_value=np.nan)
    n = len(compiled)
    got = tapejax.linalg.diag_part(x, k=(-1, 1), padding_value=np.nan)
    assert len(compiled) == n
    want = tensorflow.linalg.diag_part(x, k=(-1, 1), padding_value=np.nan)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
