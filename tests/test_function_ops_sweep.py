"""Every op shared with TF gives the same value and gradient inside ``tapejax.function``
as eagerly.

The ops and inputs are those of ``test_gradient_sweep.py`` (``tf``, ``tf.math``, ``tf.nn``,
``tf.linalg``, ``tf.signal``, ``tf.image``; float32 edge values, and int32 values for
ops that take integers). Each call runs eagerly under a ``GradientTape`` and again inside
a ``tapejax.function`` that records its own tape and returns the value and the
gradient: the structure, ``None``s, dtypes, shapes and values (NaN and infinity in the
same places, finite values to float32 rounding, since XLA may fuse a traced program's
elementwise ops) must agree, a call that raises eagerly must raise the same exception
type when traced, and a second traced call must not retrace. The function's eager first
call gets benign inputs of the same shapes and dtypes, so the swept call is traced.

``KNOWN`` lists the differences kept on purpose, each naming its ``docs/compat.md``
entry (or TF's own eager/graph difference); the sweep fails when one goes away too.
"""

import numpy as np
import pytest

import tapejax as tf
from tests.test_gradient_sweep import NAMESPACES, PAIRS, SINGLE, _names

tf_ = pytest.importorskip("tensorflow")


def _traced(fn, *args):
    """``fn(*args)`` on the second call of a ``tapejax.function`` (the first is eager)."""
    f = tf.function(fn)
    f(*args)
    return f(*args)


# -- fixed cases ------------------------------------------------------------------------------


