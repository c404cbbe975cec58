"""custom_gradient, recompute_grad and grad_pass_through against TensorFlow.

Covers tf_tape_api.md §4-§5, the custom-gradient rows of tf_backprop_tests.md
§1.8-§1.9 and §5, and the guide's ``clip_gradients`` example. Every case names the
tapejax feature it needs in ``requires`` so the suite stays green until it exists.
"""

import numpy as np

from compat_tests import harness
from compat_tests.harness import case, catch

_TRACED_GRAD_FN = (
    "grad_fn (and recompute_grad's function) runs when the derivative program is traced, once "
    "per structure and on traced values, not on every gradient() call"
)
_CUSTOM = ("custom_gradient",)
_RECOMPUTE = ("recompute_grad",)
_PASS_THROUGH = ("grad_pass_through",)
_FORWARD_CUSTOM = ("custom_gradient", "autodiff.ForwardAccumulator")


# ----------------------------------------------------------------- docstring examples


def _log1pexp_cases(tf, x_value):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    def naive(x):
        return tf.math.log(1 + tf.exp(x))

    x = tf.constant(x_value)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = log1pexp(x)
        y_naive = naive(x)
    return y, g.gradient(y, x), y_naive, g.gradient(y_naive, x)


@case(requires=_CUSTOM)
def case_log1pexp_at_100(tf):
    # value overflows to inf in float32; the custom gradient stays finite, naive is nan
    return _log1pexp_cases(tf, 100.0)


@case(requires=_CUSTOM)
def case_log1pexp_vector(tf):
    return _log1pexp_cases(tf, [0.0, 1.0, 2.0])


