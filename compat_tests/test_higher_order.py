"""Nested tapes, jacobian, batch_jacobian, ForwardAccumulator, and the guide
"Advanced automatic differentiation" (tensorflow/docs advanced_autodiff.ipynb).

Covers tf_tape_api.md §2.8-§2.10 and §8, and the **E** rows of
tf_backprop_tests.md §1.7, §2, §3 and §7. Keras layers in the guide examples are
written out as raw Variables with fixed values; ``elu`` is replaced by ``tanh`` and
``tf.norm`` by ``sqrt(reduce_sum(square))``.
"""

import numpy as np

from compat_tests import harness
from compat_tests.harness import case, catch

_FORWARD = ("autodiff.ForwardAccumulator",)
# Jacobians of small float32 networks: TF's pfor and JAX's vmap sum in different orders.
_NET_TOL = {"rtol": 1e-4, "atol": 1e-5}


def _fixed(shape, offset):
    """Deterministic stand-in for tf.random.normal: values in [-1, 1]."""
    n = int(np.prod(shape))
    return np.sin(np.arange(n, dtype=np.float64) * 1.7 + offset).reshape(shape).astype(np.float32)


# ----------------------------------------------------------------- nested tapes


def case_docstring_nested_second_derivative(tf):
    x = tf.constant(5.0)
    with tf.GradientTape() as g:
        g.watch(x)
        with tf.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)
    d2y_dx2 = g.gradient(dy_dx, x)
    return dy_dx, d2y_dx2


def case_nested_tape_watching_intermediate(tf):
    # testGradientTape
    with tf.GradientTape() as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x * x
        with tf.GradientTape() as gg:
            gg.watch(y)
            z = 2 * y
        inner_grad = gg.gradient(z, [y])[0]
        y += inner_grad
    return inner_grad, g.gradient(y, [x])


def case_persistent_nested_tape(tf):
    # testPersistentNestedTape
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x * x
        with tf.GradientTape(persistent=True) as gg:
            gg.watch(y)
            z = 2 * y
        for _ in range(2):
            inner_grad = gg.gradient(z, [y])[0]
        y += inner_grad
        del gg
    return inner_grad, g.gradient(y, [x]), g.gradient(z, [x])


@case(match_warnings=True)
def case_higher_order_on_one_persistent_tape(tf):
    # testHigherOrderGradient: one warning per in-context call site
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x**3
        dy = g.gradient(y, x)
        d2y = g.gradient(dy, x)
        d3y = g.gradient(d2y, x)
    return y, dy, d2y, d3y


