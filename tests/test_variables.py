"""Unit tests for ``tapejax._src.variables``: ``Variable`` and ``name_scope``.

Expected values and texts are TensorFlow 2.21's, held literally. Deviations tested as such:
``assign*`` returns the Variable itself (TF returns an equivalent "UnreadVariable" whose
repr names it so), and ``aggregation`` is tapejax's ``VariableAggregation`` member.
"""

import copy

import numpy as np
import pytest

import tapejax as tf
from tapejax.errors import InvalidArgumentError


def assert_tensor(t, value, dtype):
    assert isinstance(t, tf.Tensor), f"expected a tf.Tensor, got {type(t).__name__}: {t!r}"
    assert t.dtype == dtype, f"dtype: got {t.dtype.name}, TF gives {dtype}"
    np.testing.assert_array_equal(t.numpy(), np.asarray(value), err_msg=repr(t))


# -- construction ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, trainable",
    [
        ({"initial_value": 1.0}, True),
        ({"initial_value": 1}, True),  # int variables are trainable by default in TF
        ({"initial_value": True}, True),
        ({"initial_value": 1.0, "trainable": False}, False),
        ({"initial_value": 1.0, "synchronization": tf.VariableSynchronization.ON_READ}, False),
        (
            {
                "initial_value": 1.0,
                "synchronization": tf.VariableSynchronization.ON_READ,
                "trainable": True,
            },
            True,
        ),
    ],
)
def test_trainable_default(kwargs, trainable):
    assert tf.Variable(**kwargs).trainable is trainable


def test_synchronization_aggregation_and_constraint_are_kept():
    v = tf.Variable(
        1.0,
        synchronization=tf.VariableSynchronization.ON_READ,
        aggregation=tf.VariableAggregation.MEAN,
        constraint=abs,
    )
    assert v.synchronization == tf.VariableSynchronization.ON_READ
    assert v.aggregation == tf.VariableAggregation.MEAN
    assert v.constraint is abs and tf.Variable(1.0).constraint is None
    with pytest.raises(ValueError, match="^Argument `constraint` must be None or a callable"):
        tf.Variable(1.0, constraint=3)


def test_dtype_argument():
    v = tf.Variable(1, dtype=tf.float32)
    assert v.dtype is tf.float32 and v.numpy() == 1.0
    assert tf.Variable(1.0, dtype="float16").dtype == tf.float16
    assert_tensor(tf.Variable(np.array([1.5, 2.5]), dtype=tf.int32).value(), [1, 2], "int32")
    with pytest.raises(TypeError, match=r"^Cannot convert 1.5 to EagerTensor of dtype int32$"):
        tf.Variable(1.5, dtype=tf.int32)
    with pytest.raises(
        ValueError,
        match=r"^initial_value: Tensor conversion requested dtype int32 for Tensor with dtype "
        r"float32: <tf.Tensor: shape=\(\), dtype=float32, numpy=1.5>$",
    ):
        tf.Variable(tf.constant(1.5), dtype=tf.int32)


def test_shape_argument():
    assert tf.Variable([1.0, 2.0], shape=[2]).shape == [2]
    v = tf.Variable([1.0, 2.0], shape=[None])
    assert v.shape == tf.TensorShape([None]) and str(v.shape) == "(None,)"
    v.assign([1.0, 2.0, 3.0])  # a partially known shape admits other sizes, as in TF
    assert v.numpy().tolist() == [1.0, 2.0, 3.0] and v.shape == tf.TensorShape([None])
    with pytest.raises(
        ValueError, match=r"The variable shape \(None,\), and the assigned value shape \(1, 3\)"
    ):
        v.assign([[1.0, 2.0, 3.0]])
    u = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    assert u.shape.rank is None
    u.assign([[1.0]])
    assert u.numpy().shape == (1, 1)
    with pytest.raises(
        ValueError,
        match=r"^In this `tf.Variable` creation, the initial value's shape \(\(2,\)\) is not "
        r"compatible with the explicitly supplied `shape` argument \(\[3\]\).$",
    ):
        tf.Variable([1.0, 2.0], shape=[3])


