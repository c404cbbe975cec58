# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Unit tests for ``tapejax.math.special`` (TF's ``tf.math.special``): Bessel J, Y and K,
``dawsn``, ``expint``, the Fresnel integrals and ``spence``, run side by side with real
TensorFlow.

Each op has Cases over ranges that cross its kernel's branch points (values, dtypes and
shapes vs TF in float32 and float64; Variables; tape gradients vs TF; ``check_grads`` of
the pure function to second order), edge values (0, negative arguments, large arguments,
inf and NaN) against TF, TF's gradients at singular points and TF's second derivatives,
and TF's errors and dtype acceptance.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import tapejax
import tapejax.math

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
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
    pure_grad_cases,
    second_grad_of,
    unary,
    value_params,
)

F64 = ("float64",)
# float16: TF computes the Bessel functions in float32 and rounds, as tapejax does.
F16 = ("float16",)
NEW_OPS = (
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "bessel_k0",
    "bessel_k0e",
    "bessel_k1",
    "bessel_k1e",
    "dawsn",
    "expint",
    "fresnel_cos",
    "fresnel_sin",
    "spence",
)
BESSEL = NEW_OPS[:8]
# Every Bessel function has a float16 kernel in TF (float32's, rounded).
HALF = ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", *BESSEL)
# 0, negative arguments (NaN, inf or -inf for some), branch points of the kernels, large
# arguments (overflow and underflow), inf and NaN.
EDGES = [
    -np.inf,
    -50.0,
    -2.0,
    -1.0,
    -1e-30,
    -0.0,
    0.0,
    1e-30,
    1e-6,
    1e-3,
    0.5,
    1.0,
    1.5,
    1.6,
    2.0,
    3.25,
    4.0,
    5.0,
    6.25,
    8.0,
    16.0,
    32.0,
    64.0,
    90.0,
    750.0,
    36974.0,
    4e4,
    1e9,
    2e9,
    1e30,
    np.inf,
    np.nan,
]
# The same within float16's range.
EDGES16 = [v for v in EDGES if abs(v) < 6e4 and not 0 < abs(v) < 1e-7]
# Ei on each of its kernel's intervals: [0, 2), [2, 4), ..., [32, 64), [64, inf).
EXPINT_INTERVALS = [0.1, 0.3, 1.5, 2.0, 3.0, 6.0, 12.0, 24.0, 48.0, 70.0]


def _special(name, **kw):
    """A float32 Case and a float64 one (the kernels have a float and a double algorithm)."""
    f64 = {k: v for k, v in kw.items() if k not in ("rtol", "atol")}
    return [
        unary(f"math.special.{name}", **kw),
        unary(f"math.special.{name}", dtypes=F64, x64=True, rtol=1e-12, atol=1e-14, **f64),
    ]


CASES = [
    # Ranges across each kernel's branch points (2 for float, 5 for double; K: 2).
    *_special("bessel_j0", lo=-9.0, hi=9.0),
    *_special("bessel_j1", lo=-9.0, hi=9.0),
    *_special("bessel_y0", lo=0.2, hi=9.0, away=0.0),
    *_special("bessel_y1", lo=0.2, hi=9.0, away=0.0),
    *_special("bessel_k0", lo=0.2, hi=6.0, away=0.0),
    *_special("bessel_k0e", lo=0.2, hi=6.0, away=0.0),
    *_special("bessel_k1", lo=0.2, hi=6.0, away=0.0),
    *_special("bessel_k1e", lo=0.2, hi=6.0, away=0.0),
    *_special("dawsn", lo=-8.0, hi=8.0),
    *_special("expint", lo=0.5, hi=6.0, away=0.0),
    *_special("fresnel_cos", lo=-4.0, hi=4.0),
    *_special("fresnel_sin", lo=-4.0, hi=4.0),
    *_special("spence", lo=0.05, hi=5.0, away=0.0),
    *(
        unary(f"math.special.{n}", dtypes=F16, diff=False, lo=0.2, hi=6.0, away=0.0, rtol=1e-3)
        for n in HALF
    ),
    # I0 and I1 stay finite in float16 where exp(|x|) overflows it (from 11.1 on).
    *(
        unary(f"math.special.{n}", dtypes=F16, diff=False, lo=-12.9, hi=12.9, rtol=1e-3)
        for n in ("bessel_i0", "bessel_i1")
    ),
    # tf.math's own Bessel I functions, under their tf.math.special names.
    *(unary(f"math.special.bessel_{n}", lo=-9.0, hi=9.0) for n in ("i0", "i0e", "i1", "i1e")),
    Case(
        "math.special.expint",
        lambda dt, shape: ((np.array(EXPINT_INTERVALS, dt),), {}),
        dtypes=("float32", "float64"),
        shapes=((0,),),
        diff=(0,),
        x64=True,
    ),
    # Edge values, float32 and float64, against TF (NaN and inf where TF has them).
    *(
        fixed(
            f"math.special.{n}",
            lambda dt: (np.array(EDGES, dt),),
            dtypes=("float32", "float64"),
            x64=True,
        )
        for n in NEW_OPS
    ),
    *(
        fixed(f"math.special.{n}", lambda dt: (np.array(EDGES16, dt),), dtypes=F16, rtol=1e-3)
        for n in HALF
    ),
]

NOT_DIFFERENTIABLE: set[str] = set()


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


@pytest.mark.slow
@pytest.mark.parametrize("case", pure_grad_cases(CASES, NOT_DIFFERENTIABLE), ids=case_id)
def test_pure_function_second_order_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=2)


