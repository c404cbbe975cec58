# ruff: noqa: E501 - tables of TF's texts read best one case a line
"""Top-level names side by side with live TensorFlow: ``AggregationMethod``,
``DeviceSpec``, ``get_logger``, ``guarantee_const``, ``is_symbolic_tensor``, ``timestamp``,
``register_tensor_conversion_function``, ``variable_creator_scope``, the type specs
(``TypeSpec``, ``type_spec_from_value``, ``IndexedSlicesSpec``, ``TensorArraySpec``,
``NoneTensorSpec``) and ``edit_distance``: values, types, error types and texts, and the
differences ``docs/compat.md`` lists."""

from __future__ import annotations

import collections
import logging
import time

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error, raised, sp  # noqa: E402 - the shared op-test harness

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}

# Ops tested here instead of by a Case in tests/test_ops*.py (host-computed or stateful).
OTHERWISE_TESTED = {"edit_distance", "guarantee_const", "timestamp"}


def same_error(fn):
    """``fn(tf)`` raises the same exception type with the same text in both frameworks."""
    want, got = raised(fn, tensorflow), raised(fn, tapejax)
    assert want is not None, "TF raises nothing: fix the test"
    assert got is not None, f"tapejax raised nothing; TF raises {want!r}"
    assert (type(got).__name__, str(got)) == (type(want).__name__, str(want))


# -- AggregationMethod ---------------------------------------------------------------------


def test_aggregation_method_constants_are_tfs():
    def public(cls):
        return {n: getattr(cls, n) for n in dir(cls) if not n.startswith("_")}

    assert public(tapejax.AggregationMethod) == public(tensorflow.AggregationMethod)


# -- DeviceSpec ----------------------------------------------------------------------------

SPECS = [
    "",
    "/job:ps/replica:1/task:2/device:GPU:3",
    "/job:worker/CPU:0",
    "/cpu:1",
    "/gpu:*",
    "GPU:0",
    "/device:TPU:2",
    "/device:CUSTOM:*",
    "/job:w//task:0",
    "/replica:4",
    "/device:FOO:1",
]


def _parts(spec):
    return (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index)


@pytest.mark.parametrize("text", SPECS)
def test_device_spec_parses_as_tf(text):
    got = tapejax.DeviceSpec.from_string(text)
    want = tensorflow.DeviceSpec.from_string(text)
    assert _parts(got) == _parts(want)
    assert got.to_string() == want.to_string()
    assert repr(got) == repr(want)
    assert got.parse_from_string(text) == got


@pytest.mark.parametrize(
    "text",
    ["/job:a/GPU:0/CPU:1", "/device:GPU:0/CPU:0", "/foo:1", "/job:a/b", "/device:GPU:x", "/CPU:x"],
)
def test_device_spec_bad_strings_raise_tfs_errors(text):
    same_error(lambda tf: tf.DeviceSpec.from_string(text))


def test_device_spec_construction_replace_merge_equality():
    def run(fw):
        a = fw.DeviceSpec(job="ps", replica="1", device_type="cpu", device_index="0")
        b = fw.DeviceSpec(device_type="GPU")
        merged = a.make_merged_spec(b)
        replaced = a.replace(job=None, task=3)
        return (
            _parts(a),
            merged.to_string(),
            _parts(merged),
            replaced.to_string(),
            a == fw.DeviceSpec.from_string("/job:ps/replica:1/device:CPU:0"),
            a == a.to_string(),
            hash(a) == hash(fw.DeviceSpec.from_string(a.to_string())),
            repr(b),
        )

    assert run(tapejax) == run(tensorflow)
    with pytest.raises(AttributeError):
        tapejax.DeviceSpec(job="a").job = "b"  # immutable, as TF 2's