def test_callable_initial_value():
    assert tf.Variable(lambda: tf.ones([2])).numpy().tolist() == [1.0, 1.0]
    v = tf.Variable(lambda: 3, dtype=tf.float32)
    assert v.dtype is tf.float32 and v.numpy() == 3.0
    assert tf.Variable(tf.Variable(2.0)).numpy() == 2.0


def test_initial_value_is_required():
    message = (
        "^The `initial_value` arg to `tf.Variable` must be specified except when you are not "
        "providing a `variable_def`. You provided neither.$"
    )
    with pytest.raises(ValueError, match=message):
        tf.Variable()
    with pytest.raises(ValueError, match=message):
        tf.Variable(None)


@pytest.mark.parametrize(
    "name, full",
    [(None, "Variable:0"), ("w", "w:0"), ("a/b", "a/b:0"), ("", ":0"), ("w:0", "w:0:0")],
)
def test_names(name, full):
    assert tf.Variable(1.0, name=name).name == full


def test_name_scopes():
    with tf.name_scope("a") as scope:
        assert scope == "a/"
        assert tf.Variable(1.0, name="v").name == "a/v:0"
        assert tf.Variable(1.0).name == "a/Variable:0"
        with tf.name_scope("inner") as inner:
            assert inner == "a/inner/"
            assert tf.Variable(1.0, name="v").name == "a/inner/v:0"
        with tf.name_scope("b/"):  # a trailing slash is an absolute scope
            assert tf.Variable(1.0, name="v").name == "b/v:0"
        with tf.name_scope(""):  # "" returns to the top level
            assert tf.Variable(1.0, name="v").name == "v:0"
        assert tf.Variable(1.0, name="x/").name == "x:0"
        with tf.name_scope(scope):  # re-entering a returned scope
            assert tf.Variable(1.0, name="again").name == "a/again:0"
    assert tf.Variable(1.0, name="v").name == "v:0"
    assert tf.name_scope("nm").name == "nm"
    with pytest.raises(ValueError, match="^name for name_scope must be a string.$"):
        tf.name_scope(3)


# -- reads --------------------------------------------------------------------------------


def test_reads_are_snapshots():
    v = tf.Variable([1.0, 2.0])
    before_value, before_read = v.value(), v.read_value()
    v.assign([5.0, 6.0])
    assert_tensor(before_value, [1.0, 2.0], "float32")
    assert_tensor(before_read, [1.0, 2.0], "float32")
    assert_tensor(v.value(), [5.0, 6.0], "float32")
    assert_tensor(tf.convert_to_tensor(v), [5.0, 6.0], "float32")


def test_numpy_shape_dtype():
    v = tf.Variable([[1.0]], name="w")
    assert v.shape == [1, 1] and v.get_shape() == [1, 1] and v.dtype is tf.float32
    s = tf.Variable(1.5).numpy()
    assert type(s) is np.float32 and s == 1.5
    assert np.asarray(tf.Variable([1.0])).tolist() == [1.0]
    assert v.device.startswith("/job:localhost/replica:0/task:0/device:")


def test_python_conversions():
    assert float(tf.Variable(2.5)) == 2.5 and int(tf.Variable(7)) == 7
    assert bool(tf.Variable(0.0)) is False
    assert [x.numpy() for x in tf.Variable([1.0, 2.0])] == [1.0, 2.0]
    with pytest.raises(TypeError, match="has no len"):  # TF Variables have no len()
        len(tf.Variable([1.0, 2.0]))
    with pytest.raises(TypeError, match="list indices must be integers or slices"):
        [0, 1, 2][tf.Variable(2)]


def test_convert_to_tensor_with_other_dtype_raises_tf_text():
    with pytest.raises(
        ValueError,
        match=r"^Incompatible type conversion requested to type int32 for `tf.Variable of type "
        r"float32. \(Variable: <tf.Variable 'Variable:0' shape=\(\) dtype=float32, numpy=1.0>\)$",
    ):
        tf.convert_to_tensor(tf.Variable(1.0), dtype=tf.int32)


# -- assignment ------------------------------------------------------------------------------


