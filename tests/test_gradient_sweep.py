"""First-order gradients of every op tapejax shares with TF, at edge points, against live TF.

Each public function of ``tf``, ``tf.math``, ``tf.nn``, ``tf.linalg``, ``tf.signal`` and
``tf.image`` that tapejax also provides is called on float32 tensors under a
``GradientTape`` in both libraries, with its default arguments, and the gradient (with
TF's implicit all-ones upstream) is compared: ``None`` in the same places, the same
shapes, the same values with NaN and infinity in the same places. The inputs are where
hand-written gradient rules go wrong: zeros of both signs, ties, NaN and infinities, and
values that overflow ``exp``. Calls TF rejects, or whose output is not float32, are
skipped; a call TF accepts and tapejax does not is a difference. A second sweep does the
same with complex64 inputs (real and imaginary parts from the same edge values), keeping
complex64 and float32 outputs (``abs``, ``angle``, ``real``), where TF's gradients are the
conjugates of JAX's.

Mixed-precision training differentiates in float16 and bfloat16, so a third sweep runs a
subset of the input sets ("edge", "special", "ties2") in each, where TF's gradient dtype
is the source's and the values must agree within a few units of the half type's rounding.
A fourth runs "edge", "special", "zero2" and "tiny64" (+-1e-300, +-1e300, the subnormal
+-1e-310) in float64, under JAX's x64 mode (the ``x64`` fixture). The subsets keep each
sweep's time near the float32 one's.

An op added to tapejax is swept without a new line here. ``KNOWN`` (``KNOWN_COMPLEX``,
``KNOWN_HALF``, ``KNOWN_64``) lists the differences kept on purpose, each a row of
``docs/compat.md``; the test fails when one goes away too, so that the table stays true.
"""

import inspect

import ml_dtypes
import numpy as np
import pytest

tf_ = pytest.importorskip("tensorflow")
import tapejax  # noqa: E402

inf, nan = np.inf, np.nan

# One input for ops of one tensor; pairs for ops of two (both of shape (8,)).
SINGLE = {
    "edge": [-2.0, -1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 2.0],
    "ties": [1.0, 1.0, 0.0, -1.0, 1.0, 0.0, -1.0, 0.0],
    "special": [inf, -inf, nan, 0.0, 1e-30, -1e-30, 3e38, 1.0],
    "big": [80.0, -80.0, 100.0, -100.0, 1e10, -1e10, 30.0, -30.0],
    "zeros": [0.0] * 8,
}
PAIRS = {
    "ties2": (
        [0.0, 1.0, 2.0, -1.0, 0.0, 3.0, -2.0, 0.0],
        [0.0, 1.0, 3.0, 1.0, 2.0, 3.0, -2.0, -1.0],
    ),
    "zero2": (
        [0.0, 0.0, 1.0, -1.0, 2.0, 0.0, -0.0, 4.0],
        [0.0, 2.0, 0.0, 0.0, -1.0, -1.0, 0.0, 0.5],
    ),
}
NAMESPACES = ("", "math", "nn", "linalg", "signal", "image")


def _complex(re, im):
    out = np.empty(len(re), np.complex64)
    out.real, out.imag = re, im
    return out