def test_device_accepts_a_device_spec():
    with tapejax.device(tapejax.DeviceSpec(device_type="CPU", device_index=0)):
        got = tapejax.constant(1.0).device
    with tensorflow.device(tensorflow.DeviceSpec(device_type="CPU", device_index=0)):
        want = tensorflow.constant(1.0).device
    assert got == want


# -- get_logger ----------------------------------------------------------------------------


def test_get_logger_is_one_python_logger_as_tfs():
    for fw in (tapejax, tensorflow):
        logger = fw.get_logger()
        assert isinstance(logger, logging.Logger)
        assert fw.get_logger() is logger


def test_get_logger_is_tapejaxs_own_and_silences_its_warnings(caplog):
    # Deliberate difference (docs/compat.md): the logger tapejax warns through, not
    # TF's "tensorflow" logger, so that setLevel silences tapejax's warnings.
    from tapejax._src.tf_logging import warn_first_n

    logger = tapejax.get_logger()
    assert tensorflow.get_logger().name == "tensorflow"
    assert logger.name == "tapejax"
    previous = logger.level
    try:
        with caplog.at_level(logging.WARNING, logger="tapejax"):
            warn_first_n("heard", 5)
            logger.setLevel(logging.ERROR)
            warn_first_n("silenced", 5)
    finally:
        logger.setLevel(previous)
    assert [r.getMessage() for r in caplog.records] == ["heard"]


# -- guarantee_const -------------------------------------------------------------------------


def test_guarantee_const_values_and_deprecation_warning(caplog, monkeypatch):
    from tapejax._src.ops import array_ops

    # Warned once per process: as if no earlier test in this process had called it.
    monkeypatch.setattr(array_ops, "_guarantee_const_warned", False)
    x = np.array([[1.5, -2.0]], np.float32)
    with caplog.at_level(logging.WARNING):
        got = tapejax.guarantee_const(x)
        want = tensorflow.guarantee_const(x)
        tapejax.guarantee_const(x)  # warned once only, as TF
    assert got.dtype.name == want.dtype.name and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    ours = [r.getMessage() for r in caplog.records if r.name == "tapejax"]
    assert len(ours) == 1 and ours[0].startswith(f"From {__file__}:")
    tail = "is deprecated and will be removed in a future version.\nInstructions for updating:\nNot for public use."
    assert ours[0].endswith("guarantee_const (from tapejax) " + tail)
    theirs = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
    assert all(m.endswith(tail) for m in theirs)  # TF warns once per process


def test_guarantee_const_has_no_gradient():
    # Deliberate difference (docs/compat.md): None where TF's tape raises LookupError.
    def grad(tf):
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.guarantee_const(x) * 2.0
        return tape.gradient(y, x)

    assert isinstance(raised(grad, tensorflow), LookupError)
    assert grad(tapejax) is None


# -- is_symbolic_tensor ----------------------------------------------------------------------


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_is_symbolic_tensor(fw):
    tf = FRAMEWORKS[fw]
    eager = [tf.constant(1.0), tf.Variable(1.0), 1.0, np.ones(2), None]
    assert [tf.is_symbolic_tensor(v) for v in eager] == [False] * 5
    f = tf.function(lambda x: (tf.is_symbolic_tensor(x), tf.is_symbolic_tensor(x * 2.0)))
    for _ in range(2):  # tapejax's first call runs eagerly, later ones traced
        assert [bool(r) for r in f(tf.constant(1.0))] == [True, True]


def test_is_symbolic_tensor_of_a_captured_eager_tensor_differs():
    # Deliberate difference (docs/compat.md).
    def captured(tf):
        c = tf.constant(1.0)
        return bool(tf.function(lambda x: tf.is_symbolic_tensor(c))(tf.constant(0.0)))

    assert captured(tensorflow) is False
    assert captured(tapejax) is True


def test_is_symbolic_tensor_true_for_a_jax_tracer():
    import jax

    seen = []
    jax.jit(lambda a: seen.append(tapejax.is_symbolic_tensor(tapejax.identity(a))) or a)(1.0)
    assert seen == [True]