def test_meshgrid_is_traced_with_its_gradient():
    x = tf.constant([0.5, -1.0, 2.0])
    y = tf.constant([1.0, 3.0])

    def step(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            gx, gy = tf.meshgrid(x, y)
            loss = tf.reduce_sum(gx * gy)
        return gx, gy, tape.gradient(loss, [x, y])

    eager, traced = step(x, y), _traced(step, x, y)
    for a, b in zip(tf.nest.flatten(eager), tf.nest.flatten(traced)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize(
    "op",
    [
        lambda s: tf.ones(s),
        lambda s: tf.zeros(s),
        lambda s: tf.fill(s, 1.0),
        lambda s: tf.reshape(tf.range(6), s),
        lambda s: tf.tile(tf.ones((1, 1)), s),
        lambda s: tf.broadcast_to(1.0, s),
    ],
    ids=["ones", "zeros", "fill", "reshape", "tile", "broadcast_to"],
)
def test_a_traced_shape_argument_is_a_clear_not_implemented_error(op):
    shape = tf.constant([2, 3])
    np.testing.assert_array_equal(op(shape).shape, (2, 3))  # eagerly: TF's result
    with pytest.raises(NotImplementedError, match="static shapes"):
        _traced(op, shape)


def test_a_traced_axis_tensor_is_a_clear_not_implemented_error():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    axis = tf.constant(1)
    np.testing.assert_array_equal(tf.reduce_sum(x, axis).numpy(), [3.0, 7.0])
    with pytest.raises(NotImplementedError, match="axis"):
        _traced(tf.reduce_sum, x, axis)


@pytest.mark.parametrize("condition", [1.0, 1], ids=["float32", "int32"])
def test_assert_of_a_non_bool_tensor_in_a_function_is_tfs_type_error(condition):
    def check(lib):
        @lib.function
        def f(c):
            lib.debugging.Assert(c, ["x"])
            return c

        c = lib.constant(condition)
        with pytest.raises(Exception) as info:
            f(c)
            f(c)  # tapejax traces on the second call
        return type(info.value).__name__, str(info.value)

    (ours, text), (theirs, their_text) = check(tf), check(tf_)
    assert ours == theirs == "TypeError"
    assert text in their_text  # TF's adds "in user code:" and the traceback


@pytest.mark.parametrize(
    "op, args, bad",
    [
        ("broadcast_dynamic_shape", ([2, 1, 3], [4, 1]), [4, 2]),
    ],
)
def test_traced_checks_raise_tfs_error_in_a_function(op, args, bad):
    def run(lib):
        fn = lib
        for part in op.split("."):
            fn = getattr(fn, part)
        first, second = (lib.constant(a) for a in args)
        f = lib.function(fn)
        good = f(first, second)
        f(first, second)  # tapejax's first trace
        with pytest.raises(Exception) as info:
            f(first, lib.constant(bad))
        return good.numpy(), type(info.value).__name__, str(info.value).splitlines()

    ours, theirs = run(tf), run(tf_)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1] == "InvalidArgumentError"
    assert (
        ours[2][0].removesuffix(" [Op:GatherV2]").removesuffix(" [Op:BroadcastArgs]") in theirs[2]
    )


def test_traced_gather_does_not_check_indices_as_documented():
    params, good, bad = tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 2]), tf.constant([1, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in"):
        tf.gather(params, bad)
    f = tf.function(tf.gather)
    f(params, good)
    f(params, good)
    out = f(params, bad).numpy()
    assert out[0] == 2.0 and np.isnan(out[1])


@pytest.mark.parametrize(
    "op, arg",
    [
        (lambda x, s: tf.split(x, s), "num_or_size_splits"),
        (lambda x, s: tf.signal.fftshift(x, axes=s), "axes"),
        (lambda x, s: tf.signal.ifftshift(x, axes=s), "axes"),
    ],
    ids=["split", "fftshift", "ifftshift"],
)
def test_a_traced_structural_tensor_is_a_clear_not_implemented_error(op, arg):
    x, s = tf.reshape(tf.range(4.0), (2, 2)), tf.constant([1, 1])
    op(x, s)  # eagerly: TF's result
    with pytest.raises(NotImplementedError, match=f"`{arg}`.*traced"):
        _traced(op, x, s)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [[0, 1], [-2], [0.0]], ids=["out-of-range", "negative", "float"])
def test_fftshift_of_bad_axes_is_tfs_error(name, axes):
    def run(lib):
        x = lib.constant([1.0, 2.0, 3.0])
        with pytest.raises(Exception) as info:
            getattr(lib.signal, name)(x, axes=lib.constant(axes))
        return type(info.value).__name__, str(info.value)

    (ours, text), (theirs, their_text) = run(tf), run(tf_)
    assert ours == theirs == "InvalidArgumentError"
    assert text.removesuffix(" [Op:GatherV2]").removesuffix(" [Op:AddV2]") in their_text


@pytest.mark.parametrize(
    "op",
    [tf.math.floordiv, tf.math.floormod, tf.truncatediv, tf.truncatemod, tf.pow],
    ids=["floordiv", "floormod", "truncatediv", "truncatemod", "pow"],
)
def test_traced_integer_division_by_zero_is_not_checked_as_documented(op):
    x, good, bad = tf.constant([3, 4]), tf.constant([1, 2]), tf.constant([0, -1])
    with pytest.raises((tf.errors.InvalidArgumentError, tf.errors.InternalError)):
        op(x, bad)
    f = tf.function(op)
    f(x, good)
    f(x, good)
    assert f(x, bad).shape == (2,)  # XLA's value, unchecked


# -- the sweep --------------------------------------------------------------------------------

# Fewer sets than the gradient sweep, to keep the sweep near a minute: NaN/inf, zeros of
# both signs and ties, integers, and an integer pair (indices, shapes, axes).
_SETS = {
    "special": ([SINGLE["special"]], np.float32),
    "zero2": (list(PAIRS["zero2"]), np.float32),
    "iedge": ([[-2, -1, 0, 0, 1, 2, 3, 4]], np.int32),
    "izero2": ([[0, 0, 1, -1, 2, 0, 0, 4], [0, 2, 0, 0, -1, -1, 0, 1]], np.int32),
}

_STATIC = "tapejax.function: `get_static_value` of a tensor in the body"
_GRADIENTS = "tapejax.function: `tf.gradients`, `tf.hessians` in the body"
_DATA_SHAPE = "Array ops: shapes that depend on data cannot be traced by XLA"
_SEGMENT = "Math ops: the sorted segment ops and `bincount` need concrete ids"
_CONFUSION = "Math ops: `confusion_matrix` checks its values eagerly"
_GATHER = "Array ops: `gather` and `nn.embedding_lookup` with traced indices"
_INT_DIV = "Math ops: integer division by zero and integer `pow` with a negative exponent"
# TF's own eager/graph differences, followed: `parallel_stack` runs only in graphs, a
# vector or non-bool condition of `Assert` is Python's ValueError eagerly but the graph
# op's error (InvalidArgumentError, TypeError) in a function, and `is_symbolic_tensor` is
# True for a function's tensors.
_TF_TOO = "TF's own difference between eager and tf.function"
KNOWN: dict[tuple[str, str], str] = {
    **{("get_static_value", s): _STATIC for s in _SETS},
    **{(n, s): _GRADIENTS for n in ("gradients", "hessians") for s in ("zero2", "izero2")},
    **{("parallel_stack", s): _TF_TOO for s in _SETS},
    **{("Assert", s): _TF_TOO for s in ("zero2", "izero2")},
    **{("boolean_mask", s): _DATA_SHAPE for s in ("zero2", "izero2")},
    **{("sequence_mask", s): _DATA_SHAPE for s in ("special", "iedge")},
    ("ones", "iedge"): _DATA_SHAPE,
    ("zeros", "iedge"): _DATA_SHAPE,
    **{("is_symbolic_tensor", s): _TF_TOO for s in ("special", "iedge")},
    **{
        (n, s): _DATA_SHAPE
        for n in ("unique", "unique_with_counts", "where")
        for s in ("special", "iedge")
    },
    ("dynamic_stitch", "izero2"): _DATA_SHAPE,
    ("repeat", "izero2"): _DATA_SHAPE,
    ("split", "izero2"): _DATA_SHAPE,
    **{(f"signal.{n}", "izero2"): _DATA_SHAPE for n in ("fftshift", "ifftshift")},
    **{("math.bincount", s): _SEGMENT for s in _SETS},
    **{(f"math.segment_{n}", "izero2"): _SEGMENT for n in ("max", "mean", "min", "prod", "sum")},
    **{("math.confusion_matrix", s): _CONFUSION for s in ("zero2", "izero2")},
    ("gather", "izero2"): _GATHER,
    ("nn.embedding_lookup", "izero2"): _GATHER,
    **{
        (n, "izero2"): _INT_DIV
        for n in ("pow", "truncatediv", "truncatemod", "math.floordiv", "math.floormod")
        + ("math.mod",)
    },
}


def _body(fn, xs):
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        out = fn(*xs)
        first = out[0] if isinstance(out, (list, tuple)) else out
    grads = None
    if xs[0].dtype.is_floating and getattr(getattr(first, "dtype", None), "is_floating", 0):
        grads = tape.gradient(first, list(xs))
    return out, grads


def _outcome(fn, arrays, dtype, traced):
    """``("ok", leaves, retraced)`` or ``("error", exception type name)``."""
    xs = [tf.constant(np.asarray(a, dtype)) for a in arrays]
    try:
        if not traced:
            return ("ok", tf.nest.flatten(_body(fn, xs)), False)
        f = tf.function(lambda *xs: _body(fn, xs))
        for prime in (np.zeros, np.ones):
            try:
                f(*[tf.constant(prime(np.shape(a), dtype)) for a in arrays])
                break
            except Exception:  # noqa: BLE001 - the eager first call only has to succeed once
                pass
        else:
            f(*xs)
        out = f(*xs)
        count = f.experimental_get_tracing_count()
        f(*xs)
        return ("ok", tf.nest.flatten(out), f.experimental_get_tracing_count() != count)
    except Exception as e:  # noqa: BLE001 - any failure is an outcome to compare
        return ("error", f"{type(e).__name__}: {str(e)[:200]}")


def _difference(eager, traced):
    if eager[0] == "error" or traced[0] == "error":
        if eager[0] == traced[0] and eager[1].split(":")[0] == traced[1].split(":")[0]:
            return None
        return f"eager {eager[:2]}, traced {traced[:2]}"
    if traced[2]:
        return "the second traced call retraced"
    if len(eager[1]) != len(traced[1]):
        return f"structure: {len(eager[1])} leaves eagerly, {len(traced[1])} traced"
    for i, (a, b) in enumerate(zip(eager[1], traced[1])):
        if (a is None) != (b is None):
            return f"leaf {i}: None eagerly {a is None}, traced {b is None}"
        if not isinstance(a, tf.Tensor):
            # Ops that return a new closure or context manager on each call give objects
            # that only equal themselves: those agree when their types do.
            if type(a).__eq__ is object.__eq__ and type(a) is type(b):
                continue
            if a != b:
                return f"leaf {i}: {a!r} eagerly, {b!r} traced"
            continue
        a, b = a.numpy(), np.asarray(b.numpy())
        if (a.dtype, a.shape) != (b.dtype, b.shape):
            return f"leaf {i}: {a.dtype}{a.shape} eagerly, {b.dtype}{b.shape} traced"
        if a.dtype.kind in "fc":
            ok = np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
            ok = ok and np.array_equal(np.isinf(a), np.isinf(b))
        else:
            ok = np.array_equal(a, b)
        if not ok:
            return f"leaf {i}: {a.ravel()[:8].tolist()} eagerly, {b.ravel()[:8].tolist()} traced"
    return None


_SWEPT = NAMESPACES


def _swept_names(ns):
    # `tf.math`'s aliases of top-level ops (`math.pow` is `pow`) are swept once, under
    # their top-level names: that keeps the whole sweep near two minutes.
    top = {getattr(tf, n) for n in _names("")} if ns == "math" else set()
    return [n for n in _names(ns) if getattr(getattr(tf, ns) if ns else tf, n) not in top]


@pytest.mark.slow
@pytest.mark.parametrize("ns", _SWEPT)
def test_ops_in_a_function_are_their_eager_selves(ns):
    found = {}
    lib_ns = getattr(tf, ns) if ns else tf
    for name in _swept_names(ns):
        key = f"{ns}.{name}" if ns else name
        fn = getattr(lib_ns, name)
        for label, (arrays, dtype) in _SETS.items():
            eager = _outcome(fn, arrays, dtype, traced=False)
            diff = _difference(eager, _outcome(fn, arrays, dtype, traced=True))
            if diff:
                found[(key, label)] = diff
    expected = {k for k in KNOWN if k[0].rpartition(".")[0] == ns}
    unexpected = {k: v for k, v in found.items() if k not in KNOWN}
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in sorted(unexpected.items()))
    assert expected <= set(found), f"listed in KNOWN but now equal: {expected - set(found)}"