def test_assign_returns_the_variable_with_the_new_value():
    v = tf.Variable([1.0, 2.0])
    r = v.assign([3.0, 4.0])
    # TF returns an "UnreadVariable" sharing the variable's state; tapejax the Variable.
    assert r is v and v.numpy().tolist() == [3.0, 4.0]
    assert v.assign([5.0, 6.0], read_value=False) is None
    assert v.assign_add([1.0, 1.0]) is v and v.numpy().tolist() == [6.0, 7.0]
    assert v.assign_sub([1.0, 2.0]) is v and v.numpy().tolist() == [5.0, 5.0]
    assert v.assign_add([1.0, 1.0], read_value=False) is None
    assert v.assign_sub([1.0, 1.0], read_value=False) is None
    assert tf.Variable(1.0).assign(2.0).assign_add(1.0).numpy() == 3.0


def test_assign_converts_like_tf():
    v = tf.Variable([1.0, 2.0])
    v.assign([1, 2])  # Python ints into float32
    assert v.numpy().tolist() == [1.0, 2.0]
    v.assign(np.array([1.5, 2.0]))  # NumPy float64 is cast
    assert v.numpy().tolist() == [1.5, 2.0]
    w = tf.Variable([1])
    w.assign_add(np.array([2.5]))  # NumPy floats are cast into int32, as in TF
    assert w.numpy().tolist() == [3]
    s = tf.Variable(1.0)
    s.assign(tf.Variable(3.0))
    assert s.numpy() == 3.0


ASSIGN_ERRORS = [
    (
        lambda: tf.Variable([1.0, 2.0]).assign([3.0, 4.0, 5.0]),
        ValueError,
        r"^Cannot assign value to variable ' Variable:0': Shape mismatch.The variable shape "
        r"\(2,\), and the assigned value shape \(3,\) are incompatible.$",
    ),
    (
        lambda: tf.Variable([1.0, 2.0]).assign(1.0),
        ValueError,
        r"The variable shape \(2,\), and the assigned value shape \(\) are incompatible.$",
    ),
    (
        lambda: tf.Variable([1.0, 2.0]).assign_add(1.0),
        InvalidArgumentError,
        r"Cannot update variable with shape \[2\] using a Tensor with shape \[\], shapes must be "
        r"equal. \[Op:AssignAddVariableOp\]",
    ),
    (
        lambda: tf.Variable([1.0, 2.0]).assign_add([[1.0, 1.0]]),
        InvalidArgumentError,
        r"using a Tensor with shape \[1,2\], shapes must be equal",
    ),
    (
        lambda: tf.Variable([1.0, 2.0]).assign_sub([1.0, 1.0, 1.0]),
        InvalidArgumentError,
        r"using a Tensor with shape \[3\], shapes must be equal. \[Op:AssignSubVariableOp\]",
    ),
    (
        lambda: tf.Variable([1.0, 2.0]).assign(tf.constant([1, 2])),
        ValueError,
        r"^Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda: tf.Variable([1.0, 2.0]).assign_sub(tf.constant([1, 1])),
        ValueError,
        r"^Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda: tf.Variable([1, 2]).assign([1.5, 2.0]),
        TypeError,
        r"^Cannot convert \[1.5, 2.0\] to EagerTensor of dtype int32$",
    ),
    (
        lambda: tf.Variable(1).assign(2.5),
        TypeError,
        r"^Cannot convert 2.5 to EagerTensor of dtype int32$",
    ),
    (
        lambda: tf.Variable([1, 2]).assign_add(1.5),
        TypeError,
        r"^Cannot convert 1.5 to EagerTensor of dtype int32$",
    ),
    (
        lambda: tf.Variable(True).assign(1),
        TypeError,
        r"^Cannot convert 1 to EagerTensor of dtype bool$",
    ),
    (
        lambda: tf.Variable(1.0).assign("a"),
        TypeError,
        r"^Cannot convert 'a' to EagerTensor of dtype float$",
    ),
    (lambda: tf.Variable(1.0).assign(None), ValueError, r"^Attempt to convert a value \(None\)"),
]


@pytest.mark.parametrize("do, error, message", ASSIGN_ERRORS)
def test_assign_errors_match_tf(do, error, message):
    with pytest.raises(error, match=message):
        do()


def test_failed_assign_leaves_the_value():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError):
        v.assign_add(1.0)
    assert v.numpy().tolist() == [1.0, 2.0]


# -- use as a tensor -----------------------------------------------------------------------