# -- timestamp -------------------------------------------------------------------------------


def test_timestamp_is_float64_seconds_as_tfs(x64):
    before = time.time()
    got = tapejax.timestamp()
    want = tensorflow.timestamp()
    after = time.time()
    assert got.dtype.name == want.dtype.name == "float64"
    assert got.shape == want.shape == ()
    assert before <= float(got) <= after
    assert abs(float(got) - float(want)) < 1.0


def test_timestamp_is_read_at_each_call_of_a_function(x64):
    f = tapejax.function(lambda: tapejax.timestamp())
    times = []
    for _ in range(3):  # the eager first call, then the compiled program twice
        times.append(float(f()))
        time.sleep(0.01)
    assert times[0] < times[1] < times[2]


def test_timestamp_without_x64_is_float32():
    # Deliberate difference (docs/compat.md): JAX holds float64 only in 64-bit mode.
    import jax

    if jax.config.jax_enable_x64:
        pytest.skip("needs JAX's 64-bit mode off")
    with pytest.warns(UserWarning, match="64-bit mode is off") if _first_float64() else _nothing():
        t = tapejax.timestamp()
    assert t.dtype.name == "float32"
    assert abs(float(t) - time.time()) < 600


def _first_float64():
    from tapejax._src import conversion

    return np.dtype(np.float64) not in conversion._narrow_warned


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# -- register_tensor_conversion_function -----------------------------------------------------


def _fn(value, dtype=None, name=None, as_ref=False):
    raise AssertionError("never called: registration fails")


@pytest.mark.parametrize(
    "base",
    [
        "not a type",
        (collections.OrderedDict, 3),
        int,
        bool,
        float,
        np.ndarray,
        np.float32,
        np.int64,
        (dict, float),
    ],
)
def test_register_refuses_tfs_bad_base_types(base):
    same_error(lambda tf: tf.register_tensor_conversion_function(base, _fn))


def test_register_refuses_a_non_callable():
    class Fresh:
        pass

    same_error(lambda tf: tf.register_tensor_conversion_function(Fresh, "not callable"))


def _const_of(fw):
    def convert(value, dtype=None, name=None, as_ref=False):
        return fw.constant(value.v, dtype=dtype)

    return convert


def test_registered_type_converts_in_convert_to_tensor_and_ops():
    results = []
    for fw in (tapejax, tensorflow):

        class Meters:
            def __init__(self, v):
                self.v = v

        fw.register_tensor_conversion_function(Meters, _const_of(fw))
        a = fw.convert_to_tensor(Meters([1.0, 2.0]))
        b = fw.convert_to_tensor(Meters(3), dtype=fw.float32)
        c = fw.add(Meters(2.0), 1.0)
        d = fw.constant(1.0) * Meters(4.0)
        e = fw.convert_to_tensor(Meters(5), dtype_hint=fw.float32)
        results.append([(t.dtype.name, t.numpy().tolist()) for t in (a, b, c, d, e)])
    assert results[0] == results[1]


def test_conversion_functions_run_by_priority_then_registration():
    calls = {}
    for fw in (tapejax, tensorflow):
        log = calls[fw.__name__] = []

        class Thing:
            pass

        class SubThing(Thing):
            pass

        def make(tag, answer, fw=fw, log=log):
            def convert(value, dtype=None, name=None, as_ref=False):
                log.append(tag)
                return NotImplemented if answer is None else fw.constant(answer)

            return convert

        fw.register_tensor_conversion_function(Thing, make("base-100", 1.0))
        fw.register_tensor_conversion_function(SubThing, make("sub-50", None), priority=50)
        fw.register_tensor_conversion_function((SubThing, dict), make("sub-100", None))
        fw.register_tensor_conversion_function(Thing, make("base-150", 2.0), priority=150)
        log.append(float(fw.convert_to_tensor(SubThing())))
        log.append(float(fw.convert_to_tensor(Thing())))
    assert calls["tapejax"] == calls["tensorflow"] == [
        "sub-50", "base-100", 1.0, "base-100", 1.0
    ]  # fmt: skip


