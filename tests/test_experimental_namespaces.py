"""``tf.nn.experimental``, ``tf.linalg.experimental``, ``tf.random.experimental`` and
``tf.train.experimental`` against live TensorFlow."""

import importlib
import os

import numpy as np
import pytest

import tapejax
from tapejax._src.compat import NamespaceNotProvidedError

tf_ = pytest.importorskip("tensorflow")

NAMESPACES = ("nn", "linalg", "random", "train")

# Ops tested here against TF instead of by a Case in tests/test_ops*.py (their random
# numbers are tapejax's, so a Case's value comparison does not apply to all of them).
OTHERWISE_TESTED = {
    "nn.experimental.general_dropout",
    "nn.experimental.stateless_dropout",
    "random.experimental.index_shuffle",
    "random.experimental.stateless_shuffle",
}


@pytest.mark.parametrize("ns", NAMESPACES)
def test_every_tf_name_is_provided_or_says_why(ns):
    theirs = getattr(tf_, ns).experimental
    ours = getattr(tapejax, ns).experimental
    assert importlib.import_module(f"tapejax.{ns}.experimental") is ours
    for name in (n for n in dir(theirs) if not n.startswith("_")):
        try:
            getattr(ours, name)
        except NamespaceNotProvidedError as error:
            assert f"tf.{ns}.experimental.{name} is not provided" in str(error)


def test_random_experimental_names_are_tapejax_randoms_as_tfs_are():
    ours, theirs = tapejax.random, tf_.random
    for name in (
        "Algorithm",
        "Generator",
        "create_rng_state",
        "get_global_generator",
        "set_global_generator",
    ):
        assert getattr(theirs.experimental, name) is getattr(theirs, name)
        assert getattr(ours.experimental, name) is getattr(ours, name)
    assert theirs.experimental.stateless_fold_in is theirs.fold_in
    assert theirs.experimental.stateless_split is theirs.split
    assert ours.experimental.stateless_fold_in is ours.fold_in
    assert ours.experimental.stateless_split is ours.split


# -- random.experimental.index_shuffle / stateless_shuffle --------------------------------------


@pytest.mark.parametrize(
    "index, seed, max_index",
    [
        (np.arange(10, dtype=np.int32), [5, 8], 9),
        (np.int32(3), [5, 8], 9),
        (np.arange(50, dtype=np.int64), np.array([7, -3], np.int64), 99),
        (np.arange(6, dtype=np.uint32), np.array([3, 4], np.uint32), 5),
    ],
)
def test_index_shuffle_gives_tfs_values(index, seed, max_index, x64):
    want = tf_.random.experimental.index_shuffle(
        tf_.constant(index), seed, tf_.constant(max_index, tf_.as_dtype(index.dtype))
    )
    got = tapejax.random.experimental.index_shuffle(
        tapejax.constant(index), seed, tapejax.constant(max_index, index.dtype)
    )
    assert got.dtype.name == want.dtype.name and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_index_shuffle_with_a_seed_per_index_fails_as_tfs():
    # TF pads a [n, 2] seed with a row, not a column: the op then rejects [n + 1, 2].
    index, seed = np.arange(4, dtype=np.int32), np.arange(8, dtype=np.int32).reshape(4, 2)
    with pytest.raises(tf_.errors.InvalidArgumentError) as want:
        tf_.random.experimental.index_shuffle(index, seed, 3)
    with pytest.raises(tapejax.errors.InvalidArgumentError) as got:
        tapejax.random.experimental.index_shuffle(tapejax.constant(index), seed, 3)
    assert "matrix of size [4, 3] but got [5,2]" in got.value.message
    assert got.value.message in want.value.message


def test_stateless_shuffle_is_a_seeded_permutation():
    shuffle = tapejax.random.experimental.stateless_shuffle
    v = np.arange(40).reshape(20, 2)
    a, b = shuffle(v, seed=[3, 4]), shuffle(v, seed=[3, 4])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert sorted(map(tuple, a.numpy().tolist())) == [tuple(r) for r in v.tolist()]
    assert not np.array_equal(a.numpy(), shuffle(v, seed=[3, 5]).numpy())
    assert not np.array_equal(a.numpy(), v)
    # A scalar comes back as it is, as TF's.
    assert (
        int(shuffle(tapejax.constant(3), seed=[1, 2]))
        == 3
        == int(tf_.random.experimental.stateless_shuffle(tf_.constant(3), seed=[1, 2]))
    )


def test_stateless_shuffle_bad_seed_is_tfs_error():
    with pytest.raises(tf_.errors.InvalidArgumentError) as want:
        tf_.random.experimental.stateless_shuffle(tf_.range(5), seed=[1, 2, 3])
    with pytest.raises(tapejax.errors.InvalidArgumentError) as got:
        tapejax.random.experimental.stateless_shuffle(tapejax.range(5), seed=[1, 2, 3])
    assert got.value.message.endswith(
        "seed must have shape [2], not [3] [Op:StatelessRandomGetKeyCounter]"
    )
    assert want.value.message.endswith(got.value.message)