def test_operators_give_tensors():
    v, w = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    assert_tensor(v + 1, [2.0, 3.0], "float32")
    assert_tensor(1 + v, [2.0, 3.0], "float32")
    assert_tensor(v * w, [3.0, 8.0], "float32")
    assert_tensor(-v, [-1.0, -2.0], "float32")
    assert_tensor(v / 2.0, [0.5, 1.0], "float32")
    assert_tensor(v**2, [1.0, 4.0], "float32")
    assert_tensor(v[::-1], [2.0, 1.0], "float32")
    assert_tensor(v == v, [True, True], "bool")
    assert_tensor(v < w, [True, True], "bool")
    assert_tensor(tf.Variable([[1.0, 2.0]]) @ tf.Variable([[1.0], [1.0]]), [[3.0]], "float32")
    # As TF: shapes that do not broadcast compare unequal; a Variable compared with None
    # tries to convert None (TF's ValueError), unlike a Tensor.
    assert_tensor(v != tf.Variable([1.0, 2.0, 3.0]), True, "bool")
    with pytest.raises(ValueError, match=r"^Attempt to convert a value \(None\)"):
        _ = v == None  # noqa: E711 - the operator under test
    with pytest.raises(InvalidArgumentError, match="cannot compute Equal as input #1"):
        _ = v == tf.constant([1, 2])


OPS = [
    (lambda v: tf.add(v, 1.0), [2.0, 3.0]),
    (lambda v: tf.math.square(v), [1.0, 4.0]),
    (lambda v: tf.reduce_sum(v), 3.0),
    (lambda v: tf.nn.relu(-v), [0.0, 0.0]),
    (lambda v: tf.concat([v, v], 0), [1.0, 2.0, 1.0, 2.0]),
    (lambda v: tf.stack([v, v]), [[1.0, 2.0], [1.0, 2.0]]),
    (lambda v: tf.gather(v, [1]), [2.0]),
    (lambda v: tf.reshape(v, [2, 1]), [[1.0], [2.0]]),
    (lambda v: tf.where(v > 1.5, v, 0.0), [0.0, 2.0]),
    (lambda v: tf.matmul(tf.reshape(v, [1, 2]), tf.reshape(v, [2, 1])), [[5.0]]),
    (lambda v: tf.identity(v), [1.0, 2.0]),
    (lambda v: tf.cast(v, tf.int32), [1, 2]),
    (lambda v: tf.convert_to_tensor(v), [1.0, 2.0]),
    (lambda v: tf.constant(v), [1.0, 2.0]),
    (lambda v: tf.maximum(v, tf.Variable([2.0, 1.0])), [2.0, 2.0]),
    (lambda v: tf.clip_by_value(v, 1.5, 3.0), [1.5, 2.0]),
    (lambda v: tf.add_n([v, v]), [2.0, 4.0]),
    (lambda v: tf.nn.softmax(v), np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()),
]


@pytest.mark.parametrize("op, value", OPS)
def test_variables_are_accepted_by_ops(op, value):
    out = op(tf.Variable([1.0, 2.0]))
    assert isinstance(out, tf.Tensor), f"expected a tf.Tensor, got {type(out).__name__}"
    np.testing.assert_allclose(out.numpy(), value, rtol=1e-6)


# -- identity --------------------------------------------------------------------------------


