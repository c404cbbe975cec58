"""``tapejax.TensorArray``: eagerly (TF's in-place list, its errors and texts), under
GradientTape, inside ``tapejax.function`` (one trace over several calls, TF's graph
semantics on every call, the eager first one included), as a ``while_loop`` and ``cond``
variable, and the buffer ops' numerical gradients. ``compat_tests/test_tensor_array.py``
compares the same ground against live TensorFlow.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import tapejax as tf
from tapejax._src.ops import _tensor_list
from tapejax._src.tensor import wrap
from tapejax.errors import InvalidArgumentError, OutOfRangeError

# Public names tested here instead of by a Case in tests/test_ops*.py.
OTHERWISE_TESTED = {"TensorArray"}


def _np(x):
    return np.asarray(x.numpy())


# -- eager ---------------------------------------------------------------------------------------


def test_eager_write_changes_the_array_in_place():
    ta = tf.TensorArray(tf.float32, size=2)
    assert ta.write(0, 1.0) is ta
    assert ta.unstack([3.0, 4.0]) is ta
    assert ta.identity() is ta
    np.testing.assert_array_equal(_np(ta.stack()), [3.0, 4.0])


def test_eager_values_and_properties():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    ta = ta.write(0, 10).write(2, [30.0][0])
    assert ta.dtype == tf.float32 and ta.dynamic_size is True and ta.handle is None
    assert ta.element_shape == tf.TensorShape([])
    assert int(ta.size()) == 3
    np.testing.assert_array_equal(_np(ta.stack()), [10.0, 0.0, 30.0])
    assert float(ta.read(0)) == 10.0 and float(ta.read(0)) == 10.0
    assert ta.read(0) is ta.read(0)  # the Tensor written, as TF eager returns it


@pytest.mark.parametrize(
    "program, error, text",
    [
        (lambda ta: ta.write(2, 1.0), OutOfRangeError, "Tried to write to index 2 but array is"),
        (
            lambda ta: ta.write(-1, 1.0),
            OutOfRangeError,
            r"Writing to negative indices \(index -1\)",
        ),
        (lambda ta: ta.read(7), OutOfRangeError, "Tried to read from index 7 but array size is: 2"),
        (lambda ta: ta.read(-2), OutOfRangeError, r"Reading from negative indices \(index -2\)"),
        (
            lambda ta: ta.write(1, tf.constant(1)),
            InvalidArgumentError,
            "TensorArray dtype is float32 but Op is trying to write dtype int32",
        ),
        (
            lambda ta: (ta.read(0), ta.read(0)),
            InvalidArgumentError,
            "Could not read index 0 twice because it was cleared after a previous read",
        ),
        (
            lambda ta: ta.read(1),
            ValueError,
            "Cannot convert a partially known TensorShape <unknown> to a Tensor",
        ),
        (
            lambda ta: ta.unstack([1.0, 2.0, 3.0]),
            ValueError,
            "Cannot unstack 3 tensors into a TensorArray of static size 2",
        ),
        (
            lambda ta: ta.split([1.0, 2.0, 3.0], [1, 1]),
            InvalidArgumentError,
            "Expected sum of lengths to be equal to values.shape",
        ),
        (lambda ta: ta.grad("x"), NotImplementedError, "TensorArray.grad is not supported"),
    ],
)
def test_eager_errors_have_tfs_types_and_texts(program, error, text):
    # Element 1 unwritten and no element shape: reading it is an error.
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, 1.0)
    with pytest.raises(error, match=text):
        program(ta)


def test_eager_shape_errors():
    ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
    with pytest.raises(
        ValueError, match=r"Incompatible shape for value \(\(2,\)\), expected \(\(\)\)"
    ):
        ta.write(1, [1.0, 2.0])
    ta = tf.TensorArray(tf.float32, size=1, element_shape=[None, 2])
    with pytest.raises(ValueError, match=r"value \(\(1, 3\)\), expected \(\(None, 2\)\)"):
        ta.write(0, [[1.0, 2.0, 3.0]])


def test_eager_construction_errors():
    with pytest.raises(ValueError, match="Size must be declared for TensorArrays"):
        tf.TensorArray(tf.float32)
    with pytest.raises(ValueError, match="TensorArray handles are not supported"):
        tf.TensorArray(tf.float32, size=1, handle=tf.constant(1))


def test_eager_empty_and_bulk_operations():
    assert tf.TensorArray(tf.float32, size=0, element_shape=[2, 3]).stack().shape == [0, 2, 3]
    ta = tf.TensorArray(tf.int32, size=4, clear_after_read=False)
    ta = ta.scatter([3, 1], tf.constant([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(_np(ta.stack()), [[0, 0], [3, 4], [0, 0], [1, 2]])
    np.testing.assert_array_equal(_np(ta.gather([3, -1])), [[1, 2], [1, 2]])
    np.testing.assert_array_equal(_np(ta.concat()), [0, 0, 3, 4, 0, 0, 1, 2])
    s = tf.TensorArray(tf.float32, size=2).split(tf.constant([1.0, 2.0, 3.0]), [1, 2])
    np.testing.assert_array_equal(_np(s.read(1)), [2.0, 3.0])
    assert ta.close() is None and int(ta.size()) == 0


# -- gradients -----------------------------------------------------------------------------------


def test_tape_gradients_flow_from_reads_and_stacks_to_what_was_written():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        a = tf.TensorArray(tf.float32, size=3).unstack(x * x)
        y1 = a.read(0) * a.read(2)
        b = tf.TensorArray(tf.float32, size=4, element_shape=[])
        b = b.scatter([3, 0], tf.sin(x[:2]))
        y2 = tf.reduce_sum(b.gather([0, 0, 3, 2]))
        c = tf.TensorArray(tf.float32, size=2, infer_shape=False, clear_after_read=False)
        c = c.split(tf.exp(x), [1, 2])
        y3 = tf.reduce_sum(c.concat()) + tf.reduce_sum(c.read(1))
    np.testing.assert_allclose(_np(g.gradient(y1, x)), [2 * 9.0, 0.0, 1 * 6.0])
    np.testing.assert_allclose(_np(g.gradient(y2, x)), [np.cos(1.0), 2 * np.cos(2.0), 0.0])
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(_np(g.gradient(y3, x)), e * [1, 2, 2], rtol=1e-6)


def test_tape_gradient_of_an_unwritten_element_is_none():
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[]).write(0, x)
        y = ta.read(1)
    assert g.gradient(y, x) is None


def _rnn_step(dynamic):
    x = tf.constant(np.sin(np.arange(12.0)).reshape(4, 3), tf.float32)
    w = tf.Variable(np.cos(np.arange(6.0)).reshape(3, 2) * 0.5, dtype=tf.float32)

    def step(scale):
        with tf.GradientTape() as tape:
            ta = tf.TensorArray(tf.float32, size=0 if dynamic else 4, dynamic_size=dynamic)

            def body(t, h, ta):
                h = tf.tanh(tf.matmul(tf.expand_dims(x[t], 0), w) * scale + h)
                # a list, as the loop vars are one: TF eager checks the type with a bound
                return [t + 1, h, ta.write(t, h[0])]

            _, _, ta = tf.while_loop(
                lambda t, h, ta: t < 4,
                body,
                [tf.constant(0), tf.zeros([1, 2]), ta],
                maximum_iterations=4,
            )
            out = ta.stack()
            loss = tf.reduce_sum(out * out)
        return out, loss, tape.gradient(loss, w)

    return step, w


def _rnn_reference(w, x, scale):
    def loss(w):
        h, outs = jnp.zeros((1, 2)), []
        for t in range(4):
            h = jnp.tanh(x[t : t + 1] @ w * scale + h)
            outs.append(h[0])
        out = jnp.stack(outs)
        return jnp.sum(out * out), out

    (value, out), grad = jax.value_and_grad(loss, has_aux=True)(w)
    return out, value, grad


@pytest.mark.parametrize("dynamic", [False, True], ids=["fixed", "dynamic_size"])
def test_rnn_loop_gradient_eagerly_and_in_function_with_one_trace(dynamic):
    step, w = _rnn_step(dynamic)
    x = jnp.sin(jnp.arange(12.0)).reshape(4, 3).astype(jnp.float32)
    eager = step(tf.constant(1.0))
    compiled = tf.function(step)
    for scale in [1.0, 0.5, 2.0, 0.5]:
        want = _rnn_reference(jnp.asarray(w.numpy()), x, scale)
        got = compiled(tf.constant(scale))
        for g, r in zip(got, want):
            np.testing.assert_allclose(_np(g), np.asarray(r), rtol=1e-5, atol=1e-6)
    for g, r in zip(eager, _rnn_reference(jnp.asarray(w.numpy()), x, 1.0)):
        np.testing.assert_allclose(_np(g), np.asarray(r), rtol=1e-5, atol=1e-6)
    assert compiled.experimental_get_tracing_count() == 1


def test_gradient_through_a_function_call_recorded_by_an_outer_tape():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        _, ta = tf.while_loop(
            lambda t, ta: t < 3,
            lambda t, ta: (t + 1, ta.write(t, x ** tf.cast(t + 1, tf.float32))),
            [tf.constant(0), ta],
            maximum_iterations=3,
        )
        return tf.reduce_sum(ta.stack())

    x = tf.constant(2.0)
    counts = []
    for _ in range(4):
        with tf.GradientTape() as g:
            g.watch(x)
            y = f(x)
        assert float(y) == 14.0 and float(g.gradient(y, x)) == 1 + 4 + 12
        counts.append(f.experimental_get_tracing_count())
    # Traced once for the call and once for the tape's derivative program, then reused.
    assert counts[1:] == [counts[1]] * 3


# -- inside tapejax.function ---------------------------------------------------------------------


def test_function_follows_graph_semantics_on_every_call():
    calls = []

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)  # clear_after_read is ignored, as in TF
        new = ta.write(0, x)
        calls.append(new is ta)
        return new.read(0) + new.read(0), ta.stack(), new.stack()

    for _ in range(3):
        twice, old, new = f(tf.constant([1.0, 2.0]))
        np.testing.assert_array_equal(_np(twice), [2.0, 4.0])
        np.testing.assert_array_equal(_np(old), np.zeros((3, 2)))
        np.testing.assert_array_equal(_np(new), [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
    assert calls == [False, False]  # the eager first call and the one trace
    assert f.experimental_get_tracing_count() == 1


def test_function_traced_indices_and_loop_reads():
    @tf.function
    def f(x, i):
        ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
        ta = ta.write(i, ta.read(i + 1) * 10.0)
        total = tf.while_loop(
            lambda t, s: t < 4, lambda t, s: (t + 1, s + ta.read(t)), [tf.constant(0), 0.0]
        )[1]
        return ta.stack(), ta.gather(tf.stack([i, i + 1])), total

    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    for i in [1, 2, 0]:
        stacked, gathered, total = f(x, tf.constant(i))
        want = np.array([1.0, 2.0, 3.0, 4.0])
        want[i] = want[i + 1] * 10
        np.testing.assert_array_equal(_np(stacked), want)
        np.testing.assert_array_equal(_np(gathered), want[[i, i + 1]])
        assert float(total) == want.sum()
    assert f.experimental_get_tracing_count() == 1


def test_function_loop_learns_the_element_shape_from_the_body():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(
            lambda t, ta: t < 3,
            lambda t, ta: (t + 1, ta.write(t, x * t)),
            [tf.constant(0), ta],
            maximum_iterations=3,
        )
        return ta.stack(), ta.size()

    for _ in range(2):
        stacked, size = f(tf.constant([1, 2]))
        np.testing.assert_array_equal(_np(stacked), [[0, 0], [1, 2], [2, 4]])
        assert int(size) == 3
    assert f.experimental_get_tracing_count() == 1


def test_function_dynamic_size_loop_returns_its_whole_buffer_on_every_call():
    # Documented difference: the traced loop's buffer has size + maximum_iterations rows; the
    # eager first call pads to the same, so every call returns the same shape.
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=1, dynamic_size=True).write(0, -1.0)
        _, ta = tf.while_loop(
            lambda t, ta: t < n,
            lambda t, ta: (t + 1, ta.write(t, tf.cast(t, tf.float32))),
            [tf.constant(1), ta],
            maximum_iterations=4,
        )
        return ta.stack(), ta.size()

    for _ in range(3):
        stacked, size = f(tf.constant(3))
        np.testing.assert_array_equal(_np(stacked), [-1.0, 1.0, 2.0, 0.0, 0.0])
        assert int(size) == 3


def test_function_cond_carries_arrays():
    @tf.function
    def f(x, flag):
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[2]).write(0, x)
        ta = tf.cond(flag, lambda: ta.write(1, x * 3.0), lambda: ta.write(1, -x))
        return ta.stack()

    x = tf.constant([1.0, 2.0])
    for flag, row in [(True, [3.0, 6.0]), (False, [-1.0, -2.0]), (True, [3.0, 6.0])]:
        np.testing.assert_array_equal(_np(f(x, tf.constant(flag))), [[1.0, 2.0], row])
    assert f.experimental_get_tracing_count() == 1


def test_function_static_index_errors_are_tfs():
    @tf.function
    def f(i):
        return tf.TensorArray(tf.float32, size=2).write(0, 1.0).read(i)

    assert float(f(0)) == 1.0
    with pytest.raises(InvalidArgumentError, match="Trying to access element 5 in a list with 2"):
        f(5)

    @tf.function
    def g(i):
        return tf.TensorArray(tf.float32, size=2).write(i, 1.0).stack()

    g(1)
    with pytest.raises(InvalidArgumentError, match="Trying to modify element 2 in a list with 2"):
        g(2)


# -- what tapejax cannot do, with errors that say how to fix it ----------------------------------


def test_dynamic_size_in_a_traced_loop_needs_maximum_iterations():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(
            lambda t, ta: t < n, lambda t, ta: (t + 1, ta.write(t, 1.0)), [tf.constant(0), ta]
        )
        return ta.stack()

    f(tf.constant(2))  # the eager first call runs a Python loop
    with pytest.raises(NotImplementedError, match="Pass maximum_iterations=<Python int>"):
        f(tf.constant(2))


def test_dynamic_size_at_a_traced_index_outside_a_loop_is_refused():
    @tf.function
    def f(i):
        return tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(i, 1.0).stack()

    f(tf.constant(0))
    with pytest.raises(NotImplementedError, match="Give it a fixed size"):
        f(tf.constant(0))


def test_a_loop_that_reads_before_writing_needs_element_shape():
    def body(t, ta):
        return t + 1, ta.write(t, ta.read(tf.maximum(t - 1, 0)) + 1.0)

    @tf.function
    def f(n, known):
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[] if known else None)
        return tf.while_loop(lambda t, ta: t < n, body, [tf.constant(0), ta])[1].stack()

    f(tf.constant(3), True)
    np.testing.assert_array_equal(_np(f(tf.constant(3), True)), [1.0, 2.0, 3.0])
    with pytest.raises(NotImplementedError, match="Pass element_shape="):
        f(tf.constant(3), False)


def test_traced_size_is_refused():
    @tf.function
    def f(n):
        return tf.TensorArray(tf.float32, size=n).size()

    f(tf.constant(2))
    with pytest.raises(NotImplementedError, match="as a Python int"):
        f(tf.constant(2))


def test_elements_of_different_shapes_cannot_meet_a_traced_index():
    @tf.function
    def f(i):
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
        ta = ta.write(0, [1.0]).write(1, [1.0, 2.0])
        return ta.concat(), ta.read(i)

    f(tf.constant(0))
    with pytest.raises(NotImplementedError, match="elements of different shapes"):
        f(tf.constant(0))


def test_a_function_cannot_return_an_array():
    @tf.function
    def f():
        return tf.TensorArray(tf.float32, size=1).write(0, 1.0)

    with pytest.raises(TypeError, match=r"return its contents instead, e.g. `ta.stack\(\)`"):
        f()


def test_an_eager_array_cannot_be_written_inside_a_trace():
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(NotImplementedError, match="construct a new TensorArray inside"):
        jax.jit(lambda v: ta.write(0, wrap(v)).read(0)._value)(1.0)


def test_cond_branches_must_agree_on_arrays():
    def f(flag):
        ta = tf.TensorArray(tf.float32, size=1, element_shape=[])
        return tf.cond(flag, lambda: ta.write(0, 1.0), lambda: tf.zeros([1])).stack()

    with pytest.raises(ValueError, match="same number, type, and overall structure"):
        jax.jit(lambda v: f(wrap(v))._value)(True)


# -- numerical gradients of the buffer ops -------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda b, v: _tensor_list._set_item(b, jnp.int32(2), v[0]),
        lambda b, v: _tensor_list._set_item(b, jnp.int32(9), v[0]) * 2.0,  # dropped
        lambda b, v: _tensor_list._get_item(b, jnp.int32(1)) * v[1],
        lambda b, v: _tensor_list._gather(b, jnp.array([3, 0, 3, 7])) * v[0],
        lambda b, v: _tensor_list._scatter(b, jnp.array([1, 3]), v),
        lambda b, v: _tensor_list._pad(b, rows=2) ** 2,
    ],
    ids=["set_item", "set_item_out_of_range", "get_item", "gather", "scatter", "pad"],
)
def test_buffer_ops_gradients_are_numerically_right(fn, x64):
    buf = np.sin(np.arange(12.0)).reshape(4, 3)
    values = np.cos(np.arange(6.0)).reshape(2, 3)
    check_grads(jax.jit(fn), (buf, values), order=2, modes=("fwd", "rev"))


def test_traced_array_gradients_are_numerically_right(x64):
    def pure(x):
        ta = tf.TensorArray(tf.float64, size=3, clear_after_read=False).unstack(wrap(x))
        _, ta = tf.while_loop(
            lambda t, ta: t < 3,
            lambda t, ta: (t + 1, ta.write(t, tf.sin(ta.read(t)) * ta.read(2 - t))),
            [tf.constant(0), ta],
            maximum_iterations=3,
        )
        return (ta.stack() * ta.gather([2, 0, 1]))._value

    check_grads(jax.jit(pure), (np.array([0.3, -0.7, 1.1]),), order=2, modes=("fwd", "rev"))
