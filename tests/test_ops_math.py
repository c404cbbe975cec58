# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Unit tests for ``tapejax.math``'s ops beyond ``tests/test_ops.py``: trigonometric and
special functions, NaN-safe arithmetic, cumulative ops, moments and norms, ``top_k``,
segment reductions and ``bincount``, run side by side with real TensorFlow.

Each op has Cases (values, dtypes and shapes vs TF; Variables; tape gradients vs TF;
``check_grads`` of the pure function), edge values where TF's gradient is not JAX's
(``EDGE_GRADIENTS``), and TF's errors (``ERRORS``).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapejax
import tapejax.math

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    FI,
    Case,
    F,
    I,
    arr,
    binary,
    case_id,
    check_accepts_variables,
    check_dtype_acceptance,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_values,
    first_of_each_op,
    fixed,
    grad_cases,
    grad_of,
    no_kernel_case,
    pure_grad_cases,
    reduction,
    unary,
    value_params,
)

F16 = ("float32", "float16")
SEG_IDS = np.array([0, 0, 1, 3, 3, 3], np.int32)  # sorted, segment 2 empty
UNSORTED_IDS = np.array([3, 0, -1, 3, 0, 1], np.int32)  # -1 dropped; 2 and 4 empty


def _segment(name, dtypes=FI, diff=True):
    return Case(
        f"math.{name}",
        lambda dt, shape: ((arr(dt, (6,) + shape[1:], seed=2), SEG_IDS), {}),
        dtypes=dtypes,
        shapes=((6,), (6, 2)),
        diff=(0,) if diff else (),
    )


def _unsorted(name, dtypes=FI, diff=True, **kw):
    return Case(
        f"math.{name}",
        lambda dt, shape: ((arr(dt, (6,) + shape[1:], seed=2), UNSORTED_IDS, 5), {}),
        dtypes=dtypes,
        shapes=((6,), (6, 2)),
        diff=(0,) if diff else (),
        **kw,
    )


def _unsorted_2d_ids(name, dtypes=F, **kw):
    ids = np.array([[1, 0, 1], [2, 2, 0]], np.int32)
    return Case(
        f"math.{name}",
        lambda dt, shape: ((arr(dt, (2, 3, 2), seed=5), ids, 4), {}),
        dtypes=dtypes,
        shapes=((0,),),
        diff=(0,),
        **kw,
    )


def _scan(name, dtypes=FI, **kw):
    """A cumulative op at each of its flag combinations, along each axis."""
    flags = [
        {},
        {"exclusive": True},
        {"reverse": True},
        {"exclusive": True, "reverse": True, "axis": -1},
    ]
    return [
        Case(
            f"math.{name}",
            lambda dt, shape, f=f: (
                (
                    arr(dt, shape, 0.5, 1.5, seed=6)
                    if name == "cumprod"
                    else arr(dt, shape, seed=6),
                ),
                dict(f, axis=f.get("axis", len(shape) - 1)),
            ),
            dtypes=dtypes,
            shapes=((4,), (2, 3)),
            diff=(0,),
            **kw,
        )
        for f in flags
    ]


