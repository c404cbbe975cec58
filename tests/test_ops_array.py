# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Array ops (split, pad, slicing and indexing, gather/scatter, sort, unique, ...) side by
side with real TensorFlow: values, dtypes and shapes at several shapes and dtypes, tape
gradients vs TF, ``check_grads`` of the pure functions, and TF's errors.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    FI,
    Case,
    I,
    arr,
    case_id,
    check_accepts_variables,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_values,
    first_of_each_op,
    fixed,
    grad_cases,
    no_kernel_case,
    value_params,
)

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}
i32 = np.int32


def _big_unsigned(dtype):
    top = np.iinfo(dtype).max
    return np.array([3, top - 1, 0, top // 2 + 3, top - 1, 7], dtype)


def _idx(v):
    return np.array(v, np.int32)


def _pad_value(dt):
    return np.int32(2) if dt == "int32" else np.float32(1.5)


CASES = [
    # -- split
    Case(
        "split", lambda dt, shape: ((arr(dt, shape + (4,)), 2), {"axis": -1}), dtypes=FI, diff=(0,)
    ),
    Case(
        "split",
        lambda dt, shape: ((arr(dt, shape + (4,)), [1, -1, 2]), {"axis": -1}),
        dtypes=FI,
        diff=(0,),
    ),
    fixed("split", lambda dt: (arr("float32", (3, 2)), [0, 3]), diff=(0,)),
    fixed("split", lambda dt: (arr("float32", (4, 2)), np.array([1, 3], np.int32)), diff=(0,)),
    # -- pad
    Case(
        "pad", lambda dt, shape: ((arr(dt, shape), [[1, 2]] * len(shape)), {}), dtypes=FI, diff=(0,)
    ),
    Case(
        "pad",
        lambda dt, shape: (
            (arr(dt, shape), [[0, 1]] * len(shape)),
            {"constant_values": _pad_value(dt)},
        ),
        dtypes=FI,
        diff=(0,),
    ),
    Case(
        "pad",
        lambda dt, shape: ((arr(dt, shape), [[1, 1]] * len(shape), "REFLECT"), {}),
        dtypes=FI,
        diff=(0,),
    ),
    Case(
        "pad",
        lambda dt, shape: ((arr(dt, shape), [[2, 1]] * len(shape), "symmetric"), {}),
        dtypes=FI,
        diff=(0,),
    ),
    fixed("pad", lambda dt: (arr("float32", (0, 2)), [[1, 0], [0, 1]])),
    # -- slicing
    Case(
        "slice",
        lambda dt, shape: (
            (arr(dt, shape), [1] + [0] * (len(shape) - 1), [-1] + [2] * (len(shape) - 1)),
            {},
        ),
        dtypes=FI,
        diff=(0,),
    ),
    fixed("slice", lambda dt: (arr("float32", (3, 4)), [1, 1], [0, 2]), diff=(0,)),
    fixed(
        "strided_slice",
        lambda dt: (arr("float32", (2, 3, 4)), [0, 1, 3], [2, 3, 0], [1, 1, -1]),
        diff=(0,),
    ),
    fixed(
        "strided_slice",
        lambda dt: (arr("float32", (2, 3, 4)), [1, 0, 0], [0, 2, 0], [1, 1, 2]),
        {"begin_mask": 1, "end_mask": 4},
        diff=(0,),
    ),
    fixed(
        "strided_slice",
        lambda dt: (arr("float32", (2, 3, 4)), [0, 1], [0, 2], [1, 1]),
        {"ellipsis_mask": 1},
        diff=(0,),
    ),
    fixed(
        "strided_slice",
        lambda dt: (arr("float32", (2, 3, 4)), [0, 1, 0], [0, 2, 0], [1, 1, 1]),
        {"new_axis_mask": 1, "shrink_axis_mask": 2},
        diff=(0,),
    ),
    fixed(
        "strided_slice", lambda dt: (arr("int32", (5,)), [-1], [0], [-2]), {"end_mask": 1}, dtypes=I
    ),
    fixed("strided_slice", lambda dt: (arr("float32", (5,)), [3], [1], [1])),
    fixed(
        "strided_slice",
        lambda dt: (arr("float32", (3, 2)), [-1], [0], [1]),
        {"shrink_axis_mask": 1},
        diff=(0,),
    ),
    # -- gather, gather_nd
    Case(
        "gather",
        lambda dt, shape: (
            (arr(dt, shape), _idx([[-0, 1], [1, 1]])),
            {"axis": -1 if len(shape) > 1 else 0},
        ),
        dtypes=FI,
        diff=(0,),
    ),
    fixed(
        "gather",
        lambda dt: (arr("float32", (2, 3, 2)), _idx([[2, 0], [1, 1]])),
        {"axis": 1, "batch_dims": -1},
        diff=(0,),
    ),
    fixed("gather", lambda dt: (arr("float32", (2, 3)), np.zeros((0,), np.int32))),
    Case(
        "gather_nd",
        lambda dt, shape: ((arr(dt, (2, 3)), _idx([[1, 0], [0, 2], [1, 0]])), {}),
        dtypes=FI,
        shapes=((0,),),
        diff=(0,),
    ),
    Case(
        "gather_nd",
        lambda dt, shape: ((arr(dt, (2, 3)), _idx([[[1]], [[0]]])), {}),
        dtypes=FI,
        shapes=((0,),),
        diff=(0,),
    ),
    fixed(
        "gather_nd",
        lambda dt: (arr("float32", (2, 3, 2)), _idx([[1, 0], [2, 1]])),
        {"batch_dims": 1},
        diff=(0,),
    ),
    fixed("gather_nd", lambda dt: (arr("float32", (2, 3)), np.zeros((0, 2), np.int32)), diff=(0,)),
    fixed("gather_nd", lambda dt: (arr("float32", (2, 2)), np.zeros((3, 0), np.int32))),
    # -- scatters (duplicate indices accumulate / share)
    Case(
        "scatter_nd",
        lambda dt, shape: ((_idx([[1], [1], [3]]), arr(dt, (3,)), [5]), {}),
        dtypes=FI,
        shapes=((0,),),
        diff=(1,),
    ),
    Case(
        "scatter_nd",
        lambda dt, shape: ((_idx([[0], [2]]), arr(dt, (2, 3)), [4, 3]), {}),
        dtypes=FI,
        shapes=((0,),),
        diff=(1,),
    ),
    fixed(
        "scatter_nd",
        lambda dt: (_idx([[0, 1], [1, 2], [0, 1]]), arr("float32", (3,)), _idx([2, 3])),
        diff=(1,),
    ),
    *[
        Case(
            name,
            lambda dt, shape: ((arr(dt, (4, 3)), _idx([[1], [3]]), arr(dt, (2, 3), seed=1)), {}),
            dtypes=dts,
            shapes=((0,),),
            diff=diff,
        )
        # TF has bfloat16 and float16 kernels for all five (values only).
        for dts, diff in ((FI, (0, 2)), (("bfloat16", "float16"), ()))
        for name in (
            "tensor_scatter_nd_update",
            "tensor_scatter_nd_add",
            "tensor_scatter_nd_sub",
            "tensor_scatter_nd_max",
            "tensor_scatter_nd_min",
        )
    ],
    *[
        Case(
            name,
            lambda dt, shape: (
                (arr(dt, (3, 3)), _idx([[0, 1], [2, 2], [0, 1]]), arr(dt, (3,), seed=1)),
                {},
            ),
            dtypes=FI,
            shapes=((0,),),
            diff=(0, 2),
        )
        for name in ("tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub")
    ],
    *[
        fixed(
            name,
            lambda dt: (
                np.array([0.0, 1.0, 2.0], np.float32),
                _idx([[1], [1], [2]]),
                np.array([1.0, 1.0, 0.5], np.float32),
            ),
            diff=(0, 2),
        )
        for name in ("tensor_scatter_nd_max", "tensor_scatter_nd_min")
    ],
    fixed(
        "tensor_scatter_nd_update",
        lambda dt: (np.array([True, False]), _idx([[1]]), np.array([True])),
        dtypes=("bool",),
    ),
    # -- boolean_mask
    Case(
        "boolean_mask",
        lambda dt, shape: ((arr(dt, shape), arr("bool", shape[:1], seed=2)), {}),
        dtypes=FI,
        diff=(0,),
    ),
    Case(
        "boolean_mask",
        lambda dt, shape: ((arr(dt, (2, 3)), arr("bool", (2, 3), seed=3)), {}),
        dtypes=FI,
        shapes=((0,),),
        diff=(0,),
    ),
    fixed(
        "boolean_mask",
        lambda dt: (arr("float32", (2, 3, 2)), np.array([True, False, True])),
        {"axis": 1},
        diff=(0,),
    ),
    fixed(
        "boolean_mask",
        lambda dt: (arr("float32", (3,)), np.array([False, False, False])),
        diff=(0,),
    ),
    # -- broadcasting, bitcast
    Case(
        "broadcast_to", lambda dt, shape: ((arr(dt, shape), (2,) + shape), {}), dtypes=FI, diff=(0,)
    ),
    fixed("broadcast_to", lambda dt: (arr("float32", (3, 1)), [2, 3, 4]), diff=(0,)),
    fixed("broadcast_dynamic_shape", lambda dt: (_idx([2, 1]), _idx([5, 1, 3]))),
    fixed(
        "broadcast_dynamic_shape",
        lambda dt: (np.array([4, 1], np.int64), np.array([1], np.int64)),
        x64=True,
    ),
    fixed("bitcast", lambda dt: (np.array([1.0, -2.5], np.float32), "int32")),
    fixed("bitcast", lambda dt: (np.array([1.0, -2.5], np.float32), "uint8")),
    fixed("bitcast", lambda dt: (np.array([[1, 2], [3, 4]], np.int16), "int32")),
    fixed("bitcast", lambda dt: (np.array([1 + 2j], np.complex64), "float32")),
    fixed("bitcast", lambda dt: (np.array([1 + 2j], np.complex64), "int8")),
    fixed("bitcast", lambda dt: (np.array([[1.5, -2.0]], np.float32), "complex64")),
    fixed("bitcast", lambda dt: (np.arange(16, dtype=np.uint8).reshape(2, 8), "complex64")),
    # -- sorting
    Case("sort", lambda dt, shape: ((arr(dt, shape, -3, 3),), {}), dtypes=FI, diff=(0,)),
    Case(
        "sort",
        lambda dt, shape: ((arr(dt, shape, -3, 3),), {"axis": 0, "direction": "DESCENDING"}),
        dtypes=FI,
        diff=(0,),
    ),
    fixed(
        "sort",
        lambda dt: (np.array([3, -(2**31), 2**31 - 1, 0], np.int32),),
        {"direction": "DESCENDING"},
        dtypes=I,
    ),
    fixed("sort", lambda dt: (np.array([3, 0, 255], np.uint8),), {"direction": "DESCENDING"}),
    fixed("sort", lambda dt: (np.array([3.0, -np.inf, -1.0, np.inf, 2.0], np.float32),)),
    Case("argsort", lambda dt, shape: ((arr(dt, shape, -1, 1),), {}), dtypes=FI),
    Case(
        "argsort",
        lambda dt, shape: ((arr(dt, shape, -1, 1),), {"axis": 0, "direction": "DESCENDING"}),
        dtypes=FI,
    ),
    fixed(
        "argsort",
        lambda dt: (np.array([0.0, -0.0, 0.0, -0.0, 1.0], np.float32),),
        {"direction": "DESCENDING", "stable": True},
    ),
    fixed("argsort", lambda dt: (np.array([2, 0, 255, 0], np.uint8),), {"direction": "DESCENDING"}),
    # unsigned values above the int32 range, descending (their key once overflowed)
    fixed("sort", lambda dt: (_big_unsigned(np.uint32),), {"direction": "DESCENDING"}),
    fixed("argsort", lambda dt: (_big_unsigned(np.uint32),), {"direction": "DESCENDING"}),
    fixed("sort", lambda dt: (_big_unsigned(np.uint64),), {"direction": "DESCENDING"}, x64=True),
    fixed("argsort", lambda dt: (_big_unsigned(np.uint64),), {"direction": "DESCENDING"}, x64=True),
    fixed("unique", lambda dt: (np.array([3, 1, 3, 2, 1], np.int32),)),
    fixed("unique", lambda dt: (np.array([np.nan, 1.0, -0.0, 0.0, np.nan, 1.0], np.float32),)),
    fixed("unique", lambda dt: (np.zeros((0,), np.float32),)),
    fixed("unique", lambda dt: (np.array([3, 1, 3], np.int32),), {"out_idx": "int64"}, x64=True),
    fixed("unique_with_counts", lambda dt: (np.array([3, 1, 3, 2, 1], np.int32),)),
    fixed("unique_with_counts", lambda dt: (np.array([True, True, False]),)),
    fixed(
        "searchsorted",
        lambda dt: (
            np.array([[1.0, 2.0, 2.0, 4.0], [0.0, 1.0, 5.0, 6.0]], np.float32),
            np.array([[2.0, 0.5, 9.0], [5.0, 1.0, -1.0]], np.float32),
        ),
    ),
    fixed(
        "searchsorted",
        lambda dt: (
            np.array([[1.0, 2.0, 2.0, 4.0], [0.0, 1.0, 5.0, 6.0]], np.float32),
            np.array([[2.0, 0.5, 9.0], [5.0, 1.0, -1.0]], np.float32),
        ),
        {"side": "right"},
    ),
    fixed(
        "searchsorted",
        lambda dt: (np.array([1, 3, 5], np.int32), np.array([3, 4], np.int32)),
        {"out_type": "int64"},
        x64=True,
    ),
    fixed(
        "searchsorted", lambda dt: (np.zeros((2, 2, 3), np.float32), np.ones((4, 2), np.float32))
    ),
    # -- reverse, roll, repeat
    Case("reverse", lambda dt, shape: ((arr(dt, shape), [-1]), {}), dtypes=FI, diff=(0,)),
    fixed("reverse", lambda dt: (arr("float32", (2, 3, 2)), [0, 2]), diff=(0,)),
    Case("roll", lambda dt, shape: ((arr(dt, shape), 1, -1), {}), dtypes=FI, diff=(0,)),
    fixed("roll", lambda dt: (arr("float32", (2, 4)), [1, 2, -7], [1, 1, 0]), diff=(0,)),
    fixed("roll", lambda dt: (np.zeros((0,), np.float32), 1, 0)),
    Case("repeat", lambda dt, shape: ((arr(dt, shape), 2), {}), dtypes=FI, diff=(0,)),
    Case(
        "repeat",
        lambda dt, shape: ((arr(dt, shape), [1, 0, 2]), {"axis": -1}),
        dtypes=FI,
        diff=(0,),
    ),
    fixed("repeat", lambda dt: (arr("float32", (2, 3)), [3]), {"axis": 0}, diff=(0,)),
    fixed("repeat", lambda dt: (np.float32(2.5), 3), {"axis": 0}),
    # -- shapes
    Case(
        "ensure_shape",
        lambda dt, shape: ((arr(dt, shape), [None] + list(shape[1:])), {}),
        dtypes=FI,
        diff=(0,),
    ),
    fixed(
        "ensure_shape",
        lambda dt: (arr("float32", (2, 3)), tensorflow.TensorShape([2, None])),
        diff=(0,),
    ),
    # -- edge shapes and TF's wrapper quirks
    fixed("reshape", lambda dt: (np.zeros((0,), np.float32), [-1])),
    fixed("reshape", lambda dt: (np.zeros((0, 3), np.float32), [3, -1])),
    fixed("reshape", lambda dt: (np.zeros((2, 0, 3), np.float32), [-1, 0])),
    fixed(
        "gather",
        lambda dt: (arr("float32", (2, 2)), _idx([[0], [1]])),
        {"axis": 0, "batch_dims": 1},  # TF's wrapper ignores batch_dims at axis 0
    ),
    fixed(
        "gather",
        lambda dt: (arr("float32", (2, 3)), _idx([[2], [0]])),
        {"batch_dims": 1},
        diff=(0,),
    ),
    fixed("pad", lambda dt: (np.float32(1.0), np.zeros((0, 2), np.int32))),
    fixed("sort", lambda dt: (arr("float32", (2, 3)),), {"axis": 0.0}, diff=(0,)),
    fixed("searchsorted", lambda dt: (np.zeros((0,), np.float32), np.array([1.0], np.float32))),
    fixed(
        "searchsorted", lambda dt: (np.array([1.0, 2.0], np.float32), np.zeros((0,), np.float32))
    ),
    fixed("repeat", lambda dt: (np.zeros((0,), np.float32), 3)),
    fixed(
        "boolean_mask",
        lambda dt: (arr("float32", (2, 3)), np.array([True, False])),
        {"axis": -2},
        diff=(0,),
    ),
    fixed(
        "tensor_scatter_nd_update",
        lambda dt: (arr("float32", (3,)), np.zeros((0, 1), np.int32), np.zeros((0,), np.float32)),
        diff=(0, 2),
    ),
    # -- norm clipping (TF's formula, op for op)
    Case("clip_by_norm", lambda dt, shape: ((arr(dt, shape), 1.0), {}), diff=(0,)),
    Case("clip_by_norm", lambda dt, shape: ((arr(dt, shape), 1.5), {"axes": [-1]}), diff=(0,)),
    fixed(
        "clip_by_norm",
        lambda dt: (np.array([[0.0, 0.0], [0.3, 0.4]], np.float32), 1.0),
        {"axes": 1},
        diff=(0,),
    ),
    fixed(
        "clip_by_norm", lambda dt: (np.array([3.0, 4.0], np.float32), np.float32(5.0)), diff=(0,)
    ),
    # -- creation
    Case(
        "meshgrid",
        lambda dt, shape: ((arr(dt, (2,)), arr(dt, (3,), seed=1)), {}),
        dtypes=FI,
        shapes=((0,),),
        diff=(0, 1),
    ),
    Case(
        "meshgrid",
        lambda dt, shape: (
            (arr(dt, (2,)), arr(dt, (3,), seed=1), arr(dt, (4,), seed=2)),
            {"indexing": "ij"},
        ),
        dtypes=FI,
        shapes=((0,),),
        diff=(0, 1, 2),
    ),
    fixed(
        "meshgrid",
        lambda dt: (
            arr("float32", (2,)),
            arr("float32", (1, 3), seed=1),
            arr("float32", (4,), seed=2),
        ),
        diff=(0, 1, 2),
    ),
    fixed("sequence_mask", lambda dt: (_idx([1, 3, 0]), 4)),
    fixed("sequence_mask", lambda dt: (_idx([[1, 3], [0, 2]]),), {"dtype": "float32"}),
    fixed("sequence_mask", lambda dt: (np.array([1.5, 3.0], np.float32), np.int32(4))),
    fixed("sequence_mask", lambda dt: (np.int32(2), 3)),
    # -- reverse_sequence
    Case(
        "reverse_sequence",
        lambda dt, shape: ((arr(dt, (3,) + shape), _idx([2, 0, 3])), {"seq_axis": 1}),
        dtypes=FI,
        shapes=((3,), (4, 2)),
        diff=(0,),
    ),
    fixed(
        "reverse_sequence",
        lambda dt: (arr(dt, (2, 4, 3)), np.array([3, 1, 2], np.int64)),
        {"seq_axis": 1, "batch_axis": 2},
        diff=(0,),
        x64=True,
    ),
    fixed(
        "reverse_sequence",
        lambda dt: (arr(dt, (4, 2, 3)), _idx([4, 1])),
        {"seq_axis": 0, "batch_axis": 1},
        diff=(0,),
    ),
]

# Ops TF registers without a gradient (or whose outputs are integers).
NOT_DIFFERENTIABLE = {
    "argsort",
    "bitcast",
    "broadcast_dynamic_shape",
    "searchsorted",
    "sequence_mask",
    "unique",
    "unique_with_counts",
}

# Public ops a Case cannot express (a TensorShape or a (list, tensor) result): tested below.
OTHERWISE_TESTED = {"broadcast_static_shape", "clip_by_global_norm"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


@pytest.mark.parametrize("case", first_of_each_op(CASES, NOT_DIFFERENTIABLE), ids=case_id)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


# -- Python indexing (``Tensor.__getitem__``) --------------------------------------------------

INDEXING = [
    ("int", lambda tf, x: x[1]),
    ("negative int", lambda tf, x: x[-1, -2]),
    ("slices", lambda tf, x: x[1:, :2]),
    ("negative stride", lambda tf, x: x[::-1, ::-2]),
    ("negative stride with bounds", lambda tf, x: x[2:0:-1, -1:-4:-1]),
    ("out-of-range slice clamps", lambda tf, x: x[1:10, -10:2]),
    ("empty slice", lambda tf, x: x[2:1]),
    ("ellipsis", lambda tf, x: x[..., 1]),
    ("ellipsis in the middle", lambda tf, x: x[0, ..., 1:]),
    ("newaxis", lambda tf, x: x[tf.newaxis, :, None, 1]),
    ("newaxis after ellipsis", lambda tf, x: x[..., None]),
    ("scalar tensor", lambda tf, x: x[tf.constant(1), tf.constant(-1)]),
    ("tensor slice bounds", lambda tf, x: x[tf.constant(1) : tf.constant(3)]),
    ("numpy int", lambda tf, x: x[np.int64(1)]),
    ("list is a tuple", lambda tf, x: x[[1, 2]]),
    ("bool tensor mask", lambda tf, x: x[x > 0]),
    ("numpy bool mask", lambda tf, x: x[np.array([True, False, True, False])]),
    ("empty tuple", lambda tf, x: x[()]),
]


def _index_run(fw, fn, value):
    x = fw.constant(value)
    with fw.GradientTape() as tape:
        tape.watch(x)
        y = fn(fw, x)
        loss = fw.reduce_sum(y * y)
    return y, tape.gradient(loss, x)


@pytest.mark.parametrize("fn", [f for _, f in INDEXING], ids=[n for n, _ in INDEXING])
def test_indexing_matches_tf(fn):
    value = arr("float32", (4, 3, 2), seed=5)
    got, got_grad = _index_run(tapejax, fn, value)
    want, want_grad = _index_run(tensorflow, fn, value)
    assert got.shape.as_list() == want.shape.as_list()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy(), rtol=1e-6)


def test_indexing_with_a_traced_scalar_inside_function():
    f = tapejax.function(lambda x, i: x[i, ::-1])
    x = tapejax.constant(arr("float32", (3, 2)))
    np.testing.assert_array_equal(f(x, tapejax.constant(2)).numpy(), x.numpy()[2, ::-1])


# -- edge gradients: TF's registered rules where JAX's own derivative differs ------------------


def _grads(fw, fn, *values):
    xs = [fw.constant(v) for v in values]
    with fw.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(fw, *xs)
    return tape.gradient(y, xs)


EDGE_GRADIENTS = [
    (
        "tensor_scatter_nd_update: every duplicate gets the gradient",
        lambda tf, t, u: (
            tf.tensor_scatter_nd_update(t, [[1], [1]], u) * tf.constant([1.0, 2.0, 3.0])
        ),
        (np.zeros(3, np.float32), np.array([1.0, 2.0], np.float32)),
    ),
    (
        "tensor_scatter_nd_max: ties share",
        lambda tf, t, u: (
            tf.tensor_scatter_nd_max(t, [[1], [1], [2]], u) * tf.constant([1.0, 2.0, 3.0])
        ),
        (np.array([0.0, 2.0, 3.0], np.float32), np.array([2.0, 2.0, 1.0], np.float32)),
    ),
    (
        "sort descending: ties route by index",
        lambda tf, x, w: tf.sort(x, direction="DESCENDING") * w,
        (np.array([1.0, 3.0, 1.0, 3.0], np.float32), np.array([1.0, 2.0, 3.0, 4.0], np.float32)),
    ),
    (
        "sort ascending: ties route by index",
        lambda tf, x, w: tf.sort(x) * w,
        (
            np.array([1.0, 3.0, 1.0, -0.0, 0.0], np.float32),
            np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32),
        ),
    ),
    (
        "pad: constant_values gets None",
        lambda tf, x, c: tf.pad(x, [[1, 1]], constant_values=c),
        (np.array([1.0, 2.0], np.float32), np.array(3.0, np.float32)),
    ),
    (
        "clip_by_norm: norm equal to clip_norm",
        lambda tf, x, c: tf.clip_by_norm(x, c) * tf.constant([1.0, 2.0]),
        (np.array([3.0, 4.0], np.float32), np.array(5.0, np.float32)),
    ),
    (
        "gather: duplicate indices accumulate",
        lambda tf, x, w: tf.gather(x, [0, 0, 2]) * w,
        (np.array([1.0, 2.0, 3.0], np.float32), np.array([1.0, 2.0, 3.0], np.float32)),
    ),
    (
        "gather_nd: duplicate indices accumulate",
        lambda tf, x, w: tf.gather_nd(x, [[0, 1], [0, 1]]) * w,
        (np.ones((2, 2), np.float32), np.array([1.0, 2.0], np.float32)),
    ),
    (
        "unique: no gradient",
        lambda tf, x, w: tf.cast(tf.unique(tf.cast(x, tf.int32)).idx, tf.float32) * w,
        (np.array([1.0, 2.0], np.float32), np.array([1.0, 2.0], np.float32)),
    ),
]


@pytest.mark.parametrize(
    "fn, values", [(f, v) for _, f, v in EDGE_GRADIENTS], ids=[n for n, _, _ in EDGE_GRADIENTS]
)
def test_edge_gradients_are_tfs(fn, values):
    got = _grads(tapejax, fn, *values)
    want = _grads(tensorflow, fn, *values)
    for g, w in zip(got, want, strict=True):
        if w is None:
            assert g is None
        else:  # TF's gather gradients are IndexedSlices: compare their dense value
            w = tensorflow.convert_to_tensor(w)
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


def test_unique_gradient_is_none_where_tf_has_none():
    x = tapejax.constant([1.0, 2.0, 1.0])
    with tapejax.GradientTape() as tape:
        tape.watch(x)
        y = tapejax.unique(x).y
    assert tape.gradient(y, x) is None


def test_scatter_update_gradient_works_forward_and_reverse(x64):
    """TF's update gradient is a custom JVP: forward mode (jacobian) and reverse both work,
    and equal the true derivative where indices are unique (with duplicates TF's gradient
    is not the derivative: see the edge-gradient test against TF)."""
    t = np.arange(4.0)
    u = np.array([1.0, 2.0])

    def f(t, u):
        return tapejax.tensor_scatter_nd_update(
            tapejax.constant(t), [[1], [3]], tapejax.constant(u)
        )._value

    jax.test_util.check_grads(f, (t, u), order=2, modes=["fwd", "rev"])


# -- ops a Case cannot express -------------------------------------------------------------------

STATIC_SHAPES = [([2, 1], [3]), ([None, 1], [1, None]), ([None, 4], [1]), (None, [3]), ([], [2, 2])]


@pytest.mark.parametrize("x, y", STATIC_SHAPES)
def test_broadcast_static_shape_matches_tf(x, y):
    got = tapejax.broadcast_static_shape(tapejax.TensorShape(x), tapejax.TensorShape(y))
    want = tensorflow.broadcast_static_shape(tensorflow.TensorShape(x), tensorflow.TensorShape(y))
    assert got.rank == want.rank
    if want.rank is not None:
        assert got.as_list() == want.as_list()


def _global_clip(fw, ts, clip, use_norm=None):
    xs = [None if t is None else fw.constant(t) for t in ts]
    with fw.GradientTape() as tape:
        for x in xs:
            if x is not None:
                tape.watch(x)
        clipped, norm = fw.clip_by_global_norm(xs, clip, use_norm=use_norm)
        loss = sum(fw.reduce_sum(c * float(i + 1)) for i, c in enumerate(clipped) if c is not None)
    grads = tape.gradient(loss, [x for x in xs if x is not None])
    return clipped, norm, grads


@pytest.mark.parametrize(
    "ts, clip",
    [
        ([arr("float32", (2, 3)), None, arr("float32", (4,), seed=1)], 1.0),
        ([arr("float32", (3,))], 100.0),
        ([np.array([np.inf, 1.0], np.float32)], 1.0),
    ],
)
def test_clip_by_global_norm_matches_tf(ts, clip):
    got_c, got_n, got_g = _global_clip(tapejax, ts, clip)
    want_c, want_n, want_g = _global_clip(tensorflow, ts, clip)
    np.testing.assert_allclose(got_n.numpy(), want_n.numpy(), rtol=1e-6)
    for g, w in zip(got_c, want_c, strict=True):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
    for g, w in zip(got_g, want_g, strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5)


def test_clip_by_global_norm_with_use_norm_and_all_none():
    clipped, norm = tapejax.clip_by_global_norm([tapejax.constant([3.0, 4.0])], 1.0, use_norm=10.0)
    np.testing.assert_allclose(clipped[0].numpy(), [0.3, 0.4], rtol=1e-6)
    clipped, norm = tapejax.clip_by_global_norm([None], 1.0)
    assert clipped == [None] and norm.numpy() == 0.0


def test_unique_returns_tfs_named_tuple():
    out = tapejax.unique_with_counts(tapejax.constant([3, 1, 3]))
    assert type(out).__name__ == "UniqueWithCounts"
    assert out.count.numpy().tolist() == [2, 1]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: tapejax.boolean_mask(x, x > 0),
        lambda x: x[x > 0],
        lambda x: tapejax.unique(x).y,
        lambda x: tapejax.where(x > 0),
        lambda x: tapejax.sequence_mask(tapejax.cast(x, tapejax.int32)),
    ],
    ids=["boolean_mask", "getitem mask", "unique", "where", "sequence_mask"],
)
def test_data_dependent_shapes_raise_inside_function(fn):
    with pytest.raises(NotImplementedError, match="traced|cannot be traced"):
        f = tapejax.function(fn)
        f(tapejax.constant([1.0, -1.0]))  # the first call runs eagerly
        f(tapejax.constant([1.0, -1.0]))


