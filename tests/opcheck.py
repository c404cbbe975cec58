"""The op-test harness shared by ``tests/test_ops*.py``: test data, ``Case`` and its
builders, running a case under tapejax and under real TensorFlow, and the checks every
op file runs (values, Variables, tape gradients vs TF, ``check_grads`` of the pure
function).

An op file defines ``CASES`` (and ``NOT_DIFFERENTIABLE``, the names TF registers
without a gradient) and parametrizes the four ``check_*`` functions over them with
``value_params`` / ``grad_cases`` / ``first_of_each_op``; ``tests/test_ops.py`` fails
for any public op that no file has a case for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest
from jax.test_util import check_grads

import tapejax

tensorflow = pytest.importorskip("tensorflow")

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}

# -- inputs ----------------------------------------------------------------------------------


def arr(dtype, shape, lo=-2.0, hi=2.0, seed=0, away=0.0):
    """Deterministic test data: uniform in [lo, hi) (ints: [lo, hi]); ``away`` keeps floats
    that far from 0, off kinks and poles."""
    rng = np.random.default_rng(seed + 7 * len(shape) + sum(shape))
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) > 0.5
    if dt.kind in "iu":
        return rng.integers(int(lo), int(hi) + 1, shape).astype(dt)
    x = rng.uniform(lo, hi, shape)
    if away:
        x = np.where(x >= 0, np.maximum(x, away), np.minimum(x, -away))
    return x.astype(dt)


def distribution(dtype, shape, axis):
    """Positive values summing to 1 along ``axis``: valid soft labels."""
    x = arr("float64", shape, 0.1, 1.0, seed=1)
    return (x / x.sum(axis=axis, keepdims=True)).astype(dtype)


@dataclasses.dataclass(frozen=True)
class Case:
    """One public op. ``make(dtype, shape)`` gives its positional args (NumPy arrays become
    tensors) and keyword args; ``diff`` are the positions a gradient is checked for."""

    name: str
    make: Callable
    dtypes: tuple = ("float32",)
    shapes: tuple = ((3,), (2, 3))
    diff: tuple = ()
    x64: bool = False  # TF's result is 64-bit (int64 indices, float64 from int division)
    rtol: float = 1e-5
    atol: float = 1e-6

    def op(self, fw):
        obj = fw
        for part in self.name.split("."):
            obj = getattr(obj, part)
        return obj


def unary(name, dtypes=("float32",), diff=True, lo=-2.0, hi=2.0, away=0.3, **kw):
    return Case(
        name,
        lambda dt, shape: ((arr(dt, shape, lo, hi, away=away),), {}),
        dtypes=dtypes,
        diff=(0,) if diff else (),
        **kw,
    )


def binary(
    name, dtypes=("float32",), diff=True, lo=-2.0, hi=2.0, ylo=None, yhi=None, away=0.3, **kw
):
    def make(dt, shape):
        x = arr(dt, shape, lo, hi, away=away)
        y = arr(
            dt,
            shape[-1:],
            lo if ylo is None else ylo,
            hi if yhi is None else yhi,
            seed=1,
            away=away,
        )
        return (x, y), {}

    return Case(name, make, dtypes=dtypes, diff=(0, 1) if diff else (), **kw)


def reduction(name, dtypes=("float32", "int32"), diff=True, **kw):
    def make(dt, shape):
        return (arr(dt, shape, seed=3),), {
            "axis": -1 if len(shape) > 1 else None,
            "keepdims": len(shape) > 1,
        }

    return Case(name, make, dtypes=dtypes, diff=(0,) if diff else (), **kw)


def fixed(name, args, kwargs=None, dtypes=("float32",), diff=(), **kw):
    """An op whose inputs do not scale with dtype and shape."""
    return Case(
        name,
        lambda dt, shape: (args(dt), dict(kwargs or {})),
        dtypes=dtypes,
        shapes=((0,),),
        diff=diff,
        **kw,
    )


F, I, FI = ("float32",), ("int32",), ("float32", "int32")
B = ("bool",)


@dataclasses.dataclass(frozen=True)
class Sparse:
    """A SparseTensor argument of a Case: NumPy components, built in each framework. As a
    ``diff`` position, its ``values`` are the source of the gradient."""

    indices: np.ndarray
    values: np.ndarray
    dense_shape: tuple

    def build(self, fw, values=None):
        v = self.values if values is None else values
        if isinstance(v, np.ndarray):
            v = fw.constant(v)
        return fw.sparse.SparseTensor(np.asarray(self.indices, np.int64), v, self.dense_shape)


def sp(indices, values, dense_shape, dtype=np.int32) -> Sparse:
    """A ``Sparse`` from Python lists: ``indices`` as an int64 ``[n, rank]`` array."""
    return Sparse(
        np.array(indices, np.int64).reshape(-1, len(dense_shape)),
        np.array(values, dtype),
        tuple(int(d) for d in dense_shape),
    )


# -- running a case under a framework ---------------------------------------------------


def _to(fw, value, variable=False):
    if isinstance(value, Sparse):
        return value.build(fw)
    if isinstance(value, np.ndarray):
        return fw.Variable(value) if variable else fw.constant(value)
    if isinstance(value, list) and value and isinstance(value[0], (np.ndarray, Sparse)):
        return [_to(fw, v, variable) for v in value]
    return value


def run(case, fw, dtype, shape, variable=False):
    args, kwargs = case.make(dtype, shape)
    if "dtype" in kwargs and isinstance(kwargs["dtype"], str):
        kwargs["dtype"] = fw.as_dtype(kwargs["dtype"])
    if "output_type" in kwargs:
        kwargs["output_type"] = fw.as_dtype(kwargs["output_type"].name)
    args = [_to(fw, a, variable) for a in args]
    kwargs = {k: _to(fw, v, variable) for k, v in kwargs.items()}
    return case.op(fw)(*args, **kwargs)


def _flat(out):
    """The output Tensors: nested lists flattened, a SparseTensor as its three components."""
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    if all(hasattr(out, a) for a in ("indices", "values", "dense_shape")):
        return [out.indices, out.values, out.dense_shape]
    return [out]


def assert_same_result(got, want, case):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), f"{case.name}: {len(got)} outputs, TF has {len(want)}"
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, tapejax.Tensor), f"{case.name} returned {type(g).__name__}"
        assert g.dtype.name == w.dtype.name, f"{case.name}: dtype {g.dtype.name}, TF {w.dtype.name}"
        assert g.shape.as_list() == w.shape.as_list(), f"{case.name}: shape {g.shape}, TF {w.shape}"
        want_np = w.numpy()
        if want_np.dtype.kind in "fc":
            np.testing.assert_allclose(
                g.numpy().astype(want_np.dtype),
                want_np,
                rtol=case.rtol,
                atol=case.atol,
                err_msg=f"{case.name}: values differ from TF's",
            )
        else:
            np.testing.assert_array_equal(
                g.numpy(), want_np, err_msg=f"{case.name}: values differ from TF's"
            )


def _positions(case, dtype, shape):
    """The differentiable inputs' positions (ints: args, strs: kwargs) and their arrays."""
    args, kwargs = case.make(dtype, shape)
    return [(p, args[p] if isinstance(p, int) else kwargs[p]) for p in case.diff], args, kwargs