CASES = [
    # -- trigonometric and hyperbolic functions and their inverses
    unary("math.asin", lo=-0.9, hi=0.9, away=0.0),
    unary("math.acos", lo=-0.9, hi=0.9, away=0.0),
    unary("math.atan", dtypes=F16, rtol=1e-3),
    unary("math.sinh"),
    unary("math.cosh"),
    unary("math.asinh"),
    unary("math.acosh", lo=1.1, hi=4.0, away=0.0),
    unary("math.atanh", lo=-0.9, hi=0.9, away=0.0),
    Case(
        "math.asinh",
        lambda dt, shape: ((arr("float32", shape) + 1j * arr("float32", shape, seed=1),), {}),
        dtypes=("complex64",),
    ),
    unary("asin", lo=-0.9, hi=0.9, away=0.0),  # tf.asin is tf.math.asin
    # -- special functions
    unary("math.erf"),
    unary("math.erfc"),
    unary("math.erfinv", lo=-0.9, hi=0.9, away=0.0, rtol=1e-4),
    unary("math.erfcinv", lo=0.1, hi=1.9, away=0.0, rtol=1e-4),
    unary("math.ndtri", lo=0.05, hi=0.95, away=0.0, rtol=1e-4),
    unary("math.lgamma", lo=0.2, hi=5.0, away=0.0, rtol=1e-4),
    unary("math.lgamma", lo=-2.7, hi=-2.3, away=0.0, rtol=1e-4),
    unary("math.digamma", lo=0.3, hi=5.0, away=0.0, rtol=1e-4),
    unary("math.log_sigmoid", lo=-30.0, hi=30.0),
    unary("math.rint", diff=False, lo=-3.0, hi=3.0),
    fixed("math.rint", lambda dt: (np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], dt),)),
    fixed(
        "math.lgamma",
        lambda dt: (np.array([0.0, -1.0, -2.0, 1.0, 2.0, -0.5, np.inf, np.nan], dt),),
    ),
    fixed("math.digamma", lambda dt: (np.array([0.0, -1.0, 1.0, -0.5, np.nan], dt),)),
    fixed("math.erfinv", lambda dt: (np.array([-1.0, 1.0, 0.0, 2.0], dt),)),
    unary("math.bessel_i0", rtol=1e-5),
    unary("math.bessel_i0e"),
    unary("math.bessel_i1"),
    unary("math.bessel_i1e"),
    Case(
        "math.igamma",
        lambda dt, shape: ((arr(dt, shape, 0.5, 3.0), arr(dt, shape, 0.2, 3.0, seed=1)), {}),
        diff=(1,),
        rtol=1e-4,
    ),
    Case(
        "math.igammac",
        lambda dt, shape: ((arr(dt, shape, 0.5, 3.0), arr(dt, shape, 0.2, 3.0, seed=1)), {}),
        diff=(1,),
        rtol=1e-4,
    ),
    binary("math.igamma", lo=0.5, hi=3.0, ylo=0.2, yhi=3.0, away=0.0, rtol=1e-4),
    binary("math.igammac", lo=0.5, hi=3.0, ylo=0.2, yhi=3.0, away=0.0, rtol=1e-4),
    Case(
        "math.polygamma",
        lambda dt, shape: (
            (np.array([0.0, 1.0, 2.0], dt)[: shape[-1]], arr(dt, shape, 0.5, 3.0)),
            {},
        ),
        diff=(1,),
        rtol=1e-4,
    ),
    Case(
        "math.zeta",
        lambda dt, shape: ((arr(dt, shape, 1.5, 4.0), arr(dt, shape[-1:], 0.5, 3.0, seed=1)), {}),
        diff=(1,),
        rtol=1e-4,
    ),
    Case(
        "math.betainc",
        lambda dt, shape: (
            (
                arr(dt, shape, 0.5, 3.0),
                arr(dt, shape, 0.5, 3.0, seed=1),
                arr(dt, shape, 0.1, 0.9, seed=2),
            ),
            {},
        ),
        diff=(2,),
        rtol=1e-4,
    ),
    Case(
        "math.betainc",
        lambda dt, shape: ((np.array(2.0, dt), arr(dt, shape, 0.5, 3.0, seed=1), 0.5), {}),
        rtol=1e-4,
    ),
    Case("math.lbeta", lambda dt, shape: ((arr(dt, shape, 0.5, 3.0),), {}), diff=(0,), rtol=1e-5),
    fixed("math.lbeta", lambda dt: (np.zeros((2, 0), dt),)),
    binary("math.nextafter"),
    fixed(
        "math.nextafter",
        lambda dt: (np.array([1.0, 0.0, 2.0, np.nan], dt), np.array([2.0, -1.0, 2.0, 0.0], dt)),
    ),
    unary("math.angle", dtypes=F, diff=False),
    Case(
        "math.angle",
        lambda dt, shape: ((arr("float32", shape) + 1j * arr("float32", shape, seed=1),), {}),
        dtypes=("complex64",),
    ),
    Case(
        "math.is_non_decreasing",
        lambda dt, shape: ((np.sort(arr(dt, shape, -3, 3).reshape(-1)).reshape(shape),), {}),
        dtypes=FI,
    ),
    Case("math.is_non_decreasing", lambda dt, shape: ((arr(dt, shape, -3, 3),), {}), dtypes=FI),
    Case(
        "math.is_non_decreasing",
        lambda dt, shape: ((np.sort(arr(dt, shape, -3, 3).reshape(-1)).reshape(shape),), {}),
        dtypes=("bfloat16", "float16", "uint16"),
    ),
    Case(
        "math.is_strictly_increasing",
        lambda dt, shape: ((np.sort(arr(dt, shape, -3, 3).reshape(-1)).reshape(shape),), {}),
        dtypes=("bfloat16",),
    ),
    Case(
        "math.is_strictly_increasing",
        lambda dt, shape: ((np.arange(np.prod(shape)).reshape(shape).astype(dt),), {}),
        dtypes=FI,
    ),
    Case(
        "math.is_strictly_increasing", lambda dt, shape: ((np.array([1, 2, 2], dt),), {}), dtypes=FI
    ),
    fixed("math.is_strictly_increasing", lambda dt: (np.array([5], dt),)),
    Case(
        "math.invert_permutation",
        lambda dt, shape: (
            (np.random.default_rng(shape[-1]).permutation(shape[-1] * 2).astype(dt),),
            {},
        ),
        dtypes=I,
    ),
    # -- NaN-safe arithmetic (TF's gradients at 0 are in EDGE_GRADIENTS)
    binary("math.xlogy", ylo=0.2, yhi=3.0, away=0.3, rtol=1e-5),
    binary("math.xdivy"),
    binary("math.xlog1py", ylo=-0.5, yhi=3.0, away=0.3),
    binary("math.divide_no_nan", dtypes=FI, x64=True, ylo=1, yhi=3),
    binary("math.multiply_no_nan"),
    unary("math.reciprocal_no_nan"),
    fixed(
        "math.xlogy",
        lambda dt: (
            np.array([0.0, 0.0, 0.0, 1.0, 2.0], dt),
            np.array([0.0, np.nan, 2.0, 0.0, -1.0], dt),
        ),
    ),
    fixed(
        "math.xdivy",
        lambda dt: (np.array([0.0, 0.0, 1.0, -1.0], dt), np.array([0.0, np.nan, 0.0, 2.0], dt)),
    ),
    fixed(
        "math.xlog1py",
        lambda dt: (np.array([0.0, 0.0, 1.0, 2.0], dt), np.array([-1.0, np.nan, -1.0, 3.0], dt)),
    ),
    fixed(
        "math.divide_no_nan",
        lambda dt: (
            np.array([1.0, np.nan, np.inf, 0.0, 3.0], dt),
            np.array([0.0, 0.0, 0.0, 0.0, 2.0], dt),
        ),
    ),
    fixed(
        "math.divide_no_nan",
        lambda dt: (np.array([1, 7, -7], dt), np.array([0, 2, 2], dt)),
        dtypes=("int8",),
    ),
    fixed(
        "math.multiply_no_nan",
        lambda dt: (
            np.array([np.nan, np.inf, 2.0, np.nan], dt),
            np.array([0.0, 0.0, 3.0, 1.0], dt),
        ),
    ),
    fixed("math.reciprocal_no_nan", lambda dt: (np.array([0.0, 2.0, -4.0], dt),)),
    # -- truncating division
    binary("truncatediv", dtypes=FI, diff=False, lo=-7, hi=7, ylo=1, yhi=3),
    binary("truncatemod", dtypes=FI, diff=False, lo=-7, hi=7, ylo=1, yhi=3),
    fixed(
        "truncatediv",
        lambda dt: (np.array([7, -7, 7, -7], dt), np.array([2, 2, -2, -2], dt)),
        dtypes=I,
    ),
    fixed(
        "truncatemod",
        lambda dt: (np.array([7, -7, 7, -7], dt), np.array([2, 2, -2, -2], dt)),
        dtypes=I,
    ),
    fixed(
        "math.mod",
        lambda dt: (np.array([7, -7, 7, -7], dt), np.array([2, 2, -2, -2], dt)),
        dtypes=I,
    ),
    # -- composites
    Case(
        "math.scalar_mul", lambda dt, shape: ((np.array(2.5, dt), arr(dt, shape)), {}), diff=(0, 1)
    ),
    Case("math.scalar_mul", lambda dt, shape: ((3, arr(dt, shape)), {}), dtypes=FI, diff=()),
    Case(
        "math.polyval",
        lambda dt, shape: (
            (
                [arr(dt, shape, seed=1), np.array(2, dt), arr(dt, shape[-1:], seed=2)],
                arr(dt, shape),
            ),
            {},
        ),
        dtypes=FI,
        diff=(1,),
    ),
    fixed("math.polyval", lambda dt: ([], np.array([1.0, 2.0], dt))),
    Case(
        "math.accumulate_n",
        lambda dt, shape: (([arr(dt, shape), arr(dt, shape, seed=2), arr(dt, shape, seed=5)],), {}),
        dtypes=FI,
    ),
    # -- moments and norms
    reduction("math.reduce_variance", dtypes=F),
    reduction("math.reduce_std", dtypes=F),
    reduction("math.reduce_euclidean_norm"),
    Case(
        "math.reduce_variance",
        lambda dt, shape: (
            (arr("float32", shape) + 1j * arr("float32", shape, seed=1),),
            {"axis": 0},
        ),
        dtypes=("complex64",),
    ),
    Case(
        "math.reduce_std",
        lambda dt, shape: ((arr(dt, (2,) + shape, seed=3),), {"axis": [0, -1]}),
        dtypes=F,
        diff=(0,),
    ),
    Case(
        "math.reduce_euclidean_norm",
        lambda dt, shape: ((arr(dt, (2,) + shape, seed=3),), {"axis": [0, -1], "keepdims": True}),
        dtypes=F,
        diff=(0,),
    ),
    Case("math.l2_normalize", lambda dt, shape: ((arr(dt, shape),), {"axis": -1}), diff=(0,)),
    Case("math.l2_normalize", lambda dt, shape: ((arr(dt, shape),), {}), diff=(0,)),
    Case(
        "math.l2_normalize",
        lambda dt, shape: ((arr(dt, shape),), {"dim": 0, "epsilon": 10.0}),
        diff=(0,),
    ),
    fixed("math.l2_normalize", lambda dt: (np.zeros((2, 3), dt),), {"axis": 1}),
    Case(
        "math.l2_normalize",
        lambda dt, shape: ((arr(dt, shape),), {"axis": -1}),
        dtypes=("bfloat16", "float16"),
        rtol=1e-2,
        atol=1e-2,
    ),
    Case(
        "math.count_nonzero",
        lambda dt, shape: ((arr(dt, shape, 0, 2, seed=4),), {}),
        dtypes=("float32", "int32", "bool"),
        x64=True,
    ),
    Case(
        "math.count_nonzero",
        lambda dt, shape: (
            (arr(dt, shape, 0, 2, seed=4),),
            {"axis": -1, "keepdims": True, "dtype": "int32"},
        ),
        dtypes=FI,
    ),
    Case(
        "math.zero_fraction",
        lambda dt, shape: ((arr(dt, shape, 0, 2, seed=4),), {}),
        dtypes=("float32", "int32", "bool"),
    ),
    # -- cumulative ops
    *_scan("cumsum"),
    *_scan("cumprod"),
    *_scan("cumulative_logsumexp", dtypes=F, rtol=1e-5),
    Case("cumsum", lambda dt, shape: ((arr(dt, shape),), {}), dtypes=FI, diff=(0,)),
    fixed("math.cumsum", lambda dt: (np.zeros((0, 2), dt),), {"axis": 0}),
    fixed(
        "math.cumprod", lambda dt: (np.array([2.0, 0.0, 3.0, 0.0, 4.0], dt),), {"exclusive": True}
    ),
    fixed(
        "math.cumprod",
        lambda dt: (np.zeros((0, 3), dt),),
        {"axis": 0, "exclusive": True, "reverse": True},
    ),
    # -- top_k and in_top_k
    Case(
        "math.top_k",
        lambda dt, shape: ((arr(dt, shape, -9, 9, seed=7),), {"k": 2}),
        dtypes=("float32", "int32", "uint8"),
        diff=(0,),
    ),
    Case("math.top_k", lambda dt, shape: ((arr(dt, shape, seed=7),), {}), diff=(0,)),
    Case("math.top_k", lambda dt, shape: ((arr(dt, shape, seed=7),), {"k": 0}), diff=()),
    fixed(
        "math.top_k", lambda dt: (np.array([[1, 3, 3, 2, 3], [5, 5, 5, 5, 5]], dt), 3), dtypes=FI
    ),
    Case(
        "math.approx_max_k",
        lambda dt, shape: ((arr(dt, shape, seed=7),), {"k": 2}),
        dtypes=F16,
        diff=(0,),
    ),
    fixed(
        "math.approx_max_k",
        lambda dt: (np.array([[1, 3, 3, 2, 3, 0.5, 7], [0, 1, 2, 3, 4, 5, 6]], dt), 3),
    ),
    fixed(
        "math.in_top_k",
        lambda dt: (
            np.array([0, 1, 2, 3, 0, 5], np.int32),
            np.array(
                [
                    [4, 1, 2, 3],
                    [1, 3, 3, 0],
                    [1, 3, 3, 0],
                    [9, 1, 2, 3],
                    [np.inf, 0, 0, 0],
                    [1, 2, 3, 4],
                ],
                dt,
            ),
            2,
        ),
    ),
    fixed(
        "math.in_top_k", lambda dt: (np.array([1, 0], np.int32), np.array([[1, 2], [3, 4]], dt), 0)
    ),
    # -- sorted segments
    _segment("segment_sum"),
    _segment("segment_mean"),
    _segment("segment_max"),
    _segment("segment_min"),
    _segment("segment_prod"),
    fixed(
        "math.segment_prod",
        lambda dt: (
            np.array([2.0, 0.0, 3.0, 0.0, 0.0, 5.0, 2.0], dt),
            np.array([0, 0, 0, 1, 1, 2, 2], np.int32),
        ),
    ),
    fixed(
        "math.segment_mean",
        lambda dt: (np.array([1, 2, 6, 7], dt), np.array([0, 0, 2, 2], np.int32)),
        dtypes=I,
    ),
    fixed("math.segment_sum", lambda dt: (np.zeros((0, 2), dt), np.zeros((0,), np.int32))),
    # -- unsorted segments
    _unsorted("unsorted_segment_sum"),
    _unsorted("unsorted_segment_max"),
    _unsorted("unsorted_segment_min"),
    _unsorted("unsorted_segment_prod"),
    _unsorted("unsorted_segment_mean", x64=True),
    _unsorted("unsorted_segment_sqrt_n", dtypes=F),
    _unsorted("unsorted_segment_max", dtypes=("uint8", "int8"), diff=False),
    _unsorted_2d_ids("unsorted_segment_sum"),
    _unsorted_2d_ids("unsorted_segment_max"),
    _unsorted_2d_ids("unsorted_segment_mean"),
    fixed(
        "math.unsorted_segment_sum",
        lambda dt: (np.array([1.0, 2.0, 3.0], dt), np.array([0, 1, 1], np.int16), 2),
    ),
    # -- confusion_matrix (errors, weights and traces: test_confusion_matrix_* below)
    fixed(
        "math.confusion_matrix",
        lambda dt: (np.array([1, 2, 4], np.int32), np.array([2, 2, 4], np.int32)),
        dtypes=I,
    ),
    fixed(
        "math.confusion_matrix",
        lambda dt: (np.array([1, 0], np.int32), np.array([1, 1], np.int32)),
        {"num_classes": 3, "dtype": "float32"},
    ),
    # -- bincount
    fixed("math.bincount", lambda dt: (np.array([1, 1, 3, 0, 5, 3], np.int32),), dtypes=I),
    fixed(
        "math.bincount",
        lambda dt: (np.array([[1, 1], [3, 0]], np.int32),),
        {"minlength": 6, "dtype": "float32"},
    ),
    fixed("math.bincount", lambda dt: (np.array([1, 1, 3, 0, 5, 3], np.int32),), {"maxlength": 2}),
    fixed(
        "math.bincount", lambda dt: (np.array([1, 1, 3], np.int32), np.array([0.5, 1.0, 2.0], dt))
    ),
    fixed("math.bincount", lambda dt: (np.array([[1, 1, 2], [3, 0, 0]], np.int32),), {"axis": -1}),
    fixed(
        "math.bincount",
        lambda dt: (np.array([[1, 1, 2], [3, 0, 0]], np.int32),),
        {"axis": -1, "binary_output": True},
    ),
    fixed("math.bincount", lambda dt: (np.array([1.5, 2.7], dt),)),
    fixed("math.bincount", lambda dt: (np.zeros((0,), np.int32),), {"minlength": 2}),
    # -- complex parts and realdiv
    binary("complex", away=0.0),
    binary("complex", dtypes=("float64",), x64=True),
    Case("complex", lambda dt, shape: ((arr(dt, shape), np.array(0.5, dt)), {}), diff=(0, 1)),
    binary("realdiv", dtypes=("float32", "float64"), x64=True),
    Case(
        "realdiv",
        lambda dt, shape: ((arr("float32", shape) + 1j * arr("float32", shape, seed=1), 2.0), {}),
        dtypes=("complex64",),
    ),
    # -- Sobol sequences: TF's points bit for bit (rtol/atol 0)
    fixed("math.sobol_sample", lambda dt: (3, 10), rtol=0, atol=0),
    fixed(
        "math.sobol_sample",
        lambda dt: (7, 33),
        {"skip": 5, "dtype": "float64"},
        x64=True,
        rtol=0,
        atol=0,
    ),
    fixed("math.sobol_sample", lambda dt: (1111, 4), {"skip": 1000}, rtol=0, atol=0),
    fixed("math.sobol_sample", lambda dt: (21200, 2), {"skip": np.int32(7)}, rtol=0, atol=0),
    # More points than TF's kernel computes in one block (512), far into the sequence.
    fixed("math.sobol_sample", lambda dt: (40, 1500), {"skip": 1234567}, rtol=0, atol=0),
]