@case(requires=_CUSTOM)
def case_custom_gradient_two_inputs(tf):
    # docstring `bar`: z = x * y with explicit gradients
    @tf.custom_gradient
    def bar(x, y):
        def grad(upstream):
            dz_dx = y
            dz_dy = x
            return upstream * dz_dx, upstream * dz_dy

        z = x * y
        return z, grad

    x = tf.constant(2.0, dtype=tf.float32)
    y = tf.constant(3.0, dtype=tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(y)
        z = bar(x, y)
    return z, tape.gradient(z, x), tape.gradient(z, y), tape.gradient(z, [x, y])


@case(requires=_CUSTOM)
def case_linear_poly_with_variables(tf):
    # docstring `linear_poly`: grad_fn receives and differentiates a captured variable
    weights = tf.Variable(tf.ones([2]))

    @tf.custom_gradient
    def linear_poly(x):
        poly = weights[1] * x + weights[0]

        def grad_fn(dpoly, variables):
            grad_xs = dpoly * weights[1]
            checks = [variables is not None, len(variables), variables[0] is weights]
            seen.append(checks)
            dy_dw = dpoly * tf.stack([x**1, x**0])
            grad_vars = [tf.reduce_sum(tf.reshape(dy_dw, [2, -1]), axis=1)]
            return grad_xs, grad_vars

        return poly, grad_fn

    seen = []
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        poly = linear_poly(x)
    return poly, tape.gradient(poly, x), tape.gradient(poly, weights), seen


@case(requires=_CUSTOM)
def case_guide_clip_gradients(tf):
    # Guide "Custom gradients": identity forward, clip_by_norm(dy, 0.5) backward.
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            norm = tf.sqrt(tf.reduce_sum(dy * dy))
            return dy * 0.5 / tf.reduce_max(tf.stack([norm, 0.5]))

        return y, backward

    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = clip_gradients(v * v)
    return output, t.gradient(output, v)


# ----------------------------------------------------------------- contract details


@case(requires=_CUSTOM)
def case_custom_gradient_identity_scaled(tf):
    # testCustomGradientIdentity
    @tf.custom_gradient
    def my_identity(x):
        def grad(dresult):
            return [2 * dresult]

        return x, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = my_identity(x)
    return y, g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_replaces_true_gradient(tf):
    # testCustomGradientInEagerAndGraph
    @tf.custom_gradient
    def f(x):
        y = x * x

        def grad(dy):
            return [4 * dy]

        return y, grad

    c = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(c)
        out = f(c)
    return g.gradient(out, c)


@case(requires=_CUSTOM)
def case_custom_gradient_swapped(tf):
    # ops/gradients_test testCustomGradient: gradients deliberately swapped
    @tf.custom_gradient
    def mul(x1, x2):
        def grad(dy):
            return [dy * x1, dy * x2]

        return x1 * x2, grad

    x1 = tf.constant(3.0)
    x2 = tf.constant(5.0)
    with tf.GradientTape() as g:
        g.watch([x1, x2])
        y = mul(x1, x2)
    return y, g.gradient(y, [x1, x2])


@case(requires=_CUSTOM)
def case_custom_gradient_applied_twice(tf):
    # testCustomGradientTrivial: custom identity x3, twice
    @tf.custom_gradient
    def my_identity(x):
        return x, lambda dy: 3.0 * dy

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = my_identity(my_identity(x))
    return g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_variable_input_cached_value(tf):
    # testImplicitGradientsCustomGradientAndCachedVariableValue
    @tf.custom_gradient
    def my_square(x):
        result = tf.square(x)

        def grad(dr):
            return 2 * dr * x + 1

        return result, grad

    x = tf.Variable(3.0)
    with tf.GradientTape() as g:
        y = my_square(x)
    return y, g.gradient(y, x), len(g.watched_variables())


@case(requires=_CUSTOM)
def case_custom_gradient_sgd_steps(tf):
    # testCustomGradient (backprop_test): losses fall 4, 3, 2, 1, 0
    @tf.custom_gradient
    def my_mul(x, y):
        result = x * y

        def grad(dr):
            return [dr * y, dr * x]

        return result, grad

    lr = 0.25
    x = tf.Variable(2.0, name="x")
    losses = []
    for _ in range(5):
        with tf.GradientTape() as g:
            loss = my_mul(2.0, x.read_value())
        losses.append(loss)
        grad = g.gradient(loss, x)
        x.assign_sub(lr * grad)
    return losses, x


@case(
    requires=_CUSTOM,
    deviation=_TRACED_GRAD_FN,
    expect=harness.raises_one_of("OperatorNotAllowedInGraphError"),
)
def case_custom_gradient_upstream_values(tf):
    # upstream = ones when the output is the target, the cotangent otherwise;
    # grad_fn runs eagerly in TF, so the upstream tensors it sees can be kept
    seen = []

    @tf.custom_gradient
    def f(x):
        def grad(dy):
            seen.append(dy)
            return dy * 2.0

        return x * 1.0, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        direct = f(x)
        y = f(x)
        downstream = y * tf.constant([3.0, 4.0])
    return g.gradient(direct, x), g.gradient(downstream, x), seen


@case(requires=_CUSTOM)
def case_custom_gradient_multiple_outputs_unused_get_zeros(tf):
    # the unused output's upstream is zeros, not None (None * 3.0 would raise);
    # the result 5*2 + 0*3 shows it without taking values out of grad_fn
    @tf.custom_gradient
    def split(x):
        def grad(da, db):
            return da * 2.0 + db * 3.0

        return (x * 1.0, x * 1.0), grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        a, b = split(x)
        y = a * 5.0
    return g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_dict_output_positional_upstreams(tf):
    # a dict output is flattened: grad_fn gets one positional upstream per leaf
    @tf.custom_gradient
    def f(x):
        def grad(*dys):
            return dys[0] * 10.0 + dys[1] * 100.0

        return {"a": x * 2.0, "b": x * 3.0}, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        out = f(x)
        y = out["a"] + out["b"] * 2.0
    return out, g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_dict_output_single_arg_grad_fails(tf):
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return dy

        return {"a": x * 2.0, "b": x * 3.0}, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        out = f(x)
        y = out["a"] + out["b"]
    return g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_list_argument_flattened(tf):
    @tf.custom_gradient
    def f(pair):
        a, b = pair

        def grad(dy):
            return [dy * b, dy * a]

        return a * b, grad

    a = tf.constant(2.0)
    b = tf.constant(5.0)
    with tf.GradientTape() as g:
        g.watch([a, b])
        y = f([a, b])
    return g.gradient(y, [a, b])


@case(requires=_CUSTOM)
def case_custom_gradient_structural_input_output(tf):
    # testCustomGradientStructuralInputOutput: nested in/out, flat upstreams/grads
    counts = []

    @tf.custom_gradient
    def f(x, pair):
        y, z = pair

        def grad(*dys):
            counts.append(len(dys))
            return [dys[0] * 1.0, dys[1] * 2.0, dys[2] * 3.0]

        return [x * 1.0, (y * 1.0, {"k": z * 1.0})], grad

    x = tf.constant(1.0)
    y = tf.constant(2.0)
    z = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, y, z])
        out = f(x, (y, z))
    return out, g.gradient(out, [x, y, z]), counts