def case_inner_gradient_outside_outer_context(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x**3
    dy = inner.gradient(y, x)
    return dy, outer.gradient(dy, x)


def case_third_order_nested(tf):
    x = tf.constant(0.5)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.sin(x) * tf.exp(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    return d1, d2, d3


def case_second_order_variables_and_cross_terms(tf):
    a = tf.Variable(1.5)
    b = tf.Variable(-0.5)
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape() as inner:
            y = a * a * b + tf.tanh(a * b)
        da, db = inner.gradient(y, [a, b])
    return [da, db], outer.gradient(da, [a, b]), outer.gradient(db, [a, b])


def case_hessian_vector_product_nested(tf):
    x = tf.Variable([1.0, 2.0, 3.0])
    v = tf.constant([1.0, 0.0, -1.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(x**3) + tf.reduce_prod(x)
        g = inner.gradient(y, x)
        gv = tf.reduce_sum(g * v)
    return g, outer.gradient(gv, x)


def case_second_order_through_relu_and_max(tf):
    x = tf.constant([-1.0, 0.5, 2.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.relu(x) ** 3) + tf.reduce_max(x) ** 2
        g = inner.gradient(y, x)
    return g, outer.gradient(g, x)


def _second_order(tf, fn, *values):
    """``(gradients, gradients of their sum)`` of ``fn`` at ``values``, through nested tapes."""
    xs = [tf.constant(v) for v in values]
    with tf.GradientTape() as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = fn(*xs)
        g = inner.gradient(y, xs)
        total = tf.add_n([tf.reduce_sum(gi) for gi in g if gi is not None])
    return g, outer.gradient(total, xs)


def case_second_order_none_where_the_gradient_ignores_the_input(tf):
    # TF's gradients of maximum, reduce_max, sort, top_k and the linear ops read the
    # input through a comparison, an index or not at all: None a second time.
    x, y = [1.0, -2.0, 3.0, 0.5], [2.0, -2.0, 1.0, 0.5]
    return [
        _second_order(tf, tf.maximum, x, y),
        _second_order(tf, tf.minimum, x, y),
        _second_order(tf, tf.reduce_max, x),
        _second_order(tf, tf.sort, x),
        _second_order(tf, lambda v: tf.math.top_k(v, 2).values, x),
        _second_order(tf, tf.linalg.tensor_diag, x),
        _second_order(tf, lambda v: tf.linalg.trace(tf.reshape(v, [2, 2])), x),
        _second_order(tf, lambda v: tf.reverse(tf.transpose(tf.reshape(v, [2, 2])), [0]), x),
        _second_order(tf, lambda v: tf.boolean_mask(v, [True, False, True, True]), x),
        _second_order(tf, tf.math.floormod, [5.0, 3.0, -1.0, 2.5], [2.0, 2.0, 2.0, 1.0]),
        _second_order(tf, lambda a, b: tf.matmul(a, b), [[1.0, 2.0]], [[3.0], [4.0]]),
    ]


def case_second_order_zeros_where_tf_connects_through_a_comparison(tf):
    # ReluGradGrad and kin give zeros for the input, max pooling's too; abs is x * sign(x)
    # and sign's gradient is zeros; products and tanh read it as a value.
    x = [1.0, -2.0, 3.0, 0.5]
    return [
        _second_order(tf, tf.nn.relu, x),
        _second_order(tf, tf.nn.relu6, [1.0, -2.0, 7.0, 0.5]),
        _second_order(tf, tf.nn.leaky_relu, x),
        _second_order(tf, tf.nn.crelu, x),
        _second_order(tf, tf.abs, x),
        _second_order(
            tf, lambda v: tf.nn.max_pool2d(tf.reshape(v, [1, 2, 2, 1]), 2, 1, "VALID"), x
        ),
        _second_order(tf, lambda a, b: a * b, x, [2.0, 2.0, 1.0, 0.5]),
        _second_order(tf, tf.tanh, x),
        _second_order(tf, lambda v: tf.nn.relu(v) * v, x),
        _second_order(tf, lambda v: tf.maximum(v, 0.0) * tf.reduce_max(v), x),
    ]


def case_second_order_softmax_xent(tf):
    # testSecondGrad (legacy helper in TF's test), written with two tapes.
    logits = tf.constant([[1.0, 2.0, 0.5]])
    with tf.GradientTape() as outer:
        outer.watch(logits)
        with tf.GradientTape() as inner:
            inner.watch(logits)
            loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=logits)
        g = inner.gradient(loss, logits)
        gsum = tf.reduce_sum(g * tf.constant([[1.0, -1.0, 2.0]]))
    return g, outer.gradient(gsum, logits)


# ----------------------------------------------------------------- jacobian


def _jacobian_answer_case(tf, **kwargs):
    x = tf.constant([1.0, 2.0])
    y = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, y])
        z = x * x * y
    return g.jacobian(z, [x, y], **kwargs)


def case_jacobian_pfor(tf):
    # JacobianTest.testPfor
    return _jacobian_answer_case(tf)


def case_jacobian_while_loop(tf):
    # JacobianTest.testWhileLoop
    return _jacobian_answer_case(tf, experimental_use_pfor=False)


@case(match_message=True)
def case_jacobian_no_pfor_needs_persistent(tf):
    # JacobianTest.testPersistentTape
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.jacobian(y, x, experimental_use_pfor=False)


def case_jacobian_shapes(tf):
    x = tf.constant(3.0)
    v = tf.constant([1.0, 2.0, 3.0])
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, v, m])
        s = x * x
        vec = v * x
        col = tf.reshape(v * v, [3, 1])
        scalar_of_vec = tf.reduce_sum(v * v)
        mat = tf.matmul(m, m)
    return {
        "scalar_scalar": g.jacobian(s, x),
        "vector_scalar": g.jacobian(vec, x),
        "column_vector": g.jacobian(col, v),
        "scalar_vector": g.jacobian(scalar_of_vec, v),
        "matrix_matrix": g.jacobian(mat, m),
    }