# Ops TF registers without a gradient (None through a tape), or with none at all (TF raises
# LookupError; tapejax gives None: see test_no_gradient_ops_give_none).
NOT_DIFFERENTIABLE = {
    "math.rint",
    "truncatediv",
    "truncatemod",
    "math.mod",
    "math.count_nonzero",
    "math.zero_fraction",
    "math.in_top_k",
    "math.bincount",
    "math.angle",  # of a real tensor: constants
    "math.is_non_decreasing",
    "math.is_strictly_increasing",
    "math.invert_permutation",
    "math.sobol_sample",
}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


# TF's ApproxTopK takes no float64, which check_grads needs: its gradient (top_k's) is
# checked against TF's through the tape only.
FLOAT32_ONLY = {"math.approx_max_k"}
# Neither TF nor JAX differentiates igamma twice w.r.t. ``a`` (TF: LookupError for
# IgammaGradA; JAX: NotImplementedError for igamma_grad_a).
NO_SECOND_ORDER_IN_A = {"math.igamma", "math.igammac"}


@pytest.mark.parametrize(
    "case", first_of_each_op(CASES, NOT_DIFFERENTIABLE | FLOAT32_ONLY), ids=case_id
)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        c
        for c in pure_grad_cases(CASES, NOT_DIFFERENTIABLE | FLOAT32_ONLY)
        if not (c.name in NO_SECOND_ORDER_IN_A and 0 in c.diff)
    ],
    ids=case_id,
)
def test_pure_function_second_order_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=2)


# -- gradients where TF's rule is not JAX's derivative ----------------------------------------