@case(
    requires=_CUSTOM,
    deviation="tapejax checks that each gradient can take its input's shape (a JAX VJP must); TF passes a wrong shape through",
    expect=harness.raises("ValueError"),
)
def case_custom_gradient_returns_wrong_shape(tf):
    # not checked: the wrong shape comes back as-is
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: tf.ones([3])

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, x)


@case(
    requires=_CUSTOM,
    deviation="gradients are always Tensors in tapejax; TF hands back the Python float grad_fn returned",
    tf_adapt=lambda tf, r: tf.constant(r) if isinstance(r, float) else r,
)
def case_custom_gradient_returns_python_float(tf):
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: 2.5

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_returns_none(tf):
    @tf.custom_gradient
    def f(x, w):
        return x * w, lambda dy: (dy * w, None)

    x = tf.constant(1.0)
    w = tf.constant(4.0)
    with tf.GradientTape() as g:
        g.watch([x, w])
        y = f(x, w)
    return g.gradient(y, [x, w])


@case(requires=_CUSTOM)
def case_custom_gradient_outside_tape(tf):
    calls = []

    @tf.custom_gradient
    def f(x):
        def grad(dy):
            calls.append(1)
            return dy

        return x * 3.0, grad

    return f(tf.constant(2.0)), len(calls)


@case(requires=_CUSTOM)
def case_custom_gradient_numpy_inputs(tf):
    # testWithNumpyInputs
    @tf.custom_gradient
    def f(x, y):
        return x * y, lambda dy: (None, None)

    return f(np.float32(2.0), np.array([1.0, 2.0], dtype=np.float32))


@case(requires=_CUSTOM)
def case_custom_gradient_method_decorator(tf):
    # testCustomGradientClass
    class Model:
        def __init__(self, scale):
            self.scale = scale

        @tf.custom_gradient
        def f(self, x1, x2):
            def grad(dy):
                return [dy * x1 * self.scale, dy * x2]

            return x1 * x2, grad

    x1 = tf.constant(3.0)
    x2 = tf.constant(5.0)
    with tf.GradientTape() as g:
        g.watch([x1, x2])
        y = Model(10.0).f(x1, x2)
    return y, g.gradient(y, [x1, x2])


@case(requires=_CUSTOM)
def case_custom_gradient_forward_ops_not_on_path(tf):
    # the custom op overrides the producer of the outputs: the tape does not
    # differentiate the forward ops (2*x*x would give 8 at x=2)
    @tf.custom_gradient
    def f(x):
        return 2.0 * x * x, lambda dy: dy * 100.0

    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x) + x
    return g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_keyword_arguments_bypass(tf):
    # all-keyword call: tensors passed by keyword are not custom inputs; the
    # tape differentiates the forward ops instead (issue #65839)
    @tf.custom_gradient
    def bar(x, y):
        return x * y, lambda dy: (1000.0 * dy, 7.0 * dy)

    x = tf.constant(2.0)
    y = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = bar(x=x, y=y)
    return g.gradient(z, [x, y])


@case(requires=_CUSTOM, match_message=True)
def case_custom_gradient_mixed_keyword_argument(tf):
    @tf.custom_gradient
    def bar(x, y):
        return x * y, lambda dy: (1000.0 * dy, 7.0 * dy)

    x = tf.constant(2.0)
    y = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = bar(x, y=y)
    return g.gradient(z, [x, y])


# ----------------------------------------------------------------- variables