# -- nn.experimental.general_dropout / stateless_dropout ----------------------------------------


def _fixed_sampler(lib, numbers, seen):
    def sampler(shape, dtype):
        seen.append((np.asarray(shape).tolist(), dtype.name))
        return lib.constant(numbers, dtype)

    return sampler


@pytest.mark.parametrize(
    "numbers, rate, noise_shape",
    [
        ([0.1, 0.7, 0.3, 0.9, 0.5], 0.5, None),
        ([[0.1, 0.7, 0.3, 0.9, 0.5]], 0.25, [1, 5]),
        ([[0.1], [0.9], [0.3]], 0.3, [None, 1]),
        ([[0.1, 0.7, 0.3, 0.9, 0.5]] * 3, "tensor", None),
    ],
)
def test_general_dropout_with_fixed_numbers_is_tfs(numbers, rate, noise_shape):
    x = np.arange(15, dtype=np.float32).reshape(3, 5) + 1
    results = []
    dropouts = {
        tf_: tf_.nn.experimental.general_dropout,
        tapejax: tapejax.nn.experimental.general_dropout,
    }
    for lib in (tf_, tapejax):
        seen = []
        r = lib.constant(0.4) if rate == "tensor" else rate
        xt = lib.constant(x)
        with lib.GradientTape() as tape:
            tape.watch(xt)
            y = dropouts[lib](xt, r, _fixed_sampler(lib, numbers, seen), noise_shape=noise_shape)
            loss = lib.reduce_sum(y * y)
        results.append((y.numpy(), tape.gradient(loss, xt).numpy(), seen))
    (want, want_grad, want_seen), (got, got_grad, got_seen) = results
    # A tensor rate divides by ``1 - rate``, where tapejax's division can round to the
    # float32 neighbour of TF's; a float rate multiplies, exactly as TF.
    np.testing.assert_allclose(got, want, rtol=1.5e-7 if rate == "tensor" else 0)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6)
    assert got_seen == want_seen


def test_stateless_dropout_properties():
    drop = tapejax.nn.experimental.stateless_dropout
    x = tapejax.ones([40, 50])
    a = drop(x, 0.6, seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a, drop(x, 0.6, seed=[1, 2]).numpy())
    assert not np.array_equal(a, drop(x, 0.6, seed=[1, 3]).numpy())
    np.testing.assert_allclose(np.unique(a), [0.0, 2.5])
    assert 0.5 < (a == 0).mean() < 0.7
    assert drop(x, 0, seed=[1, 2]) is x
    shared = drop(x, 0.5, seed=[4, 5], noise_shape=[1, 50]).numpy()
    assert (shared == shared[:1]).all() and 0 < (shared == 0).mean() < 1
    # The mask is stateless_uniform's: kept exactly where it is >= rate.
    u = tapejax.random.stateless_uniform([40, 50], seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a != 0, u >= 0.6)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"x": np.ones(3, np.float32), "rate": 1.0, "seed": [1, 2]},
        {"x": np.ones(3, np.float32), "rate": -0.1, "seed": [1, 2]},
        {"x": np.ones(3, np.int32), "rate": 0.5, "seed": [1, 2]},
        {"x": np.ones(3, np.float32), "rate": "tensor64", "seed": [1, 2]},
        {"x": np.ones(3, np.float32), "rate": 0.5, "seed": [1, 2, 3]},
    ],
)
def test_stateless_dropout_errors_are_tfs(kwargs):
    errors = []
    for lib in (tf_, tapejax):
        kw = dict(kwargs, x=lib.constant(kwargs["x"]))
        if kw["rate"] == "tensor64":
            kw["rate"] = lib.constant(0.5, lib.float16)
        with pytest.raises(Exception) as info:
            lib.nn.experimental.stateless_dropout(**kw)
        errors.append(info.value)
    want, got = errors
    assert type(got).__name__ == type(want).__name__
    text = getattr(got, "message", str(got))
    assert getattr(want, "message", str(want)).endswith(text)


# -- linalg.experimental.conjugate_gradient ----------------------------------------------------