def _tape_gradient(case, fw, shape):
    positions, args, kwargs = _positions(case, "float32", shape)
    args, kwargs = list(args), dict(kwargs)
    sources = []
    for p, value in positions:
        t = fw.constant(value.values if isinstance(value, Sparse) else value)
        sources.append(t)
        if isinstance(value, Sparse):
            t = value.build(fw, t)
        if isinstance(p, int):
            args[p] = t
        else:
            kwargs[p] = t
    if "dtype" in kwargs and isinstance(kwargs["dtype"], str):
        kwargs["dtype"] = fw.as_dtype(kwargs["dtype"])
    args = [_to(fw, a) for a in args]
    kwargs = {k: _to(fw, v) for k, v in kwargs.items()}
    with fw.GradientTape() as tape:
        for s in sources:
            tape.watch(s)
        out = case.op(fw)(*args, **kwargs)
    targets = _flat(out)
    return tape.gradient(targets, sources)


def _check_pure_gradients(case, order):
    """``check_grads`` of the op's pure function (what a tape records), in float64."""
    dtype = "float64" if "float32" in case.dtypes else case.dtypes[0]
    positions, args, kwargs = _positions(case, dtype, case.shapes[-1])
    if any(np.asarray(_source(v)).dtype.kind != "f" for _, v in positions):
        pytest.skip("no floating input to differentiate")

    def f(*values):
        a, k = list(args), dict(kwargs)
        for (p, arg), v in zip(positions, values, strict=True):
            t = tapejax.convert_to_tensor(v)
            if isinstance(arg, Sparse):
                t = arg.build(tapejax, t)
            if isinstance(p, int):
                a[p] = t
            else:
                k[p] = t
        if k.get("dtype") == "float32":
            k["dtype"] = "float64"
        a = [_to(tapejax, x) for x in a]
        k = {n: _to(tapejax, x) for n, x in k.items()}
        return [t._value for t in _flat(case.op(tapejax)(*a, **k))]

    values = [np.asarray(_source(v), np.float64) for _, v in positions]
    check_grads(f, values, order=order, modes=["rev"], atol=1e-5, rtol=1e-5)