def _variables_keyword_only(tf, varargs):
    x_captured = tf.Variable(3.0)

    def grad_kwonly(dy, *, variables=None):
        return 4 * dy * x_captured, [None for _ in variables]

    def grad_varargs(*dys, variables=None):
        return 4 * dys[0] * x_captured, [None for _ in variables]

    @tf.custom_gradient
    def f(x):
        return x * x_captured, grad_varargs if varargs else grad_kwonly

    x = tf.Variable(6.0)
    with tf.GradientTape() as g:
        y = f(x)
    return g.gradient(y, [x, x_captured])


@case(requires=_CUSTOM)
def case_custom_gradient_variables_kwonly(tf):
    # testCustomGradientVariablesKwonlyArgs, both signatures: 4 * 3 = 12
    return _variables_keyword_only(tf, varargs=False), _variables_keyword_only(tf, varargs=True)


@case(requires=_CUSTOM)
def case_custom_gradient_variables_dense_layer(tf):
    # testCustomGradientWithVariablesEager (Dense(4, use_bias=False) written out)
    kernel = tf.Variable(tf.ones([2, 4]) * 0.5)
    counts = []

    @tf.custom_gradient
    def f(x):
        out = tf.matmul(x, kernel)

        def grad(out_grad, variables=None):
            counts.append(len(variables))
            return tf.ones([3, 2]), [tf.ones([2, 4])]

        return out, grad

    x = tf.ones([3, 2]) + 2.0
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = f(x)
    dx, dw = tape.gradient(out, [x, kernel])
    return tf.reduce_sum(dx), tf.reduce_sum(dw), counts


@case(requires=_CUSTOM)
def case_custom_gradient_variables_none_entry(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables):
            return dy * v, [None]

        return x * v, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, [x, v])


@case(requires=_CUSTOM)
def case_custom_gradient_variables_kwarg_unused(tf):
    # no variable read: grad_fn is called without `variables`
    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            return dy * 3.0 if variables is None else dy * -1.0

        return x * 1.0, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_nontrainable_variable_ignored(tf):
    v = tf.Variable(2.0, trainable=False)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy: dy * 7.0

    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return y, g.gradient(y, x)


@case(requires=_CUSTOM, match_message=True)
def case_custom_gradient_missing_variables_kwarg(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy: dy * v

    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, x)


@case(requires=_CUSTOM, match_message=True)
def case_custom_gradient_wrong_variable_grad_count(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables):
            return dy * v, []

        return x * v, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, x)


@case(
    requires=_CUSTOM,
    deviation="tapejax accepts variable gradients as a tuple; TF's TypeError is an accident of list concatenation",
    expect=harness.returns,
)
def case_custom_gradient_variable_grads_as_tuple(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables):
            return dy * v, (dy * x,)

        return x * v, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, [x, v])


# ----------------------------------------------------------------- errors


@case(requires=_CUSTOM, match_message=True)
def case_custom_gradient_empty_grads(tf):
    # testCustomGradientEmptyError
    @tf.custom_gradient
    def identity(x):
        return x, lambda dy: []

    x = tf.Variable(1.0)
    with tf.GradientTape() as g:
        y = identity(x)
    return g.gradient(y, [x])


@case(requires=_CUSTOM, match_message=True)
def case_custom_gradient_too_many_grads(tf):
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: (dy, dy)

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, x)


@case(requires=_CUSTOM, match_message=True)
def case_custom_gradient_grad_fn_raises(tf):
    # testErrors: the exception propagates from tape.gradient
    @tf.custom_gradient
    def f(x):
        def grad(_):
            raise RuntimeError("x")

        return x, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.gradient(y, x)


@case(requires=_CUSTOM)
def case_custom_gradient_tape_usable_after_grad_fn_error(tf):
    @tf.custom_gradient
    def f(x):
        def grad(_):
            raise ValueError("test_error_string")

        return x * 1.0, grad

    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = f(x)
        z = x * x
    return catch(g.gradient, y, x), g.gradient(z, x)


@case(requires=_CUSTOM)
def case_stop_gradient_hides_downstream_custom_op(tf):
    # test_stop_gradient_hides_downstream_ops: the raising backward never runs
    @tf.custom_gradient
    def f(x):
        def grad(_):
            raise AssertionError("backward of an op downstream of stop_gradient ran")

        return x * 2.0, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(tf.stop_gradient(x))
    return g.gradient(y, x)