EDGE_GRADIENTS = [
    (
        "xlogy at x = 0",
        lambda tf, x: tf.math.xlogy(x, tf.constant([0.0, 0.0, 2.0, 0.0])),
        [0.0, 1.0, 0.0, -1.0],
    ),
    (
        "xlogy wrt y at 0",
        lambda tf, y: tf.math.xlogy(tf.constant([0.0, 0.0, 2.0]), y),
        [0.0, 2.0, 0.0],
    ),
    (
        "xdivy at x = 0",
        lambda tf, x: tf.math.xdivy(x, tf.constant([0.0, 0.0, 2.0])),
        [0.0, 1.0, 0.0],
    ),
    (
        "xdivy wrt y at 0",
        lambda tf, y: tf.math.xdivy(tf.constant([0.0, 0.0, 2.0]), y),
        [0.0, 2.0, 0.0],
    ),
    (
        "xlog1py at y = -1",
        lambda tf, x: tf.math.xlog1py(x, tf.constant([-1.0, -1.0, 1.0])),
        [0.0, 1.0, 0.0],
    ),
    (
        "xlog1py wrt y",
        lambda tf, y: tf.math.xlog1py(tf.constant([0.0, 2.0, 2.0]), y),
        [-1.0, -1.0, 1.0],
    ),
    (
        "divide_no_nan wrt x at y = 0",
        lambda tf, x: tf.math.divide_no_nan(x, tf.constant([0.0, 2.0])),
        [1.0, 1.0],
    ),
    (
        "divide_no_nan wrt y at 0",
        lambda tf, y: tf.math.divide_no_nan(tf.constant([1.0, 3.0, 0.0]), y),
        [0.0, 2.0, 0.0],
    ),
    (
        "multiply_no_nan wrt y at 0",
        lambda tf, y: tf.math.multiply_no_nan(tf.constant([3.0, 2.0]), y),
        [0.0, 1.0],
    ),
    (
        "multiply_no_nan wrt x",
        lambda tf, x: tf.math.multiply_no_nan(x, tf.constant([0.0, 2.0])),
        [np.inf, 1.0],
    ),
    ("reciprocal_no_nan at 0", lambda tf, x: tf.math.reciprocal_no_nan(x), [0.0, 2.0]),
    ("cumprod with zeros", lambda tf, x: tf.math.cumprod(x), [1.5, 0.0, -2.0, 3.0]),
    (
        "cumprod two zeros",
        lambda tf, x: tf.math.cumprod(x, exclusive=True, reverse=True),
        [0.0, 2.0, 0.0, 3.0],
    ),
    ("reduce_euclidean_norm at 0", lambda tf, x: tf.math.reduce_euclidean_norm(x), [0.0, 0.0]),
    ("reduce_std of a constant", lambda tf, x: tf.math.reduce_std(x), [2.0, 2.0, 2.0]),
    ("l2_normalize of zeros", lambda tf, x: tf.math.l2_normalize(x), [0.0, 0.0]),
    ("l2_normalize at epsilon", lambda tf, x: tf.math.l2_normalize(x, epsilon=1.0), [0.6, 0.8]),
    ("lgamma at poles", lambda tf, x: tf.math.lgamma(x), [0.0, -1.0, 2.5]),
    ("digamma at poles", lambda tf, x: tf.math.digamma(x), [0.0, -1.0, 2.5]),
    ("acosh at 1", lambda tf, x: tf.math.acosh(x), [1.0, 2.0]),
    ("atanh at 1", lambda tf, x: tf.math.atanh(x), [1.0, 0.5]),
    ("top_k ties: lower index", lambda tf, x: tf.math.top_k(x, 2).values, [1.0, 3.0, 3.0, 3.0]),
    (
        "segment_max ties split",
        lambda tf, x: tf.math.segment_max(x, [0, 0, 0, 1]),
        [1.0, 3.0, 3.0, 2.0],
    ),
    (
        "segment_min ties split",
        lambda tf, x: tf.math.segment_min(x, [0, 0, 0, 1]),
        [1.0, 1.0, 3.0, 2.0],
    ),
    (
        "segment_prod with zeros",
        lambda tf, x: tf.math.segment_prod(x, [0, 0, 0, 1, 1, 2]),
        [2.0, 0.0, 3.0, 0.0, 0.0, 5.0],
    ),
    (
        "unsorted_segment_max ties",
        lambda tf, x: tf.math.unsorted_segment_max(x, [1, 0, 1, -1], 3),
        [2.0, 3.0, 2.0, 9.0],
    ),
    (
        "unsorted_segment_prod zeros",
        lambda tf, x: tf.math.unsorted_segment_prod(x, [1, 0, 1, -1], 3),
        [0.0, 3.0, 2.0, 9.0],
    ),
    (
        "unsorted_segment_sqrt_n drops",
        lambda tf, x: tf.math.unsorted_segment_sqrt_n(x, [1, 0, 1, -1], 3),
        [0.0, 3.0, 2.0, 9.0],
    ),
    (
        "cumulative_logsumexp exclusive",
        lambda tf, x: tf.math.cumulative_logsumexp(x, exclusive=True),
        [0.5, -1.0, 2.0],
    ),
    ("bessel_i1 at 0", lambda tf, x: tf.math.bessel_i1(x), [0.0, 1.0]),
    ("bessel_i1e at 0", lambda tf, x: tf.math.bessel_i1e(x), [0.0, -1.0]),
    ("bessel_i0e at 0", lambda tf, x: tf.math.bessel_i0e(x), [0.0, -1.0]),
    ("igamma wrt a", lambda tf, a: tf.math.igamma(a, tf.constant([0.5, 2.0])), [1.5, 3.0]),
    (
        "polygamma wrt a is None",
        lambda tf, a: tf.math.polygamma(a, tf.constant([0.5, 2.0])),
        [1.0, 2.0],
    ),
    ("zeta wrt x is None", lambda tf, x: tf.math.zeta(x, tf.constant([0.5, 2.0])), [2.0, 3.0]),
    (
        "betainc wrt a is None",
        lambda tf, a: tf.math.betainc(a, tf.constant([2.0, 3.0]), tf.constant([0.5, 0.2])),
        [1.0, 2.0],
    ),
    (
        "betainc wrt b is None",
        lambda tf, b: tf.math.betainc(tf.constant([2.0, 3.0]), b, tf.constant([0.5, 0.2])),
        [1.0, 2.0],
    ),
    (
        "nextafter wrt x2 is 0",
        lambda tf, x: tf.math.nextafter(tf.constant([1.0, 2.0]), x),
        [2.0, 0.0],
    ),
    ("angle of a real is None", lambda tf, x: tf.math.angle(x), [-1.0, 2.0]),
    ("rint is None", lambda tf, x: tf.math.rint(x), [0.5, 1.5]),
    ("truncatediv is None", lambda tf, x: tf.truncatediv(x, 2.0), [0.5, 3.5]),
    ("count_nonzero is None", lambda tf, x: tf.math.count_nonzero(x), [0.0, 3.5]),
    ("zero_fraction is None", lambda tf, x: tf.math.zero_fraction(x), [0.0, 3.5]),
    ("x ** 2 at 0", lambda tf, x: x**2, [0.0, -1.5]),
    ("pow(x, 2.0) at 0", lambda tf, x: tf.pow(x, 2.0), [0.0, 2.5]),
    ("x ** 2.5", lambda tf, x: x**2.5, [0.5, 2.5]),
]


@pytest.mark.parametrize("what, fn, x", EDGE_GRADIENTS, ids=[e[0] for e in EDGE_GRADIENTS])
def test_edge_gradients_are_tfs(what, fn, x):
    want = grad_of(tensorflow, fn, x)
    got = grad_of(tapejax, fn, x)
    if want is None:
        assert got is None, f"{what}: tapejax gives {got}, TF gives None"
        return
    assert got is not None, f"{what}: tapejax gives None, TF gives {want}"
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)


def test_a_square_has_a_static_exponent_and_tfs_second_derivative():
    # ``x ** 2`` squares with one multiply (``math_ops.pow``); TF's second derivative.
    from tapejax._src.ops import math_ops

    x0 = np.array([0.0, -1.5, 2.0], np.float32)
    got = []
    for tf in (tapejax, tensorflow):
        x = tf.constant(x0)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(x**2 + tf.pow(x, 2))
                if tf is tapejax:
                    ops = [entry[0] for entry in inner._tape.nodes]
                    assert ops.count(math_ops._square_op) == 2
            dy = inner.gradient(y, x)
        got.append((y.numpy(), dy.numpy(), outer.gradient(dy, x).numpy()))
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)
    assert (tapejax.constant(3) ** 2).dtype == tapejax.int32  # integers: TF's Pow


CONFUSION_CASES = [
    (([1, 2, 4], [2, 2, 4]), {}),
    (([1, 2, 4], [2, 2, 4]), {"num_classes": 6, "weights": [0.5, 1.0, 2.0], "dtype": "float32"}),
    (([[1], [2]], [2, 2]), {}),
    (([1.5, 2.0], [0, 1]), {}),
    (([1, -2], [0, 1]), {}),
    (([1, 2], [0, -1]), {}),
    (([1, 2], [0, 1]), {"num_classes": 2}),
    (([1, 2], [0, 1, 1]), {}),
    (([1, 2], [0, 1]), {"weights": [1.0, 2.0, 3.0]}),
]


@pytest.mark.parametrize("args, kwargs", CONFUSION_CASES)
def test_confusion_matrix_is_tfs(args, kwargs):
    def run(tf):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(tf, kw["dtype"])
        try:
            return tf.math.confusion_matrix(*args, **kw).numpy()
        except Exception as e:  # noqa: BLE001 - compared by type and first line
            return type(e).__name__, str(e).split("\n")[0]

    want, got = run(tensorflow), run(tapejax)
    if isinstance(want, tuple):
        assert got[0] == want[0]
        assert got[1].split(" [Op:")[0] in want[1]  # TF's text after its node-def prefix
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_confusion_matrix_weights_get_tfs_gradient_and_traces_with_num_classes():
    x = tapejax.constant([0.5, 1.0, 2.0])
    with tapejax.GradientTape() as tape:
        tape.watch(x)
        m = tapejax.math.confusion_matrix([0, 1, 1], [1, 1, 0], weights=x, dtype=tapejax.float32)
        y = tapejax.reduce_sum(m * tapejax.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0, 3.0])

    f = tapejax.function(lambda a, b: tapejax.math.confusion_matrix(a, b, num_classes=3))
    for _ in range(2):  # the first call runs eagerly, the second traced
        out = f(tapejax.constant([0, 2]), tapejax.constant([1, 2]))
    np.testing.assert_array_equal(out.numpy(), [[0, 1, 0], [0, 0, 0], [0, 0, 1]])
    g = tapejax.function(lambda a, b: tapejax.math.confusion_matrix(a, b))
    g(tapejax.constant([0, 2]), tapejax.constant([1, 2]))
    with pytest.raises(NotImplementedError, match="needs concrete values"):
        g(tapejax.constant([0, 1]), tapejax.constant([1, 2]))


