"""Unit tests of GradientTape: recording rules, structures, errors and warnings.

The differential suite in ``compat_tests/`` compares the same behaviours against real
TensorFlow; these tests pin them without TensorFlow and cover tapejax-only facts.
"""

import collections
import logging

import numpy as np
import pytest

import tapejax as tf


def grad_of(fn, *xs, **kw):
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as g:
        g.watch(xs)
        y = fn(*xs)
    return g.gradient(y, xs if len(xs) > 1 else xs[0], **kw)


def test_square():
    assert float(grad_of(lambda x: x * x, 3.0)) == 6.0


def test_structures_mirror_sources():
    x1, x2, x3 = tf.constant(3.0), tf.constant(3.1), tf.constant(3.2)
    with tf.GradientTape(persistent=True) as g:
        g.watch([x1, x2, x3])
        y = x1 + 2 * x2 + 3 * x3
    Pair = collections.namedtuple("Pair", "a b")
    r = g.gradient(y, [x1, {"b": x3, "a": x2}, (x1,), Pair(x2, x3)])
    assert isinstance(r, list) and isinstance(r[1], dict) and isinstance(r[2], tuple)
    assert isinstance(r[3], Pair)
    np.testing.assert_allclose(
        [float(r[0]), float(r[1]["a"]), float(r[1]["b"]), float(r[2][0]), float(r[3].b)],
        [1, 2, 3, 1, 3],
    )
    assert g.gradient(y, []) == [] and g.gradient(y, {}) == {}


def test_repeated_and_intermediate_sources():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    assert [float(v) for v in g.gradient(z, [x, y])] == [108.0, 18.0]
    assert [float(v) for v in g.gradient(z, [x, x])] == [108.0, 108.0]
    assert float(g.gradient([x, y], x)) == 7.0
    assert float(g.gradient([x, x * x], x)) == 1.0  # the product outside the block is not recorded


def test_target_is_source_gives_ones_even_unwatched():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        pass
    np.testing.assert_array_equal(g.gradient(x, x).numpy(), [1.0, 1.0])


def test_variable_reads_sum_and_assign_stops_gradients():
    v = tf.Variable(1.0)
    w = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as g:
        y1 = v * 2
        v.assign(3.0)
        y2 = v * v
        v.assign(w * 3)
        y3 = v * 1.0
    assert float(g.gradient(y1, v)) == 2.0
    assert float(g.gradient(y2, v)) == 6.0
    assert float(g.gradient([y1, y2], v)) == 8.0
    assert g.gradient(y3, w) is None
    watched = g.watched_variables()
    assert len(watched) == 2 and watched[0] is v and watched[1] is w  # creation order


def test_watched_variables_creation_order_and_reset():
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as g:
        _ = c * b * a
        assert [x is y for x, y in zip(g.watched_variables(), (a, b, c))] == [True] * 3
        g.reset()
        assert g.watched_variables() == ()
    frozen = tf.Variable(1.0, trainable=False)
    with tf.GradientTape() as g:
        _ = frozen * 2
    assert g.watched_variables() == ()


def test_unconnected_none_and_zero_keep_shape_and_dtype():
    x = tf.constant(np.ones((2, 2), np.float32))
    i = tf.constant([1, 2])
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, i])
        y = tf.constant(3.0) * 2
    assert g.gradient(y, x) is None
    z = g.gradient(y, [x, i], unconnected_gradients="zero")
    assert z[0].shape == (2, 2) and z[0].dtype == tf.float32
    assert z[1].dtype == tf.int32 and z[1].numpy().tolist() == [0, 0]
    z = g.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert z.numpy().sum() == 0
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'ZERO'"):
        g.gradient(y, x, unconnected_gradients="ZERO")


def test_integer_paths_are_unconnected_but_identity_gives_ones():
    x = tf.constant([1, 2])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x + x
    assert g.gradient(y, x) is None
    ones = g.gradient(x, x)
    assert ones.dtype == tf.int32 and ones.numpy().tolist() == [1, 1]


def test_nondifferentiable_ops_give_none_and_sign_gives_zeros():
    assert grad_of(tf.round, 2.3) is None
    assert grad_of(lambda x: tf.cast(x, tf.int32), 2.3) is None
    assert float(grad_of(tf.sign, 2.3)) == 0.0
    assert grad_of(lambda x: tf.stop_gradient(x) * 2, 2.0) is None