# ----------------------------------------------------------------- higher order


@case(requires=_CUSTOM)
def case_custom_gradient_second_order_through_grad_fn(tf):
    # grad_fn's own ops are differentiated by an outer tape
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return dy * 10.0 * x

        return 5.0 * x * x, grad

    x = tf.constant(1.2)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x) * x
        dy = inner.gradient(y, x)
    return y, dy, outer.gradient(dy, x)


@case(requires=_CUSTOM)
def case_custom_gradient_nested_in_grad_fn(tf):
    # A @custom_gradient inside grad_fn only overrides the gradient w.r.t. its
    # inputs (the upstream dy, issue #34503). Here dy is not watched by the outer
    # tape, so the inner custom op is not recorded and its forward ops, which
    # capture x, are differentiated normally: d(2x)/dx = 2.
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            @tf.custom_gradient
            def inner(d):
                return d * 2.0 * x, lambda ddy: ddy * 123.0

            return inner(dy)

        return x * x, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        dy = t.gradient(y, x)
    return dy, outer.gradient(dy, x)


@case(requires=_CUSTOM, rtol=1e-4)
def case_custom_gradient_override_second_order(tf):
    # testOverrideSecondOrderWithCustomGradient / docstring op_with_fused_backprop
    @tf.custom_gradient
    def f(x):
        def first_order_gradient(dz):
            @tf.custom_gradient
            def first_order_custom(unused_x):
                def h(ddz):
                    return -2.1 * ddz

                return -1.1, h

            return dz * first_order_custom(x)

        return x + 10.0, first_order_gradient

    c = tf.constant(1.0)
    with tf.GradientTape() as outer:
        outer.watch(c)
        with tf.GradientTape() as inner:
            inner.watch(c)
            d = f(c) ** 4.0
        dd = inner.gradient(d, c)
    return dd, outer.gradient(dd, c)


@case(requires=_CUSTOM)
def case_gradient_computed_inside_custom_forward(tf):
    # testGradientsFunctionInCustomGradient
    @tf.custom_gradient
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        dy_dx = t.gradient(y, x)
        return dy_dx, lambda dy: dy * 0.0

    return f(tf.constant(1.0))