# Complex inputs: several of TF's rules here do not conjugate (Xlogy, MulNoNan, Cumprod,
# SegmentProd...), unlike its usual convention; tapejax gives TF's numbers either way.
Z1 = np.array([0.3 + 0.4j, -0.5 + 0.2j, 0.7 - 0.1j], np.complex64)
Z2 = np.array([0.6 - 0.2j, 0.5 + 0.5j, -0.3 - 0.4j], np.complex64)
COMPLEX_GRADIENTS = [
    ("asin", lambda tf, x, y: tf.math.asin(x)),
    ("acosh", lambda tf, x, y: tf.math.acosh(x)),
    ("atanh", lambda tf, x, y: tf.math.atanh(x)),
    ("sinh", lambda tf, x, y: tf.math.sinh(x)),
    ("asinh", lambda tf, x, y: tf.math.asinh(x)),
    ("xlogy", lambda tf, x, y: tf.math.xlogy(x, y)),
    ("xdivy", lambda tf, x, y: tf.math.xdivy(x, y)),
    ("xlog1py", lambda tf, x, y: tf.math.xlog1py(x, y)),
    ("divide_no_nan", lambda tf, x, y: tf.math.divide_no_nan(x, y)),
    ("multiply_no_nan", lambda tf, x, y: tf.math.multiply_no_nan(x, y)),
    ("reciprocal_no_nan", lambda tf, x, y: tf.math.reciprocal_no_nan(x)),
    ("cumsum", lambda tf, x, y: tf.math.cumsum(x * y)),
    ("cumprod", lambda tf, x, y: tf.math.cumprod(x * y)),
    ("cumprod exclusive", lambda tf, x, y: tf.math.cumprod(x, exclusive=True, reverse=True)),
    ("reduce_variance", lambda tf, x, y: tf.math.reduce_variance(x)),
    ("reduce_std", lambda tf, x, y: tf.math.reduce_std(x)),
    ("reduce_euclidean_norm", lambda tf, x, y: tf.math.reduce_euclidean_norm(x)),
    ("l2_normalize", lambda tf, x, y: tf.math.l2_normalize(x)),
    ("segment_sum", lambda tf, x, y: tf.math.segment_sum(x, [0, 0, 1])),
    ("segment_prod", lambda tf, x, y: tf.math.segment_prod(x * y, [0, 0, 1])),
    ("unsorted_segment_prod", lambda tf, x, y: tf.math.unsorted_segment_prod(x, [0, 0, 1], 2)),
    ("angle", lambda tf, x, y: tf.math.angle(x)),
]


@pytest.mark.parametrize("what, fn", COMPLEX_GRADIENTS, ids=[e[0] for e in COMPLEX_GRADIENTS])
def test_complex_values_and_gradients_are_tfs(what, fn):
    results = []
    for fw in (tensorflow, tapejax):
        x, y = fw.constant(Z1), fw.constant(Z2)
        with fw.GradientTape() as tape:
            tape.watch([x, y])
            out = fn(fw, x, y)
        results.append([out, *tape.gradient(out, [x, y])])
    for want, got in zip(*results, strict=True):
        if want is None:
            assert got is None, what
            continue
        assert got is not None, what
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5, err_msg=what)


# TF registers no gradient function at all for these: its tape raises LookupError. tapejax
# treats them as not differentiable (None), like TF's NotDifferentiable ops.
NO_GRADIENT_FUNCTION = [
    ("TruncateMod", lambda tf, x: tf.truncatemod(x, 1.3)),
    ("DenseBincount", lambda tf, x: tf.math.bincount(tf.constant([0, 1, 1]), weights=x)),
    ("InTopKV2", lambda tf, x: tf.math.in_top_k(tf.constant([1]), x[None], 2)),
]


@pytest.mark.parametrize(
    "op_name, fn", NO_GRADIENT_FUNCTION, ids=[e[0] for e in NO_GRADIENT_FUNCTION]
)
def test_no_gradient_ops_give_none(op_name, fn):
    with pytest.raises(LookupError, match=f"no entry for: {op_name}"):
        grad_of(tensorflow, fn, [0.5, 2.0, 3.0])
    assert grad_of(tapejax, fn, [0.5, 2.0, 3.0]) is None


# -- what a Case cannot express ----------------------------------------------------------------


def test_complex_gradient_is_the_upstream_parts():
    """TF's rule: the real and imaginary parts of the upstream gradient, summed over
    broadcast dimensions."""
    results = []
    for fw in (tensorflow, tapejax):
        x, y = fw.constant([1.0, 2.0]), fw.constant([3.0, 4.0, 5.0])
        with fw.GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            z = fw.complex(x[:, None], y)
            loss = fw.reduce_sum(z * fw.complex(2.0, 3.0))
        upstream = fw.complex(fw.ones([2, 3]), 2 * fw.ones([2, 3]))
        results.append(
            [*tape.gradient(loss, [x, y]), *tape.gradient(z, [x, y], output_gradients=upstream)]
        )
    for want, got in zip(*results, strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy())


def test_realdiv_of_integers_truncates_as_tfs_xla_kernel():
    """TF's CPU build has no integer RealDiv kernel (NotFoundError); its XLA kernel, which
    tapejax follows, truncates toward zero and keeps the integer dtype."""
    x, y = np.array([7, -7, 6, -1], np.int32), np.array([2, 2, -4, 3], np.int32)
    with pytest.raises(tensorflow.errors.NotFoundError):
        tensorflow.realdiv(x, y)
    want = tensorflow.function(tensorflow.realdiv, jit_compile=True)(x, y)
    got = tapejax.realdiv(x, y)
    assert got.dtype == tapejax.int32
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_top_k_returns_named_values_and_indices():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [0.0, -1.0, 5.0, 5.0]], np.float32)
    got = tapejax.math.top_k(x, k=3)
    want = tensorflow.math.top_k(x, k=3)
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
    assert got.indices.dtype == tapejax.int32


@pytest.mark.parametrize("index_type", ["int16", "int32", "int64"])
def test_top_k_index_type(index_type, x64):
    x = np.array([1.0, 3.0, 2.0], np.float32)
    got = tapejax.math.top_k(x, 2, index_type=tapejax.as_dtype(index_type)).indices
    want = tensorflow.math.top_k(x, 2, index_type=tensorflow.as_dtype(index_type)).indices
    assert got.dtype.name == want.dtype.name
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_top_k_unsorted_holds_the_same_entries():
    # TF's CPU kernel returns sorted=False results in a heap order; tapejax sorts them.
    x = np.array([1.0, 3.0, 3.0, 2.0, 3.0, 0.5, 7.0], np.float32)
    got = tapejax.math.top_k(x, 4, sorted=False)
    want = tensorflow.math.top_k(x, 4, sorted=False)
    assert sorted(got.indices.numpy().tolist()) == sorted(want.indices.numpy().tolist())
    np.testing.assert_array_equal(np.sort(got.values.numpy()), np.sort(want.values.numpy()))


# TF's CPU build has no approx_min_k kernel (NotFoundError): compared with TF's XLA one.
OTHERWISE_TESTED = {"math.approx_min_k"}


@pytest.mark.parametrize("axis", [-1, 0])
def test_approx_min_k_matches_tfs_xla_kernel(axis):
    x = np.array(
        [[1.0, 3.0, 3.0, 2.0, 3.0], [0.5, 0.5, 7.0, -1.0, 2.0], [4.0, 0.0, 1.0, 1.0, 9.0]],
        np.float32,
    )

    @tensorflow.function(jit_compile=True)
    def tf_min_k(v):
        return tensorflow.math.approx_min_k(v, 2, reduction_dimension=axis)

    want = tf_min_k(x)
    got = tapejax.math.approx_min_k(x, 2, reduction_dimension=axis)
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
    g = grad_of(
        tapejax, lambda tf, v: tf.math.approx_min_k(v, 2, reduction_dimension=axis).values, x
    )
    assert g.sum() == 2 * x.shape[1 - axis % 2]


def test_count_nonzero_without_x64_is_int32():
    got = tapejax.math.count_nonzero(np.array([0.0, 1.0, 2.0], np.float32))
    assert got.dtype == tapejax.int32 and int(got) == 2


def test_segment_ops_run_inside_jit_with_static_ids():
    import jax

    f = jax.jit(lambda x: tapejax.math.unsorted_segment_max(x, UNSORTED_IDS, 5)._value)
    want = tensorflow.math.unsorted_segment_max(np.arange(6.0, dtype=np.float32), UNSORTED_IDS, 5)
    np.testing.assert_array_equal(f(np.arange(6.0, dtype=np.float32)), want.numpy())


def test_sorted_segment_ids_traced_is_a_clear_error():
    import jax

    f = jax.jit(lambda ids: tapejax.math.segment_sum(np.ones(3, np.float32), ids)._value)
    with pytest.raises(NotImplementedError, match="needs concrete values"):
        f(np.array([0, 0, 1], np.int32))