def test_tfs_own_conversions_come_first_at_equal_priority():
    def run(tf):
        class Late:
            pass

        class Pair(collections.namedtuple("Pair", "a b")):
            pass

        tf.register_tensor_conversion_function(
            Late, lambda v, dtype=None, name=None, as_ref=False: tf.constant(1.0), priority=200
        )
        tf.register_tensor_conversion_function(
            Pair, lambda v, dtype=None, name=None, as_ref=False: tf.constant(-1.0), priority=100
        )
        pair = tf.convert_to_tensor(Pair(2.0, 3.0))  # TF's tuple conversion wins the tie
        try:
            tf.convert_to_tensor(Late())  # TF's catch-all conversion (200) fails first
        except (TypeError, ValueError) as e:
            late = type(e).__name__
        return pair.numpy().tolist(), late

    assert run(tapejax) == run(tensorflow)


def test_conversion_function_results_are_checked_as_tfs():
    class Wrong:
        pass

    class NotTensor:
        pass

    def to_int(value, dtype=None, name=None, as_ref=False):
        return current[0].constant(np.int32(7))

    def to_list(value, dtype=None, name=None, as_ref=False):
        return [1.0]

    for fw in (tapejax, tensorflow):
        fw.register_tensor_conversion_function(Wrong, to_int)
        fw.register_tensor_conversion_function(NotTensor, to_list)
    current = []

    def texts(fw):
        # The same function objects in both frameworks: the texts (with their reprs) agree.
        current[:] = [fw]
        out = []
        for kwargs in ({"dtype": fw.float32}, {"dtype_hint": fw.float32}, {}, {"name": "arg"}):
            value = NotTensor() if "dtype" not in kwargs and "dtype_hint" not in kwargs else Wrong()
            try:
                out.append(("ok", fw.convert_to_tensor(value, **kwargs).dtype.name))
            except Exception as e:  # noqa: BLE001 - the exception is the result under test
                out.append((type(e).__name__, str(e)))
        return out

    assert texts(tapejax) == texts(tensorflow)


# -- variable_creator_scope ------------------------------------------------------------------


def test_variable_creator_gets_tfs_arguments_inner_creator_first():
    results = {}
    for fw in (tapejax, tensorflow):
        log = []

        def outer(next_creator, log=log, **kwargs):
            log.append(("outer", kwargs["trainable"]))
            return next_creator(**kwargs)

        def inner(next_creator, log=log, **kwargs):
            log.append(
                ("inner", sorted(kwargs), kwargs["name"], kwargs["initial_value"],
                 kwargs["synchronization"].name, kwargs["aggregation"].name,
                 kwargs["experimental_enable_variable_lifting"])
            )  # fmt: skip
            return next_creator(**{**kwargs, "trainable": False, "extra": 1})

        with fw.variable_creator_scope(outer), fw.variable_creator_scope(inner):
            v = fw.Variable(2.0, name="w", aggregation=None)
        log.append((type(v).__name__.endswith("Variable"), v.trainable, float(v.numpy())))
        results[fw.__name__] = log
    assert results["tapejax"] == results["tensorflow"]


def test_variable_creator_may_return_anything_and_scopes_end():
    for fw in (tapejax, tensorflow):
        with fw.variable_creator_scope(lambda next_creator, **kwargs: "not a variable"):
            assert fw.Variable(1.0) == "not a variable"
        assert isinstance(fw.Variable(1.0), fw.Variable)