def test_repr_and_str_are_tfs():
    expected = (
        "<tf.Variable 'w:0' shape=(2, 2) dtype=float32, numpy=\n"
        "array([[1., 2.],\n       [3., 4.]], dtype=float32)>"
    )
    assert repr(tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")) == expected
    scalar = "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.100000023841858>"
    assert repr(tf.Variable(1.1)) == scalar and str(tf.Variable(1.1)) == scalar
    assert repr(tf.Variable([1.0, 2.0], shape=[None])) == (
        "<tf.Variable 'Variable:0' shape=(None,) dtype=float32, "
        "numpy=array([1., 2.], dtype=float32)>"
    )


def test_unhashable_with_tf_text_and_ref():
    v = tf.Variable(1.0)
    with pytest.raises(
        TypeError,
        match=r"^Variable is unhashable. Instead, use variable.ref\(\) as the key. \(Variable: "
        r"<tf.Variable 'Variable:0' shape=\(\) dtype=float32, numpy=1.0>\)$",
    ):
        hash(v)
    d = {v.ref(): "v"}
    assert d[v.ref()] == "v" and v.ref().deref() is v and v.ref() == v.ref()
    assert v.ref() != tf.Variable(1.0).ref()
    assert repr(v.ref()) == (
        "<Reference wrapping <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>>"
    )


def test_copy():
    v = tf.Variable([1.0, 2.0], name="dc")
    assert copy.copy(v) is v
    c = copy.deepcopy(v)
    assert c is not v and c.name == "dc:0" and c.numpy().tolist() == [1.0, 2.0]
    c.assign([0.0, 0.0])
    assert v.numpy().tolist() == [1.0, 2.0]


# -- library_variable: tapejax's own state ---------------------------------------------------


def test_library_variable_is_a_non_trainable_variable_named_in_the_scope():
    from tapejax._src.variables import library_variable

    v = library_variable(np.array([1, 2], np.uint32), "rng_state")
    with tf.name_scope("outer"):
        w = library_variable(0.5, "s")
    assert isinstance(v, tf.Variable) and not v.trainable and not w.trainable
    assert (v.name, w.name) == ("rng_state:0", "outer/s:0")
    assert_tensor(v.read_value(), [1, 2], tf.uint32)
    assert_tensor(w.read_value(), 0.5, tf.float32)


def test_library_variable_runs_no_creation_hook_but_ordinary_ones_still_do():
    from tapejax._src import variables
    from tapejax._src.variables import library_variable

    seen = []
    variables._creation_hooks.append(seen.append)
    try:
        library_variable(0.0, "lib")
        # A callable's own Variables are the caller's, made before the library's one.
        library_variable(lambda: tf.Variable(1.0, name="by_callable").numpy(), "lib2")
        with pytest.raises(ValueError):
            library_variable(None, "no_value")
        tf.Variable(0.0, name="after")
    finally:
        variables._creation_hooks.remove(seen.append)
    assert [v.name for v in seen] == ["by_callable:0", "after:0"]


def test_library_variable_made_during_a_jax_trace_holds_a_concrete_value():
    import jax

    from tapejax._src.variables import library_variable

    made = []

    @jax.jit
    def f(x):
        made.append(library_variable(np.float32(3.0), "in_trace"))
        return x

    f(1.0)
    assert not isinstance(made[0]._value, jax.core.Tracer)
    assert float(made[0]) == 3.0


def test_library_variable_refuses_a_traced_initial_value():
    import jax

    from tapejax._src.variables import library_variable

    for wrap in (lambda x: x, tf.convert_to_tensor):
        with pytest.raises(ValueError, match="needs a concrete initial value"):
            jax.jit(lambda x, wrap=wrap: library_variable(wrap(x), "bad").read_value())(1.0)


def test_library_variable_made_in_a_later_trace_of_a_function_is_carried_as_state():
    from tapejax._src.variables import library_variable

    def counting_step(make):
        state, calls = {}, [0]

        @tf.function
        def step(x):
            calls[0] += 1
            if calls[0] >= 2 and "v" not in state:  # first made in the trace of call 2
                state["v"] = make()
            if "v" in state:
                state["v"].assign_add(x)
            return 2.0 * x

        return step, state

    step, state = counting_step(lambda: library_variable(np.float32(0.0), "counter"))
    for _ in range(4):
        assert float(step(tf.constant(1.0))) == 2.0
    # Calls 2, 3 and 4 each added 1: written back, never baked in as a constant.
    assert float(state["v"]) == 3.0
    # One trace met the new Variable and started over with it bound; no trace since.
    assert step.experimental_get_tracing_count() == 2
    # A user Variable made there is refused, as TF does.
    step, _ = counting_step(lambda: tf.Variable(0.0))
    step(tf.constant(1.0))
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        step(tf.constant(1.0))


def test_library_variable_is_not_adopted_by_a_strategy_scope():
    import tapejax.distribute  # noqa: F401
    from tapejax._src.distribute import placement
    from tapejax._src.variables import library_variable

    with tf.distribute.MirroredStrategy().scope():
        user = tf.Variable(1.0)
        lib = library_variable(np.float32(1.0), "lib")
    assert placement.sharding_of(user) is not None
    assert placement.sharding_of(lib) is None