def test_boolean_mask_with_a_concrete_mask_inside_function():
    mask = np.array([True, False, True])
    f = tapejax.function(lambda x: tapejax.boolean_mask(x, mask))
    for _ in range(2):  # the first call runs eagerly, the second traces
        np.testing.assert_array_equal(f(tapejax.constant([1.0, 2.0, 3.0])).numpy(), [1.0, 3.0])


def test_out_of_range_python_indices_raise_inside_function():
    f = tapejax.function(lambda x: tapejax.gather_nd(x, [[0, 5]]))
    x = tapejax.constant(arr("float32", (2, 2)))
    for _ in range(2):
        with pytest.raises(tapejax.errors.InvalidArgumentError, match="does not index into"):
            f(x)


def test_range_with_static_bounds_inside_function_and_a_clear_error_for_traced_ones():
    @tapejax.function
    def f(x, n):
        a = tapejax.range(x.shape[0]) * 2  # known while tracing
        b = tapejax.range(0.0, 1.0, 0.25)
        return a, b, tapejax.range(n)

    x = tapejax.ones([3])
    a, b, c = f(x, tapejax.constant(2))  # the first call runs eagerly
    np.testing.assert_array_equal(a.numpy(), [0, 2, 4])
    assert a.dtype == "int32" and b.dtype == "float32"
    np.testing.assert_array_equal(c.numpy(), [0, 1])
    with pytest.raises(NotImplementedError, match="range inside tapejax.function needs bounds"):
        f(x, tapejax.constant(2))
    g = tapejax.function(lambda x: (tapejax.range(x.shape[0]), tapejax.range(0.0, 1.0, 0.25)))
    for _ in range(2):
        a, b = g(x)
        np.testing.assert_array_equal(a.numpy(), [0, 1, 2])
        np.testing.assert_array_equal(b.numpy(), [0.0, 0.25, 0.5, 0.75])
        assert b.dtype == "float32"