def test_variable_creator_scope_out_of_order_exit_raises_tfs_error():
    def run(tf):
        a = tf.variable_creator_scope(lambda n, **k: n(**k))
        b = tf.variable_creator_scope(lambda n, **k: n(**k))
        a.__enter__()
        b.__enter__()
        try:
            a.__exit__(None, None, None)
        finally:
            b.__exit__(None, None, None)
            a.__exit__(None, None, None)

    same_error(run)


def test_variable_creator_sees_variables_made_in_a_function():
    for fw in (tapejax, tensorflow):
        names = []
        holder = []

        def creator(next_creator, names=names, **kwargs):
            names.append(kwargs["name"])
            return next_creator(**kwargs)

        def make(holder, fw):
            @fw.function
            def body(x):
                if not holder:
                    holder.append(fw.Variable(1.0, name="inside"))
                return holder[0] * x

            return body

        f = make(holder, fw)

        with fw.variable_creator_scope(creator):
            f(fw.constant(2.0))
        assert names == ["inside"], fw.__name__


# -- TypeSpec, type_spec_from_value and the specs --------------------------------------------


def _values(tf):
    return [
        tf.constant([1, 2, 3]),
        tf.Variable([1.0, 2.0]),
        tf.Variable(1, trainable=False),
        None,
        1.0,
        [1.0, 2.0],
        [tf.constant(1.0), tf.constant(2.0)],
        np.zeros((2, 3), np.float32),
        tf.SparseTensor([[0, 1]], [1.0], [2, 3]),
        tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 1]), tf.constant([4, 3])),
        tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 1])),
        tf.TensorArray(tf.float32, size=2),
        tf.TensorArray(tf.float32, size=2, dynamic_size=True, element_shape=[3]).write(
            0, tf.ones([3])
        ),
        tf.TensorArray(tf.int32, size=0, infer_shape=False),
    ]


def test_type_spec_from_value_is_tfs(x64):
    for ours, theirs in zip(_values(tapejax), _values(tensorflow), strict=True):
        got, want = tapejax.type_spec_from_value(ours), tensorflow.type_spec_from_value(theirs)
        assert (type(got).__name__, repr(got)) == (type(want).__name__, repr(want))
        assert isinstance(got, tapejax.TypeSpec)
        assert got.is_compatible_with(ours) and got == tapejax.type_spec_from_value(ours)
        assert hash(got) == hash(tapejax.type_spec_from_value(ours))


def test_type_spec_from_value_refuses_what_tf_refuses():
    same_error(lambda tf: tf.type_spec_from_value(OBJECT))
    with pytest.raises(NotImplementedError, match="string"):  # tapejax has no string tensors
        tapejax.type_spec_from_value("abc")


OBJECT = object()


def _specs(tf):
    return [
        tf.IndexedSlicesSpec(),
        tf.IndexedSlicesSpec([None, 3], tf.float32, tf.int32, tf.int32, [None]),
        tf.IndexedSlicesSpec([2], "float64", "int64", "int64", None),
        tf.IndexedSlicesSpec(dense_shape_dtype="int16"),
        tf.TensorArraySpec(),
        tf.TensorArraySpec([2], tf.int32, True, False),
        tf.TensorArraySpec([2], "float32", dynamic_size=None),
        tf.NoneTensorSpec(),
        tf.TensorSpec([2]),
        tf.SparseTensorSpec([1], tf.float32),
    ]


def test_spec_constructors_reprs_value_types_and_equality_are_tfs():
    ours, theirs = _specs(tapejax), _specs(tensorflow)
    for a, b in zip(ours, theirs, strict=True):
        assert repr(a) == repr(b)
        assert isinstance(a, tapejax.TypeSpec) and isinstance(b, tensorflow.TypeSpec)
        assert a.value_type.__name__ == b.value_type.__name__
    eq = [[x == y for y in ours] for x in ours]
    assert eq == [[x == y for y in theirs] for x in theirs]
    assert hash(tapejax.NoneTensorSpec()) == hash(tapejax.NoneTensorSpec())
    assert hash(tapejax.TensorArraySpec([2])) == hash(tapejax.TensorArraySpec([2]))