def test_toplevel_aliases_are_tfs():
    """``tapejax.<name>`` exists for each new name TF exports at top level, and is the same op."""
    for name in tapejax.math.TOPLEVEL:
        assert hasattr(tensorflow, name), f"TF has no tf.{name}"
        assert getattr(tapejax, name) is getattr(tapejax.math, name)
    for name in tapejax.math.__all__:
        theirs = getattr(tensorflow, name, None)
        if theirs is not None and theirs is getattr(tensorflow.math, name, None):
            assert hasattr(tapejax, name), f"tf.{name} is tf.math.{name}: tapejax.{name} is missing"


def test_sobol_direction_numbers_are_tfs_table():
    """The compact table regenerates every digit of the one TF's kernel embeds."""
    import pathlib
    import re

    from tapejax._src.ops import sobol_ops

    header = pathlib.Path(tensorflow.__file__).parent / "include/external/sobol_data/sobol_data.h"
    if not header.exists():
        pytest.skip("this TensorFlow wheel ships no headers")
    text = header.read_text()
    rows = re.findall(r"\{([0-9, ]+)\}", text[text.index("kDirectionNumbers") :])
    want = np.array([[int(v) for v in row.split(",")] for row in rows], np.int64)
    got = sobol_ops.expand(dict(np.load(sobol_ops._DIRECTIONS)))
    np.testing.assert_array_equal(got, want)


def test_sobol_sample_traces_with_a_traced_skip():
    f = tapejax.function(lambda skip: tapejax.math.sobol_sample(4, 6, skip=skip))
    for skip in (0, 9, 100):  # the first call runs eagerly, the next ones traced
        want = tensorflow.math.sobol_sample(4, 6, skip=skip).numpy()
        np.testing.assert_array_equal(f(tapejax.constant(skip)).numpy(), want)
    g = tapejax.function(lambda d: tapejax.math.sobol_sample(d, 3))
    g(tapejax.constant(2))
    with pytest.raises(NotImplementedError, match=r"`dim` sets the output's shape"):
        g(tapejax.constant(2))


def test_sobol_sample_past_2_to_the_30_is_the_sequence():
    """TF's kernel scales by 1 / (1 << 31), an int overflow, once skip + num_results + 1
    reaches 2**30: its points come out negated. tapejax returns the sequence's points."""
    want = -tensorflow.math.sobol_sample(3, 4, skip=2**30).numpy()
    got = tapejax.math.sobol_sample(3, 4, skip=2**30).numpy()
    np.testing.assert_array_equal(got, want)
    assert np.all((got >= 0) & (got < 1))


def test_polyval_needs_a_list():
    for fw in (tensorflow, tapejax):
        with pytest.raises(ValueError, match="Argument coeffs must be list type"):
            fw.math.polyval((1.0, 2.0), 1.0)


# -- errors: the same expression raises the same error under both frameworks ------------------

