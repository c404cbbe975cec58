"""``tapejax.linalg.LinearOperator`` and its family, side by side with TensorFlow's.

Each operator class is built under both frameworks from the same NumPy data (its tensors
as Variables) by a builder in ``BUILDERS``. For a few dtypes and batch shapes every public
property and method is called under both: results (tensors, operators, lists of blocks)
must match TF's values, dtypes and shapes, and where TF raises tapejax must raise the same
exception type. The gradient of a scalar made of several methods with respect to the
operator's Variables must equal TF's. Constructor errors are compared with TF's types and
texts; a few tests use operators inside ``tapejax.function``.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}

PUBLIC_CLASSES = [
    tapejax.linalg.LinearOperator,
    tapejax.linalg.LinearOperatorAdjoint,
    tapejax.linalg.LinearOperatorBlockDiag,
    tapejax.linalg.LinearOperatorBlockLowerTriangular,
    tapejax.linalg.LinearOperatorCirculant,
    tapejax.linalg.LinearOperatorCirculant2D,
    tapejax.linalg.LinearOperatorCirculant3D,
    tapejax.linalg.LinearOperatorComposition,
    tapejax.linalg.LinearOperatorDiag,
    tapejax.linalg.LinearOperatorFullMatrix,
    tapejax.linalg.LinearOperatorHouseholder,
    tapejax.linalg.LinearOperatorIdentity,
    tapejax.linalg.LinearOperatorInversion,
    tapejax.linalg.LinearOperatorKronecker,
    tapejax.linalg.LinearOperatorLowRankUpdate,
    tapejax.linalg.LinearOperatorLowerTriangular,
    tapejax.linalg.LinearOperatorPermutation,
    tapejax.linalg.LinearOperatorScaledIdentity,
    tapejax.linalg.LinearOperatorToeplitz,
    tapejax.linalg.LinearOperatorTridiag,
    tapejax.linalg.LinearOperatorZeros,
]


# -- test data ----------------------------------------------------------------------------------


def _rng(*key):
    return np.random.default_rng(abs(hash(key)) % 2**32)


def _data(dtype, shape, seed, lo=-1.0, hi=1.0):
    """Deterministic data of ``dtype`` (complex: random imaginary parts too)."""
    rng = np.random.default_rng(seed * 1000 + 7 * len(shape) + sum(shape))
    x = rng.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(lo, hi, shape)
    return x.astype(dtype)


def _well_conditioned(dtype, shape, seed):
    """``[..., n, n]`` matrices with a dominant diagonal."""
    n = shape[-1]
    return (_data(dtype, shape, seed) + 3 * np.eye(n)).astype(dtype)


def _spd(dtype, shape, seed):
    a = _data(dtype, shape, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _positive(dtype, shape, seed):
    """Entries with real parts in [1, 2]: away from 0 for solves and logs."""
    x = _data(dtype, shape, seed, 1.0, 2.0)
    return x


def _hermitian_spectrum(dtype, batch, block_shape, seed):
    """A positive spectrum whose convolution kernel is real (``s[k] = s[-k]``)."""
    s = _data(np.float64, tuple(batch) + tuple(block_shape), seed, 1.0, 2.0)
    axes = tuple(range(-len(block_shape), 0))
    flipped = np.roll(np.flip(s, axis=axes), shift=1, axis=axes)
    return ((s + flipped) / 2).astype(dtype)


class Built:
    """An operator under one framework, and the Variables it was built from."""

    def __init__(self, operator, variables):
        self.operator = operator
        self.variables = variables


def _var(fw, value, trainable=True):
    return fw.Variable(value, trainable=trainable)


# Builders: ``fn(fw, dtype, batch) -> Built``. ``batch`` is a tuple of batch dimensions.


def _full_matrix(fw, dtype, batch, **hints):
    m = _var(fw, _well_conditioned(dtype, batch + (3, 3), 1))
    return Built(fw.linalg.LinearOperatorFullMatrix(m, **hints), [m])


def _full_matrix_spd(fw, dtype, batch):
    m = _var(fw, _spd(dtype, batch + (3, 3), 2))
    op = fw.linalg.LinearOperatorFullMatrix(m, is_self_adjoint=True, is_positive_definite=True)
    return Built(op, [m])


def _diag(fw, dtype, batch, **hints):
    d = _var(fw, _positive(dtype, batch + (3,), 3))
    return Built(fw.linalg.LinearOperatorDiag(d, **hints), [d])


def _identity(fw, dtype, batch):
    return Built(
        fw.linalg.LinearOperatorIdentity(3, batch_shape=list(batch) or None, dtype=dtype), []
    )


def _scaled_identity(fw, dtype, batch):
    c = _var(fw, _positive(dtype, batch, 4))
    return Built(fw.linalg.LinearOperatorScaledIdentity(num_rows=3, multiplier=c), [c])


def _lower_triangular(fw, dtype, batch):
    t = _var(fw, _well_conditioned(dtype, batch + (3, 3), 5))
    return Built(fw.linalg.LinearOperatorLowerTriangular(t), [t])


def _composition(fw, dtype, batch):
    a, b = _full_matrix(fw, dtype, batch), _diag(fw, dtype, ())
    op = fw.linalg.LinearOperatorComposition([a.operator, b.operator])
    return Built(op, a.variables + b.variables)


def _adjoint(fw, dtype, batch):
    a = _full_matrix(fw, dtype, batch)
    return Built(fw.linalg.LinearOperatorAdjoint(a.operator), a.variables)


def _inversion(fw, dtype, batch):
    a = _full_matrix(fw, dtype, batch)
    return Built(fw.linalg.LinearOperatorInversion(a.operator), a.variables)


def _block_diag(fw, dtype, batch):
    m = _var(fw, _well_conditioned(dtype, batch + (2, 2), 6))
    d = _var(fw, _positive(dtype, (1,), 7))
    blocks = [fw.linalg.LinearOperatorFullMatrix(m), fw.linalg.LinearOperatorDiag(d)]
    return Built(fw.linalg.LinearOperatorBlockDiag(blocks), [m, d])


def _block_lower_triangular(fw, dtype, batch):
    d = _var(fw, _positive(dtype, batch + (2,), 8))
    b = _var(fw, _data(dtype, (1, 2), 9))
    c = _var(fw, _well_conditioned(dtype, (1, 1), 10))
    ops = fw.linalg
    rows = [
        [ops.LinearOperatorDiag(d)],
        [ops.LinearOperatorFullMatrix(b), ops.LinearOperatorFullMatrix(c)],
    ]
    return Built(ops.LinearOperatorBlockLowerTriangular(rows), [d, b, c])


def _kronecker(fw, dtype, batch):
    m = _var(fw, _well_conditioned(dtype, batch + (2, 2), 11))
    d = _var(fw, _positive(dtype, (2,), 12))
    factors = [fw.linalg.LinearOperatorFullMatrix(m), fw.linalg.LinearOperatorDiag(d)]
    return Built(fw.linalg.LinearOperatorKronecker(factors), [m, d])


def _low_rank_update(fw, dtype, batch):
    d = _var(fw, _positive(dtype, batch + (3,), 13))
    u = _var(fw, _data(dtype, (3, 2), 14))
    base = fw.linalg.LinearOperatorDiag(d, is_positive_definite=True)
    return Built(fw.linalg.LinearOperatorLowRankUpdate(base, u), [d, u])


def _low_rank_update_general(fw, dtype, batch):
    m = _var(fw, _well_conditioned(dtype, batch + (3, 3), 15))
    u = _var(fw, _data(dtype, (3, 2), 16))
    v = _var(fw, _data(dtype, (3, 2), 17))
    s = _var(fw, _positive(dtype, (2,), 18))
    base = fw.linalg.LinearOperatorFullMatrix(m)
    op = fw.linalg.LinearOperatorLowRankUpdate(base, u, diag_update=s, v=v)
    return Built(op, [m, u, v, s])


def _zeros(fw, dtype, batch):
    return Built(fw.linalg.LinearOperatorZeros(3, batch_shape=list(batch) or None, dtype=dtype), [])


def _zeros_rectangular(fw, dtype, batch):
    op = fw.linalg.LinearOperatorZeros(
        2, 3, batch_shape=list(batch) or None, dtype=dtype, is_square=False, is_self_adjoint=False
    )
    return Built(op, [])


def _permutation(fw, dtype, batch):
    perm = np.stack([np.array([2, 0, 1], np.int32)] * int(np.prod(batch, dtype=int)))
    perm = perm.reshape(batch + (3,))
    if batch:
        perm[..., 0, :] = [1, 2, 0]
    return Built(fw.linalg.LinearOperatorPermutation(perm, dtype=dtype), [])


def _householder(fw, dtype, batch):
    v = _var(fw, _positive(dtype, batch + (3,), 19))
    return Built(fw.linalg.LinearOperatorHouseholder(v), [v])


def _toeplitz(fw, dtype, batch):
    col = _var(fw, _data(dtype, batch + (3,), 20) + np.array([3.0, 0.0, 0.0], dtype))
    row = _var(fw, _data(dtype, batch + (3,), 21))
    return Built(fw.linalg.LinearOperatorToeplitz(col=col, row=row), [col, row])


def _tridiag(fw, dtype, batch, diagonals_format="compact"):
    d = _data(dtype, batch + (3, 3), 22)
    d[..., 1, :] += 3
    if diagonals_format == "compact":
        diagonals = _var(fw, d)
        variables = [diagonals]
    elif diagonals_format == "sequence":
        diagonals = [_var(fw, d[..., i, :]) for i in range(3)]
        variables = diagonals
    else:
        dense = np.zeros(batch + (3, 3), dtype)
        for i in range(3):
            dense[..., i, i] = d[..., 1, i]
        for i in range(2):
            dense[..., i, i + 1] = d[..., 0, i]
            dense[..., i + 1, i] = d[..., 2, i + 1]
        diagonals = _var(fw, dense)
        variables = [diagonals]
    op = fw.linalg.LinearOperatorTridiag(diagonals, diagonals_format=diagonals_format)
    return Built(op, variables)


def _circulant(block_shape):
    classes = {1: "LinearOperatorCirculant", 2: "LinearOperatorCirculant2D"}
    classes[3] = "LinearOperatorCirculant3D"
    cls_name = classes[len(block_shape)]

    def build(fw, dtype, batch):
        if np.dtype(dtype).kind == "c":
            spectrum = _data(dtype, batch + block_shape, 23, 1.0, 2.0)
        else:
            spectrum = _hermitian_spectrum(dtype, batch, block_shape, 24)
        s = _var(fw, spectrum)
        op = getattr(fw.linalg, cls_name)(s, input_output_dtype=dtype)
        return Built(op, [s])

    return build


def _subclass(fw):
    class Scale(fw.linalg.LinearOperator):
        """``s * A`` for a fixed square ``A``, with only ``_shape`` and ``_matmul``."""

        def __init__(self, scale, matrix):
            self.scale = scale
            self.matrix = fw.convert_to_tensor(matrix)
            super().__init__(dtype=self.matrix.dtype, parameters=dict(scale=scale, matrix=matrix))

        def _shape(self):
            return self.matrix.shape

        def _shape_tensor(self):
            return fw.shape(self.matrix)

        def _matmul(self, x, adjoint=False, adjoint_arg=False):
            return self.scale * fw.linalg.matmul(
                self.matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg
            )

    return Scale


def _user_subclass(fw, dtype, batch):
    s = _var(fw, np.asarray(1.5, dtype))
    return Built(_subclass(fw)(s, _well_conditioned(dtype, batch + (3, 3), 63)), [s])


BUILDERS = {
    "FullMatrix": _full_matrix,
    "FullMatrixSPD": _full_matrix_spd,
    "Diag": _diag,
    "DiagPD": functools.partial(_diag, is_positive_definite=True),
    "Identity": _identity,
    "ScaledIdentity": _scaled_identity,
    "LowerTriangular": _lower_triangular,
    "Composition": _composition,
    "Adjoint": _adjoint,
    "Inversion": _inversion,
    "BlockDiag": _block_diag,
    "BlockLowerTriangular": _block_lower_triangular,
    "Kronecker": _kronecker,
    "LowRankUpdate": _low_rank_update,
    "LowRankUpdateGeneral": _low_rank_update_general,
    "Zeros": _zeros,
    "ZerosRectangular": _zeros_rectangular,
    "Permutation": _permutation,
    "Householder": _householder,
    "Toeplitz": _toeplitz,
    "Tridiag": _tridiag,
    "TridiagSequence": functools.partial(_tridiag, diagonals_format="sequence"),
    "TridiagMatrix": functools.partial(_tridiag, diagonals_format="matrix"),
    "Circulant": _circulant((4,)),
    "Circulant2D": _circulant((2, 3)),
    "Circulant3D": _circulant((2, 2, 2)),
    "Subclass": _user_subclass,
}


# Every builder runs at float32 with a batch dimension; a few also at complex64. The slow
# tier adds complex64 for the classes with code of their own for it (conjugations, complex
# spectra), float64 and no batch dimension for a few.
_FAST_COMPLEX = ("FullMatrix", "Diag", "LowRankUpdateGeneral", "Circulant2D", "Householder")
_SLOW_COMPLEX = (
    "LowerTriangular",
    "ScaledIdentity",
    "Composition",
    "Adjoint",
    "Inversion",
    "BlockDiag",
    "BlockLowerTriangular",
    "Kronecker",
    "LowRankUpdate",
    "Toeplitz",
    "Tridiag",
    "TridiagSequence",
    "Circulant",
    "Circulant3D",
)
_SLOW_FLOAT64 = ("FullMatrixSPD", "Kronecker", "Toeplitz", "Tridiag")
_SLOW_NO_BATCH = ("FullMatrix", "Identity", "ScaledIdentity", "Zeros", "Permutation", "Circulant")


def _param(name, dtype, batch, slow=False):
    case_id = f"{name}-{dtype}-{'x'.join(map(str, batch)) or 'nobatch'}"
    return pytest.param(name, dtype, batch, id=case_id, marks=(pytest.mark.slow,) if slow else ())


def _builder_params():
    params = [_param(name, "float32", (2,)) for name in BUILDERS]
    params += [_param(name, "complex64", (2,)) for name in _FAST_COMPLEX]
    params += [_param(name, "complex64", (2,), slow=True) for name in _SLOW_COMPLEX]
    params += [_param(name, "float64", (2,), slow=True) for name in _SLOW_FLOAT64]
    params += [_param(name, "float32", (), slow=True) for name in _SLOW_NO_BATCH]
    return params


# -- comparing results ---------------------------------------------------------------------------


def _tolerance(dtype_name):
    return (1e-9, 1e-10) if dtype_name in ("float64", "complex128") else (2e-4, 2e-5)


def _assert_same(got, want, what):
    """``got`` (tapejax) equals ``want`` (TF): exceptions by type, operators by class, hints
    and dense value, tensors by dtype, shape and value."""
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"{what}: TF raises {want!r}, tapejax gives {got!r}"
        assert type(got).__name__ == type(want).__name__, (
            f"{what}: tapejax raises {got!r}, TF raises {want!r}"
        )
        return
    assert not isinstance(got, Exception), f"{what}: tapejax raises {got!r}, TF gives {want!r}"
    if isinstance(want, tensorflow.linalg.LinearOperator):
        assert isinstance(got, tapejax.linalg.LinearOperator), f"{what}: {got!r}"
        assert type(got).__name__ == type(want).__name__, f"{what}: {type(got)} vs {type(want)}"
        for hint in ("is_non_singular", "is_self_adjoint", "is_positive_definite", "is_square"):
            assert getattr(got, hint) == getattr(want, hint), f"{what}.{hint}"
        assert got.name == want.name, f"{what}.name"
        _assert_same(_call(got.to_dense), _call(want.to_dense), f"{what}.to_dense()")
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{what}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, f"{what}[{i}]")
    elif isinstance(want, (tensorflow.Tensor, tensorflow.Variable)):
        assert isinstance(got, (tapejax.Tensor, tapejax.Variable)), f"{what}: {got!r}"
        assert got.dtype.name == want.dtype.name, f"{what}: dtype {got.dtype.name} vs TF's"
        assert got.shape.as_list() == want.shape.as_list(), f"{what}: {got.shape} vs {want.shape}"
        rtol, atol = _tolerance(want.dtype.name)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol, err_msg=what)
    elif isinstance(want, tensorflow.TensorShape):
        assert got.as_list() == want.as_list(), f"{what}: {got} vs {want}"
    elif isinstance(want, tensorflow.DType):
        assert got.name == want.name, f"{what}: {got} vs {want}"
    elif type(want).__name__ == "Dimension":  # TF's; tapejax's dimensions are ints
        assert got == want.value, f"{what}: {got} vs {want}"
    else:
        assert got == want, f"{what}: {got!r} vs TF's {want!r}"


def _call(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return e


def _args(fw, op_shape, dtype, seed):
    """Arguments for the methods: right-hand sides of every orientation (one with an extra
    batch dimension to broadcast), vectors and a matrix to add. Solves share one shape:
    each new shape compiles a new solver program."""
    *batch, m, n = op_shape
    batch = tuple(batch)
    return {
        "x": fw.constant(_data(dtype, batch + (n, 2), seed)),
        "x_adjoint": fw.constant(_data(dtype, (2,) + batch + (m, 2), seed + 1)),
        "x_arg_adjoint": fw.constant(_data(dtype, batch + (2, n), seed + 2)),
        "rhs": fw.constant(_data(dtype, batch + (m, 2), seed + 3)),
        "rhs_adjoint": fw.constant(_data(dtype, batch + (n, 2), seed + 4)),
        "rhs_arg_adjoint": fw.constant(_data(dtype, batch + (2, m), seed + 5)),
        "v": fw.constant(_data(dtype, batch + (n,), seed + 6)),
        "v_adjoint": fw.constant(_data(dtype, (m,), seed + 7)),
        "w": fw.constant(_data(dtype, batch + (m,), seed + 8)),
        "w_adjoint": fw.constant(_data(dtype, batch + (n,), seed + 9)),
        "y": fw.constant(_data(dtype, batch + (m, n), seed + 10)),
    }


# Every public method and property, as ``(label, fn(operator, fw, args))``.
METHODS = [
    ("shape", lambda op, fw, a: op.shape),
    ("batch_shape", lambda op, fw, a: op.batch_shape),
    ("tensor_rank", lambda op, fw, a: op.tensor_rank),
    ("domain_dimension", lambda op, fw, a: op.domain_dimension),
    ("range_dimension", lambda op, fw, a: op.range_dimension),
    ("dtype", lambda op, fw, a: op.dtype),
    ("name", lambda op, fw, a: op.name),
    ("is_non_singular", lambda op, fw, a: op.is_non_singular),
    ("is_self_adjoint", lambda op, fw, a: op.is_self_adjoint),
    ("is_positive_definite", lambda op, fw, a: op.is_positive_definite),
    ("is_square", lambda op, fw, a: op.is_square),
    ("shape_tensor", lambda op, fw, a: op.shape_tensor()),
    ("batch_shape_tensor", lambda op, fw, a: op.batch_shape_tensor()),
    ("tensor_rank_tensor", lambda op, fw, a: op.tensor_rank_tensor()),
    ("domain_dimension_tensor", lambda op, fw, a: op.domain_dimension_tensor()),
    ("range_dimension_tensor", lambda op, fw, a: op.range_dimension_tensor()),
    ("to_dense", lambda op, fw, a: op.to_dense()),
    ("diag_part", lambda op, fw, a: op.diag_part()),
    ("trace", lambda op, fw, a: op.trace()),
    ("determinant", lambda op, fw, a: op.determinant()),
    ("log_abs_determinant", lambda op, fw, a: op.log_abs_determinant()),
    ("eigvals", lambda op, fw, a: op.eigvals()),
    ("cond", lambda op, fw, a: op.cond()),
    ("matmul", lambda op, fw, a: op.matmul(a["x"])),
    ("matmul(adjoint)", lambda op, fw, a: op.matmul(a["x_adjoint"], adjoint=True)),
    ("matmul(adjoint_arg)", lambda op, fw, a: op.matmul(a["x_arg_adjoint"], adjoint_arg=True)),
    (
        "matmul(adjoint, adjoint_arg)",
        lambda op, fw, a: op.matmul(fw.linalg.adjoint(a["x_adjoint"]), True, True),
    ),
    ("__matmul__", lambda op, fw, a: op @ a["x"]),
    ("matvec", lambda op, fw, a: op.matvec(a["v"])),
    ("matvec(adjoint)", lambda op, fw, a: op.matvec(a["v_adjoint"], adjoint=True)),
    ("solve", lambda op, fw, a: op.solve(a["rhs"])),
    ("solve(adjoint)", lambda op, fw, a: op.solve(a["rhs_adjoint"], adjoint=True)),
    ("solve(adjoint_arg)", lambda op, fw, a: op.solve(a["rhs_arg_adjoint"], adjoint_arg=True)),
    ("solvevec", lambda op, fw, a: op.solvevec(a["w"])),
    ("solvevec(adjoint)", lambda op, fw, a: op.solvevec(a["w_adjoint"], adjoint=True)),
    ("add_to_tensor", lambda op, fw, a: op.add_to_tensor(a["y"])),
    ("adjoint", lambda op, fw, a: op.adjoint()),
    ("H", lambda op, fw, a: op.H),
    ("inverse", lambda op, fw, a: op.inverse()),
    ("cholesky", lambda op, fw, a: op.cholesky()),
    ("matmul(operator)", lambda op, fw, a: op.matmul(op)),
    ("matmul(operator, adjoint)", lambda op, fw, a: op.matmul(op, adjoint=True)),
    ("solve(operator)", lambda op, fw, a: op.solve(op)),
    (
        "matmul(identity)",
        lambda op, fw, a: (
            op @ fw.linalg.LinearOperatorIdentity(op.domain_dimension, dtype=op.dtype)
        ),
    ),
    (
        "solve(scaled identity)",
        lambda op, fw, a: op.solve(
            fw.linalg.LinearOperatorScaledIdentity(op.range_dimension, fw.cast(2.0, op.dtype))
        ),
    ),
    ("assert_non_singular", lambda op, fw, a: op.assert_non_singular()),
    ("assert_positive_definite", lambda op, fw, a: op.assert_positive_definite()),
    ("assert_self_adjoint", lambda op, fw, a: op.assert_self_adjoint()),
    ("slice", lambda op, fw, a: op[0] if op.batch_shape.rank else op[...]),
]


def _results(fw, name, dtype, batch):
    built = BUILDERS[name](fw, dtype, batch)
    op = built.operator
    args = _args(fw, op.shape.as_list(), dtype, seed=30)
    return {label: _call(lambda fn=fn: fn(op, fw, args)) for label, fn in METHODS}


@pytest.mark.parametrize("name, dtype, batch", _builder_params())
def test_methods_match_tf(name, dtype, batch, request):
    if dtype == "float64":
        request.getfixturevalue("x64")
    got = _results(tapejax, name, dtype, batch)
    want = _results(tensorflow, name, dtype, batch)
    for label, _ in METHODS:
        _assert_same(got[label], want[label], f"{name}.{label}")


# -- gradients ------------------------------------------------------------------------------------

# The methods a scalar loss is made of (those an operator does not support are left out,
# under both frameworks alike; every method has its value compared above). For complex
# operators the determinants are left out: the dense ones go through ``linalg.det``/
# ``slogdet``, whose complex gradients are not TF's (TF's rules do not conjugate the
# determinant), a difference of those ops.
GRADIENT_METHODS = [
    "to_dense",
    "trace",
    "log_abs_determinant",
    "matmul(adjoint)",
    "matvec",
    "solve",
]
_DETERMINANTS = ("determinant", "log_abs_determinant")


def _loss_and_gradients(fw, name, dtype, batch):
    built = BUILDERS[name](fw, dtype, batch)
    op = built.operator
    args = _args(fw, op.shape.as_list(), dtype, seed=40)
    methods = dict(METHODS)
    used = []
    with fw.GradientTape() as tape:
        terms = []
        for i, label in enumerate(GRADIENT_METHODS):
            if np.dtype(dtype).kind == "c" and label in _DETERMINANTS:
                continue
            result = _call(lambda: methods[label](op, fw, args))  # noqa: B023 - called at once
            if isinstance(result, Exception):
                continue
            used.append(label)
            shape = tuple(result.shape.as_list())
            weights = fw.constant(_data(result.dtype.name, shape, 50 + i))
            term = result * weights
            if term.dtype.is_complex:
                term = fw.math.real(term) + 0.5 * fw.math.imag(term)
            terms.append(fw.reduce_sum(term))
        loss = fw.add_n(terms)
    return used, loss, tape.gradient(loss, built.variables)


# A gradient program compiles in seconds: a few classes with code paths of their own run
# in the fast tier, the others (and complex dtypes but one) in the slow one.
_FAST_GRADIENTS = ("FullMatrix", "LowRankUpdate", "Kronecker", "Circulant2D", "Tridiag")
_UNTRAINABLE = ("Identity", "Zeros", "ZerosRectangular", "Permutation")


def _gradient_params():
    params = []
    for name in BUILDERS:
        if name in _UNTRAINABLE:
            continue
        slow = name not in _FAST_GRADIENTS
        params.append(pytest.param(name, "float32", id=f"{name}-float32", marks=_slow(slow)))
    params.append(pytest.param("FullMatrix", "complex64", id="FullMatrix-complex64"))
    params += [
        pytest.param(name, "complex64", id=f"{name}-complex64", marks=_slow(True))
        for name in _SLOW_COMPLEX
        if name not in ("Composition", "Inversion", "ScaledIdentity", "BlockDiag")
    ]
    return params


def _slow(slow):
    return (pytest.mark.slow,) if slow else ()


@pytest.mark.parametrize("name, dtype", _gradient_params())
def test_gradients_match_tf(name, dtype):
    used, loss, got = _loss_and_gradients(tapejax, name, dtype, (2,))
    want_used, want_loss, want = _loss_and_gradients(tensorflow, name, dtype, (2,))
    assert used == want_used
    assert len(used) >= 4, f"{name}: only {used} differentiate"
    np.testing.assert_allclose(loss.numpy(), want_loss.numpy(), rtol=2e-4)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w is None:
            assert g is None, f"{name}: gradient #{i} is {g!r}, TF's is None"
            continue
        assert g is not None, f"{name}: gradient #{i} is None, TF's is {w!r}"
        np.testing.assert_allclose(
            g.numpy(), w.numpy(), rtol=2e-3, atol=2e-4, err_msg=f"{name}: gradient #{i}"
        )


# -- errors ------------------------------------------------------------------------------------------

_E = re.escape
IAE = "InvalidArgumentError"


def _diag_of(fw, values, dtype="float32", **hints):
    return fw.linalg.LinearOperatorDiag(fw.constant(values, dtype), **hints)


ERRORS = [
    # hints
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(
            tf.eye(2), is_positive_definite=True, is_non_singular=False
        ),
        "ValueError",
        _E("A positive definite matrix is always non-singular."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(
            tf.eye(2), is_non_singular=True, is_square=False
        ),
        "ValueError",
        _E("A non-singular matrix is always square."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(
            tf.eye(2), is_self_adjoint=True, is_square=False
        ),
        "ValueError",
        _E("A self-adjoint matrix is always square."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.eye(2), is_square=False).is_square,
        "ValueError",
        _E("User set is_square hint to False, but the operator was square."),
    ),
    # constructors
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix([[1, 2], [3, 4]]),
        "TypeError",
        _E(
            "Argument `matrix` must have dtype in [tf.float16, tf.float32, tf.float64, tf.complex64, tf.complex128]. Received: <dtype: 'int32'>."
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix([1.0, 2.0]),
        "ValueError",
        _E("Argument `matrix` must have at least 2 dimensions. Received: "),
    ),
    (
        lambda tf: _diag_of(tf, 1.0),
        "ValueError",
        _E("Argument diag must have at least 1 dimension."),
    ),
    (
        lambda tf: _diag_of(tf, [1.0], is_self_adjoint=False),
        "ValueError",
        _E("A real diagonal operator is always self adjoint."),
    ),
    (
        lambda tf: _diag_of(tf, [1.0], is_square=False),
        "ValueError",
        _E("Only square diagonal operators currently supported."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorIdentity(2, is_self_adjoint=False),
        "ValueError",
        _E("An identity operator is always self adjoint."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorIdentity(-1),
        "ValueError",
        _E("Argument num_rows must be non-negative.  Found: -1"),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorIdentity(2.0),
        "TypeError",
        _E("Argument num_rows must be integer type.  Found: "),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorIdentity([2, 3]),
        "ValueError",
        _E("Argument num_rows must be a 0-D Tensor.  Found: [2 3]"),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorIdentity(2, batch_shape=[-1]),
        "ValueError",
        _E("Argument batch_shape must be non-negative.  Found:[-1]"),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorIdentity(2, batch_shape=[[1]]),
        "ValueError",
        _E("Argument batch_shape must be a 1-D Tensor.  Found: [[1]]"),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorIdentity(-1, assert_proper_shapes=True),
        IAE,
        _E(
            "Argument num_rows must be non-negative..  \nCondition x >= 0 did not hold element-wise:\nx (shape=() dtype=int32) = \n-1"
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorIdentity(tf.Variable(2)),
        "TypeError",
        "Argument num_rows cannot be reference type.",
    ),
    (
        lambda tf: tf.linalg.LinearOperatorScaledIdentity(2, 1.0, is_square=False),
        "ValueError",
        _E("A ScaledIdentity operator is always square."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorLowerTriangular(tf.eye(2), is_square=False),
        "ValueError",
        _E("Only square lower triangular operators supported at this time."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorComposition([]),
        "ValueError",
        _E("Expected a non-empty list of operators. Found: []"),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorComposition(tf.ones([2])),
        "TypeError",
        _E('Expected argument "values" to be a "proper" iterable.'),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorComposition(
            [_diag_of(tf, [1.0]), _diag_of(tf, [1.0], "float16")]
        ),
        "TypeError",
        _E(
            "Expected all operators to have the same dtype.  Found ('LinearOperatorDiag', tf.float32)   ('LinearOperatorDiag', tf.float16)"
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorComposition(
            [_diag_of(tf, [1.0], is_non_singular=True)], is_non_singular=False
        ),
        "ValueError",
        _E("The composition of non-singular operators is always non-singular."),
    ),
    (
        lambda tf: (
            tf.linalg.LinearOperatorComposition(
                [_diag_of(tf, [1.0, 2.0]), _diag_of(tf, [1.0])]
            ).shape
        ),
        "ValueError",
        _E("Dimensions 2 and 1 are not compatible"),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorAdjoint(
            _diag_of(tf, [1.0], is_non_singular=True), is_non_singular=False
        ),
        "ValueError",
        _E("An operator is non-singular if and only if its adjoint is non-singular."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorInversion(
            tf.linalg.LinearOperatorFullMatrix(tf.eye(2), is_non_singular=False)
        ),
        "ValueError",
        _E(
            "Argument `is_non_singular` or argument `operator` must have supplied hint `is_non_singular` equal to `True` or `None`. Found `operator.is_non_singular`: False, `is_non_singular`: None."
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorInversion(
            tf.linalg.LinearOperatorFullMatrix(tf.ones([2, 3]))
        ),
        "ValueError",
        _E(
            "Argument `is_square` or argument `operator` must have supplied hint `is_square` equal to `True` or `None`."
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorBlockDiag([_diag_of(tf, [1.0])], is_self_adjoint=False),
        "ValueError",
        _E("The direct sum of self-adjoint operators is always self-adjoint."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorBlockLowerTriangular(
            [[_diag_of(tf, [1.0]), _diag_of(tf, [1.0])]]
        ),
        "ValueError",
        _E("Argument `operators[0]` must contain `1` blocks. Received: 2 blocks."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorBlockLowerTriangular(
            [
                [_diag_of(tf, [1.0])],
                [tf.linalg.LinearOperatorFullMatrix(tf.ones([1, 2])), _diag_of(tf, [1.0])],
            ]
        ),
        "ValueError",
        _E(
            "Argument `operators[1][0].domain_dimension` (2) must be the same as `operators[0][0].domain_dimension` (1)."
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorBlockLowerTriangular([]),
        "ValueError",
        _E("Argument `operators` must be a list of >=1 operators. Received: []."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorKronecker([]),
        "ValueError",
        _E("Argument `operators` must be a list of >=1 operators. Received: []."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorKronecker(
            [_diag_of(tf, [1.0]), _diag_of(tf, [1.0], "float16")]
        ),
        "TypeError",
        _E(
            """Expected every operation in argument `operators` to have the same dtype. Received ["('LinearOperatorDiag', tf.float32)", "('LinearOperatorDiag', tf.float16)"]."""
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorLowRankUpdate(
            _diag_of(tf, [1.0, 2.0]), tf.ones([2, 1]), is_diag_update_positive=False
        ),
        "ValueError",
        _E("Default diagonal is the identity, which is positive."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorLowRankUpdate(
            _diag_of(tf, [1.0, 2.0]), tf.ones([2, 1]), is_self_adjoint=False
        ),
        "ValueError",
        _E("A = L + UDU^H, with L self-adjoint and D real diagonal."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorLowRankUpdate(_diag_of(tf, [1.0, 2.0]), tf.ones([3, 1])),
        "ValueError",
        _E("Dimensions 2 and 3 are not compatible"),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorZeros(2, 3),
        "ValueError",
        _E(
            "LinearOperatorZeros initialized as is_square=True, but got num_rows(2) != num_columns(3)"
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorZeros(2, is_non_singular=True),
        "ValueError",
        _E("A zero operator is always singular."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorPermutation([0, 0, 1]),
        "ValueError",
        _E("Argument `perm` must be a vector of unique integers from 0 to 2."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorPermutation([0.0, 1.0]),
        "TypeError",
        _E("Argument `perm` must be integer dtype."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorHouseholder([1.0, 0.0], is_positive_definite=True),
        "ValueError",
        _E("A Householder operator is always non-positive definite."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorToeplitz([1.0, 2.0], [1.0, 2.0, 3.0]),
        "ValueError",
        _E("Expected square matrix, got row and col with mismatched dimensions."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorTridiag(tf.ones([3, 3]), diagonals_format="banded"),
        "ValueError",
        _E(
            "Argument `diagonals_format` must be one of compact, matrix, or sequence. Received : banded."
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorCirculant2D([1.0, 2.0]),
        "ValueError",
        _E("Argument `spectrum` must have at least 2 dimensions."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorCirculant([1.0, 2.0], is_self_adjoint=False),
        "ValueError",
        _E("A real spectrum always corresponds to a self-adjoint operator."),
    ),
    # methods
    (
        lambda tf: _diag_of(tf, [1.0, 2.0]).matmul(tf.ones([2, 1], tf.float16)),
        "TypeError",
        _E(
            "Expected argument to have dtype <dtype: 'float32'>.  Found: <dtype: 'float16'> in tensor"
        ),
    ),
    (
        lambda tf: _diag_of(tf, [1.0, 2.0]).matmul(tf.ones([3, 1])),
        "ValueError",
        _E("Dimensions 2 and 3 are not compatible"),
    ),
    (
        lambda tf: _diag_of(tf, [1.0, 2.0]).matmul(_diag_of(tf, [1.0, 2.0, 3.0])),
        "ValueError",
        _E("Operators are incompatible. Expected `x` to have dimension 2 but got 3."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.eye(2), is_non_singular=False).solve(
            tf.ones([2, 1])
        ),
        "NotImplementedError",
        _E("Exact solve not implemented for an operator that is expected to be singular."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.ones([2, 3])).determinant(),
        "NotImplementedError",
        _E("Determinant not implemented for an operator that is expected to not be square."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.ones([2, 3])).inverse(),
        "ValueError",
        _E("Cannot take the Inverse: This operator represents a non square matrix."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.eye(2)).cholesky(),
        "ValueError",
        _E("Cannot take the Cholesky decomposition: Not a positive definite self adjoint matrix."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.eye(2)).eigvals(),
        "NotImplementedError",
        _E("Only self-adjoint matrices are supported."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.ones([2, 2])).solve(tf.ones([2, 1])),
        IAE,
        _E("Input matrix is not invertible."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorKronecker(
            [tf.linalg.LinearOperatorFullMatrix(tf.ones([2, 3]))]
        ).assert_non_singular(),
        IAE,
        _E("All Kronecker factors must be square for the product to be invertible."),
    ),
    (
        lambda tf: _diag_of(tf, [1.0, 0.0]).assert_non_singular(),
        IAE,
        _E(
            "Singular operator:  Diagonal contained zero values.\nCondition x < y did not hold.\nFirst 1 elements of x:\n[0.]\nFirst 2 elements of y:\n[1. 0.]"
        ),
    ),
    (
        lambda tf: _diag_of(tf, [1.0, -2.0]).assert_positive_definite(),
        IAE,
        _E(
            "Real diagonal operator had non-positive diagonal entries, thus was not positive definite..  \nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=float32) = \n['1.0', '-2.0']"
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(
            [[1.0, 2.0], [3.0, 4.0]]
        ).assert_self_adjoint(),
        IAE,
        _E("Matrix was not equal to its adjoint.\nCondition x == y did not hold."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(
            [[1.0, 2.0], [2.0, 4.0]]
        ).assert_non_singular(),
        IAE,
        _E("Singular matrix up to precision epsilon.\nCondition x < y did not hold."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorZeros(2).assert_non_singular(),
        IAE,
        _E("Zero operators are always non-invertible."),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorScaledIdentity(2, 0.0).assert_non_singular(),
        IAE,
        _E(
            "LinearOperator was singular.  \nCondition x > 0 did not hold element-wise:\nx (shape=() dtype=float32) = \n0.0"
        ),
    ),
    (
        lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.eye(2)).assert_positive_definite(),
        "NotImplementedError",
        _E("assert_positive_definite is not implemented."),
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


# -- tapejax.function, Module, subclassing ----------------------------------------------------------


def test_operator_built_and_differentiated_inside_function():
    m = tapejax.Variable(_spd("float32", (2, 3, 3), 60))
    x = tapejax.constant(_data("float32", (2, 3, 1), 61))

    def step(x):
        op = tapejax.linalg.LinearOperatorFullMatrix(
            m, is_self_adjoint=True, is_positive_definite=True
        )
        composed = op @ tapejax.linalg.LinearOperatorDiag(tapejax.ones([3]) * 2.0)
        with tapejax.GradientTape() as tape:
            loss = tapejax.reduce_sum(op.solve(x)) + tapejax.reduce_sum(op.log_abs_determinant())
            loss += tapejax.reduce_sum(composed.matmul(x, adjoint=True))
        return loss, tape.gradient(loss, m)

    compiled = tapejax.function(step)
    want_loss, want_grad = step(x)
    for _ in range(3):
        loss, grad = compiled(x)
        np.testing.assert_allclose(loss.numpy(), want_loss.numpy(), rtol=1e-5)
        np.testing.assert_allclose(grad.numpy(), want_grad.numpy(), rtol=1e-4, atol=1e-6)
    assert compiled.experimental_get_tracing_count() == 1
    tf_m = tensorflow.Variable(m.numpy())
    with tensorflow.GradientTape() as tape:
        tf_op = tensorflow.linalg.LinearOperatorFullMatrix(
            tf_m, is_self_adjoint=True, is_positive_definite=True
        )
        composed = tf_op @ tensorflow.linalg.LinearOperatorDiag(tensorflow.ones([3]) * 2.0)
        tf_x = tensorflow.constant(x.numpy())
        tf_loss = tensorflow.reduce_sum(tf_op.solve(tf_x)) + tensorflow.reduce_sum(
            tf_op.log_abs_determinant()
        )
        tf_loss += tensorflow.reduce_sum(composed.matmul(tf_x, adjoint=True))
    np.testing.assert_allclose(loss.numpy(), tf_loss.numpy(), rtol=1e-5)
    np.testing.assert_allclose(grad.numpy(), tape.gradient(tf_loss, tf_m).numpy(), rtol=1e-4)


def test_operator_as_argument_closure_and_result_of_function():
    d = tapejax.Variable([1.0, 2.0, 4.0])
    closed = tapejax.linalg.LinearOperatorLowRankUpdate(
        tapejax.linalg.LinearOperatorDiag(d, is_positive_definite=True), u=tapejax.ones([3, 1])
    )

    @tapejax.function
    def apply(op, x):
        return op.solvevec(x) + closed.matvec(x), op.inverse()

    x = tapejax.constant([1.0, -1.0, 2.0])
    for i in range(4):  # a new operator of the same structure: its tensors are arguments
        col = tapejax.constant([3.0 + i, 1.0, 0.5])
        arg = tapejax.linalg.LinearOperatorToeplitz(col=col, row=[3.0, 0.2, 0.1])
        got, inverse = apply(arg, x)
        np.testing.assert_allclose(
            got.numpy(), (arg.solvevec(x) + closed.matvec(x)).numpy(), rtol=1e-5
        )
        assert type(inverse).__name__ == "LinearOperatorInversion"
        np.testing.assert_allclose(
            inverse.to_dense().numpy(), np.linalg.inv(arg.to_dense().numpy()), rtol=1e-5
        )
    assert apply.experimental_get_tracing_count() == 1
    d.assign([2.0, 2.0, 2.0])  # the closure reads the Variable anew on every call
    np.testing.assert_allclose(
        apply(arg, x)[0].numpy(), (arg.solvevec(x) + closed.matvec(x)).numpy(), rtol=1e-5
    )
    apply(tapejax.linalg.LinearOperatorDiag([1.0, 2.0, 3.0]), x)  # another class: a new trace
    assert apply.experimental_get_tracing_count() == 2


def test_gradient_through_function_taking_an_operator():
    @tapejax.function
    def loss(op, x):
        return tapejax.reduce_sum(op.solvevec(x)) + op.log_abs_determinant()

    x = tapejax.constant([1.0, -1.0, 2.0])
    grads = []
    for fn in (loss, loss.python_function, loss):
        d = tapejax.constant([1.0, 2.0, 3.0])
        with tapejax.GradientTape() as tape:
            tape.watch(d)
            value = fn(tapejax.linalg.LinearOperatorDiag(d), x)
        grads.append(tape.gradient(value, d).numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
    np.testing.assert_allclose(grads[2], grads[1], rtol=1e-6)


def test_operator_parameters_traced_inside_function():
    @tapejax.function
    def solve(diag, spectrum, x):
        d = tapejax.linalg.LinearOperatorDiag(diag)
        c = tapejax.linalg.LinearOperatorCirculant(spectrum, input_output_dtype=tapejax.float32)
        return (d @ c).solvevec(x), (d @ c).log_abs_determinant()

    diag = tapejax.constant([1.0, 2.0, 3.0])
    spectrum = tapejax.constant(_hermitian_spectrum("float32", (), (3,), 62))
    x = tapejax.constant([1.0, 0.0, -1.0])
    for _ in range(2):
        got = solve(diag, spectrum, x)
    tf_op = tensorflow.linalg.LinearOperatorDiag(diag.numpy()) @ (
        tensorflow.linalg.LinearOperatorCirculant(
            spectrum.numpy(), input_output_dtype=tensorflow.float32
        )
    )
    np.testing.assert_allclose(got[0].numpy(), tf_op.solvevec(x.numpy()).numpy(), rtol=1e-5)
    np.testing.assert_allclose(got[1].numpy(), tf_op.log_abs_determinant().numpy(), rtol=1e-5)


def test_shape_arguments_must_be_known_while_tracing():
    @tapejax.function
    def identity(n):
        return tapejax.linalg.LinearOperatorIdentity(n).to_dense()

    identity(tapejax.constant(2))  # the eager first call
    with pytest.raises(NotImplementedError, match="`num_rows` must be known while tracing"):
        identity(tapejax.constant(2))


def test_operators_are_modules_with_tfs_variables():
    for cls in PUBLIC_CLASSES:
        assert issubclass(cls, tapejax.linalg.LinearOperator)
        assert issubclass(cls, tapejax.Module)
    for fw in FRAMEWORKS.values():
        built = _low_rank_update_general(fw, "float32", (2,))
        op = fw.linalg.LinearOperatorComposition(
            [built.operator, _diag(fw, "float32", ()).operator]
        )
        shapes = [v.shape.as_list() for v in op.trainable_variables]
        if fw is tapejax:
            got = shapes
        else:
            assert got == shapes
    assert op.submodules  # the factors


@pytest.mark.parametrize("name", ["FullMatrix", "LowRankUpdateGeneral", "Circulant"])
def test_solve_broadcasts_extra_batch_dimensions_of_rhs(name):
    """A right-hand side with more batch dimensions than the operator: TF folds them into
    columns (``_reshape_for_efficiency``) or broadcasts the operator."""
    results = {}
    for label, fw in FRAMEWORKS.items():
        built = BUILDERS[name](fw, "float32", (2,))
        shape = (4, 2, built.operator.shape[-2], 2)
        rhs = fw.constant(_data("float32", shape, 70))
        with fw.GradientTape() as tape:
            x = built.operator.solve(rhs, adjoint=True)
            loss = fw.reduce_sum(x * fw.constant(_data("float32", shape, 71)))
        results[label] = (x, tape.gradient(loss, built.variables))
    (x, grads), (want_x, want_grads) = results["tapejax"], results["tensorflow"]
    _assert_same(x, want_x, f"{name}.solve")
    for g, w in zip(grads, want_grads, strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-3, atol=1e-4)


def test_failed_assertions_inside_function_raise_tfs_error():
    @tapejax.function
    def checked(d):
        op = tapejax.linalg.LinearOperatorDiag(d)
        op.assert_positive_definite()
        return op.log_abs_determinant()

    for _ in range(2):
        np.testing.assert_allclose(checked(tapejax.constant([1.0, 2.0])).numpy(), np.log(2.0))
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="not positive definite"):
        checked(tapejax.constant([1.0, -2.0]))