# -- gradients at TF's special points, and TF's second derivatives ---------------------------

EDGE_GRADIENTS = [
    ("bessel_j1 at 0 (TF's 0.5)", "bessel_j1", [0.0, -1.0, 3.0]),
    ("bessel_j0 at 0", "bessel_j0", [0.0, -1.0, 3.0]),
    ("bessel_y0 at 0 and below", "bessel_y0", [0.0, -1.0, 3.0]),
    ("bessel_y1 at 0 and below", "bessel_y1", [0.0, -1.0, 3.0]),
    ("bessel_k0 at 0 and below", "bessel_k0", [0.0, -1.0, 3.0]),
    ("bessel_k0e at 0 and below", "bessel_k0e", [0.0, -1.0, 3.0]),
    ("bessel_k1 at 0 and below", "bessel_k1", [0.0, -1.0, 3.0]),
    ("bessel_k1e at 0 and below", "bessel_k1e", [0.0, -1.0, 3.0]),
    ("dawsn at 0", "dawsn", [0.0, -1.0, 30.0]),
    ("expint at 0 and below (TF's exp(x) / x)", "expint", [0.0, -1.0, 3.0]),
    ("fresnel_cos at 0", "fresnel_cos", [0.0, -1.0, 3.0]),
    ("fresnel_sin at 0", "fresnel_sin", [0.0, -1.0, 3.0]),
    ("spence at 0 and 1 (TF's -1)", "spence", [0.0, 1.0, -1.0, 3.0]),
]


def _special_fn(name):
    return lambda tf, x: getattr(tf.math.special, name)(x)


@pytest.mark.parametrize("what, name, x", EDGE_GRADIENTS, ids=[e[0] for e in EDGE_GRADIENTS])
def test_edge_gradients_are_tfs(what, name, x):
    want = grad_of(tensorflow, _special_fn(name), x)
    got = grad_of(tapejax, _special_fn(name), x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)


def _second_derivative(fw, name, value):
    return second_grad_of(fw, lambda fw, x: getattr(fw.math.special, name)(x), value)


@pytest.mark.parametrize("name", NEW_OPS)
def test_second_derivatives_are_tfs(name):
    """TF differentiates its gradient functions (``-bessel_k1(x)`` for K0, ...): so does
    tapejax, NaN included where TF's gradient selects a constant (J1 at 0, Spence at 1)."""
    x = [0.0, 0.5, 1.0, 2.5, 7.0] if name != "dawsn" else [0.0, -0.5, 1.0, 4.0, 7.0]
    for got, want in zip(
        _second_derivative(tapejax, name, x), _second_derivative(tensorflow, name, x), strict=True
    ):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=name)


# -- the submodule, traced use -----------------------------------------------------------------


def test_the_submodule_is_tfs():
    import tapejax.math.special as special_by_import
    from tapejax.math.special import bessel_k0

    assert special_by_import is tapejax.math.special
    assert bessel_k0 is tapejax.math.special.bessel_k0
    theirs = {n for n in dir(tensorflow.math.special) if not n.startswith("_")}
    assert set(tapejax.math.special.__all__) == theirs
    for n in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"):
        assert getattr(tapejax.math.special, n) is getattr(tapejax.math, n)


@pytest.mark.parametrize("name", NEW_OPS)
def test_kernels_jit_and_vmap(name):
    """No Python control flow on values: the pure function jits and vmaps, with the eager
    op's values."""
    x = np.array([[0.0, 0.3, 1.7, 2.5], [4.5, 7.0, 40.0, np.nan]], np.float32)
    eager = getattr(tapejax.math.special, name)(x).numpy()
    fn = getattr(tapejax.math.special, name).op.fn
    np.testing.assert_allclose(np.asarray(jax.jit(jax.vmap(fn))(x)), eager, rtol=1e-6)
    row = jax.jit(jax.vmap(jax.grad(lambda v: fn(v))))(x[0])
    want = grad_of(tapejax, _special_fn(name), x[0])
    np.testing.assert_allclose(np.asarray(row), want, rtol=1e-6, atol=1e-7)


# -- errors and dtype acceptance ------------------------------------------------------------------

ERRORS = [
    (
        lambda tf: tf.math.special.bessel_k0(tf.constant([1, 2])),
        "InvalidArgumentError",
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.math.special.spence(tf.constant([1 + 1j], tf.complex64)),
        "InvalidArgumentError",
        r"Value for attr 'T' of complex64 is not in the list of allowed values: bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.math.special.dawsn(tf.constant([1.0], tf.float16)),
        "NotFoundError",
        r"Could not find device for node: \{\{node Dawsn\}\} = Dawsn\[T=DT_HALF\]",
    ),
    (
        lambda tf: tf.math.special.expint(tf.constant([1.0], tf.bfloat16)),
        "NotFoundError",
        r"Could not find device for node: \{\{node Expint\}\} = Expint\[T=DT_BFLOAT16\]",
    ),
    (
        lambda tf: tf.math.special.bessel_y1(tf.constant([1.0], tf.bfloat16)),
        "NotFoundError",
        r"Could not find device for node: \{\{node BesselY1\}\} = BesselY1\[T=DT_BFLOAT16\]",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


ACCEPTANCE_DTYPES = ("float16", "bfloat16", "float32", "int32", "uint8", "bool", "complex64")


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW_OPS)
def test_op_accepts_the_dtypes_tf_accepts(name):
    check_dtype_acceptance(f"math.special.{name}", _special_fn(name), ACCEPTANCE_DTYPES)