def case_jacobian_source_structure(tf):
    a = tf.constant([1.0, 2.0])
    b = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(a)
        y = a * b
    return g.jacobian(y, {"a": a, "b": b}), g.jacobian(y, (a, [b]))


def case_jacobian_unconnected(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, y])
        z = y * 2.0
    return g.jacobian(z, x), g.jacobian(z, x, unconnected_gradients="zero")


def case_jacobian_list_target_raises(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.jacobian([y, y], x)


@case(match_warnings=True)
def case_jacobian_int_target_is_none(tf):
    x = tf.constant([1, 2])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.jacobian(y, x)


@case(match_message=True)
def case_jacobian_consumes_nonpersistent_tape(tf):
    # testGradientTapeJacobianCalledMultipleTimes
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    first = g.jacobian(y, x)
    return first, catch(g.jacobian, y, x), catch(g.gradient, y, x)


def case_jacobian_inside_tape_scope(tf):
    # testJacobianInsideGradientTapeScope
    with tf.GradientTape() as g:
        x = tf.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
        dz_dx = g.jacobian(z, x)
    return dz_dx


def case_jacobian_parallel_iterations(tf):
    # JacobianTest.test_parallel_iterations
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.matmul(x, x)
    return g.jacobian(y, x, parallel_iterations=2), g.jacobian(y, x, parallel_iterations=3)


@case(match_message=True)
def case_jacobian_parallel_iterations_one(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
    return g.jacobian(y, x, parallel_iterations=1)


def case_jacobian_parallel_iterations_above_rows_ignored(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
    return g.jacobian(y, x, parallel_iterations=10)


@case(match_message=True)
def case_jacobian_parallel_iterations_zero(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
    return g.jacobian(y, x, parallel_iterations=0)


def case_jacobian_of_gather_is_dense(tf):
    # JacobianTest.test_indexed_slices: jacobian densifies sparse per-row gradients.
    inp = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(inp)
        out = tf.gather(inp, [0, 2]) * 2.0
    return g.jacobian(out, inp), g.jacobian(out, inp, experimental_use_pfor=False)


def case_jacobian_empty_batch(tf):
    # test_empty_tensor_consistent_jacobian (issue #37795): zero-size targets
    variable = tf.Variable(1.0)
    inputs = (tf.zeros([0, 4]), tf.zeros([0, 3]))
    with tf.GradientTape(persistent=True) as g:
        outputs = variable * tf.concat(inputs, axis=-1)
    return g.jacobian(outputs, variable), g.jacobian(outputs, variable, experimental_use_pfor=False)


def case_jacobian_of_variable_target(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as g:
        y = v * v
    return g.jacobian(y, v)


def case_hessian_by_nested_jacobian(tf):
    x = tf.constant([1.0, 2.0, 0.5])
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.reduce_sum(x**3) * x[0] + tf.reduce_prod(x)
        g = t1.gradient(y, x)
    return g, t2.jacobian(g, x)


def case_jacobian_of_in_context_gradient_through_branch(tf):
    # test_cond_func_grad_jacobian, with the branch taken in Python (eager cond)
    x = tf.constant(1.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x**3 if x > 0.0 else -x
        grad = inner.gradient(y, x)
    return grad, outer.jacobian(grad, x)


def case_jacobian_of_jacobian(tf):
    x = tf.constant([0.5, -1.0])
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.sin(x) * x[::-1]
        j = t1.jacobian(y, x)
    return j, t2.jacobian(j, x)


# ----------------------------------------------------------------- batch_jacobian


def case_batch_jacobian_docstring(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.batch_jacobian(y, x)


def _batch_jacobian_answer_case(tf, **kwargs):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([[3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, y])
        z = x * x * y
    return g.batch_jacobian(z, x, **kwargs)


def case_batch_jacobian_examples_interact(tf):
    # Each row depends on the whole batch (through the sum): TF's answer is the jacobian
    # of the batch-summed target, which forward mode with a broadcast tangent misses.
    x = tf.constant([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]])
    w = tf.constant([[0.0, 0.2, 0.4], [0.6, 0.8, 1.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.matmul(x, w) * tf.reduce_sum(x)  # rows of 3 from rows of 2
    return g.batch_jacobian(y, x)


def case_batch_jacobian_pfor(tf):
    return _batch_jacobian_answer_case(tf)


def case_batch_jacobian_while_loop(tf):
    return _batch_jacobian_answer_case(tf, experimental_use_pfor=False)


@case(match_message=True)
def case_batch_jacobian_no_pfor_needs_persistent(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.batch_jacobian(y, x, experimental_use_pfor=False)


@case(match_message=True)
def case_batch_jacobian_bad_first_dimension(tf):
    # testBadShape
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.concat([x, x], 0)
    return g.batch_jacobian(y, x)


@case(match_message=True)
def case_batch_jacobian_bad_source_rank(tf):
    # testBadInputRank
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reshape(x, [2, 1]) * tf.constant([[1.0, 2.0]])
    return g.batch_jacobian(y, x)


@case(match_message=True)
def case_batch_jacobian_bad_target_rank(tf):
    # testBadOutputRank
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_sum(x, axis=1)
    return g.batch_jacobian(y, x)


def case_batch_jacobian_list_source_raises(tf):
    # the source must be a single tensor (issue #56938)
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.batch_jacobian(y, [x])


def case_batch_jacobian_degenerate_shape(tf):
    # test_degenerate_shape
    x = tf.zeros([1, 0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x**2
    return g.batch_jacobian(y, x), g.batch_jacobian(y, x, experimental_use_pfor=False)


def case_batch_jacobian_unconnected_is_zeros(tf):
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.constant([[1.0, 2.0]]) * 3.0
    return (
        g.batch_jacobian(y, x),
        g.batch_jacobian(y, x, unconnected_gradients="none"),
        g.batch_jacobian(y, x, unconnected_gradients="zero"),
    )


@case(x64=True)
def case_batch_jacobian_zeros_keep_float64(tf):
    # test_zeros_type_correct
    x = tf.constant([[1.0]], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.constant([[1.0]], dtype=tf.float64)
    return g.batch_jacobian(y, x), g.batch_jacobian(y, x, unconnected_gradients="zero")


@case(match_message=True)
def case_batch_jacobian_consumes_tape(tf):
    # testGradientTapeBatchJacobianCalledMultipleTimes ("used tocompute" sic)
    x = tf.constant([[3.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = y * y
    first = g.batch_jacobian(z, x)
    return first, catch(g.batch_jacobian, y, x)


def case_batch_jacobian_inside_persistent_scope(tf):
    # testBatchJacobianInsideGradientTapeScope
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant([[3.0]])
        g.watch(x)
        y = x * x
        z = y * y
        dz_dx = g.batch_jacobian(z, x)
    return dz_dx


@case(match_message=r"persistent=True.*parallel_iterations")
def case_batch_jacobian_parallel_iterations_nonpersistent(tf):
    # testBatchJacobianParallelIterations (eager): the loop body reuses the tape
    x = tf.constant([[3.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = tf.tile(y * y, [1, 16])
    return g.batch_jacobian(z, x, parallel_iterations=8)


def case_batch_jacobian_parallel_iterations_persistent(tf):
    x = tf.constant([[3.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = tf.tile(y * y, [1, 16])
    return g.batch_jacobian(z, x, parallel_iterations=8)


def case_batch_jacobian_parallel_iterations_same_result(tf):
    # BatchJacobianTest.test_parallel_iterations
    w = tf.constant([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.matmul(x, w)
    return g.batch_jacobian(y, x, parallel_iterations=2), g.batch_jacobian(
        y, x, parallel_iterations=3
    )


def case_batch_jacobian_rank3_target(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.stack([x * x, x * 2.0, tf.sin(x)], axis=1)
    return g.batch_jacobian(y, x)


def case_batch_jacobian_dependent_examples(tf):
    # Examples interact: TF returns d(sum_b t[b])/d s[i], not per-example blocks.
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x[::-1]
    return g.batch_jacobian(y, x), g.jacobian(y, x)


def case_batch_jacobian_strided_slice(tf):
    # test_strided_slice: slices with bounds from the data must not break it
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.tile(x, [1, 2])[:, 1:4] * 2.0
    return g.batch_jacobian(y, x)


# ----------------------------------------------------------------- ForwardAccumulator (§8)


@case(requires=_FORWARD)
def case_forward_jvp_basic(tf):
    # testJVPManual
    x = tf.constant(0.1)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(0.2)) as acc:
        y = tf.sin(x)
    return y, acc.jvp(y), acc.jvp(x)


@case(requires=_FORWARD)
def case_forward_nested_pure_forward(tf):
    # testGradPureForward / docstring
    primal = tf.constant(1.1)
    with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.0)) as outer:
        with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.0)) as inner:
            primal_out = primal**3.5
    inner_jvp = inner.jvp(primal_out)
    return (
        primal_out,
        inner_jvp,
        outer.jvp(inner_jvp),
        outer.jvp(primal_out),
        inner.jvp(outer.jvp(primal_out)),
    )


@case(requires=_FORWARD)
def case_forward_higher_order_pure_forward(tf):
    # testHigherOrderPureForward
    x = tf.constant(1.1)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as a3:
        with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as a2:
            with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as a1:
                y = x**3.5
            d1 = a1.jvp(y)
        d2 = a2.jvp(d1)
    d3 = a3.jvp(d2)
    return y, d1, d2, d3


@case(requires=_FORWARD)
def case_forward_over_backward_hvp(tf):
    v = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0])) as acc:
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = tf.reduce_sum(v**3)
        backward = tape.gradient(y, v)
    return backward, acc.jvp(backward)


@case(requires=_FORWARD)
def case_backward_over_forward(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
            y = x**3
        jvp = acc.jvp(y)
    return jvp, tape.gradient(jvp, x)


@case(requires=_FORWARD)
def case_forward_variable_primal(tf):
    # testVariableWatched
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([0.1, -0.2, 0.3])) as acc:
        self_jvp = acc.jvp(v)
        doubled = v * 2.0
        shifted = v + 0.1
    return self_jvp, acc.jvp(doubled), acc.jvp(shifted)


@case(requires=_FORWARD)
def case_forward_python_tangent_takes_primal_dtype(tf):
    x = tf.constant(2.0)
    with tf.autodiff.ForwardAccumulator(x, 0.5) as acc:
        y = x * x
    return acc.jvp(x), acc.jvp(y)


@case(requires=_FORWARD)
def case_forward_structured_primals(tf):
    a = tf.constant([1.0, 2.0])
    b = tf.constant(3.0)
    tangents = {"a": tf.constant([1.0, 0.5]), "b": tf.constant(2.0)}
    with tf.autodiff.ForwardAccumulator({"a": a, "b": b}, tangents) as acc:
        y = a * b
        z = tf.reduce_sum(a * a)
    return acc.jvp([y, {"z": z}]), acc.jvp({"a": a, "b": b})


@case(requires=_FORWARD)
def case_forward_unconnected(tf):
    # testUnconnectedGradients
    x = tf.constant(1.0)
    z = tf.constant(2.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(3.0)) as acc:
        unrelated = z * 3.0
    return (
        acc.jvp(x),
        acc.jvp(x, unconnected_gradients="zero"),
        acc.jvp(unrelated),
        acc.jvp(unrelated, unconnected_gradients="zero"),
        acc.jvp(unrelated, unconnected_gradients=tf.UnconnectedGradients.NONE),
    )


@case(requires=_FORWARD, match_message=True)
def case_forward_duplicate_primal(tf):
    x = tf.constant(1.0)
    return tf.autodiff.ForwardAccumulator([x, x], [tf.constant(1.0), tf.constant(2.0)])


@case(requires=_FORWARD, match_message=True)
def case_forward_reenter_active(tf):
    # testReenter (first half)
    x = tf.constant(1.0)
    acc = tf.autodiff.ForwardAccumulator(x, tf.constant(1.0))
    with acc:
        with acc:
            pass


@case(requires=_FORWARD)
def case_forward_reenter_after_exit(tf):
    # testReenter: ops outside the context get no JVP; re-entry resumes
    x = tf.constant(-2.0)
    acc = tf.autodiff.ForwardAccumulator(x, tf.constant(1.5))
    with acc:
        y = 4.0 * x
    outside = y * y
    with acc:
        yy = y * y
    return acc.jvp(y), acc.jvp(outside), acc.jvp(yy)


@case(requires=_FORWARD)
def case_forward_tangent_structure_mismatch(tf):
    x = tf.constant(1.0)
    return tf.autodiff.ForwardAccumulator(x, [1.0])


@case(requires=_FORWARD, match_warnings=True)
def case_forward_int_primal(tf):
    x = tf.constant(3)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1)) as acc:
        y = x * 2
    return acc.jvp(y)


@case(requires=_FORWARD)
def case_forward_stop_gradient_pauses_accumulator(tf):
    # testShouldRecordAndStopRecord, through the public tf.stop_gradient
    c = tf.constant(1.0)
    with tf.autodiff.ForwardAccumulator(c, tf.constant(4.0)) as acc:
        with tf.GradientTape() as tape:
            tape.watch(c)
            d = tf.stop_gradient(c) * 2.0
            e = c * 3.0
    return acc.jvp(d), acc.jvp(e), tape.gradient([d, e], c)


@case(
    requires=_FORWARD,
    deviation="the JVP of sign is zeros, as its reverse-mode gradient is; TF gives None in forward mode only (tensorflow/tensorflow#60736)",
    tf_adapt=lambda tf, r: tuple(tf.zeros_like(r[1]) if g is None else g for g in r),
)
def case_forward_sign_jvp_is_none(tf):
    # Forward mode treats Sign as unconnected (issue #60736); reverse gives zeros.
    x = tf.constant(1.5)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = tf.math.sign(x)
    return acc.jvp(y), acc.jvp(y, unconnected_gradients="zero")


@case(requires=_FORWARD)
def case_forward_assign_sub_inside(tf):
    # testOpWithNoTrainableOutputs
    v = tf.Variable(1.0)
    with tf.autodiff.ForwardAccumulator(v, tf.constant(1.0)) as acc:
        v.assign_sub(0.5)
        y = v * 3.0
    return v, acc.jvp(y)


@case(requires=_FORWARD, **_NET_TOL)
def case_forward_over_back_equals_back_over_back_variables(tf):
    # testVariablesHVP, with a two-variable model written out
    w = tf.Variable([[0.5, -1.0], [2.0, 0.25]])
    b = tf.Variable([0.1, -0.2])
    x = tf.constant([[1.0, 2.0], [-1.0, 0.5]])
    vw = tf.constant([[1.0, 0.0], [0.5, -1.0]])
    vb = tf.constant([0.3, 0.7])

    def loss():
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w) + b) ** 2)

    with tf.autodiff.ForwardAccumulator([w, b], [vw, vb]) as acc:
        with tf.GradientTape() as tape:
            out = loss()
        grads = tape.gradient(out, [w, b])
    forward_over_back = acc.jvp(grads)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            out = loss()
        gw, gb = inner.gradient(out, [w, b])
        dot = tf.reduce_sum(gw * vw) + tf.reduce_sum(gb * vb)
    back_over_back = outer.gradient(dot, [w, b])
    return forward_over_back, back_over_back


@case(requires=_FORWARD)
def case_forward_hessian_1d(tf):
    # HessianTests.testHessian1D: forward-over-back Hessian of x^T M x = M + M^T
    m = tf.constant([[1.0, 2.0], [0.5, 3.0]])
    x = tf.constant([0.3, -0.7])
    rows = []
    for basis in ([1.0, 0.0], [0.0, 1.0]):
        with tf.autodiff.ForwardAccumulator(x, tf.constant(basis)) as acc:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(tf.reshape(x, [1, 2]) @ m @ tf.reshape(x, [2, 1]))
            g = tape.gradient(y, x)
        rows.append(acc.jvp(g))
    return tf.stack(rows)


# ----------------------------------------------------------------- advanced autodiff guide


def case_adv_guide_stop_recording(tf):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    return grad["x"], grad["y"]


def case_adv_guide_reset(tf):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    reset = True
    with tf.GradientTape() as t:
        y_sq = y * y
        if reset:
            # Throw out all the tape recorded so far.
            t.reset()
        z = x * x + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    return grad["x"], grad["y"]


def case_adv_guide_stop_gradient(tf):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y_sq = y**2
        z = x**2 + tf.stop_gradient(y_sq)
    grad = t.gradient(z, {"x": x, "y": y})
    return grad["x"], grad["y"]


def case_adv_guide_multiple_tapes(tf):
    x0 = tf.constant(0.0)
    x1 = tf.constant(0.0)
    with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.math.sigmoid(x1)  # the guide spells it tf.nn.sigmoid
        y = y0 + y1
        ys = tf.reduce_sum(y)
    return tape0.gradient(ys, x0).numpy(), tape1.gradient(ys, x1).numpy()


def case_adv_guide_higher_order(tf):
    x = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x
        # Compute the gradient inside the outer `t2` context manager
        # which means the gradient computation is differentiable as well.
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    return dy_dx.numpy(), d2y_dx2.numpy()


@case(**_NET_TOL)
def case_adv_guide_input_gradient_regularization(tf):
    x = tf.constant(_fixed([7, 5], 0.0))
    kernel = tf.Variable(_fixed([5, 10], 1.0), name="kernel")
    bias = tf.Variable(_fixed([10], 2.0) * 0.1, name="bias")

    def layer(inputs):
        return tf.nn.relu(tf.matmul(inputs, kernel) + bias)

    with tf.GradientTape() as t2:
        # The inner tape only takes the gradient with respect to the input,
        # not the variables.
        with tf.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            out = tf.reduce_sum(layer(x) ** 2)
        # 1. Calculate the input gradient.
        g1 = t1.gradient(out, x)
        # 2. Calculate the magnitude of the input gradient.
        g1_mag = tf.sqrt(tf.reduce_sum(tf.square(g1)))
    # 3. Calculate the gradient of the magnitude with respect to the model.
    dg1_mag = t2.gradient(g1_mag, [kernel, bias])
    return g1_mag, dg1_mag, [list(v.shape) for v in dg1_mag]


def case_adv_guide_jacobian_scalar_source(tf):
    x = tf.linspace(-10.0, 10.0, 200 + 1)
    delta = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        y = tf.math.sigmoid(x + delta)
    dy_dx = tape.jacobian(y, delta)
    return list(y.shape), dy_dx


@case(**_NET_TOL)
def case_adv_guide_jacobian_tensor_source(tf):
    x = tf.constant(_fixed([7, 5], 3.0))
    kernel = tf.Variable(_fixed([5, 10], 4.0), name="kernel")
    bias = tf.Variable(tf.zeros([10]), name="bias")
    with tf.GradientTape(persistent=True) as tape:
        y = tf.nn.relu(tf.matmul(x, kernel) + bias)
    j = tape.jacobian(y, kernel)
    g = tape.gradient(y, kernel)
    j_sum = tf.reduce_sum(j, axis=[0, 1])
    delta = tf.reduce_max(abs(g - j_sum))
    return list(y.shape), list(kernel.shape), j, g, bool(delta.numpy() < 1e-3)


@case(**_NET_TOL)
def case_adv_guide_hessian_and_newton_step(tf):
    x = tf.constant(_fixed([7, 5], 5.0))
    k1 = tf.Variable(_fixed([5, 8], 6.0), name="kernel1")
    b1 = tf.Variable(tf.zeros([8]), name="bias1")
    k2 = tf.Variable(_fixed([8, 6], 7.0), name="kernel2")
    b2 = tf.Variable(tf.zeros([6]), name="bias2")
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            h1 = tf.nn.relu(tf.matmul(x, k1) + b1)
            out = tf.nn.relu(tf.matmul(h1, k2) + b2)
            loss = tf.reduce_mean(out**2)
        g = t1.gradient(loss, k1)
    h = t2.jacobian(g, k1)
    n_params = tf.reduce_prod(k1.shape)
    g_vec = tf.reshape(g, [n_params, 1])
    h_mat = tf.reshape(h, [n_params, n_params])
    asymmetry = tf.reduce_max(tf.abs(h_mat - tf.transpose(h_mat)))
    # The guide solves (H + eps*I) u = g with tf.linalg.solve; a damped
    # gradient step through the Hessian keeps to core ops and still uses h_mat.
    update = tf.matmul(h_mat, g_vec) * 1e-3 + g_vec * 1e-2
    k1.assign_sub(tf.reshape(update, k1.shape))
    return list(h.shape), h, bool(asymmetry.numpy() < 1e-4), k1


@case(**_NET_TOL)
def case_adv_guide_batch_jacobian(tf):
    x = tf.constant(_fixed([7, 5], 8.0))
    k1 = tf.Variable(_fixed([5, 8], 9.0))
    k2 = tf.Variable(_fixed([8, 6], 10.0))
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = tf.tanh(tf.matmul(x, k1))
        y = tf.tanh(tf.matmul(y, k2))
    j = tape.jacobian(y, x)
    j_sum = tf.reduce_sum(j, axis=2)
    jb = tape.batch_jacobian(y, x)
    error = tf.reduce_max(abs(jb - j_sum))
    return list(j.shape), list(j_sum.shape), jb, bool(error.numpy() < 1e-3)


@case(**_NET_TOL)
def case_adv_guide_batch_jacobian_batchnorm(tf):
    # BatchNormalization (training=True) written out: normalizing across the batch
    # makes examples depend on each other; batch_jacobian still returns *something*.
    x = tf.constant(_fixed([7, 5], 11.0))
    k1 = tf.Variable(_fixed([5, 8], 12.0))
    k2 = tf.Variable(_fixed([8, 6], 13.0))
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = tf.tanh(tf.matmul(x, k1))
        mean = tf.reduce_mean(y, axis=0)
        var = tf.reduce_mean(tf.square(y - mean), axis=0)
        y = (y - mean) / tf.sqrt(var + 1e-3)
        y = tf.tanh(tf.matmul(y, k2))
    j = tape.jacobian(y, x)
    jb = tape.batch_jacobian(y, x)
    return list(j.shape), jb


test_matches_tensorflow = harness.compat_test(globals())