def test_slice_with_a_traced_begin_inside_function():
    f = tapejax.function(lambda x, b: tapejax.slice(x, tapejax.stack([b, 0]), [1, 2]))
    x = tapejax.constant(arr("float32", (3, 2)))
    for b in (1, 2):
        np.testing.assert_array_equal(f(x, tapejax.constant(b)).numpy(), x.numpy()[b : b + 1])


# -- errors: the same expression raises the same error under both frameworks ------------------

IAE, VE, TE = "InvalidArgumentError", "ValueError", "TypeError"
x5 = [1, 2, 3, 4, 5]
m22 = [[1.0, 2.0], [3.0, 4.0]]

ERRORS = [
    # split
    (
        lambda tf: tf.split(tf.constant(x5), 2),
        IAE,
        r"Number of ways to split should evenly divide the split dimension, but got split_dim 0 \(size = 5\) and num_split 2",
    ),
    (
        lambda tf: tf.split(tf.constant(x5), [2, 2]),
        IAE,
        r"Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: 4",
    ),
    (lambda tf: tf.split(tf.constant(x5), [2, 4, -1]), IAE, r"Got: 6"),
    (
        lambda tf: tf.split(tf.constant(x5), [-1, -1]),
        IAE,
        r"There can only be one -1 in the input.",
    ),
    (
        lambda tf: tf.split(tf.constant(x5), [-2, 7]),
        IAE,
        r"Split size at index 0 must be >= 0. Got: -2",
    ),
    (
        lambda tf: tf.split(tf.constant(x5), 5, axis=1),
        IAE,
        r"-input rank\(-1\) <= split_dim < input rank \(1\), but got 1",
    ),
    (
        lambda tf: tf.split(tf.constant(x5), 0),
        IAE,
        r"Value for attr 'num_split' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: tf.split(tf.constant(x5), tf.constant(5)),
        VE,
        r"Rank-0 tensors are not supported as the num_or_size_splits argument to split.",
    ),
    (
        lambda tf: tf.split(tf.constant(x5), [[2, 3]]),
        IAE,
        r"size of the split_tensor must be 1-D and have the same elements as outputs got 2 -D and 2 elements",
    ),
    # pad
    (
        lambda tf: tf.pad(tf.constant([[1, 2], [3, 4]]), [[1, -1], [0, 0]]),
        IAE,
        r"Paddings must be non-negative: 1 -1",
    ),
    (
        lambda tf: tf.pad(tf.constant([[1, 2], [3, 4]]), [[1, 1]]),
        IAE,
        r"The first dimension of paddings must be the rank of inputs\[1,2\] \[2,2\]",
    ),
    (
        lambda tf: tf.pad(tf.constant([[1, 2], [3, 4]]), [[1, 1, 1], [0, 0, 0]]),
        IAE,
        r"paddings must be a matrix with 2 columns: \[2,3\]",
    ),
    (
        lambda tf: tf.pad(tf.constant([[1, 2], [3, 4]]), [[2, 0], [0, 0]], "REFLECT"),
        IAE,
        r"paddings must be less than the dimension size: 2, 0 not less than 2",
    ),
    (
        lambda tf: tf.pad(tf.constant([[1, 2], [3, 4]]), [[3, 0], [0, 0]], "SYMMETRIC"),
        IAE,
        r"paddings must be no greater than the dimension size: 3, 0 greater than 2",
    ),
    (
        lambda tf: tf.pad(tf.constant([[1, 2], [3, 4]]), [[1, 0], [0, 0]], "FOO"),
        VE,
        r"Value of argument `mode` expected to be one of \"CONSTANT\", \"REFLECT\", or \"SYMMETRIC\". Received `mode` = FOO",
    ),
    (
        lambda tf: tf.pad(tf.constant([[1, 2], [3, 4]]), [[1, 0], [0, 0]], constant_values=1.5),
        TE,
        r"Cannot convert 1.5 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.pad(tf.constant(m22), [[1, 0], [0, 0]], constant_values=tf.constant([1.5])),
        IAE,
        r"constant_values must be a scalar. Found: \[1\]",
    ),
    (
        lambda tf: tf.pad(tf.constant(m22), [[1.0, 0], [0, 0]]),
        IAE,
        r"Value for attr 'Tpaddings' of float is not in the list of allowed values: int32, int64",
    ),
    # slice, strided_slice, indexing
    (
        lambda tf: tf.slice(tf.constant(x5), [4], [2]),
        IAE,
        r"Expected size\[0\] in \[0, 1\], but got 2",
    ),
    (
        lambda tf: tf.slice(tf.constant(x5), [-1], [2]),
        IAE,
        r"Expected begin\[0\] in \[0, 5\], but got -1",
    ),
    (
        lambda tf: tf.slice(tf.constant(x5), [1], [-2]),
        IAE,
        r"Expected size\[0\] in \[0, 4\], but got -2",
    ),
    (
        lambda tf: tf.slice(tf.constant(x5), [1, 1], [1, 1]),
        IAE,
        r"Expected begin and size arguments to be 1-D tensors of size 1, but got shapes \[2\] and \[2\] instead.",
    ),
    (
        lambda tf: tf.strided_slice(tf.constant(x5), [1], [2], [-1], shrink_axis_mask=1),
        IAE,
        r"only stride 1 allowed on non-range indexing.",
    ),
    (
        lambda tf: tf.strided_slice(tf.constant(x5), [7], [8], [1], shrink_axis_mask=1),
        IAE,
        r"slice index 7 of dimension 0 out of bounds.",
    ),
    (
        lambda tf: tf.strided_slice(tf.constant(x5), [0, 0], [0, 0], [1, 1], ellipsis_mask=3),
        IAE,
        r"Multiple ellipses in slice spec not allowed",
    ),
    (
        lambda tf: tf.strided_slice(tf.constant(x5), [0], [3], [0]),
        IAE,
        r"strides\[0\] must be non-zero",
    ),
    (
        lambda tf: tf.strided_slice(tf.constant(x5), [0], [3, 1], [1]),
        IAE,
        r"Expected begin, end, and strides to be 1D equal size tensors, but got shapes \[1\], \[2\], and \[1\] instead.",
    ),
    (
        lambda tf: tf.strided_slice(tf.constant(x5), [0, 0], [1, 1], [1, 1]),
        IAE,
        r"Index out of range using input dim 1; input has only 1 dims",
    ),
    (
        lambda tf: tf.strided_slice(tf.constant(x5), [0.0], [1.0], [1.0]),
        IAE,
        r"Value for attr 'Index' of float is not in the list of allowed values: int16, int32, int64",
    ),
    (lambda tf: tf.constant(x5)[5], IAE, r"slice index 5 of dimension 0 out of bounds."),
    (lambda tf: tf.constant(x5)[-6], IAE, r"slice index -1 of dimension 0 out of bounds."),
    (
        lambda tf: tf.constant(x5)[1.0],
        TE,
        r"Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis \(`None`\) and scalar tf.int32/tf.int64 tensors are valid indices, got 1.0",
    ),
    (
        lambda tf: tf.constant(x5)[tf.constant([1, 2])],
        TE,
        r"Only integers, slices .* are valid indices, got",
    ),
    (
        lambda tf: tf.constant(x5)[[1, 2]],
        IAE,
        r"Index out of range using input dim 1; input has only 1 dims",
    ),
    (lambda tf: tf.constant(x5)[True], VE, r"mask cannot be scalar."),
    (lambda tf: tf.constant(x5)[..., ...], IAE, r"Multiple ellipses in slice spec not allowed"),
    # gather, gather_nd
    (
        lambda tf: tf.gather(tf.constant([[1, 2], [3, 4]]), [[0], [3]], axis=1, batch_dims=1),
        IAE,
        r"indices\[1,0\] = 3 is not in \[0, 2\)",
    ),
    (
        lambda tf: tf.gather_nd(tf.constant(m22), [[0, 2]]),
        IAE,
        r"indices\[0\] = \[0, 2\] does not index into param shape \[2,2\]",
    ),
    (
        lambda tf: tf.gather_nd(tf.constant(m22), [[-1, 0]]),
        IAE,
        r"indices\[0\] = \[-1, 0\] does not index into param shape \[2,2\]",
    ),
    (
        lambda tf: tf.gather_nd(tf.constant(m22), [[[0, 0], [0, 5]]]),
        IAE,
        r"indices\[0,1\] = \[0, 5\] does not index into param shape \[2,2\]",
    ),
    (
        lambda tf: tf.gather_nd(tf.constant(m22), [[0, 0, 0]]),
        IAE,
        r"index innermost dimension length must be <= params rank; saw: 3 vs. 2",
    ),
    (
        lambda tf: tf.gather_nd(tf.constant(m22), [[0.0, 0]]),
        IAE,
        r"Value for attr 'Tindices' of float is not in the list of allowed values: int16, int32, int64",
    ),
    (
        lambda tf: tf.gather_nd(tf.constant(m22), [[0], [1]], batch_dims=3),
        VE,
        r"Argument `batch_dims` = 3 must be less than rank\(`indices`\) = 2",
    ),
    (lambda tf: tf.gather_nd(tf.constant(m22), 1), IAE, r"indices must be at least a vector"),
    # scatters
    (
        lambda tf: tf.scatter_nd([[1], [3]], [1.0, 2.0], [3]),
        IAE,
        r"indices\[1\] = \[3\] does not index into shape \[3\]",
    ),
    (
        lambda tf: tf.scatter_nd([[-1]], [1.0], [3]),
        IAE,
        r"indices\[0\] = \[-1\] does not index into shape \[3\]",
    ),
    (
        lambda tf: tf.scatter_nd([[1], [2]], [1.0, 2.0, 3], [3]),
        IAE,
        r"Dimensions \[0,1\) of indices\[shape=\[2,1\]\] must match dimensions \[0,1\) of updates\[shape=\[3\]\]",
    ),
    (
        lambda tf: tf.scatter_nd([[1, 0]], [1.0], [3]),
        IAE,
        r"Dimensions \[2,1\) of input\[shape=\[3\]\] must match dimensions \[1,1\) of updates\[shape=\[1\]\]",
    ),
    (lambda tf: tf.scatter_nd([[1]], [1.0], [-3]), IAE, r"Dimension -3 must be >= 0"),
    (
        lambda tf: tf.scatter_nd([[1.0]], [1.0], [3]),
        IAE,
        r"Value for attr 'Tindices' of float is not in the list of allowed values: int16, int32, int64",
    ),
    (
        lambda tf: tf.tensor_scatter_nd_update(tf.zeros([3]), [[1], [5]], [1.0, 2.0]),
        IAE,
        r"indices\[1\] = \[5\] does not index into shape \[3\]",
    ),
    (
        lambda tf: tf.tensor_scatter_nd_add(tf.zeros([3]), [[1], [5]], [1.0, 2.0]),
        IAE,
        r"indices\[1\] = \[5\] does not index into shape \[3\]",
    ),
    (
        lambda tf: tf.tensor_scatter_nd_min(tf.zeros([3]), [[-1]], [1.0]),
        IAE,
        r"indices\[0\] = \[-1\] does not index into shape \[3\]",
    ),
    (
        lambda tf: tf.tensor_scatter_nd_update(tf.zeros([3]), [[1]], tf.constant([1])),
        IAE,
        r"cannot compute TensorScatterUpdate as input #2\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.tensor_scatter_nd_update(tf.zeros([3]), [[1], [2]], [1.0]),
        IAE,
        r"Outer dimensions of indices and update must match. Indices shape: \[2,1\], updates shape:\[1\]",
    ),
    (
        lambda tf: tf.tensor_scatter_nd_update(tf.constant(1.0), [[0]], [1.0]),
        IAE,
        r"Inner dimensions of output shape must match inner dimensions of updates shape. Output: \[\] updates: \[1\]",
    ),
    (
        lambda tf: tf.tensor_scatter_nd_max(tf.constant([True, False]), [[1]], [True]),
        "NotFoundError",
        r"Could not find device for node: \{\{node TensorScatterMax\}\}",
    ),
    # TF's wrapper and kernel checks found by probing
    (
        lambda tf: tf.gather(tf.constant(m22), [[0], [1]], axis=1, batch_dims=3),
        IAE,
        r"Expected batch_dims in the range \[-2, 2\], but got 3",
    ),
    (
        lambda tf: tf.gather(tf.constant(m22), [[0], [1], [0]], axis=1, batch_dims=1),
        IAE,
        r"params.shape\[0\]: 2 should be equal to indices.shape\[0\]: 3",
    ),
    (
        lambda tf: tf.gather(
            tf.zeros([2, 3, 4]), tf.zeros([2, 3, 1], tf.int32), axis=1, batch_dims=2
        ),
        IAE,
        r"batch_dims \(2\) must be less than or equal to axis \(1\).",
    ),
    (
        lambda tf: tf.gather(tf.constant(m22), tf.constant([0], tf.int8)),
        IAE,
        r"Value for attr 'Tindices' of int8 is not in the list of allowed values: int16, int32, int64",
    ),
    (lambda tf: tf.gather(tf.constant(1.0), [0]), IAE, r"params must be at least 1 dimensional"),
    (
        lambda tf: tf.pad(tf.constant(m22), [[-1, 0], [0, 0]], "SYMMETRIC"),
        IAE,
        r"paddings must be non-negative: -1 0",
    ),
    (
        lambda tf: tf.split(tf.constant(m22), [1.0, 1.0], axis=-1),
        IAE,
        r"Value for attr 'Tlen' of float is not in the list of allowed values: int8, int32, int64",
    ),
    (
        lambda tf: tf.sort(tf.constant(m22), axis=[0]),
        VE,
        r"Argument `axis` must be a constant scalar. Received: axis=\[0\].",
    ),
    (
        lambda tf: tf.boolean_mask(tf.constant(m22), [True, False], axis=-1),
        VE,
        r"Shapes \(\) and \(2,\) are incompatible",
    ),
    (
        lambda tf: tf.tensor_scatter_nd_update(
            tf.zeros([2]), tf.zeros([1, 0], tf.int32), [[5.0, 6.0]]
        ),
        IAE,
        r"Indices and updates specified for empty output shape",
    ),
    (
        lambda tf: tf.scatter_nd(tf.zeros([0, 0], tf.int32), tf.zeros([0, 2]), [2]),
        IAE,
        r"Only indices.shape\[-1\] values between 1 and 5 are currently supported.  Requested rank: 0",
    ),
    (
        lambda tf: tf.scatter_nd([[0]], [1.0], [0]),
        IAE,
        r"Indices and updates specified for empty output.  indices shape: \[1,1\]",
    ),
    # boolean_mask
    (
        lambda tf: tf.boolean_mask(tf.constant(m22), [True, False, True]),
        VE,
        r"Shapes \(2,\) and \(3,\) are incompatible",
    ),
    (lambda tf: tf.boolean_mask(tf.constant(m22), True), VE, r"mask cannot be scalar."),
    (
        lambda tf: tf.boolean_mask(tf.constant(m22), [[[True]]]),
        VE,
        r"Shapes \(2, 2\) and \(1, 1, 1\) are incompatible",
    ),
    # broadcasting
    (lambda tf: tf.broadcast_to([1, 2], [3, 3]), IAE, r"Incompatible shapes: \[2\] vs. \[3,3\]"),
    (lambda tf: tf.broadcast_to([1, 2], [-1, 2]), IAE, r"Dimension -1 must be >= 0"),
    (
        lambda tf: tf.broadcast_to([[1, 2]], [2]),
        IAE,
        r"Rank of input \(2\) must be no greater than rank of output shape \(1\).",
    ),
    (
        lambda tf: tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3])),
        VE,
        r"Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension pair they are either equal or one of them is 1. Received: \(2,\) and \(3,\).",
    ),
    (lambda tf: tf.broadcast_dynamic_shape([2], [3]), IAE, r"Incompatible shapes: \[2\] vs. \[3\]"),
    (
        lambda tf: tf.broadcast_dynamic_shape([2.0, 1], [3.0]),
        IAE,
        r"Value for attr 'T' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.broadcast_dynamic_shape([[2, 1]], [3]),
        IAE,
        r"In\[0\] must be a vector.\[1,2\]",
    ),
    # bitcast
    (
        lambda tf: tf.bitcast(tf.constant([1, 2, 3], tf.int16), tf.float32),
        IAE,
        r"Cannot bitcast from 5 to 1",
    ),
    (
        lambda tf: tf.bitcast(tf.constant(1, tf.int16), tf.float32),
        IAE,
        r"Cannot bitcast from 5 to 1",
    ),
    (
        lambda tf: tf.bitcast(tf.constant([True]), tf.uint8),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, double, int64, int32, uint8",
    ),
    # sorting, unique
    (
        lambda tf: tf.sort(tf.constant([3.0, 1.0]), direction="foo"),
        VE,
        r"Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction=foo",
    ),
    (
        lambda tf: tf.argsort(tf.constant([3.0, 1.0]), direction="descending"),
        VE,
        r"Received: direction=descending",
    ),
    (
        lambda tf: tf.sort(tf.constant([3.0, 1.0]), axis=1),
        IAE,
        r"slice index 1 of dimension 0 out of bounds.",
    ),
    (lambda tf: tf.sort(tf.constant(1.0)), IAE, r"slice index -1 of dimension 0 out of bounds."),
    (
        lambda tf: tf.sort(tf.constant([True])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128",
    ),
    (lambda tf: tf.unique(tf.constant([[3, 1]])), IAE, r"unique expects a 1D vector."),
    (
        lambda tf: tf.unique(tf.constant([3, 1]), out_idx=tf.float32),
        IAE,
        r"Value for attr 'out_idx' of float is not in the list of allowed values: int32, int64",
    ),
    (lambda tf: tf.unique_with_counts(tf.constant([[3, 1]])), IAE, r"unique expects a 1D vector."),
    # reverse, roll, repeat
    (
        lambda tf: tf.reverse(tf.constant([[1, 2], [3, 4]]), [2]),
        IAE,
        r"'axis'\[0\] = 2 is out of valid range \[0, 1",
    ),
    (
        lambda tf: tf.reverse(tf.constant([[1, 2], [3, 4]]), [0, -2]),
        IAE,
        r"axis 0 specified more than once.",
    ),
    (
        lambda tf: tf.reverse(tf.constant([[1, 2], [3, 4]]), 1),
        IAE,
        r"'dims' must be 1-dimension, not 0",
    ),
    (
        lambda tf: tf.reverse(tf.constant([[1, 2], [3, 4]]), [1.0]),
        IAE,
        r"Value for attr 'Tidx' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.reverse(tf.zeros([1] * 9), [1]),
        "UnimplementedError",
        r"reverse is not implemented for tensors of rank > 8.",
    ),
    (
        lambda tf: tf.roll(tf.constant([[1, 2, 3, 4]]), [1, 2], [1]),
        IAE,
        r"shift and axis must have the same size",
    ),
    (lambda tf: tf.roll(tf.constant([[1, 2, 3, 4]]), 1, 2), IAE, r"axis 2 is out of range"),
    (
        lambda tf: tf.roll(tf.constant([[1, 2, 3, 4]]), [[1]], [1]),
        IAE,
        r"shift must be a scalar or a 1-D vector. Found: \[1,1\]",
    ),
    (lambda tf: tf.roll(tf.constant(1), 1, 0), IAE, r"input must be 1-D or higher"),
    (
        lambda tf: tf.repeat([[1, 2], [3, 4]], [1, 3, 1], axis=1),
        VE,
        r"Dimensions 2 and 3 are not compatible",
    ),
    (
        lambda tf: tf.repeat([[1, 2], [3, 4]], -1, axis=1),
        IAE,
        r"Expected multiples\[2\] >= 0, but got -1",
    ),
    (
        lambda tf: tf.repeat([[1, 2], [3, 4]], [[1, 2]], axis=1),
        VE,
        r"Shape \(1, 2\) must have rank at most 1",
    ),
    (
        lambda tf: tf.repeat([[1, 2], [3, 4]], 2, axis=2),
        VE,
        r"axis=2 out of bounds: expected -2<=axis<2",
    ),
    (
        lambda tf: tf.repeat([1, 2], 2.0),
        TE,
        r"Argument `tensor` \(name: repeats\) must be of type integer. Received `tensor` = 2.0",
    ),
    # searchsorted, sequence_mask, ensure_shape, meshgrid, clipping
    (
        lambda tf: tf.searchsorted([1.0, 2, 3], [2.5], side="foo"),
        VE,
        r"Argument `side` must be either 'right' or 'left'. Received: `side` = 'foo'.",
    ),
    (
        lambda tf: tf.searchsorted([[1.0, 2, 3]], [[2.5], [1.0]]),
        IAE,
        r"Leading dim_size of both tensors must match.",
    ),
    (
        lambda tf: tf.searchsorted([1.0, 2, 3], [2.5], out_type=tf.float32),
        IAE,
        r"Value for attr 'out_type' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.searchsorted([1.0, 2, 3], [2]),
        IAE,
        r"cannot compute LowerBound as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.searchsorted([1.0, 2, 3], 2.5),
        IAE,
        r"slice index -1 of dimension 0 out of bounds.",
    ),
    (
        lambda tf: tf.sequence_mask([1, 3], [4]),
        VE,
        r"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = ",
    ),
    (lambda tf: tf.sequence_mask([1, 3], -2), IAE, r"Requires start <= limit when delta > 0: 0/-2"),
    (
        lambda tf: tf.ensure_shape(tf.constant([1, 2, 3]), [2]),
        IAE,
        r"Shape of tensor input \[3\] is not compatible with expected shape \[2\].",
    ),
    (
        lambda tf: tf.ensure_shape(tf.constant([1, 2, 3]), [3, 1]),
        IAE,
        r"Shape of tensor input \[3\] is not compatible with expected shape \[3,1\].",
    ),
    (
        lambda tf: tf.ensure_shape(tf.constant([[1, 2, 3]]), [None, 2]),
        IAE,
        r"Shape of tensor input \[1,3\] is not compatible with expected shape \[\?,2\].",
    ),
    (lambda tf: tf.ensure_shape(tf.constant([1, 2, 3]), [-1]), VE, r"Dimension -1 must be >= 0"),
    (
        lambda tf: tf.meshgrid([1, 2], [3, 4, 5], indexing="foo"),
        VE,
        r"Argument `indexing` parameter must be either 'xy' or 'ij', got 'foo'",
    ),
    (
        lambda tf: tf.meshgrid([1, 2], [3, 4, 5], foo=1),
        TE,
        r"'foo' is an invalid keyword argument for this function",
    ),
    (
        lambda tf: tf.meshgrid([1, 2], [3.0, 4, 5]),
        IAE,
        r"cannot compute Mul as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.clip_by_norm([3, 4], 1),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double, complex64, complex128",
    ),
    (
        lambda tf: tf.clip_by_global_norm(tf.constant([3.0, 4.0]), 1.0),
        TE,
        r"`t_list` should be a sequence of tensors. Received",
    ),
    (
        lambda tf: tf.clip_by_global_norm(
            [tf.constant([3.0]), tf.constant([1.0], tf.float16)], 1.0
        ),
        IAE,
        r"cannot compute Pack as input #1\(zero-based\) was expected to be a float tensor but is a half tensor",
    ),
]


