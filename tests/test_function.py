"""tapejax.function: tracing and retracing rules, variables, gradients, trace counts."""

import jax
import numpy as np
import pytest

import tapejax as tf


def test_training_step_traces_once_over_100_steps():
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.standard_normal((4, 3)).astype(np.float32))
    b = tf.Variable(np.zeros(3, np.float32))
    x = tf.constant(rng.standard_normal((8, 4)).astype(np.float32))
    y = tf.constant(rng.integers(0, 3, 8).astype(np.int32))

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            logits = tf.matmul(x, w) + b
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        return loss

    losses = [float(step(x, y)) for _ in range(100)]
    assert step.experimental_get_tracing_count() == 1
    assert losses[-1] < losses[0] * 0.5


def test_same_numbers_as_eager():
    def run(compiled):
        v = tf.Variable([1.0, -2.0])

        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.sin(v * x) ** 2)
            v.assign_sub(0.1 * tape.gradient(loss, v))
            return loss

        f = tf.function(step) if compiled else step
        return [float(f(tf.constant(1.5))) for _ in range(5)], v.numpy()

    eager, compiled = run(False), run(True)
    np.testing.assert_allclose(eager[0], compiled[0], rtol=1e-6)
    np.testing.assert_allclose(eager[1], compiled[1], rtol=1e-6)


def test_retrace_rules():
    traces = []

    @tf.function
    def f(x, n):
        traces.append(1)
        return x * n

    f(tf.constant(1.0), 2)  # first call: eager
    f(tf.constant(2.0), 2)  # traces
    f(tf.constant(3.0), 2)  # cached
    f(tf.constant(3.0), 3)  # new Python value: retrace
    f(tf.constant([3.0]), 3)  # new shape: retrace
    f(tf.constant(3, dtype=tf.int32), 3)  # new dtype: retrace
    assert f.experimental_get_tracing_count() == 4
    assert float(f(tf.constant(2.0), 3)) == 6.0


def test_variable_assignments_are_written_back():
    v = tf.Variable(0.0)

    @tf.function
    def inc():
        v.assign_add(1.0)
        return v.read_value()

    assert [float(inc()) for _ in range(4)] == [1.0, 2.0, 3.0, 4.0]
    assert float(v) == 4.0


def test_variables_are_arguments_not_constants():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return x * v

    assert float(f(tf.constant(1.0))) == 2.0
    assert float(f(tf.constant(1.0))) == 2.0
    v.assign(5.0)
    assert float(f(tf.constant(1.0))) == 5.0
    assert f.experimental_get_tracing_count() == 1


def test_variable_seen_only_later_is_bound_not_baked():
    a, b = tf.Variable(1.0), tf.Variable(10.0)

    @tf.function
    def f(x, use_b):
        return x * (b if use_b else a)

    f(tf.constant(1.0), False)
    assert float(f(tf.constant(1.0), True)) == 10.0
    b.assign(20.0)
    assert float(f(tf.constant(1.0), True)) == 20.0


def test_creating_variables_after_the_first_call_raises_tfs_error():
    @tf.function
    def f(x):
        return tf.Variable(1.0) * x

    f(tf.constant(1.0))
    with pytest.raises(ValueError, match="tf.function only supports singleton tf.Variables"):
        f(tf.constant(2.0))


def test_variables_created_on_first_call_are_kept():
    state = {}

    @tf.function
    def f(x):
        if "v" not in state:
            state["v"] = tf.Variable(3.0)
        return x * state["v"]

    assert [float(f(tf.constant(2.0))) for _ in range(3)] == [6.0, 6.0, 6.0]


def test_gradient_through_a_function_call():
    v = tf.Variable(3.0)

    @tf.function
    def f(x):
        return x * x * v

    f(tf.constant(1.0))
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    dx, dv = tape.gradient(y, [x, v])
    assert float(y) == 12.0 and float(dx) == 12.0 and float(dv) == 4.0


