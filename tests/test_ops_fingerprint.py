# ruff: noqa: E501 - tables of TF's texts read best one case a line
"""``fingerprint`` and ``sparse.cross_hashed`` side by side with live TensorFlow: FarmHash
values bit for bit (every dtype, every length branch of ``Fingerprint64``), the crosses'
structure and hashes, TF's error types and texts, behaviour under a tape and inside
``tapejax.function``, and the differences ``docs/compat.md`` lists."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import Sparse, arr, check_error, raised, sp  # noqa: E402 - the shared op-test harness

# Host-computed ops tested here instead of by a Case in tests/test_ops*.py.
OTHERWISE_TESTED = {"fingerprint", "sparse.cross_hashed"}

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}


def data_of(dtype, shape, seed=0):
    """Test data spreading over the dtype's range (signs, large values, -0.0 for floats)."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed + len(shape))
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dt)
    x = arr(dtype, shape, -1e3, 1e3, seed=seed)
    if dt.kind == "c":
        x = (x + 1j * arr("float64", shape, -5.0, 5.0, seed=seed + 1)).astype(dt)
    if dt.kind == "f" and x.size:
        x.reshape(-1)[0] = -0.0
    return x


def tf_fingerprint(value):
    return tensorflow.fingerprint(tensorflow.constant(value)).numpy()


def our_fingerprint(value):
    out = tapejax.fingerprint(tapejax.constant(value))
    assert out.dtype == tapejax.uint8
    return out.numpy()


# -- fingerprint: values ---------------------------------------------------------------------