def _spd(n, seed, batch=()):
    rng = np.random.default_rng(seed)
    m = rng.normal(size=batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _cg(lib, a, rhs, precond=None, x=None, **kwargs):
    op = lib.linalg.LinearOperatorFullMatrix(
        lib.constant(a), is_self_adjoint=True, is_positive_definite=True
    )
    pre = None if precond is None else lib.linalg.LinearOperatorDiag(lib.constant(precond))
    x = None if x is None else lib.constant(x)
    return lib.linalg.experimental.conjugate_gradient(
        op, lib.constant(rhs), preconditioner=pre, x=x, **kwargs
    )


@pytest.mark.parametrize(
    "case",
    [
        {"a": _spd(5, 0), "rhs": np.arange(5.0)},
        {"a": _spd(6, 1), "rhs": np.ones(6), "max_iter": 3},
        {"a": _spd(6, 2), "rhs": np.ones(6), "tol": 1e-2},
        {"a": _spd(4, 3, (2,)), "rhs": np.arange(8.0).reshape(2, 4) + 1},
        {"a": _spd(4, 4, (3,)), "rhs": np.arange(4.0) - 1},
        {"a": _spd(5, 5), "rhs": np.arange(5.0), "precond": 1 / np.arange(1.0, 6.0)},
        {"a": _spd(5, 6), "rhs": np.arange(5.0), "x": np.full(5, 0.5)},
    ],
)
def test_conjugate_gradient_is_tfs(case, x64):
    kwargs = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in case.items()}
    want = _cg(tf_, **kwargs)
    got = _cg(tapejax, **case)
    assert type(got).__name__ == "CGState" and got._fields == want._fields
    assert got.i.dtype.name == "int32" and int(got.i) == int(want.i)
    for field in ("x", "r", "p", "gamma"):
        np.testing.assert_allclose(
            getattr(got, field).numpy(), getattr(want, field).numpy(), rtol=1e-9, atol=1e-12
        )


def test_conjugate_gradient_under_function_is_eagers():
    a = _spd(5, 7).astype(np.float32)
    op = tapejax.linalg.LinearOperatorFullMatrix(
        tapejax.constant(a), is_self_adjoint=True, is_positive_definite=True
    )
    solve = tapejax.function(lambda b: tapejax.linalg.experimental.conjugate_gradient(op, b))
    rhs = tapejax.constant(np.arange(5, dtype=np.float32))
    got, eager = solve(rhs), tapejax.linalg.experimental.conjugate_gradient(op, rhs)
    want = tf_.linalg.experimental.conjugate_gradient(
        tf_.linalg.LinearOperatorFullMatrix(a, is_self_adjoint=True, is_positive_definite=True),
        tf_.constant(np.arange(5, dtype=np.float32)),
    )
    assert int(got.i) == int(eager.i) == int(want.i)
    np.testing.assert_allclose(got.x.numpy(), want.x.numpy(), rtol=1e-5)


def test_conjugate_gradient_needs_a_self_adjoint_positive_definite_operator():
    for lib in (tf_, tapejax):
        op = lib.linalg.LinearOperatorFullMatrix(lib.constant(np.eye(2, dtype=np.float32)))
        with pytest.raises(
            ValueError, match="Expected a self-adjoint, positive definite operator."
        ):
            lib.linalg.experimental.conjugate_gradient(op, lib.constant([1.0, 2.0]))


# -- train.experimental.PythonState -------------------------------------------------------------


def _python_state_class(lib):
    class Blob(lib.train.experimental.PythonState):
        def __init__(self, value):
            self.value = value
            self.received = []

        def serialize(self):
            return self.value

        def deserialize(self, string_value):
            self.received.append(string_value)
            self.value = string_value

    return Blob


@pytest.mark.parametrize("value", ["text", b"ends in NUL\x00\x00", b""])
def test_python_state_is_saved_and_restored_as_tfs(value, tmp_path):
    received = []
    for lib in (tf_, tapejax):
        blob = _python_state_class(lib)(value)
        var = lib.Variable(1.0)
        ckpt = lib.train.Checkpoint(state=blob, v=var)
        path = ckpt.save(os.path.join(tmp_path, lib.__name__, "c"))
        blob.value, _ = "changed", var.assign(2.0)
        ckpt.restore(path).assert_consumed()
        assert float(var.numpy()) == 1.0
        received.append(blob.received)
    assert issubclass(type(blob), tapejax.train.experimental.PythonState)
    assert received[1] == received[0]
    assert isinstance(received[1][0], bytes)


def test_python_state_serialize_must_give_text(tmp_path):
    blob = _python_state_class(tapejax)(3)
    with pytest.raises(TypeError, match=r"Blob.serialize\(\) must return str or bytes, got int"):
        tapejax.train.Checkpoint(state=blob).write(os.path.join(tmp_path, "c"))


def test_checkpoint_sharding_is_not_provided():
    with pytest.raises(NotImplementedError, match="MaxShardSizePolicy"):
        tapejax.train.CheckpointOptions(experimental_sharding_callback=object())
    with pytest.raises(NotImplementedError, match="one .npz file"):
        tapejax.train.experimental.ShardByTaskPolicy  # noqa: B018 - the access is the test
    assert not hasattr(tapejax.train.experimental, "ShardableTensor")