@case(requires=_FORWARD_CUSTOM)
def case_custom_gradient_in_forward_mode_uses_forward_ops(tf):
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy * 100.0

    x = tf.constant(1.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = f(x)
    return acc.jvp(y)


@case(
    requires=_FORWARD_CUSTOM,
    deviation="forward mode differentiates the forward ops of a custom_gradient function and never calls grad_fn",
    expect=harness.returns,
)
def case_custom_gradient_error_in_forward_mode_not_swallowed(tf):
    # testExceptionInCustomGradientNotSwallowed
    @tf.custom_gradient
    def f(unused_x):
        def grad(unused_dy):
            raise ValueError("test_error_string")

        return 1.0, grad

    c = tf.constant(1.0)
    d = tf.constant(2.0)
    with tf.autodiff.ForwardAccumulator(c, d):
        return f(c)


# ----------------------------------------------------------------- recompute_grad (§5)


@case(
    requires=_RECOMPUTE,
    deviation=_TRACED_GRAD_FN,
    tf_adapt=lambda tf, r: (r[0], r[1], r[2], r[2] + 1),
)
def case_recompute_grad_docstring_counts(tf):
    # docstring: forward runs once per call, backward runs f again per call
    y = tf.Variable(1.0)
    runs = []

    def my_function(x):
        runs.append(1)
        return x * y

    my_function_recompute = tf.recompute_grad(my_function)
    with tf.GradientTape() as tape:
        r = tf.constant(1.0)
        for _ in range(4):
            r = my_function_recompute(r)
    forward_runs = len(runs)
    grad = tape.gradient(r, [y])
    return r, grad, forward_runs, len(runs)


@case(requires=_RECOMPUTE)
def case_recompute_grad_matches_plain(tf):
    def f(x, w):
        return tf.sin(x) * w

    g_recompute = tf.recompute_grad(f)
    x = tf.constant(0.5)
    w = tf.Variable(2.0)
    results = []
    for fn in (f, g_recompute):
        with tf.GradientTape() as t:
            t.watch(x)
            out = fn(x, w)
        results.append((out, t.gradient(out, [x, w])))
    return results


@case(requires=_RECOMPUTE)
def case_recompute_grad_unconnected_gives_zeros(tf):
    def f(x, unused):
        return x * 2.0

    g = tf.recompute_grad(f)
    x = tf.constant([1.0, 2.0])
    u = tf.constant([3.0, 4.0, 5.0])
    with tf.GradientTape() as t:
        t.watch([x, u])
        y = g(x, u)
    return t.gradient(y, [x, u])


@case(requires=_RECOMPUTE)
def case_recompute_grad_same_tensor_twice(tf):
    g = tf.recompute_grad(lambda a, b: a + b)
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = g(x, x)
    return t.gradient(y, x)


@case(requires=_RECOMPUTE)
def case_recompute_grad_int_and_float_inputs(tf):
    # testRecomputeGradDifferentDtypesInputs
    def f(x, n):
        return x * tf.cast(n, tf.float32)

    g = tf.recompute_grad(f)
    x = tf.constant([1.0, 2.0])
    n = tf.constant(3)
    with tf.GradientTape() as t:
        t.watch(x)
        y = g(x, n)
    return y, t.gradient(y, x)


@case(requires=_RECOMPUTE)
def case_recompute_grad_zero_size_input(tf):
    # testRecomputeGradZeroSizeInput
    g = tf.recompute_grad(lambda x: x * 2.0)
    x = tf.constant(())
    with tf.GradientTape() as t:
        t.watch(x)
        y = g(x)
    return y, t.gradient(y, x)


@case(requires=_RECOMPUTE)
def case_recompute_grad_wrapped(tf):
    # testRecomputeGradWrapped
    def f(x):
        return x

    return tf.recompute_grad(f).__wrapped__ is f


@case(requires=_RECOMPUTE)
def case_recompute_grad_list_of_variables(tf):
    # testRecomputeGradWithDifferentShape
    @tf.recompute_grad
    def outer_fn(x):
        return [x[0] + 1, x[1] + 1]

    x = [tf.Variable([1.0, 2.0], name="a"), tf.Variable(1.0, name="b")]
    with tf.GradientTape():
        y = outer_fn(x)
    return y


@case(requires=_RECOMPUTE)
def case_recompute_grad_second_order(tf):
    f = tf.recompute_grad(lambda x: tf.reduce_prod(tf.tanh(x) ** 2))
    x = tf.constant([1.0])
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        g = t1.gradient(y, x)
    return y, g, t2.gradient(g, x)


@case(
    requires=_RECOMPUTE + ("autodiff.ForwardAccumulator",),
    deviation="recompute_grad is jax.checkpoint, which supports forward mode: tapejax computes the JVP where TF raises",
    expect=harness.returns,
)
def case_recompute_grad_forward_mode_raises(tf):
    def square(t):
        return t * t

    f = tf.recompute_grad(square)
    x = tf.constant(1.1)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = f(x)
    return acc.jvp(y)


# ----------------------------------------------------------------- grad_pass_through (§5.1)


@case(requires=_PASS_THROUGH)
def case_grad_pass_through_assign_docstring(tf):
    x = tf.Variable(1.0, name="x")
    z = tf.Variable(3.0, name="z")
    with tf.GradientTape() as tape:
        # y := x.assign(z**2), but with dy/dz = 2z as if y = z**2
        y = tf.grad_pass_through(x.assign)(z**2)
    grads = tape.gradient(y, z)
    return y, grads, x


@case(requires=_PASS_THROUGH)
def case_grad_pass_through_round(tf):
    x = tf.constant([0.4, 1.6])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.grad_pass_through(tf.math.round)(x * 3.0)
    return y, tape.gradient(y, x)


@case(requires=_PASS_THROUGH)
def case_grad_pass_through_variables_get_none(tf):
    v = tf.Variable(5.0)
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.grad_pass_through(lambda t: t * v)(x)
    return y, tape.gradient(y, [x, v])


test_matches_tensorflow = harness.compat_test(globals())