COMPLEX_SINGLE = {
    "cedge": _complex(
        [-2.0, -1.0, 0.0, -0.0, 0.5, 1.0, 2.0, 0.0], [1.0, 0.0, 0.0, -0.0, -0.5, -1.0, 2.0, 1.0]
    ),
    "creal": _complex([-2.0, -1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 2.0], [0.0] * 8),
    "cimag": _complex([0.0] * 8, [-2.0, -1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 2.0]),
    "cties": _complex(
        [1.0, 1.0, 0.0, -1.0, 1.0, 0.0, -1.0, 0.0], [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    ),
    "cspecial": _complex(
        [inf, -inf, nan, 0.0, 1e-30, 1.0, 3e38, 1.0], [1.0, 0.0, 1.0, inf, 1e-30, nan, 3e38, -inf]
    ),
    "cbig": _complex(
        [80.0, -80.0, 100.0, 1e10, 0.0, 30.0, -30.0, 1.0],
        [1.0, 2.0, -100.0, 1.0, 80.0, 30.0, 30.0, 1e10],
    ),
}
COMPLEX_PAIRS = {
    "cties2": (
        _complex(
            [0.0, 1.0, 2.0, -1.0, 0.0, 3.0, -2.0, 0.0], [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
        ),
        _complex(
            [0.0, 1.0, 3.0, 1.0, 2.0, 3.0, -2.0, -1.0], [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
        ),
    ),
    "czero2": (
        _complex(
            [0.0, 0.0, 1.0, -1.0, 2.0, 0.0, -0.0, 4.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
        ),
        _complex(
            [0.0, 2.0, 0.0, 0.0, -1.0, -1.0, 0.0, 0.5], [0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0]
        ),
    ),
}

# Not swept: functions that run user code or take no tensor, ops without a gradient by
# definition, and random ops (tapejax's streams are not TF's: docs/compat.md).
SKIP = {
    "case", "cond", "control_dependencies", "custom_gradient", "device", "dropout",
    "ensure_shape", "executing_eagerly", "foldl", "foldr", "function", "get_logger",
    "grad_pass_through", "group", "identity_n", "init_scope", "map_fn", "name_scope",
    "numpy_function", "print", "py_function", "recompute_grad", "scan", "stop_gradient",
    "switch_case", "tuple", "vectorized_map", "while_loop",
    "categorical", "gamma", "normal", "poisson", "random_crop", "shuffle",
    "stateless_random_uniform", "truncated_normal", "uniform",
}  # fmt: skip

# Deliberate differences: (op, input set, argument index) -> the docs/compat.md entry.
_NAN_ORDER = "Values and dtypes: `top_k`, `sort`, `argsort` of an input holding NaN"
_ISOTONIC = "tapejax.nn: `isotonic_regression`'s gradient (TF's 1-D gradient is [n, 1])"
_SILU_BETA = "tapejax.nn: `silu`/`swish` with a `beta` tensor that is not a scalar"
KNOWN: dict[tuple[str, str, int], str] = {
    ("math.top_k", "special", 0): _NAN_ORDER,
    ("nn.top_k", "special", 0): _NAN_ORDER,
    **{("nn.isotonic_regression", label, 0): _ISOTONIC for label in SINGLE},
    **{(f"nn.{name}", label, 1): _SILU_BETA for name in ("silu", "swish") for label in PAIRS},
}

_EIGEN_COMPLEX = "tapejax.math: complex gradients at infinite, NaN, overflowing or tiny parts"
_BRANCH_CUT = "tapejax.math: complex `acos`/`asin`/`acosh` gradients on their branch cuts"
_POW_ZERO = "tapejax.math: complex `pow` gradients at x = 0"
_ON_CUT = {"acos": ("creal", "cties2", "czero2"), "asin": ("creal", "cties2", "czero2")}
_ON_CUT["acosh"] = ("cedge", "cimag")
_SPECIAL_ONLY = ("abs", "sign", "acos", "asin", "acosh", "asinh", "atan", "atanh", "sqrt")
_SPECIAL_ONLY += ("square", "tan")
_MATH_SPECIAL = ("angle", "log", "log1p", "reciprocal", "reciprocal_no_nan", "rsqrt")
KNOWN_COMPLEX: dict[tuple[str, str, int], str] = {
    **{(key, "cspecial", 0): _EIGEN_COMPLEX for n in _SPECIAL_ONLY for key in (n, f"math.{n}")},
    **{(f"math.{n}", "cspecial", 0): _EIGEN_COMPLEX for n in _MATH_SPECIAL},
    **{(key, "cbig", 0): _EIGEN_COMPLEX for key in ("tan", "math.tan")},
    **{
        (k, label, 0): _BRANCH_CUT
        for n, ls in _ON_CUT.items()
        for k in (n, f"math.{n}")
        for label in ls
    },
    **{
        (key, label, i): _POW_ZERO
        for key in ("pow", "math.pow")
        for label, i in (("cties2", 1), ("czero2", 0), ("czero2", 1))
    },
    **{(f"nn.{n}", label, 1): _SILU_BETA for n in ("silu", "swish") for label in COMPLEX_PAIRS},
}


# Half types (mixed-precision training): a chosen subset of the input sets, to keep the
# sweep's time down; TF's gradient dtype is the source's, and the values agree within a
# few units of the half type's rounding. sequence_mask of 3e38 in bfloat16 makes TF try
# to allocate it (its output is bool: it has no gradient to compare).
_HALF_TYPES = (np.float16, ml_dtypes.bfloat16)
_HALF_SKIP = {"sequence_mask"}
_HALF_LABELS = ("edge", "special", "ties2")
_HALF_TOL = {"float16": (4e-3, 1e-3), "bfloat16": (3e-2, 1e-2)}
KNOWN_HALF: dict[tuple[str, str, str, int], str] = {
    **{(dt, k, "special", 0): _NAN_ORDER for dt in _HALF_TOL for k in ("math.top_k", "nn.top_k")},
    **{(dt, "nn.isotonic_regression", label, 0): _ISOTONIC for dt in _HALF_TOL
       for label in ("edge", "special")},
    **{("float16", f"nn.{name}", "ties2", 1): _SILU_BETA for name in ("silu", "swish")},
}  # fmt: skip

# float64 (JAX's x64 mode): the float32 input sets of the subset plus "tiny64", whose
# 1e-310 is subnormal (TF's CPU kernels may flush it to zero where XLA keeps it; no op's
# gradient differs for it) and whose +-1e300 overflow squares.
_F64_LABELS = ("edge", "special", "zero2", "tiny64")
_TINY64 = [1e-300, 1e300, 1e-310, -1e-310, -1e-300, -1e300, 0.0, 1.0]
_SUM_ORDER = "Values and dtypes: sums whose terms cancel (`reduce_variance` of ±1e300 in float64)"
KNOWN_64: dict[tuple[str, str, int], str] = {
    **{(k, "special", 0): _NAN_ORDER for k in ("math.top_k", "nn.top_k")},
    **{("nn.isotonic_regression", label, 0): _ISOTONIC for label in ("edge", "special", "tiny64")},
    **{(f"nn.{name}", "zero2", 1): _SILU_BETA for name in ("silu", "swish")},
    ("math.reduce_variance", "tiny64", 0): _SUM_ORDER,
}


def _gradient(lib, ns, name, arrays, dtype=np.float32, outputs=("float32",)):
    """``("ok", [gradient or None, ...])``, ``("skip",)`` when the output's dtype is not
    one of ``outputs``, or ``("error", text)``."""
    try:
        xs = [lib.constant(np.asarray(a, dtype)) for a in arrays]
        fn = getattr(getattr(lib, ns) if ns else lib, name)
        with lib.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            out = fn(*xs)
            if isinstance(out, (list, tuple)):
                out = out[0]
            if getattr(getattr(out, "dtype", None), "name", None) not in outputs:
                return ("skip",)
        grads = tape.gradient(out, xs)
        return ("ok", [None if g is None else np.asarray(lib.convert_to_tensor(g)) for g in grads])
    except Exception as e:  # noqa: BLE001 - any failure is an outcome to compare
        return ("error", f"{type(e).__name__}: {str(e)[:200]}")


def _names(ns):
    tf_ns = getattr(tf_, ns) if ns else tf_
    ours = getattr(tapejax, ns) if ns else tapejax
    for name in sorted(dir(tf_ns)):
        fn = getattr(tf_ns, name)
        if name.startswith("_") or name in SKIP or not hasattr(ours, name):
            continue
        if callable(fn) and not inspect.isclass(fn) and not inspect.ismodule(fn):
            yield name


def _differences(ns, label, arrays, dtype=np.float32, outputs=("float32",), tol=(1e-4, 1e-5)):
    found = {}
    rtol, atol = tol
    for name in _names(ns):
        if dtype in _HALF_TYPES and name in _HALF_SKIP:
            continue
        theirs = _gradient(tf_, ns, name, arrays, dtype, outputs)
        if theirs[0] != "ok":
            continue
        key = f"{ns}.{name}" if ns else name
        ours = _gradient(tapejax, ns, name, arrays, dtype, outputs)
        if ours[0] != "ok":
            found[(key, label, -1)] = f"TF computes a gradient; tapejax: {ours[1:]}"
            continue
        for i, (a, b) in enumerate(zip(theirs[1], ours[1])):
            if a is None or b is None:
                if (a is None) != (b is None):
                    found[(key, label, i)] = f"None: TF {a is None}, tapejax {b is None}"
            elif a.shape != b.shape:
                found[(key, label, i)] = f"shape: TF {a.shape}, tapejax {b.shape}"
            elif a.dtype != b.dtype:
                found[(key, label, i)] = f"dtype: TF {a.dtype}, tapejax {b.dtype}"
            elif not np.allclose(*_wide(a, b), rtol=rtol, atol=atol, equal_nan=True):
                bad = ~np.isclose(*_wide(a, b), rtol=rtol, atol=atol, equal_nan=True)
                found[(key, label, i)] = (
                    f"values at {np.asarray(arrays[i])[bad].tolist()}: TF {a[bad].tolist()}, "
                    f"tapejax {b[bad].tolist()}"
                )
    return found


def _wide(a, b):
    # ml_dtypes' bfloat16 has no np.isclose; the comparison is exact in float64.
    if a.dtype.kind == "c":
        return a, b
    return a.astype(np.float64), b.astype(np.float64)


_CASES = [(label, [values]) for label, values in SINGLE.items()]
_CASES += [(label, list(pair)) for label, pair in PAIRS.items()]


@pytest.mark.slow
@pytest.mark.parametrize("ns", NAMESPACES, ids=lambda ns: ns or "tf")
@pytest.mark.parametrize("label, arrays", _CASES, ids=[label for label, _ in _CASES])
def test_gradients_at_edge_points_are_tfs(ns, label, arrays):
    found = _differences(ns, label, arrays)
    expected = {k for k in KNOWN if k[1] == label and k[0].rpartition(".")[0] == ns}
    unexpected = {k: v for k, v in found.items() if k not in KNOWN}
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in sorted(unexpected.items()))
    assert expected <= set(found), f"listed in KNOWN but now equal to TF: {expected - set(found)}"


_COMPLEX_CASES = [(label, [values]) for label, values in COMPLEX_SINGLE.items()]
_COMPLEX_CASES += [(label, list(pair)) for label, pair in COMPLEX_PAIRS.items()]


@pytest.mark.slow
@pytest.mark.parametrize("ns", NAMESPACES, ids=lambda ns: ns or "tf")
@pytest.mark.parametrize(
    "label, arrays", _COMPLEX_CASES, ids=[label for label, _ in _COMPLEX_CASES]
)
def test_complex_gradients_at_edge_points_are_tfs(ns, label, arrays):
    found = _differences(ns, label, arrays, np.complex64, ("complex64", "float32"))
    expected = {k for k in KNOWN_COMPLEX if k[1] == label and k[0].rpartition(".")[0] == ns}
    unexpected = {k: v for k, v in found.items() if k not in KNOWN_COMPLEX}
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in sorted(unexpected.items()))
    assert expected <= set(found), (
        f"listed in KNOWN_COMPLEX but now equal to TF: {expected - set(found)}"
    )


_HALF_CASES = [(label, arrays) for label, arrays in _CASES if label in _HALF_LABELS]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", list(_HALF_TOL))
@pytest.mark.parametrize("ns", NAMESPACES, ids=lambda ns: ns or "tf")
@pytest.mark.parametrize("label, arrays", _HALF_CASES, ids=[label for label, _ in _HALF_CASES])
def test_half_precision_gradients_at_edge_points_are_tfs(dtype, ns, label, arrays):
    np_dtype = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    found = _differences(ns, label, arrays, np_dtype, (dtype,), _HALF_TOL[dtype])
    found = {(dtype, *k): v for k, v in found.items()}
    ns_of = {k for k in KNOWN_HALF if k[0] == dtype and k[2] == label}
    expected = {k for k in ns_of if k[1].rpartition(".")[0] == ns}
    unexpected = {k: v for k, v in found.items() if k not in KNOWN_HALF}
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in sorted(unexpected.items()))
    assert expected <= set(found), (
        f"listed in KNOWN_HALF but now equal to TF: {expected - set(found)}"
    )


_F64_CASES = [(label, arrays) for label, arrays in _CASES if label in _F64_LABELS]
_F64_CASES.append(("tiny64", [_TINY64]))


@pytest.mark.slow
@pytest.mark.parametrize("ns", NAMESPACES, ids=lambda ns: ns or "tf")
@pytest.mark.parametrize("label, arrays", _F64_CASES, ids=[label for label, _ in _F64_CASES])
def test_float64_gradients_at_edge_points_are_tfs(x64, ns, label, arrays):
    found = _differences(ns, label, arrays, np.float64, ("float64",), (1e-12, 1e-14))
    expected = {k for k in KNOWN_64 if k[1] == label and k[0].rpartition(".")[0] == ns}
    unexpected = {k: v for k, v in found.items() if k not in KNOWN_64}
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in sorted(unexpected.items()))
    assert expected <= set(found), (
        f"listed in KNOWN_64 but now equal to TF: {expected - set(found)}"
    )
