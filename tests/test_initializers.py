"""TF 2's top-level initializers (``tapejax._src.initializers``) side by side with real
TensorFlow: values, shapes and dtypes of the deterministic ones, configs, seed rules and
distributions of the random ones (their numbers are JAX's, not TF's), and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}

CALLS = [
    ("zeros", lambda tf: tf.zeros_initializer()(shape=[2, 3])),
    ("zeros int32", lambda tf: tf.zeros_initializer()([4], dtype=tf.int32)),
    ("zeros bool", lambda tf: tf.zeros_initializer()([2], tf.bool)),
    ("ones", lambda tf: tf.ones_initializer()(shape=[3])),
    ("ones float16", lambda tf: tf.ones_initializer()([2, 2], dtype="float16")),
    ("constant scalar", lambda tf: tf.constant_initializer(2.0)(shape=[2, 2])),
    ("constant int", lambda tf: tf.constant_initializer(3)([2])),
    ("constant int as float", lambda tf: tf.constant_initializer(3)([2], tf.float32)),
    ("constant list", lambda tf: tf.constant_initializer([0, 1, 2, 3])([2, 2], tf.float32)),
    ("constant array", lambda tf: tf.constant_initializer(np.arange(6, dtype=np.float32))([3, 2])),
    (
        "zeros partition_shape",
        lambda tf: tf.zeros_initializer()([4, 4], partition_shape=[2, 4], partition_offset=[2, 0]),
    ),
]


@pytest.mark.parametrize("what, call", CALLS, ids=[c[0] for c in CALLS])
def test_deterministic_initializers_are_tfs(what, call):
    got, want = call(tapejax), call(tensorflow)
    assert isinstance(got, tapejax.Tensor)
    assert got.dtype.name == want.dtype.name and got.shape == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


RANDOM = [
    ("random_normal_initializer", {}, {"mean": 0.0, "stddev": 0.05, "seed": None}),
    ("random_normal_initializer", {"mean": 1.0, "stddev": 2.0, "seed": 4}, None),
    ("random_uniform_initializer", {}, {"minval": -0.05, "maxval": 0.05, "seed": None}),
    ("random_uniform_initializer", {"minval": -1, "maxval": 3, "seed": 0}, None),
]


@pytest.mark.parametrize("name, kwargs, config", RANDOM)
def test_configs_round_trip_as_tfs(name, kwargs, config):
    ours = getattr(tapejax, name)(**kwargs)
    theirs = getattr(tensorflow, name)(**kwargs)
    assert ours.get_config() == theirs.get_config() == (config or kwargs)
    again = type(ours).from_config(dict(ours.get_config(), dtype="float32"))
    assert type(again) is type(ours) and again.get_config() == ours.get_config()
    for name in ("zeros_initializer", "ones_initializer"):
        assert getattr(tapejax, name)().get_config() == {}
    assert tapejax.constant_initializer([1, 2]).get_config() == {"value": [1, 2]}


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_seeded_initializers_repeat_and_unseeded_ones_follow_the_global_seed(fw):
    tf = FRAMEWORKS[fw]
    for make in (tf.random_normal_initializer, tf.random_uniform_initializer):
        seeded = make(seed=7)
        a, b = seeded([50]), seeded([50])
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert not np.array_equal(make(seed=8)([50]).numpy(), a.numpy())
        unseeded = make()
        assert not np.array_equal(unseeded([50]).numpy(), unseeded([50]).numpy())
        tf.random.set_seed(3)
        first = unseeded([50]).numpy()
        tf.random.set_seed(3)
        np.testing.assert_array_equal(unseeded([50]).numpy(), first)


def test_random_initializers_have_tfs_distributions_shapes_and_dtypes():
    normal = tapejax.random_normal_initializer(mean=1.0, stddev=2.0, seed=1)([200, 100])
    assert normal.dtype == tapejax.float32 and normal.shape == (200, 100)
    assert abs(float(np.mean(normal)) - 1.0) < 0.05 and abs(float(np.std(normal)) - 2.0) < 0.05
    uniform = tapejax.random_uniform_initializer(-1.0, 3.0, seed=2)([20000], tapejax.float16)
    assert uniform.dtype == tapejax.float16
    u = uniform.numpy().astype(np.float64)
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.05
    ints = tapejax.random_uniform_initializer(0, 5, seed=2)([1000], tapejax.int32)
    theirs = tensorflow.random_uniform_initializer(0, 5, seed=2)([1000], tensorflow.int32)
    assert ints.dtype.name == theirs.dtype.name == "int32"
    assert set(ints.numpy().tolist()) == set(theirs.numpy().tolist()) == {0, 1, 2, 3, 4}


def test_initializers_make_variables_inside_a_function():
    init = tapejax.random_normal_initializer(seed=5)
    v = tapejax.Variable(init([3]))

    @tapejax.function
    def f():
        return v + init([3])

    for _ in range(2):  # the eager first call and the traced second give the same numbers
        np.testing.assert_allclose(f().numpy(), 2 * v.numpy())


ERRORS = [
    (
        lambda tf: tf.random_normal_initializer()([2], tf.int32),
        "ValueError",
        r"Argument `dtype` is expected to be floating point. Received: <dtype: 'int32'>.",
    ),
    (
        lambda tf: tf.random_uniform_initializer()([2], tf.bool),
        "ValueError",
        r"Argument `dtype` expected to be numeric or boolean. Received <dtype: 'bool'>.",
    ),
    (
        lambda tf: tf.zeros_initializer()([2], tf.string),
        "ValueError",
        r"Argument `dtype` expected to be numeric or boolean. Received <dtype: 'string'>.",
    ),
    (
        lambda tf: tf.ones_initializer()([2], foo=1),
        "TypeError",
        r"Keyword argument should be one of \['partition_shape', 'partition_offset'\]. Received: foo",
    ),
    (
        lambda tf: tf.constant_initializer(1.0)([2], partition_shape=[1]),
        "ValueError",
        r"Constant initializer doesn't support partition-related arguments",
    ),
    (
        lambda tf: tf.constant_initializer({"a": 1}),
        "TypeError",
        r"Invalid type for initial value: dict. Expected Python scalar, list or tuple of values, or numpy.ndarray.",
    ),
    (
        lambda tf: tf.constant_initializer([0, 1, 2, 3, 4, 5, 6, 7])([3, 4], tf.float32),
        "TypeError",
        r"has 8 elements, but got `shape` \(3, 4\) with 12 elements",
    ),
    (
        lambda tf: tf.constant_initializer(1.5)([2], tf.int32),
        "TypeError",
        r"Cannot convert 1.5 to EagerTensor of dtype int32",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