ERRORS += [
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 4], seq_axis=1, batch_axis=0),
        IAE,
        r"seq_lens\(1\) > input.dims\(1\) \[Op:ReverseSequence\]",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, -1], seq_axis=1),
        IAE,
        r"seq_lens\(1\) < 0 \[Op:ReverseSequence\]",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2], seq_axis=1),
        IAE,
        r"Length of seq_lengths != input.dims\(0\), \(1 vs. 2\) \[Op:ReverseSequence\]",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1, batch_axis=1),
        IAE,
        r"batch_dim == seq_dim == 1 \[Op:ReverseSequence\]",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=2),
        IAE,
        r"seq_dim must be < input rank \( 2 vs. 2\) \[Op:ReverseSequence\]",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2.0, 3.0], seq_axis=1),
        IAE,
        r"Value for attr 'Tlen' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [0, 1], seq_axis=-1),
        IAE,
        r"Invalid seq_dim -1 \[Op:ReverseSequence\]",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [0, 1], seq_axis=1, batch_axis=-2),
        IAE,
        r"Invalid batch_dim -2 \[Op:ReverseSequence\]",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [[2, 3]], seq_axis=1),
        IAE,
        r"seq_lengths must be 1-dim, not 2 \[Op:ReverseSequence\]",
    ),
    (
        lambda tf: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3]),
        "TypeError",
        r"Expected int for argument 'seq_dim' not None.",
    ),
]