def test_output_gradients_weight_each_target():
    x, y = tf.constant(3.0), tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        loss = x * y
    assert float(g.gradient([loss, x], [x], output_gradients=[1.0, 2.0])[0]) == 4.0


def test_output_gradients_dtype_mismatch_is_invalid_argument():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor"):
        g.gradient(y, x, output_gradients=tf.constant([1, 2]))


def test_complex_gradients_are_conjugated_as_tf():
    z = tf.constant(1 + 2j, dtype=tf.complex64)
    with tf.GradientTape(persistent=True) as g:
        g.watch(z)
        w = z * z
        r = tf.math.real(z * tf.math.conj(z))
    assert complex(g.gradient(w, z)) == 2 - 4j
    assert complex(g.gradient(r, z)) == 2 + 4j


def test_single_use_and_never_entered_errors():
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    g.gradient(y, x)
    msg = "A non-persistent GradientTape can only be used to compute one set of gradients"
    with pytest.raises(RuntimeError, match=msg):
        g.gradient(y, x)
    with pytest.raises(RuntimeError, match=msg):
        tf.GradientTape(persistent=True).gradient(y, x)


def test_context_errors():
    t = tf.GradientTape()
    with pytest.raises(ValueError, match="Tape is still recording, This can happen"):
        with t:
            with t:
                pass
    with pytest.raises(
        RuntimeError, match="Trying to stop recording a tape which is not recording."
    ):
        with tf.GradientTape().stop_recording():
            pass
    with pytest.raises(ValueError, match="^Tape is not recording.$"):
        tf.GradientTape().reset()
    g = tf.GradientTape()
    with g:
        pass
    with pytest.raises(ValueError, match="^Tape is not recording.$"):
        with g.stop_recording():
            pass


def test_watch_rejects_non_tensors_before_entry():
    with pytest.raises(ValueError, match="of type 'ndarray', not tf.Tensor or tf.Variable"):
        tf.GradientTape().watch(np.array(1.0))
    with pytest.raises(ValueError, match="Passed in object None of type 'NoneType'"):
        tf.GradientTape().watch(None)


def test_target_none_and_bad_leaves():
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="Argument `target` should be a list or nested structure"):
        g.gradient(None, x)
    with pytest.raises(AttributeError, match="'float' object has no attribute 'dtype'"):
        g.gradient(3.0, x)
    with pytest.raises(TypeError, match="None to a TensorFlow DType"):
        g.gradient([y, None], x)


def test_stop_recording_only_affects_this_tape():
    x = tf.constant(3.0)
    with tf.GradientTape() as outer, tf.GradientTape() as inner:
        outer.watch(x)
        inner.watch(x)
        with inner.stop_recording():
            y = x * x
    assert float(outer.gradient(y, x)) == 6.0
    assert inner.gradient(y, x) is None


def test_reentry_continues_the_same_tape():
    g = tf.GradientTape()
    with g:
        x = tf.constant(3.0)
        g.watch(x)
        y = 2 * x
    with g:
        z = 2 * y
    assert [float(v) for v in g.gradient(z, [x])] == [4.0]


def test_in_context_gradient_nonpersistent_stops_recording():
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        assert float(g.gradient(y, x)) == 4.0
        _ = y * y  # not recorded; exiting is silent


def test_warnings_use_tf_texts_first_n_per_call_site(caplog):
    x = tf.constant(2.0)
    with caplog.at_level(logging.WARNING, logger="tapejax"):
        with tf.GradientTape(persistent=True) as g:
            g.watch(x)
            y = x * x
            for _ in range(3):
                g.gradient(y, x)
        for _ in range(7):
            with tf.GradientTape() as h:
                h.watch(tf.constant(1))
    texts = [r.getMessage() for r in caplog.records]
    persistent = [t for t in texts if t.startswith("Calling GradientTape.gradient on a persistent")]
    dtype = [t for t in texts if t.startswith("The dtype of the watched tensor must be floating")]
    assert len(persistent) == 1
    assert (
        dtype
        == ["The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32"] * 5
    )


def test_python_control_flow_records_taken_branch():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * 3 if x > 0 else x * 5
    assert float(g.gradient(y, x)) == 3.0


def test_python_max_over_variables_picks_one():
    xs = [tf.Variable(2.0), tf.Variable(3.0), tf.Variable(5.0)]
    with tf.GradientTape() as g:
        f = max(xs, key=lambda v: float(v))
        y = f * 1.0
    grads = g.gradient(y, xs)
    assert grads[:2] == [None, None] and float(grads[2]) == 1.0