def _source(value):
    """The array a gradient is taken with respect to: a Sparse argument's values."""
    return value.values if isinstance(value, Sparse) else value


def _grad(fw, fn, value):
    x = fw.constant(value)
    with fw.GradientTape() as tape:
        tape.watch(x)
        y = fn(fw, x)
    g = tape.gradient(y, x)
    return None if g is None else g.numpy()


# -- the checks every op file parametrizes ----------------------------------------------


def case_id(case):
    return case.name


def value_params(cases):
    """``(case, dtype, shape)`` params: every case at each of its dtypes and shapes."""
    return [
        pytest.param(case, dtype, shape, id=f"{case.name}-{dtype}-{'x'.join(map(str, shape))}")
        for case in cases
        for dtype in case.dtypes
        for shape in case.shapes
    ]


def grad_cases(cases):
    return [c for c in cases if c.diff]


def first_of_each_op(cases, not_differentiable=()):
    """One differentiable case per op (the fast first-order ``check_grads``)."""
    pure = [c for c in grad_cases(cases) if c.name not in not_differentiable]
    return list({c.name: c for c in reversed(pure)}.values())[::-1]


def pure_grad_cases(cases, not_differentiable=()):
    return [c for c in grad_cases(cases) if c.name not in not_differentiable]


def check_values(case, dtype, shape, request):
    """Values, dtypes and shapes equal TF's."""
    if case.x64:
        request.getfixturevalue("x64")
    assert_same_result(run(case, tapejax, dtype, shape), run(case, tensorflow, dtype, shape), case)


def check_accepts_variables(case, request):
    """The op gives the same result on Variables as on constants."""
    if case.x64:
        request.getfixturevalue("x64")
    dtype, shape = case.dtypes[0], case.shapes[-1]
    got = run(case, tapejax, dtype, shape, variable=True)
    want = run(case, tapejax, dtype, shape)
    for g, w in zip(_flat(got), _flat(want), strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"{case.name} on Variables")


def check_tape_gradients(case, rtol=1e-4, atol=1e-5):
    """The gradient through ``GradientTape`` (``None``s included) equals TF's."""
    shape = case.shapes[-1]
    got = _tape_gradient(case, tapejax, shape)
    want = _tape_gradient(case, tensorflow, shape)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w is None:
            assert g is None, f"{case.name}: gradient #{i} is {g!r}, TF gives None"
            continue
        assert g is not None, f"{case.name}: gradient #{i} is None, TF gives {w!r}"
        if type(w).__name__ == "IndexedSlices":  # TF's sparse gradient of a gather
            w = tensorflow.convert_to_tensor(w)
        np.testing.assert_allclose(
            g.numpy(), w.numpy(), rtol=rtol, atol=atol, err_msg=f"{case.name}: gradient #{i} vs TF"
        )


def check_pure_gradients(case, order):
    """``check_grads`` of the op's pure function in float64 (needs the ``x64`` fixture)."""
    _check_pure_gradients(case, order)


def raised(fn, fw):
    """The exception ``fn(fw)`` raises, or None."""
    try:
        fn(fw)
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return e
    return None


def check_fails_in_function(check, x, message):
    """``check(tf, x)`` inside a ``tf.function`` raises ``InvalidArgumentError`` whose last
    paragraph matches ``message`` (a regex), in TF and in tapejax on its eager first call
    and its traced second call."""
    import re

    for fw, calls in (("tensorflow", 1), ("tapejax", 2)):
        tf = FRAMEWORKS[fw]

        @tf.function
        def f(x, tf=tf):
            check(tf, x)
            return x * 2.0

        for _ in range(calls):
            e = raised(lambda tf: f(tf.constant(x)), tf)  # noqa: B023 - f is this loop's
            assert type(e).__name__ == "InvalidArgumentError" and re.search(
                message, str(e).split("\n\n")[-1]
            ), f"{fw}: {e!r}"