# Range has no CPU kernel for int8, int16, uint16, uint32 or uint64: sequence_mask's range
# takes maxlen's dtype (the lengths' without one); its default maxlen is the lengths' Max.
_ORDERED = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
ERRORS += [
    *(
        no_kernel_case(
            lambda tf, dt=dt: tf.sequence_mask(tf.constant([1, 2], dt)),
            f"Range[Tidx=DT_{dt.upper()}]",
        )
        for dt in ("int8", "int16", "uint16")
    ),
    no_kernel_case(
        lambda tf: tf.sequence_mask([1, 2], tf.constant(3, tf.int8)), "Range[Tidx=DT_INT8]"
    ),
    no_kernel_case(lambda tf: tf.range(3, dtype=tf.uint16), "Range[Tidx=DT_UINT16]"),
    no_kernel_case(lambda tf: tf.range(3, dtype=tf.int8), "Range[Tidx=DT_INT8]"),
    *(
        (
            lambda tf, v=v: tf.sequence_mask(tf.constant(v)),
            IAE,
            rf"Value for attr 'T' of {name} is not in the list of allowed values: {_ORDERED}",
        )
        for v, name in (([True, False], "bool"), (np.array([1j, 2], np.complex64), "complex64"))
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


def test_multiplying_bool_tensors_as_tfs():
    """TF's ``*`` with a bool tensor operand multiplies in int32 and casts back to bool
    (``tf.multiply`` refuses bool); ``tf.meshgrid`` of bool vectors relies on it."""
    for fw in (tapejax, tensorflow):
        b = fw.constant([True, False, True])
        got = [
            b * b,
            b * 2.5,
            True * b,
            fw.constant([0, 1, 2]) * b,
            b * fw.constant([1.0, 1.0, 0.0]),
            *fw.meshgrid(b, fw.constant([False, True])),
            *fw.meshgrid(b, fw.constant([1, 0]), indexing="ij"),
        ]
        if fw is tapejax:
            mine = got
    for m, t in zip(mine, got):
        assert m.dtype.name == t.dtype.name == "bool"
        np.testing.assert_array_equal(m.numpy(), t.numpy())
    # A reflected operator converts the left operand to the tensor's dtype first.
    check_error(
        lambda tf: 3 * tf.constant([True]), TE, r"Cannot convert 3 to EagerTensor of dtype bool"
    )


def test_reverse_sequence_with_traced_lengths_checks_them_when_it_runs():
    f = tapejax.function(lambda x, n: tapejax.reverse_sequence(x, n, seq_axis=1))
    x = tapejax.constant([[1, 2, 3], [4, 5, 6]])
    for _ in range(2):  # the eager first call, then the traced one
        np.testing.assert_array_equal(
            f(x, tapejax.constant([2, 3])).numpy(), [[2, 1, 3], [6, 5, 4]]
        )
    with pytest.raises(
        tapejax.errors.InvalidArgumentError, match=r"seq_lens\(0\) > input.dims\(1\)"
    ):
        f(x, tapejax.constant([4, 3]))


def _many_ops(tf, x, i):
    """Array ops whose shapes do not depend on values: all must trace inside a function."""
    parts = tf.split(x, [1, -1], axis=1)
    return [
        parts[1],
        tf.pad(x, [[1, 0], [0, 2]], "REFLECT"),
        tf.slice(x, [1, 0], [2, -1]),
        tf.strided_slice(x, [0, 2], [3, 0], [2, -1]),
        tf.gather_nd(x, tf.stack([i, i], axis=-1)[None]),
        tf.tensor_scatter_nd_add(x, i[None, None], x[:1] * 2.0),
        tf.scatter_nd(i[None, None], x[:1], [3, 3]),
        tf.sort(x, direction="DESCENDING"),
        tf.argsort(x, axis=0),
        tf.reverse(x, [0]),
        tf.roll(x, 1, 1),
        tf.repeat(x, [1, 0, 2], axis=0),
        tf.broadcast_to(x[:1], [2, 3, 3]),
        tf.searchsorted(tf.sort(x), x),
        tf.clip_by_norm(x, 1.0, axes=[1]),
        tf.ensure_shape(x, [3, None]),
        tf.bitcast(x, tf.int32),
        tf.sequence_mask(i[None], 4),
        x[i, ::-1],
        x[..., None, 1],
    ]


def test_array_ops_trace_inside_function_with_eager_values():
    x = tapejax.constant(arr("float32", (3, 3), seed=9))
    i = tapejax.constant(1)
    f = tapejax.function(lambda x, i: _many_ops(tapejax, x, i))
    f(x, i)  # the first call runs eagerly
    for got, want in zip(
        f(x, i),
        _many_ops(tensorflow, tensorflow.constant(x.numpy()), tensorflow.constant(1)),
        strict=True,
    ):
        np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-6)


def test_pad_of_a_complex_then_a_real_tensor_shares_no_broken_program():
    # The default constant is 0j for a complex tensor and 0.0 for a real one; the two are
    # equal as static arguments, so the second call finds the first one's compiled pad.
    c = tapejax.constant([1 + 2j, 3j], dtype=tapejax.complex64)
    r = tapejax.constant([1.0, 2.0])
    for tf in (tensorflow, tapejax):
        np.testing.assert_array_equal(
            tf.pad(tf.constant(c.numpy()), [[1, 1]]).numpy(), [0, 1 + 2j, 3j, 0]
        )
    np.testing.assert_array_equal(tapejax.pad(c, [[1, 1]]).numpy(), [0, 1 + 2j, 3j, 0])
    out = tapejax.pad(r, [[1, 1]])
    assert out.dtype == tapejax.float32
    np.testing.assert_array_equal(out.numpy(), [0.0, 1.0, 2.0, 0.0])


def test_range_errors_print_float32_bounds_as_tf():
    texts = []
    for tf in (tensorflow, tapejax):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            tf.range(np.float32(0.5), np.float32(-0.4))
        texts.append(str(info.value).split("}} ")[-1].split(" [Op:")[0])
    assert texts[0] == texts[1] == "Requires start <= limit when delta > 0: 0.5/-0.4"