DTYPES = [
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "bool",
    "complex64",
    "complex128",
]
SHAPES = [(3,), (2, 3), (2, 3, 4), (2, 2, 3, 2), (0,), (0, 5), (3, 0), (2, 0, 4)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_fingerprint_is_tfs(dtype, shape, x64):
    value = data_of(dtype, shape)
    want = tf_fingerprint(value)
    got = our_fingerprint(value)
    assert got.shape == want.shape == (shape[0], 8)
    np.testing.assert_array_equal(got, want)


# Row lengths in bytes covering each branch of Fingerprint64: 0, 1-3, 4-7, 8-16, 17-32,
# 33-64, and the loop over 64-byte blocks (one block, several, a partial last block).
LENGTHS = [*range(0, 66), 67, 95, 127, 128, 129, 191, 192, 200, 255, 256, 257, 500, 777, 1024]


@pytest.mark.parametrize("length", LENGTHS)
def test_fingerprint_every_length_branch_is_tfs(length):
    value = data_of("uint8", (4, length), seed=length)
    np.testing.assert_array_equal(our_fingerprint(value), tf_fingerprint(value))


@pytest.mark.parametrize(
    "dtype, shape", [("float64", (2, 40)), ("int32", (3, 7, 11)), ("complex128", (2, 33))]
)
def test_fingerprint_long_multibyte_rows_are_tfs(dtype, shape, x64):
    value = data_of(dtype, shape, seed=3)
    np.testing.assert_array_equal(our_fingerprint(value), tf_fingerprint(value))


def test_fingerprint_of_known_bytes():
    """Independent of TF: Fingerprint64 of no bytes is FarmHash's k2, written
    little-endian."""
    got = tapejax.fingerprint(np.zeros((2, 0), np.uint8)).numpy()
    want = np.frombuffer((0x9AE16A3B2F90404F).to_bytes(8, "little"), np.uint8)
    np.testing.assert_array_equal(got, np.stack([want, want]))


def test_fingerprint_takes_python_lists_and_variables():
    np.testing.assert_array_equal(
        tapejax.fingerprint([[1, 2], [3, 4]]).numpy(),
        tensorflow.fingerprint([[1, 2], [3, 4]]).numpy(),
    )
    np.testing.assert_array_equal(
        tapejax.fingerprint(tapejax.Variable([1.5, 2.5])).numpy(),
        tensorflow.fingerprint(tensorflow.Variable([1.5, 2.5])).numpy(),
    )


@pytest.mark.parametrize(
    "method", ["farmhash64", b"farmhash64", np.str_("farmhash64"), np.array("farmhash64")]
)
def test_fingerprint_method_spellings(method):
    x = np.arange(6, dtype=np.int32).reshape(3, 2)
    np.testing.assert_array_equal(
        tapejax.fingerprint(x, method=method).numpy(),
        tensorflow.fingerprint(x, method=method).numpy(),
    )


def test_fingerprint_argument_names_are_tfs():
    x = np.arange(4, dtype=np.int32)
    got = tapejax.fingerprint(data=x, method="farmhash64", name="fp").numpy()
    np.testing.assert_array_equal(
        got, tensorflow.fingerprint(data=x, method="farmhash64", name="fp").numpy()
    )


# -- fingerprint: errors ---------------------------------------------------------------------

FINGERPRINT_ERRORS = [
    (
        lambda tf: tf.fingerprint(tf.constant(3)),
        "InvalidArgumentError",
        r"`data` should have at least one dimension: \[\] \[Op:Fingerprint\]",
    ),
    (
        lambda tf: tf.fingerprint(tf.constant([3]), method="md5"),
        "InvalidArgumentError",
        r"Unsupported fingerprint method: md5 \[Op:Fingerprint\]",
    ),
    # The method is checked before the rank.
    (
        lambda tf: tf.fingerprint(tf.constant(3), method="md5"),
        "InvalidArgumentError",
        r"Unsupported fingerprint method: md5 \[Op:Fingerprint\]",
    ),
    (
        lambda tf: tf.fingerprint(tf.constant([3]), method="FARMHASH64"),
        "InvalidArgumentError",
        r"Unsupported fingerprint method: FARMHASH64",
    ),
    (
        lambda tf: tf.fingerprint(tf.constant([3]), method=["farmhash64"]),
        "InvalidArgumentError",
        r"`method` should be a scalar string: \[1\] \[Op:Fingerprint\]",
    ),
    (
        lambda tf: tf.fingerprint(tf.constant([3]), method=1),
        "TypeError",
        r"^Cannot convert 1 to EagerTensor of dtype string$",
    ),
    (
        lambda tf: tf.fingerprint(tf.constant([3]), method=None),
        "ValueError",
        r"^Attempt to convert a value \(None\) with an unsupported type \(<class 'NoneType'>\) to a Tensor\.$",
    ),
]


@pytest.mark.parametrize("fn, error, message", FINGERPRINT_ERRORS)
def test_fingerprint_errors_are_tfs(fn, error, message):
    check_error(fn, error, message)


@pytest.mark.parametrize("value", [["a", "b"], np.array([b"x"]), np.array([["ab", "c"]])])
def test_fingerprint_of_strings_says_tapejax_has_none(value):
    assert raised(lambda tf: tf.fingerprint(value), tensorflow) is None  # TF hashes strings
    with pytest.raises(NotImplementedError, match="tapejax has no string tensors"):
        tapejax.fingerprint(value)


# -- fingerprint: tapes and tapejax.function -------------------------------------------------


def test_fingerprint_under_a_tape_gives_none_where_tf_raises():
    """docs/compat.md: TF registers no gradient for Fingerprint (LookupError)."""
    tapes = {}
    for fw, tf in FRAMEWORKS.items():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.fingerprint(x * 2.0)
        tapes[fw] = (tape, x, y)
    tape, x, y = tapes["tensorflow"]
    with pytest.raises(LookupError, match="no entry for: Fingerprint"):
        tape.gradient(y, x)
    tape, x, y = tapes["tapejax"]
    assert tape.gradient(y, x) is None


def test_fingerprint_in_a_function_is_tfs_and_traces_once():
    @tapejax.function
    def f(x):
        return tapejax.fingerprint(x * 2)

    for seed in range(3):
        value = data_of("int32", (3, 5), seed=seed)
        want = tensorflow.fingerprint(tensorflow.constant(value) * 2).numpy()
        np.testing.assert_array_equal(f(tapejax.constant(value)).numpy(), want)
    assert f.experimental_get_tracing_count() == 1


def test_fingerprint_under_jit_and_vmap_is_the_eager_value():
    value = data_of("float32", (4, 3, 2))
    eager = tapejax.fingerprint(value).numpy()
    jitted = jax.jit(lambda v: tapejax.fingerprint(v)._value)(value)
    np.testing.assert_array_equal(np.asarray(jitted), eager)
    batched = jax.vmap(lambda v: tapejax.fingerprint(v)._value)(value)
    for i in range(value.shape[0]):
        np.testing.assert_array_equal(np.asarray(batched[i]), tf_fingerprint(value[i]))


def test_fingerprint_of_int64_without_x64_hashes_the_held_int32():
    """docs/compat.md: without JAX's x64 mode an int64 tensor is held as int32, so its
    rows have 4 bytes per element."""
    if jax.config.jax_enable_x64:
        pytest.skip("needs JAX's default 32-bit mode")
    value = np.array([[1, -2], [3, 4]], np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the narrowing warning, once per dtype
        t = tapejax.constant(value)
    got = tapejax.fingerprint(t).numpy()
    np.testing.assert_array_equal(got, tf_fingerprint(value.astype(np.int32)))
    assert not np.array_equal(got, tf_fingerprint(value))


# -- sparse.cross_hashed ---------------------------------------------------------------------


def dense(values, dtype=np.int64):
    return np.array(values, dtype)


def build(fw, inputs):
    return [x.build(fw) if isinstance(x, Sparse) else fw.constant(x) for x in inputs]


S2 = sp([[0, 0], [1, 0], [1, 1], [3, 0]], [1, -2, 3, 7], (4, 3), np.int64)
S_EMPTY_ROWS = sp([[1, 0], [1, 1], [1, 2]], [5, 6, 2**40], (4, 5), np.int64)
S_NO_VALUES = sp(np.zeros((0, 2)), [], (4, 2), np.int64)
S_INT32 = sp([[0, 0], [0, 1], [2, 0], [3, 3]], [9, -9, 2**31 - 1, -(2**31)], (4, 4), np.int32)
# TF's kernel reads each row's values in stored order and ignores the column index.
S_UNORDERED_COLUMNS = sp([[0, 2], [0, 0], [2, 1], [2, 0]], [4, 3, 2, 1], (4, 3), np.int64)
# Rows out of order: TF's kernel stops a row's features at the first index of another row.
S_UNORDERED_ROWS = sp([[1, 0], [0, 0], [1, 1], [2, 0], [2, 1]], [1, 2, 3, 4, 5], (4, 2), np.int64)
D1 = dense([[4], [5], [6], [7]])
D2 = dense([[4, 5], [5, 6], [7, 8], [9, 10]])
D_BIG = dense([[2**62, -(2**63)], [0, -1], [2**63 - 1, 1], [-7, 7]])
D_INT32 = dense([[1, 2, 3], [4, 5, 6], [-1, -2, -3], [0, 0, 0]], np.int32)

CROSSES = {
    "one-dense": [D1],
    "one-sparse": [S2],
    "dense-dense": [D1, D2],
    "sparse-dense": [S2, D2],
    "dense-sparse": [D2, S2],  # TF hashes SparseTensors first
    "three": [D2, S2, S_INT32],
    "three-with-big": [S_EMPTY_ROWS, D_BIG, D1],
    "empty-rows": [S_EMPTY_ROWS, D2],
    "no-values": [S_NO_VALUES, D1],
    "int32": [D_INT32, S_INT32],
    "unordered-columns": [S_UNORDERED_COLUMNS, D1],
    "unordered-rows": [S_UNORDERED_ROWS, D1],
    "batch-0": [np.zeros((0, 3), np.int64)],
    "no-features": [np.zeros((4, 0), np.int64), D1],
    "none": [],
}


def check_cross(inputs, **kw):
    want = tensorflow.sparse.cross_hashed(build(tensorflow, inputs), **kw)
    got = tapejax.sparse.cross_hashed(build(tapejax, inputs), **kw)
    assert isinstance(got, tapejax.SparseTensor)
    assert got.values.dtype == tapejax.int64
    for part in ("indices", "values", "dense_shape"):
        np.testing.assert_array_equal(
            getattr(got, part).numpy(), getattr(want, part).numpy(), err_msg=part
        )
    assert got.shape.as_list() == list(want.dense_shape.numpy())
    return got


@pytest.mark.parametrize("num_buckets", [0, 1, 7, 1000, 2**40])
@pytest.mark.parametrize("name", list(CROSSES))
def test_cross_hashed_is_tfs(name, num_buckets, x64):
    check_cross(CROSSES[name], num_buckets=num_buckets)


@pytest.mark.parametrize("hash_key", [None, 0, 1, -5, 2**62, 2**63 - 1, -(2**63)])
def test_cross_hashed_hash_keys_are_tfs(hash_key, x64):
    check_cross([D2, S2, S_EMPTY_ROWS], hash_key=hash_key)
    check_cross([D2, S_INT32], num_buckets=97, hash_key=hash_key)


def test_cross_hashed_of_other_numbers_casts_as_tf(x64):
    """TF casts every non-string feature to int64 (floats truncated, bools 0/1)."""
    check_cross([np.array([[1.7, -2.2], [3.9, -0.5]], np.float32), np.array([[True], [False]])])
    check_cross(
        [sp([[0, 0], [1, 0]], [2.5, -3.5], (2, 1), np.float64), np.array([[7], [8]], np.uint8)]
    )


def test_cross_hashed_takes_a_tuple_and_keywords(x64):
    want = tensorflow.sparse.cross_hashed(
        inputs=tuple(build(tensorflow, [S2, D1])), num_buckets=5, hash_key=3, name="c"
    )
    got = tapejax.sparse.cross_hashed(
        inputs=tuple(build(tapejax, [S2, D1])), num_buckets=5, hash_key=3, name="c"
    )
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())


CROSS_ERRORS = [
    (
        lambda tf: tf.sparse.cross_hashed(tf.constant([[1]])),
        "TypeError",
        r"^Inputs must be a list$",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([np.array([[1], [2]])]),
        "TypeError",
        r"^All inputs must be SparseTensors$",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([tf.Variable([[1], [2]])]),
        "TypeError",
        r"^All inputs must be SparseTensors$",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([tf.constant([1, 2])]),
        "InvalidArgumentError",
        r"Dense inputs should be a matrix but received shape \[2\] at position 0 \[Op:SparseCross\]",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([tf.constant([[1], [2]]), tf.constant([[[1]]])]),
        "InvalidArgumentError",
        r"Dense inputs should be a matrix but received shape \[1,1,1\] at position 1",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([tf.constant([[1], [2]]), tf.constant([[1], [2], [3]])]),
        "InvalidArgumentError",
        r"Expected batch size 2 got 3 at dense tensor 1 \[Op:SparseCross\]",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([S2.build(tf), tf.constant([[1], [2], [3]])]),
        "InvalidArgumentError",
        r"Expected batch size 4 got 3 at dense tensor 0",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([S2.build(tf), tf.SparseTensor([[0, 0]], [1], [3, 2])]),
        "InvalidArgumentError",
        r"Expected batch size 4 got 3 at position 1",
    ),
    (
        lambda tf: tf.sparse.cross_hashed(
            [S2.build(tf), tf.SparseTensor([[0, 0, 0]], [1], [4, 2, 2])]
        ),
        "InvalidArgumentError",
        r"Expected D2 of index to be 2 got 3 at position 1",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([S2.build(tf)], num_buckets=-1),
        "InvalidArgumentError",
        r"^Value for attr 'num_buckets' of -1 must be at least minimum 0\n\t; NodeDef: \{\{node SparseCross\}\}; Op<name=SparseCross; signature=indices:N\*int64, values:, shapes:N\*int64",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([S2.build(tf)], hash_key=2**64),
        "OverflowError",
        r"^int too big to convert$",
    ),
    (
        lambda tf: tf.sparse.cross_hashed([S2.build(tf)], hash_key=2**63),
        "OverflowError",
        r"^int too big to convert$",
    ),
]


@pytest.mark.parametrize("fn, error, message", CROSS_ERRORS)
def test_cross_hashed_errors_are_tfs(fn, error, message, x64):
    check_error(fn, error, message)


@pytest.mark.parametrize(
    "inputs",
    [
        lambda tf: [np.array([["a"], ["b"]])],
        lambda tf: [[["a"], ["b"]]],
        lambda tf: "ab",
        lambda tf: [tf.constant([[1], [2]]), np.array([[b"x"], [b"y"]])],
    ],
)
def test_cross_hashed_of_strings_says_tapejax_has_none(inputs):
    with pytest.raises(
        NotImplementedError, match="integer features only: tapejax has no string tensors"
    ):
        tapejax.sparse.cross_hashed(inputs(tapejax))


def test_cross_hashed_is_not_differentiable():
    """The values are hashes: TF's tape and tapejax's give None for a float feature."""
    for tf in FRAMEWORKS.values():
        x = tf.constant([[1.5, 2.0], [3.0, 4.0]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cast(tf.sparse.cross_hashed([x * 2.0], num_buckets=10).values, tf.float32)
        assert tape.gradient(y, x) is None


def test_cross_hashed_in_a_function_is_tfs(x64):
    sparse = S_EMPTY_ROWS

    @tapejax.function
    def f(d):
        s = tapejax.SparseTensor(
            sparse.indices, tapejax.constant(sparse.values) + 0, sparse.dense_shape
        )
        return tapejax.sparse.cross_hashed([d, s], num_buckets=1000)

    for seed in range(3):
        d = data_of("int64", (4, 2), seed=seed)
        want = tensorflow.sparse.cross_hashed(
            [tensorflow.constant(d), sparse.build(tensorflow)], num_buckets=1000
        )
        got = f(tapejax.constant(d))
        for part in ("indices", "values", "dense_shape"):
            np.testing.assert_array_equal(getattr(got, part).numpy(), getattr(want, part).numpy())
    assert f.experimental_get_tracing_count() == 1


def test_cross_hashed_of_traced_indices_needs_them_concrete(x64):
    @tapejax.function
    def f(s):
        return tapejax.sparse.cross_hashed([s]).values

    f(S2.build(tapejax))  # the eager first call
    with pytest.raises(NotImplementedError, match="needs concrete indices"):
        f(S2.build(tapejax))


def test_cross_hashed_without_x64():
    """docs/compat.md: without JAX's x64 mode the hashes are int32 where they fit
    (num_buckets <= 2**31), else a ValueError names jax_enable_x64."""
    if jax.config.jax_enable_x64:
        pytest.skip("needs JAX's default 32-bit mode")
    inputs = [np.array([[1, 2], [3, 4]], np.int32)]
    want = tensorflow.sparse.cross_hashed(
        build(tensorflow, inputs), num_buckets=1000
    ).values.numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the narrowing warning, once per dtype
        got = tapejax.sparse.cross_hashed(build(tapejax, inputs), num_buckets=1000).values
    assert got.dtype == tapejax.int32
    np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(ValueError, match="jax_enable_x64"):
        tapejax.sparse.cross_hashed(build(tapejax, inputs))

    @tapejax.function
    def f(d, num_buckets):
        return tapejax.sparse.cross_hashed([d], num_buckets=num_buckets).values

    np.testing.assert_array_equal(f(tapejax.constant(inputs[0]), 1000).numpy(), want)
    np.testing.assert_array_equal(f(tapejax.constant(inputs[0]), 1000).numpy(), want)
    for _ in range(2):  # the eager first call, then the traced one
        with pytest.raises(ValueError, match="jax_enable_x64"):
            f(tapejax.constant(inputs[0]), 0)