def check_error(fn, error, message):
    """``fn(tf)`` raises the same exception type, with a text matching ``message``, under
    TF and under tapejax (the table is checked against TF first, so it cannot drift)."""
    import re

    want = raised(fn, tensorflow)
    assert want is not None and type(want).__name__ == error, f"TF raises {want!r}: fix the table"
    assert re.search(message, str(want)), f"TF's text is {str(want)!r}: fix the table"
    got = raised(fn, tapejax)
    assert got is not None, "tapejax raised nothing"
    assert type(got).__name__ == error, (
        f"tapejax raised {type(got).__name__}: {got}, TF raises {error}"
    )
    assert re.search(message, str(got)), (
        f"tapejax's text {str(got)!r} does not match TF's {str(want)!r}"
    )


def no_kernel_case(fn, node: str):
    """An ``ERRORS`` entry: ``fn(tf)`` raises TF's NotFoundError for a dtype its op def
    allows but its CPU build has no kernel for; ``node`` as TF prints it, ``"Rint[T=DT_HALF]"``."""
    import re

    op = node.split("[")[0]
    text = f"Could not find device for node: {{{{node {op}}}}} = {node}"
    return (fn, "NotFoundError", re.escape(text))


def grad_of(fw, fn, value):
    """``d fn(fw, x) / dx`` at ``value`` through ``fw.GradientTape`` (NumPy, or None)."""
    return _grad(fw, fn, value)


def second_grad_of(fw, fn, value):
    """``(d fn / dx, d2 fn / dx2)`` at ``value`` through nested ``fw.GradientTape``s: the
    second, the outer tape's gradient of the first (NumPy, or None)."""
    x = fw.constant(value)
    with fw.GradientTape() as outer:
        outer.watch(x)
        with fw.GradientTape() as inner:
            inner.watch(x)
            y = fn(fw, x)
        g = inner.gradient(y, x)
    second = outer.gradient(g, x)
    return g.numpy(), None if second is None else second.numpy()


def check_tf_allowed(op_names) -> None:
    """The op-def type lists a module adds to ``_helpers.TF_ALLOWED`` are TF's, verbatim."""
    from tensorflow.python.framework import dtypes as tf_dtypes
    from tensorflow.python.framework import op_def_registry

    from tapejax._src.ops import _helpers

    names = {"float32": "float", "float64": "double", "float16": "half"}
    for op_name in op_names:
        (attr,) = [a for a in op_def_registry.get(op_name).attr if a.name == "T"]
        tf_list = ", ".join(
            names.get(n, n)
            for n in (tf_dtypes.as_dtype(t).name for t in attr.allowed_values.list.type)
        )
        assert _helpers.TF_ALLOWED[op_name] == tf_list, op_name


# -- dtype acceptance: an op takes exactly the dtypes TF's op definition allows ------------

# Exceptions by which TF (and tapejax, with TF's types) refuses a dtype.
_REFUSALS = ("InvalidArgumentError", "NotFoundError", "UnimplementedError", "InternalError")


def accepts(fw, fn, dtype) -> bool:
    """Whether ``fn(fw, x)`` runs for a small ``x`` of ``dtype`` (a refusal is TF's
    conversion TypeError/ValueError or one of TF's op errors)."""
    x = (
        fw.cast(fw.constant([1, 0, 1]), fw.as_dtype(dtype))
        if dtype != "bool"
        else fw.constant([True, False, True])
    )
    try:
        fn(fw, x)
    except (TypeError, ValueError):
        return False
    except Exception as e:  # noqa: BLE001 - TF's InvalidArgumentError / NotFoundError
        if type(e).__name__ in _REFUSALS:
            return False
        raise
    return True


def check_dtype_acceptance(name, fn, dtypes, no_cpu_kernel=()):
    """``fn`` accepts exactly the ``dtypes`` TF accepts (pairs in ``no_cpu_kernel``: TF's
    op definition allows them but its CPU build has no kernel; not compared)."""
    differ = []
    for dtype in dtypes:
        if (name, dtype) in no_cpu_kernel:
            continue
        want = accepts(tensorflow, fn, dtype)
        if accepts(tapejax, fn, dtype) != want:
            differ.append(f"{dtype} (TF {'accepts' if want else 'rejects'})")
    assert not differ, f"{name}: tapejax disagrees with TF on {differ}"