IAE = "InvalidArgumentError"
ERRORS = [
    (
        lambda tf: tf.math.scalar_mul(tf.constant(2), tf.constant([1.0])),
        "ValueError",
        r"Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda tf: tf.math.asin(tf.constant([1, 2])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double, complex64, complex128",
    ),
    (
        lambda tf: tf.math.lgamma(tf.constant([1.0 + 1j], tf.complex64)),
        IAE,
        r"Value for attr 'T' of complex64 is not in the list of allowed values: bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.math.log_sigmoid(tf.constant([1, 2])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.math.xlogy(tf.constant([1, 2]), tf.constant([1, 2])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values",
    ),
    (
        lambda tf: tf.math.xlogy(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])),
        IAE,
        r"Incompatible shapes: \[2\] vs. \[3\]",
    ),
    (
        lambda tf: tf.math.divide_no_nan(tf.constant([1.0]), tf.constant([1], tf.int32)),
        "TypeError",
        r"`x` and `y` must have the same dtype, got tf.float32 != tf.int32.",
    ),
    (
        lambda tf: tf.math.divide_no_nan(tf.constant([True]), tf.constant([True])),
        "TypeError",
        r"Invalid dtype tf.bool in tf.math.divide_no_nan. Expected one of \{tf.uint8, tf.int8",
    ),
    (
        lambda tf: tf.math.multiply_no_nan(tf.constant([1.0]), tf.constant([1], tf.int32)),
        "ValueError",
        r"y: Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda tf: tf.math.multiply_no_nan(tf.constant([1]), tf.constant([1])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double, complex64, complex128",
    ),
    (
        lambda tf: tf.math.reciprocal_no_nan(tf.constant([1, 2])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, float, bfloat16, double, complex64, complex128",
    ),
    (
        lambda tf: tf.truncatediv(tf.constant([1, 2]), tf.constant([0, 1])),
        "InternalError",
        r"Unexpected error in binary operator \(only integer div and mod should have errors\) \[Op:TruncateDiv\]",
    ),
    (
        lambda tf: tf.truncatemod(tf.constant([1, 2]), 0),
        "InternalError",
        r"Unexpected error in binary operator \(only integer div and mod should have errors\) \[Op:TruncateMod\]",
    ),
    (
        lambda tf: tf.truncatemod(tf.constant([1, 2], tf.int8), tf.constant([1, 1], tf.int8)),
        IAE,
        r"Value for attr 'T' of int8 is not in the list of allowed values: int32, int64, bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.math.scalar_mul(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0])),
        "ValueError",
        r"The input scalar must be a 0-D value. Received shape \(2,\).",
    ),
    (
        lambda tf: tf.math.accumulate_n([]),
        "ValueError",
        r"inputs must be a list of at least one Tensor with the same dtype and shape",
    ),
    (
        lambda tf: tf.math.accumulate_n([tf.constant(1.0), tf.constant(1)]),
        "ValueError",
        r"inputs must be a list of at least one Tensor",
    ),
    (
        lambda tf: tf.math.accumulate_n([tf.constant(1.0)], tensor_dtype=tf.int32),
        "TypeError",
        r"The `tensor_dtype` argument is <dtype: 'int32'>, but `input` is of type <dtype: 'float32'>",
    ),
    (
        lambda tf: tf.math.cumsum(tf.constant([1.0, 2.0]), axis=1),
        IAE,
        r"ScanOp: Expected scan axis in the range \[-1, 1\), but got 1 \[Op:Cumsum\]",
    ),
    (
        lambda tf: tf.math.cumsum(tf.constant(3.0)),
        IAE,
        r"ScanOp: Expected scan axis in the range \[0, 0\), but got 0",
    ),
    (
        lambda tf: tf.math.cumprod(tf.constant([[1.0, 2.0]]), axis=[0]),
        IAE,
        r"ScanOp: axis must be a scalar, not \[1\]",
    ),
    (
        lambda tf: tf.math.cumsum(tf.constant([1.0, 2.0]), axis=1.0),
        "TypeError",
        r"Cannot convert 1.0 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.math.cumsum(tf.constant([True])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: float, double, int32",
    ),
    (
        lambda tf: tf.math.cumulative_logsumexp(tf.constant([1, 2])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.math.reduce_variance(tf.constant([1, 2])),
        "TypeError",
        r"Input must be either real or complex. Received integer type <dtype: 'int32'>.",
    ),
    (
        lambda tf: tf.math.reduce_std(tf.constant([True])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: float, double, int32",
    ),
    (
        lambda tf: tf.math.reduce_variance(tf.constant([1.0, 2.0]), axis=1),
        IAE,
        r"Invalid reduction dimension \(1 for input with 1 dimension\(s\) \[Op:Mean\]",
    ),
    (
        lambda tf: tf.math.reduce_euclidean_norm(tf.constant([1.0, 2.0]), axis=2),
        IAE,
        r"Invalid reduction dimension \(2 for input with 1 dimension\(s\) \[Op:EuclideanNorm\]",
    ),
    (
        lambda tf: tf.math.reduce_euclidean_norm(tf.constant([True])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values",
    ),
    (
        lambda tf: tf.math.l2_normalize(tf.constant([1, 2])),
        "TypeError",
        r"Cannot convert 1e-12 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.math.l2_normalize(tf.constant([[3.0, 4.0]]), axis=2),
        IAE,
        r"Invalid reduction dimension \(2 for input with 2 dimension\(s\) \[Op:Sum\]",
    ),
    (
        lambda tf: tf.math.count_nonzero(tf.constant([1.0]), axis=1),
        IAE,
        r"Invalid reduction dimension \(1 for input with 1 dimension\(s\)",
    ),
    (
        lambda tf: tf.math.top_k(tf.constant([1.0, 2.0]), 3),
        IAE,
        r"input must have at least k columns. Had 2, needed 3 \[Op:TopKV2\]",
    ),
    (
        lambda tf: tf.math.top_k(tf.constant([1.0, 2.0]), -1),
        IAE,
        r"Need k >= 0, got -1 \[Op:TopKV2\]",
    ),
    (
        lambda tf: tf.math.top_k(tf.constant(1.0), 1),
        IAE,
        r"input must be >= 1-D, got shape \[\] \[Op:TopKV2\]",
    ),
    (
        lambda tf: tf.math.top_k(tf.constant([True]), 1),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64",
    ),
    (
        lambda tf: tf.math.top_k(tf.constant([1.0, 2.0]), 1, index_type=tf.float32),
        IAE,
        r"Value for attr 'index_type' of float is not in the list of allowed values: int16, int32, int64",
    ),
    (
        lambda tf: tf.math.in_top_k(tf.constant([0]), tf.constant([[1.0, 2.0], [3.0, 4.0]]), 1),
        IAE,
        r"First dimension of predictions 2 must match length of targets 1 \[Op:InTopKV2\]",
    ),
    (
        lambda tf: tf.math.in_top_k(
            tf.constant([0.5, 1.0]), tf.constant([[1.0, 2.0], [3.0, 4.0]]), 1
        ),
        IAE,
        r"Value for attr 'T' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 2, 1])),
        IAE,
        r"segment ids are not increasing \[Op:SegmentSum\]",
    ),
    (
        lambda tf: tf.math.segment_max(tf.constant([1.0, 2.0, 3.0]), tf.constant([-1, 0, 1])),
        IAE,
        r"Segment id -1 out of range \[0, 2\), possibly because 'segment_ids' input is not sorted.",
    ),
    (
        lambda tf: tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 1])),
        IAE,
        r"segment_ids should be the same size as dimension 0 of input.",
    ),
    (
        lambda tf: tf.math.segment_mean(tf.constant([1.0, 2.0, 3.0]), tf.constant([[0, 1, 1]])),
        IAE,
        r"segment_ids should be a vector.",
    ),
    (
        lambda tf: tf.math.segment_sum(tf.constant(1.0), tf.constant([0])),
        IAE,
        r"input must be at least rank 1",
    ),
    (
        lambda tf: tf.math.segment_sum(tf.constant([1.0, 2.0]), tf.constant([0.0, 1.0])),
        IAE,
        r"Value for attr 'Tindices' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.math.segment_sum(tf.constant([1.0, 2.0]), tf.constant([0, 1], tf.int16)),
        IAE,
        r"Value for attr 'Tindices' of int16 is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.math.segment_min(tf.constant([True]), tf.constant([0])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uint8, int16, int8, int64",
    ),
    (
        lambda tf: tf.math.unsorted_segment_sum(
            tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 5, 1]), 3
        ),
        IAE,
        r"segment_ids\[1\] = 5 is out of range \[0, 3\) \[Op:UnsortedSegmentSum\]",
    ),
    (
        lambda tf: tf.math.unsorted_segment_max(
            tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[0, 1], [3, 0]]), 3
        ),
        IAE,
        r"segment_ids\[1,0\] = 3 is out of range \[0, 3\)",
    ),
    (
        lambda tf: tf.math.unsorted_segment_sum(
            tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 1]), 3
        ),
        IAE,
        r"data.shape = \[3\] does not start with segment_ids.shape = \[2\]",
    ),
    (
        lambda tf: tf.math.unsorted_segment_prod(
            tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 1, 1]), -1
        ),
        IAE,
        r"Input num_segments == -1 must not be negative.",
    ),
    (
        lambda tf: tf.math.unsorted_segment_min(
            tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 1, 1]), [3]
        ),
        IAE,
        r"num_segments should be a scalar, not shape \[1\]",
    ),
    (
        lambda tf: tf.math.unsorted_segment_sqrt_n(
            tf.constant([1, 2, 3]), tf.constant([0, 1, 1]), 3
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double, complex64, complex128",
    ),
    (
        lambda tf: tf.math.unsorted_segment_mean(
            tf.constant([1j, 2j], tf.complex64), tf.constant([0, 1]), 2
        ),
        IAE,
        r"Value for attr 'T' of complex64 is not in the list of allowed values: bfloat16, half, float, double, int8, uint8",
    ),
    (
        lambda tf: tf.math.bincount(tf.constant([1, -1, 3])),
        IAE,
        r"Input arr must be non-negative! \[Op:DenseBincount\]",
    ),
    (
        lambda tf: tf.math.bincount(tf.constant([[1, 1], [2, 0]]), axis=1),
        "ValueError",
        r"Unsupported value for argument axis=1. Only 0 and -1 are currently supported.",
    ),
    (
        lambda tf: tf.math.bincount(tf.constant([1, 1]), dtype=tf.int16),
        IAE,
        r"Value for attr 'T' of int16 is not in the list of allowed values: int32, int64, float, double",
    ),
    (
        lambda tf: tf.math.bincount(tf.constant([1, 2]), weights=tf.constant([1.0, 2.0, 3.0])),
        IAE,
        r"`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts as all weights equal to 1. Received \[3\]",
    ),
    (
        lambda tf: tf.math.bincount(
            tf.constant([1, 2]), weights=tf.constant([1.0, 2.0]), binary_output=True
        ),
        "ValueError",
        r"Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.",
    ),
    (
        lambda tf: tf.math.polyval([], 1.0).numpy() + tf.math.l2_normalize([1.0], dim=0, axis=0),
        "ValueError",
        r"Cannot specify both 'dim' and 'axis'.",
    ),
    (
        lambda tf: tf.complex(tf.constant([1.0]), tf.constant([2], tf.int32)),
        "TypeError",
        r"The `real` and `imag` components have incorrect types: float32 int32. They must be consistent, and one of \[tf.float32, tf.float64\]",
    ),
    (
        lambda tf: tf.complex(tf.constant([1], tf.int32), tf.constant([2], tf.int32)),
        "TypeError",
        r"incorrect types: int32 int32",
    ),
    (
        lambda tf: tf.complex(tf.constant([1.0, 2.0]), tf.constant([2.0, 3.0, 4.0])),
        IAE,
        r"Incompatible shapes: \[2\] vs. \[3\] \[Op:Complex\]",
    ),
    (
        lambda tf: tf.realdiv(tf.constant([True]), tf.constant([True])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128",
    ),
    (
        lambda tf: tf.realdiv(tf.constant([7.0]), tf.constant([2], tf.int32)),
        IAE,
        r"cannot compute RealDiv as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor \[Op:RealDiv\]",
    ),
    (lambda tf: tf.math.sobol_sample(0, 4), IAE, r"dim must be at least one \[Op:SobolSample\]"),
    (
        lambda tf: tf.math.sobol_sample(21201, 1),
        IAE,
        r"dim must be at most 21200 \[Op:SobolSample\]",
    ),
    (
        lambda tf: tf.math.sobol_sample(2, 0),
        IAE,
        r"num_results must be at least one \[Op:SobolSample\]",
    ),
    (
        lambda tf: tf.math.sobol_sample(2, 1, -1),
        IAE,
        r"skip must be non-negative \[Op:SobolSample\]",
    ),
    (
        lambda tf: tf.math.sobol_sample(2, 2**31 - 2, 1),
        IAE,
        r"num_results\+skip must be less than 2147483647 \[Op:SobolSample\]",
    ),
    (lambda tf: tf.math.sobol_sample([2], 2), IAE, r"dim must be a scalar \[Op:SobolSample\]"),
    (
        lambda tf: tf.math.sobol_sample(2, 2, dtype=tf.float16),
        IAE,
        r"Value for attr 'dtype' of half is not in the list of allowed values: float, double",
    ),
    (
        lambda tf: tf.math.sobol_sample(2.0, 2),
        "TypeError",
        r"Cannot convert 2\.0 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.math.sobol_sample(2, tf.constant(3, tf.int16)),
        IAE,
        r"cannot compute SobolSample as input #1\(zero-based\) was expected to be a int32 tensor but is a int16 tensor \[Op:SobolSample\]",
    ),
]


# TF's op definitions allow these dtypes, but its CPU build has no kernel for them:
# NotFoundError, before any shape check.
_BF, _H = "bfloat16", "float16"
ERRORS += [
    *(
        no_kernel_case(
            lambda tf, f=f: getattr(tf.math, f)(tf.constant([1.5], _BF)),
            f"{node}[T=DT_BFLOAT16]",
        )
        for f, node in [
            ("bessel_i0", "BesselI0"),
            ("bessel_i0e", "BesselI0e"),
            ("bessel_i1", "BesselI1"),
            ("bessel_i1e", "BesselI1e"),
            ("digamma", "Digamma"),
            ("lgamma", "Lgamma"),
            ("lbeta", "Lgamma"),
        ]
    ),
    *(
        no_kernel_case(
            lambda tf, f=f, dt=dt: getattr(tf.math, f)(tf.constant([0.5], dt)),
            f"{node}[T=DT_{'HALF' if dt == _H else 'BFLOAT16'}]",
        )
        for f, node in [
            ("erfinv", "Erfinv"),
            ("ndtri", "Ndtri"),
            ("erfcinv", "Ndtri"),
            ("rint", "Rint"),
        ]
        for dt in (_BF, _H)
    ),
    *(
        no_kernel_case(
            lambda tf, f=f, dt=dt: f(tf)(tf.ones([3], dt), tf.ones([4], dt)),
            f"{node}[T=DT_{'HALF' if dt == _H else 'BFLOAT16'}]",
        )
        for f, node in [
            (lambda tf: tf.math.igamma, "Igamma"),
            (lambda tf: tf.math.igammac, "Igammac"),
            (lambda tf: tf.truncatemod, "TruncateMod"),
        ]
        for dt in (_BF, _H)
    ),
    no_kernel_case(lambda tf: tf.math.reciprocal(tf.constant([2])), "Reciprocal[T=DT_INT32]"),
    no_kernel_case(
        lambda tf: tf.math.reciprocal(tf.constant([2], tf.int8)), "Reciprocal[T=DT_INT8]"
    ),
    no_kernel_case(
        lambda tf: tf.truncatediv(tf.constant([2j], tf.complex64), tf.constant([1j], tf.complex64)),
        "TruncateDiv[T=DT_COMPLEX64]",
    ),
    no_kernel_case(
        lambda tf: tf.round(tf.constant([1.5 + 2j], tf.complex64)), "Round[T=DT_COMPLEX64]"
    ),
    no_kernel_case(
        lambda tf: tf.math.round(tf.constant([0.5j], tf.complex64)), "Round[T=DT_COMPLEX64]"
    ),
    no_kernel_case(
        lambda tf: tf.math.floordiv(
            tf.constant([2j], tf.complex64), tf.constant([1j], tf.complex64)
        ),
        "FloorDiv[T=DT_COMPLEX64]",
    ),
    no_kernel_case(
        lambda tf: tf.constant([2j], tf.complex64) // tf.constant([1j], tf.complex64),
        "FloorDiv[T=DT_COMPLEX64]",
    ),
    no_kernel_case(
        lambda tf: tf.searchsorted(
            tf.constant([1j], tf.complex64), tf.constant([1j], tf.complex64)
        ),
        "LowerBound[T=DT_COMPLEX64, out_type=DT_INT32]",
    ),
    no_kernel_case(
        lambda tf: tf.searchsorted(
            tf.constant([True]), tf.constant([False]), side="right", out_type=tf.int64
        ),
        "UpperBound[T=DT_BOOL, out_type=DT_INT64]",
    ),
]

# Integer tensors where TF's op def has no such type, or TF's Python cannot make a constant.
ERRORS += [
    (
        lambda tf: tf.math.bincount(tf.constant([1, 2], tf.uint8)),
        IAE,
        r"Value for attr 'Tidx' of uint8 is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.math.bincount(tf.constant([1, 2], tf.int16), minlength=4),
        IAE,
        r"Value for attr 'Tidx' of int16 is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.math.angle(tf.constant([1, -2])),
        "TypeError",
        r"Cannot convert 3.141592653589793 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.math.angle(tf.constant([1, 2], tf.uint8)),
        "TypeError",
        r"Cannot convert 3.141592653589793 to EagerTensor of dtype uint8",
    ),
    *(
        (
            fn,
            "TypeError",
            r"Invalid dtype tf.bool in __truediv__. Expected one of \{tf.uint8, tf.int8, "
            r"tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, tf.int64, tf.bfloat16, "
            r"tf.float16, tf.float32, tf.float64, tf.complex64, tf.complex128\}\.",
        )
        for fn in (
            lambda tf: tf.constant([True]) / tf.constant([False]),
            lambda tf: tf.math.truediv(tf.constant([True]), tf.constant([True])),
            lambda tf: tf.math.divide(tf.constant([True]), True),
        )
    ),
    (
        lambda tf: tf.math.angle([True]),
        "TypeError",
        r"Cannot convert 0 to EagerTensor of dtype bool",
    ),
    *(
        (
            lambda tf, dt=dt: tf.math.erfcinv(tf.cast([1, 0], dt)),
            "TypeError",
            rf"Cannot convert 0.5 to EagerTensor of dtype {dt}",
        )
        for dt in ("int8", "int32", "uint16", "bool")
    ),
    (
        lambda tf: tf.math.reciprocal_no_nan([True, False]),
        "TypeError",
        r"Cannot convert 1 to EagerTensor of dtype bool",
    ),
]

# Complex and bool tensors where TF's composite fails in a comparison or a sum of squares.
_ORDERED = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
ERRORS += [
    (
        lambda tf: tf.math.is_non_decreasing(tf.constant([1 + 2j, 2], tf.complex64)),
        IAE,
        rf"Value for attr 'T' of complex64 is not in the list of allowed values: {_ORDERED}",
    ),
    (
        lambda tf: tf.math.is_strictly_increasing(tf.constant([1j, 2], tf.complex64)),
        IAE,
        rf"Value for attr 'T' of complex64 is not in the list of allowed values: {_ORDERED}",
    ),
    *(
        (
            lambda tf, f=f: f(tf)([[True, False]]),
            IAE,
            r"Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, "
            r"float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, "
            r"complex128",
        )
        for f in (
            lambda tf: tf.math.l2_normalize,
            lambda tf: tf.nn.l2_normalize,
            lambda tf: tf.linalg.l2_normalize,
        )
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


# -- dtype acceptance: an op takes exactly the dtypes TF's op definition allows ---------------

ACCEPTANCE_DTYPES = (
    "float16",
    "bfloat16",
    "float32",
    "int8",
    "int32",
    "uint8",
    "bool",
    "complex64",
)
ACCEPTANCE_OPS = {
    "math.asin": lambda tf, x: tf.math.asin(x),
    "math.cosh": lambda tf, x: tf.math.cosh(x),
    "math.erf": lambda tf, x: tf.math.erf(x),
    "math.lgamma": lambda tf, x: tf.math.lgamma(x),
    "math.rint": lambda tf, x: tf.math.rint(x),
    "math.bessel_i0e": lambda tf, x: tf.math.bessel_i0e(x),
    "math.log_sigmoid": lambda tf, x: tf.math.log_sigmoid(x),
    "math.xlogy": lambda tf, x: tf.math.xlogy(x, x),
    "math.divide_no_nan": lambda tf, x: tf.math.divide_no_nan(x, x),
    "math.multiply_no_nan": lambda tf, x: tf.math.multiply_no_nan(x, x),
    "math.reciprocal_no_nan": lambda tf, x: tf.math.reciprocal_no_nan(x),
    "truncatediv": lambda tf, x: tf.truncatediv(x, x + tf.cast(1, x.dtype)),
    "truncatemod": lambda tf, x: tf.truncatemod(x, x + tf.cast(1, x.dtype)),
    "math.igamma": lambda tf, x: tf.math.igamma(x, x),
    "math.cumsum": lambda tf, x: tf.math.cumsum(x),
    "math.cumprod": lambda tf, x: tf.math.cumprod(x),
    "math.cumulative_logsumexp": lambda tf, x: tf.math.cumulative_logsumexp(x),
    "math.reduce_euclidean_norm": lambda tf, x: tf.math.reduce_euclidean_norm(x),
    "math.reduce_variance": lambda tf, x: tf.math.reduce_variance(x),
    "math.top_k": lambda tf, x: tf.math.top_k(x),
    "math.segment_sum": lambda tf, x: tf.math.segment_sum(x, [0, 0, 1]),
    "math.segment_max": lambda tf, x: tf.math.segment_max(x, [0, 0, 1]),
    "math.unsorted_segment_prod": lambda tf, x: tf.math.unsorted_segment_prod(x, [0, 0, 1], 2),
    "math.unsorted_segment_min": lambda tf, x: tf.math.unsorted_segment_min(x, [0, 0, 1], 2),
}
# TF's op definition allows these, but its CPU build has no kernel (NotFoundError).
NO_CPU_KERNEL = {
    ("truncatediv", "complex64"),
    ("truncatemod", "bfloat16"),
    ("truncatemod", "float16"),
    ("math.lgamma", "bfloat16"),
    ("math.rint", "float16"),
    ("math.rint", "bfloat16"),
    ("math.bessel_i0e", "bfloat16"),
    ("math.igamma", "float16"),
    ("math.igamma", "bfloat16"),
}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:tapejax. a float64 value was requested")  # int32 / int32
@pytest.mark.parametrize("name", list(ACCEPTANCE_OPS))
def test_op_accepts_the_dtypes_tf_accepts(name):
    check_dtype_acceptance(name, ACCEPTANCE_OPS[name], ACCEPTANCE_DTYPES, NO_CPU_KERNEL)