def test_spec_compatibility_is_tfs():
    def table(tf):
        specs = [
            tf.IndexedSlicesSpec([3, 2]),
            tf.IndexedSlicesSpec([None, 2]),
            tf.IndexedSlicesSpec([None, 2], tf.float64),
            tf.TensorArraySpec([2], tf.float32),
            tf.TensorArraySpec(None, tf.float32),
            tf.TensorArraySpec([2], tf.float32, dynamic_size=True),
            tf.TensorArraySpec([2], tf.float32, infer_shape=False),
            tf.NoneTensorSpec(),
            tf.TensorSpec([]),
        ]
        values = [None, tf.TensorArray(tf.float32, size=1, element_shape=[2])]
        return [[a.is_compatible_with(b) for b in specs + values] for a in specs]

    assert table(tapejax) == table(tensorflow)


def test_type_spec_is_abstract():
    for fw in (tapejax, tensorflow):
        with pytest.raises(TypeError, match="Can't instantiate abstract class TypeSpec"):
            fw.TypeSpec()


def test_tensor_array_spec_from_value_refuses_others():
    same_error(lambda tf: tf.TensorArraySpec.from_value(3))


def test_indexed_slices_spec_indices_shape_must_be_rank_1():
    with pytest.raises(ValueError):
        tensorflow.IndexedSlicesSpec(indices_shape=[2, 2])
    with pytest.raises(ValueError):
        tapejax.IndexedSlicesSpec(indices_shape=[2, 2])


# -- edit_distance ---------------------------------------------------------------------------


EDIT_CASES = [
    (sp([[0, 0, 0], [1, 0, 0]], [1, 2], [2, 1, 1]), sp([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], [4, 2, 3, 1], [2, 2, 2])),
    (sp([[0, 0, 0], [1, 0, 0]], [1, 2], [2, 1, 1]), sp([[0, 0, 0]], [1], [2, 1, 1])),
    (sp(np.zeros((0, 2)), [], [2, 3]), sp(np.zeros((0, 2)), [], [2, 3])),
    (sp([[0, 1], [0, 0]], [1, 2], [1, 2]), sp([[0, 0]], [2], [1, 1])),
    (sp([[0, 0]], [1.5], [1, 1], np.float32), sp([[0, 0]], [1.5], [1, 1], np.float32)),
    (sp([[0, 0]], [True], [1, 1], bool), sp([[0, 0]], [False], [1, 1], bool)),
    (sp([[0, 0], [0, 1], [0, 2]], [1, 2, 3], [1, 3]), sp([[0, 0], [0, 1]], [1, 3], [1, 5])),
    (sp([[3, 0]], [1], [4, 3]), sp([[0, 1]], [1], [2, 5])),
    (sp([[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 1, 0], [1, 1, 3]], [5, 6, 7, 1, 2], [2, 2, 4]),
     sp([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], [6, 7, 1, 1, 2, 2], [2, 2, 2])),
]  # fmt: skip


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("case", range(len(EDIT_CASES)))
def test_edit_distance_is_tfs(case, normalize):
    h, t = EDIT_CASES[case]
    got = tapejax.edit_distance(h.build(tapejax), t.build(tapejax), normalize=normalize)
    want = tensorflow.edit_distance(h.build(tensorflow), t.build(tensorflow), normalize=normalize)
    assert got.dtype.name == want.dtype.name and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_edit_distance_takes_sparse_tensor_values():
    h = ([[0, 0], [0, 1]], [1, 2], [1, 2])
    t = ([[0, 0]], [2], [1, 1])
    got = tapejax.edit_distance(
        tapejax.sparse.SparseTensor(*h), tapejax._src.sparse_tensor.SparseTensorValue(*t)
    )
    want = tensorflow.edit_distance(
        tensorflow.SparseTensor(*h), tensorflow.compat.v1.SparseTensorValue(*t)
    )
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize(
    "h, t, error, message",
    [
        (sp([[0, 0]], [1], [1, 1]), None, "TypeError", r"^Truth must be a SparseTensor\.$"),
        (None, sp([[0, 0]], [1], [1, 1]), "TypeError", r"^Hypothesis must be a SparseTensor\.$"),
        (sp([[0, 0]], [1.0], [1, 1], np.float32), sp([[0, 0]], [1], [1, 1]), "InvalidArgumentError", r"cannot compute EditDistance as input #4\(zero-based\) was expected to be a float tensor but is a int32 tensor \[Op:EditDistance\]"),
        (sp([[0, 0]], [1], [1, 1]), sp([[0, 0, 0]], [1], [1, 1, 1]), "InvalidArgumentError", r"Expected truth and hypothesis to have matching ranks, but their shapes are: \[3\] and \[2\] \[Op:EditDistance\]"),
        (sp([[0]], [1], [1]), sp([[0, 0]], [1], [1, 1]), "InvalidArgumentError", r"Expected truth and hypothesis to have matching ranks, but their shapes are: \[2\] and \[1\] \[Op:EditDistance\]"),
        (sp([[0]], [1], [1]), sp([[0]], [2], [1]), "InvalidArgumentError", r"Input SparseTensors must have rank at least 2, but truth_shape rank is: 1 \[Op:EditDistance\]"),
    ],
)  # fmt: skip
def test_edit_distance_errors_are_tfs(h, t, error, message):
    def run(tf):
        hyp = tf.constant([1]) if h is None else h.build(tf)
        tru = tf.constant([1]) if t is None else t.build(tf)
        return tf.edit_distance(hyp, tru)

    check_error(run, error, message)