def test_jacobian_and_nested_tapes_inside():
    @tf.function
    def f(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x**3
            dy = inner.gradient(y, x)
        return dy, outer.jacobian(dy, x)

    x = tf.constant([1.0, 2.0])
    for _ in range(3):
        dy, h = f(x)
    np.testing.assert_allclose(dy.numpy(), [3.0, 12.0])
    np.testing.assert_allclose(h.numpy(), [[6.0, 0.0], [0.0, 12.0]])
    assert f.experimental_get_tracing_count() == 1


def test_python_values_in_outputs_and_functions_calling_functions():
    @tf.function
    def inner(x):
        return x + 1.0

    @tf.function
    def outer(x):
        return {"y": inner(x) * 2.0, "label": "ok"}

    for _ in range(3):
        out = outer(tf.constant(1.0))
    assert float(out["y"]) == 4.0 and out["label"] == "ok"


def test_tensor_as_python_bool_raises_clear_error():
    @tf.function
    def f(x):
        if x > 0:
            return x
        return -x

    f(tf.constant(1.0))
    with pytest.raises(Exception, match="cond|while_loop|bool"):
        f(tf.constant(2.0))


def test_run_functions_eagerly():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x * 2

    tf.config.run_functions_eagerly(True)
    try:
        for _ in range(3):
            f(tf.constant(1.0))
    finally:
        tf.config.run_functions_eagerly(False)
    assert len(calls) == 3 and f.experimental_get_tracing_count() == 0


def test_input_signature_checks_and_compiler_ir():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x * 2.0

    assert f(tf.constant([1.0, 2.0])).shape == (2,)
    with pytest.raises(TypeError):
        f(tf.constant([[1.0]]))
    hlo = f.experimental_get_compiler_ir(tf.constant([1.0, 2.0]))(stage="hlo")
    assert "multiply" in hlo


def test_methods_are_traced_per_instance():
    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(2.0)

        @tf.function
        def __call__(self, x):
            return x * self.v

    m1, m2 = Model(), Model()
    m2.v.assign(3.0)
    for _ in range(3):
        a, b = m1(tf.constant(1.0)), m2(tf.constant(1.0))
    assert (float(a), float(b)) == (2.0, 3.0)


def test_buffers_are_not_donated_while_a_tensor_holds_them():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def inc():
        v.assign_add([1.0, 1.0])

    inc()
    held = v.value()  # a read Tensor shares the variable's buffer
    inc()
    inc()
    np.testing.assert_array_equal(held.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [4.0, 5.0])


def test_jax_transform_of_a_function():
    @tf.function
    def f(x):
        return tf.reduce_sum(x * x)

    f(tf.constant([1.0]))
    g = jax.grad(lambda a: f(tf.convert_to_tensor(a))._value)(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(g, [2.0, 4.0])


def test_buffers_are_donated_when_nothing_holds_them():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def inc():
        v.assign_add([1.0, 1.0])

    inc()
    inc()
    (concrete,) = inc._cache.values()
    used = []
    donating, plain = concrete.donating, concrete.plain
    concrete.donating = lambda *a: (used.append("donate"), donating(*a))[1]
    concrete.plain = lambda *a: (used.append("plain"), plain(*a))[1]
    inc()
    inc()
    held = v.value()
    inc()
    assert used == ["donate", "donate", "plain"]
    np.testing.assert_array_equal(held.numpy(), [5.0, 6.0])


def test_tensor_step_fast_path_donates_only_unheld_buffers():
    # A step taking tensors and returning one tensor runs through `Function.__call__`'s
    # inlined path: same cache, same donation rule, the variables written back.
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def step(x):
        v.assign_add(x)
        return tf.reduce_sum(v)

    x = tf.constant([1.0, 1.0])
    step(x)
    step(x)
    (concrete,) = step._cache.values()
    used = []
    donating, plain = concrete.donating, concrete.plain
    concrete.donating = lambda *a: (used.append("donate"), donating(*a))[1]
    concrete.plain = lambda *a: (used.append("plain"), plain(*a))[1]
    out = step(x)
    assert type(out) is tf.Tensor and float(out) == 9.0
    held = v.value()
    assert float(step(x)) == 11.0
    assert used == ["donate", "plain"]
    np.testing.assert_array_equal(held.numpy(), [4.0, 5.0])
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])
    assert step.experimental_get_tracing_count() == 1


def test_out_of_range_labels_inside_a_function_give_a_nan_loss_not_a_silent_one():
    # Eagerly the labels are checked (TF's InvalidArgumentError); traced, they are not
    # known, and the gather gives NaN for that example (TF's GPU kernel: NaN as well),
    # never a plausible-looking loss. docs/compat.md, `tapejax.nn`.
    v = tf.Variable(np.zeros((2, 3), np.float32))

    @tf.function
    def step(labels):
        with tf.GradientTape() as tape:
            losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=v)
            total = tf.reduce_sum(losses)
        return losses, tape.gradient(total, v)

    for _ in range(2):  # the first call runs eagerly; the second is traced
        good, _ = step(tf.constant([0, 1]))
    np.testing.assert_allclose(good.numpy(), [np.log(3.0)] * 2, rtol=1e-6)
    bad, grad = step(tf.constant([0, 5]))
    assert np.isfinite(bad.numpy()[0]) and np.isnan(bad.numpy()[1])
    np.testing.assert_array_equal(grad.numpy()[1], [0.0, 0.0, 0.0])
    assert step.experimental_get_tracing_count() == 1  # the bad call ran the program
    with pytest.raises(tf.errors.InvalidArgumentError, match="outside the valid range"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 5]), logits=v)