def test_edit_distance_has_no_gradient_and_needs_concrete_sequences():
    for fw in (tapejax, tensorflow):
        values = fw.constant([1.0, 2.0])
        with fw.GradientTape() as tape:
            tape.watch(values)
            sp = fw.SparseTensor([[0, 0], [0, 1]], values, [1, 2])
            d = fw.edit_distance(sp, fw.SparseTensor([[0, 0]], fw.constant([1.0]), [1, 1]))
        assert tape.gradient(d, values) is None
    f = tapejax.function(
        lambda v: tapejax.edit_distance(
            tapejax.SparseTensor([[0, 0]], v, [1, 1]), tapejax.SparseTensor([[0, 0]], v, [1, 1])
        )
    )
    f(tapejax.constant([1.0]))  # the eager first call
    with pytest.raises(NotImplementedError, match="concrete"):
        f(tapejax.constant([1.0]))


def test_edit_distance_of_strings_is_not_implemented():
    value = tapejax._src.sparse_tensor.SparseTensorValue([[0, 0]], np.array(["a"]), [1, 1])
    with pytest.raises(NotImplementedError, match="string"):
        tapejax.edit_distance(value, value)


def test_library_state_variables_skip_creators():
    # Deliberate difference (docs/compat.md): tapejax's own state is a plain Variable.
    from tapejax._src.variables import library_variable

    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        return next_creator(**kwargs)

    with tapejax.variable_creator_scope(creator):
        state = library_variable(np.zeros(2, np.uint32), "rng_state")
        user = tapejax.Variable(1.0, name="user")
    assert seen == ["user"]
    assert type(state) is tapejax.Variable and type(user) is tapejax.Variable


def test_type_spec_describes_values_only():
    # Deliberate difference (docs/compat.md): no component encoding on tapejax's specs.
    spec = tapejax.type_spec_from_value(tapejax.constant([1.0]))
    assert hasattr(tensorflow.TensorSpec([1]), "most_specific_common_supertype")
    assert not hasattr(spec, "most_specific_common_supertype")
    assert not hasattr(spec, "flatten")
