"""GradientTape.gradient against TensorFlow: structures, watching, variables, errors.

Covers tf_tape_api.md §1-§3, §7, §9, §10 and the **E** rows of
tf_backprop_tests.md §1.1-§1.6. Each ``case_*`` runs under TensorFlow and tapejax;
see harness.py for how results are compared.
"""

import collections

import numpy as np

from compat_tests import harness
from compat_tests.harness import case, catch

Pair = collections.namedtuple("Pair", ["a", "b"])


def _densify(tf, result):
    """TF's IndexedSlices gradients as the dense tensors tapejax returns."""
    return tf.nest.map_structure(
        lambda g: tf.convert_to_tensor(g) if type(g).__name__ == "IndexedSlices" else g,
        result,
        expand_composites=False,
    )


_DENSE_GRADIENTS = (
    "tapejax has no IndexedSlices: gradients through gather are returned dense, with "
    "duplicate indices summed (TF's value after tf.convert_to_tensor)"
)
_NO_STRINGS = "tapejax has no string dtype: tf.constant('...') raises NotImplementedError"

# ----------------------------------------------------------------- basics & structures


def case_watched_constant_square(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return y, g.gradient(y, x)


def case_two_targets_two_sources(tf):
    # testTwoTargets
    x = tf.constant(3.0)
    y = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        targets = [2.0 * x, 3.0 * y]
    return g.gradient(targets, [x, y])


def case_target_dict_summed(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        targets = {"sq": x * x, "cube": x * x * x}
    return g.gradient(targets, x)


def case_target_nested_structure_summed(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        targets = [(x * 2.0, {"k": x * x}), [tf.reduce_sum(x)]]
    return g.gradient(targets, x)


def case_nonscalar_target_summed(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.sin(x) * x
    return g.gradient(y, x)


def case_target_empty_list(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        x * 2.0
    return g.gradient([], x)


def case_output_gradients_weight_targets(tf):
    # testOutputGradUsedInComputation: y*1 + 1*2
    x = tf.constant(3.0)
    y = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        loss = x * y
    return g.gradient([loss, x], [x], output_gradients=[1.0, 2.0])


def case_output_gradients_single_tensor(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x, output_gradients=tf.constant([1.0, 10.0, 100.0]))


def case_output_gradients_python_list(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.exp(x)
    return g.gradient(y, x, output_gradients=[0.5, -2.0])


def case_output_gradients_variable(tf):
    x = tf.constant([1.0, 2.0])
    weights = tf.Variable([3.0, 4.0])
    with tf.GradientTape(watch_accessed_variables=False) as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x, output_gradients=weights)


def case_output_gradients_extra_entries_ignored(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient([y], x, output_gradients=[3.0, 100.0])


def case_output_gradients_wrong_shape(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x, output_gradients=tf.constant([1.0, 2.0, 3.0]))


def case_output_gradients_wrong_dtype(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x, output_gradients=tf.constant([1, 2]))


def case_output_gradients_none_entry(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = x * 3.0
    return g.gradient([y, z], x, output_gradients=[None, 1.0])


def case_sources_structures(tf):
    # testGradientTapeStructure
    x1 = tf.constant(3.0)
    x2 = tf.constant(3.1)
    x3 = tf.constant(3.2)
    with tf.GradientTape(persistent=True) as g:
        g.watch([x1, x2, x3])
        y = x1 + 2.0 * x2 + 3.0 * x3
    return [
        g.gradient(y, x1),
        g.gradient(y, (x1,)),
        g.gradient(y, (x1, x2)),
        g.gradient(y, [(x1, x2), (x2, x3)]),
        g.gradient(y, (x1, x2, [x1, x3])),
        g.gradient(y, [x1, {"x2": x2, "x3": x3}]),
    ]


def case_sources_empty_structures(tf):
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, []), g.gradient(y, {}), g.gradient(y, ())


def case_sources_namedtuple(tf):
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch([a, b])
        y = a * b * b
    return g.gradient(y, Pair(a=a, b=b))


def case_sources_dict_of_variables(tf):
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="w")
    b = tf.Variable([0.5, -0.5], name="b")
    with tf.GradientTape() as g:
        y = tf.constant([[1.0, 2.0, 3.0]]) @ w + b
        loss = tf.reduce_mean(y**2)
    return g.gradient(loss, {"w": w, "b": b})


def case_repeated_source(tf):
    # testGradientTapeRepeatedSource
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = 2.0 * x
    return g.gradient(y, [x, x])


def case_repeated_source_persistent(tf):
    # testPersistentGradientTapeRepeatedSource
    x = tf.constant(3.0)
    y = tf.constant(5.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, y])
        z = x * x + x * y
    return g.gradient(z, [x, x]), g.gradient(z, [y, x])


def case_repeated_source_interleaved(tf):
    a = tf.constant(1.0)
    b = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch([a, b])
        y = 2.0 * a + b
    return g.gradient(y, [a, b, a])


def case_intermediate_sources(tf):
    # testNestedGradients
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = y * y
    return g.gradient(z, [x, y])


def case_intermediate_source_only(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = y * y
    return g.gradient(z, y)


def case_equal_values_are_distinct_sources(tf):
    # testDifferentiatingScalarCache
    x1 = tf.constant(3.0)
    x2 = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x1, x2])
        y = x1 + x2
    return g.gradient(y, [x1])


def case_noop_ops_make_distinct_tensors(tf):
    # testNoOpBehaviorConsistent: identity, +0, -0, *1 each make a new tensor.
    x = tf.constant(10.0)
    with tf.GradientTape() as g:
        g.watch(x)
        x1 = tf.identity(x)
        x2 = x + 0.0
        x3 = x - 0.0
        x4 = x * 1.0
        g.watch([x1, x2, x3, x4])
        loss = 2.0 * x + 3.0 * x1 + 3.0 * x2 + 3.0 * x3 + 3.0 * x4
    return g.gradient(loss, [x, x1, x2, x3, x4])


def case_variables_and_constants_same_gradient(tf):
    a = tf.Variable(2.0)
    b = tf.Variable(2.0)
    ca = tf.constant(2.0)
    cb = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch([ca, cb])
        y, z = a**3, b**2
        cy, cz = ca**3, cb**2
    return g.gradient([y, z], [a, b]), g.gradient([cy, cz], [ca, cb])


# ----------------------------------------------------------------- target is source


def case_target_is_unwatched_source(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        pass
    return g.gradient(x, x)


def case_target_is_variable_source(tf):
    v = tf.Variable(3.0)
    with tf.GradientTape() as g:
        pass
    return g.gradient(v, v)


def case_target_is_watched_source(tf):
    # testTapeNoOpGradient
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x
    return g.gradient(y, x)


def case_target_list_contains_source(tf):
    # testTapeGradientMultiTargetOneIsSource: 1 + 2x
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient([x, y], x)


def case_target_same_tensor_twice(tf):
    # testTapeNoOpGradientWithMultiTargetAllSource
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x
    return g.gradient([y, y], x)


def case_noop_targets_multi_source(tf):
    # testTapeNoOpGradientWithMultiTargetMultiSource
    x = tf.constant(3.0)
    y = tf.constant(5.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = y * y
    return g.gradient([x, y, z], [x, y])


def case_noop_gradient_2x2(tf):
    # testTapeNoOpGradient2By2 / MultiTarget2By2
    a = 2.0 * tf.ones([2, 2])
    with tf.GradientTape(persistent=True) as g:
        g.watch(a)
    return g.gradient(a, [a]), g.gradient([a, a], [a])


def case_identity_gradient(tf):
    # testTapeIdentityGradientIsIdentity
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.identity(x)
    return g.gradient(y, x)


def case_variable_read_value_gradient(tf):
    # testTapeNoOpOnVariableIsIdentity
    v0 = tf.Variable(1.0)
    with tf.GradientTape() as g:
        y = v0.read_value()
    return g.gradient(y, v0)


def case_unrelated_variable_target(tf):
    # testGadientTapeCalledOnConstantTarget
    x = tf.Variable([3.0])
    y = tf.Variable([2.0])
    with tf.GradientTape() as g:
        pass
    return g.gradient(x, y)


# ----------------------------------------------------------------- unconnected


def case_unconnected_default_none(tf):
    # testUnconnectedGradientsDefault
    x = tf.constant(1.0)
    y = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = y * 2.0
    return g.gradient(z, x)


def case_unconnected_zero_string(tf):
    # testUnconnectedGradientsZeros
    x = tf.ones([2, 2])
    y = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = y * 2.0
    return g.gradient(z, x, unconnected_gradients="zero")


def case_unconnected_zero_enum_variable(tf):
    # testUnconnectedGradientsVariablesZeros
    x = tf.Variable(tf.ones([2, 2]))
    y = tf.Variable(3.0)
    with tf.GradientTape() as g:
        z = y * 2.0
    return g.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def case_unconnected_none_enum(tf):
    x = tf.constant([1.0, 2.0])
    y = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = y * 2.0
    return g.gradient(z, [x, y], unconnected_gradients=tf.UnconnectedGradients.NONE)


def case_unconnected_zero_mixed_sources(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = y * y
    return g.gradient(z, {"x": x, "y": y}, unconnected_gradients="zero")


def case_unconnected_zero_int_source(tf):
    x = tf.constant([1, 2], dtype=tf.int32)
    y = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = y * 2.0
    return g.gradient(z, x, unconnected_gradients="zero")


@case(match_message=True)
def case_unconnected_invalid_value(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x, unconnected_gradients="nonsense")


@case(match_message=True)
def case_unconnected_none_value(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x, unconnected_gradients=None)


@case(match_message=True)
def case_unconnected_value_is_case_sensitive(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x, unconnected_gradients="ZERO")


def case_unconnected_enum_values(tf):
    return tf.UnconnectedGradients.NONE.value, tf.UnconnectedGradients.ZERO.value


def case_unwatched_constant_is_unconnected(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        y = x * x
    return g.gradient(y, x)


def case_watch_after_op_is_unconnected(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        y = x * x
        g.watch(x)
    return g.gradient(y, x)


def case_op_after_exit_is_not_recorded(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y1 = x * x
        y2 = x * 2.0
    return g.gradient(y1 + y2, x)


def case_unconnected_zero_keeps_connected_values(tf):
    x = tf.constant([1.0, -1.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.nn.relu(x) * 0.0
    return g.gradient(y, x, unconnected_gradients="zero")


# ----------------------------------------------------------------- dtypes


@case(match_warnings=True)
def case_int_source_op_path_is_none(tf):
    # testGradientInteger: warning at watch, None for any op path
    x = tf.constant(1)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x + x
    return g.gradient(y, x)


@case(match_warnings=True)
def case_int_target_is_source_gives_int_ones(tf):
    x = tf.constant([1, 2], dtype=tf.int32)
    with tf.GradientTape() as g:
        g.watch(x)
    return g.gradient(x, x)


@case(match_warnings=True)
def case_bool_target_is_source(tf):
    x = tf.constant(True)
    with tf.GradientTape() as g:
        g.watch(x)
    return g.gradient(x, x)


@case(match_warnings=True, x64=True)
def case_watch_int64_warning(tf):
    x = tf.constant([1, 2], dtype=tf.int64)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * 2
    return g.gradient(y, x)


@case(match_warnings=True)
def case_watch_float_logs_nothing(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x)


@case(match_warnings=True)
def case_watch_structure_warns_per_int_leaf(tf):
    a = tf.constant(1.0)
    b = tf.constant(1)
    c = tf.constant([True, False])
    with tf.GradientTape() as g:
        g.watch([a, b, c])
        y = a * 2.0
    return g.gradient(y, [a, b, c])


def case_int_variable_is_watched_but_unconnected(tf):
    v = tf.Variable(1)
    with tf.GradientTape() as g:
        y = v * 2
    return g.gradient(y, v), len(g.watched_variables()), v.trainable


def case_cast_to_int_disconnects(tf):
    x = tf.constant(2.7)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.cast(tf.cast(x, tf.int32), tf.float32) * x
    return g.gradient(y, x)


def case_cast_to_int_only_path_is_none(tf):
    x = tf.constant(2.7)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.cast(tf.cast(x, tf.int32), tf.float32) * 3.0
    return g.gradient(y, x)


def case_mixed_float_int_sources(tf):
    xf = tf.constant(2.0)
    xi = tf.constant(3)
    with tf.GradientTape() as g:
        g.watch([xf, xi])
        y = xf * tf.cast(xi, tf.float32)
    return g.gradient(y, [xf, xi])


@case(x64=True)
def case_float64_gradient_dtype(tf):
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_sum(tf.exp(x) * x)
    return y, g.gradient(y, x)


@case(x64=True)
def case_float32_through_float64_keeps_source_dtype(tf):
    x = tf.constant(1.5)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.cast(x, tf.float64) ** 2
    return g.gradient(y, x)


@case(x64=True)
def case_float64_variable_zero_unconnected(tf):
    v = tf.Variable([1.0, 2.0], dtype=tf.float64)
    w = tf.Variable(1.0, dtype=tf.float64)
    with tf.GradientTape() as g:
        y = w * 2.0
    return g.gradient(y, [v, w], unconnected_gradients="zero")


@case(rtol=1e-3, atol=1e-3)
def case_float16_gradient_dtype(tf):
    x = tf.constant([1.5, -2.0], dtype=tf.float16)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x * x
    return g.gradient(y, x)


def case_complex_holomorphic_is_conjugated(tf):
    z = tf.constant(1.0 + 2.0j, dtype=tf.complex64)
    with tf.GradientTape() as g:
        g.watch(z)
        y = z * z
    return g.gradient(y, z)


def case_complex_abs_gradient(tf):
    z = tf.constant(1.0 + 2.0j, dtype=tf.complex64)
    with tf.GradientTape() as g:
        g.watch(z)
        y = tf.abs(z)
    return y, g.gradient(y, z)


def _complex_point(tf):
    return tf.constant([1.0 + 2.0j, -0.5 + 0.25j], dtype=tf.complex64)


@case(rtol=1e-5, atol=1e-5)
def case_complex_elementwise_ops(tf):
    # TF's convention across ops: conj(f'(z)) for holomorphic f, scaled by the upstream.
    z = _complex_point(tf)
    fns = {
        "exp": tf.exp,
        "log": tf.math.log,
        "sin": tf.sin,
        "cos": tf.cos,
        "tanh": tf.tanh,
        "sqrt": tf.sqrt,
        "square": tf.square,
        "reciprocal": tf.math.reciprocal,
        "pow3": lambda v: v**3,
        "sigmoid": tf.sigmoid,
    }
    out = {}
    for name, fn in fns.items():
        with tf.GradientTape() as g:
            g.watch(z)
            y = fn(z)
        out[name] = g.gradient(y, z)
    return out


@case(rtol=1e-5, atol=1e-5)
def case_complex_binary_ops_and_upstream(tf):
    z = _complex_point(tf)
    w = tf.constant([0.5 - 1.0j, 2.0 + 0.5j], dtype=tf.complex64)
    up = tf.constant([1.0 + 1.0j, -2.0j], dtype=tf.complex64)
    with tf.GradientTape(persistent=True) as g:
        g.watch([z, w])
        prod = z * w
        quot = z / w
        diff = z - w * w
    return (
        g.gradient(prod, [z, w]),
        g.gradient(quot, [z, w]),
        g.gradient(diff, [z, w], output_gradients=up),
    )


@case(rtol=1e-5, atol=1e-5)
def case_complex_real_valued_losses(tf):
    # Real-valued functions of z: TF returns df/dx + i df/dy.
    z = _complex_point(tf)
    with tf.GradientTape(persistent=True) as g:
        g.watch(z)
        r = tf.math.real(z * tf.math.conj(z))
        re = tf.math.real(z)
        im = tf.math.imag(z)
        mag = tf.abs(z)
        total = tf.reduce_sum(tf.abs(z * z))
    return [g.gradient(t, z) for t in (r, re, im, mag, total)]


@case(rtol=1e-5, atol=1e-5)
def case_complex_matmul_and_reduce(tf):
    a = tf.constant([[1.0 + 1.0j, 2.0 - 1.0j], [0.5j, -1.0 + 0.0j]], dtype=tf.complex64)
    b = tf.constant([[2.0 + 0.0j], [1.0 - 3.0j]], dtype=tf.complex64)
    with tf.GradientTape() as g:
        g.watch([a, b])
        y = tf.reduce_sum(tf.matmul(a, b))
    return g.gradient(y, [a, b])


@case(rtol=1e-5, atol=1e-5)
def case_complex_jacobian_is_conjugated(tf):
    z = _complex_point(tf)
    with tf.GradientTape() as g:
        g.watch(z)
        y = z * z * z
    return g.jacobian(y, z)


@case(deviation=_NO_STRINGS, expect=harness.raises("NotImplementedError"))
def case_string_target_is_none(tf):
    # testTapeGradientStringTarget
    s = tf.constant("unknown", dtype=tf.string)
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        g.watch(s)
    return g.gradient(s, x)


@case(deviation=_NO_STRINGS, expect=harness.raises("NotImplementedError"))
def case_string_source_and_target_is_none(tf):
    # testTapeNoOpGradientStringSourceAndTarget
    s = tf.constant("unknown", dtype=tf.string)
    with tf.GradientTape() as g:
        g.watch(s)
    return g.gradient(s, s)


@case(deviation=_NO_STRINGS, expect=harness.raises("NotImplementedError"))
def case_string_mixed_targets_and_sources(tf):
    # testTapeNoOpGradientWithMultiTargetMultiSourceIncludeString
    x = tf.constant(3.0)
    y = tf.constant(5.0)
    s = tf.constant("unknown", dtype=tf.string)
    with tf.GradientTape() as g:
        g.watch([x, y, s])
        z = y * y
    return g.gradient([x, y, z, s], [x, y, s])


@case(deviation=_NO_STRINGS, expect=harness.raises("NotImplementedError"))
def case_string_source_zero_unconnected(tf):
    s = tf.constant(["a"], dtype=tf.string)
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, s])
        y = x * x
    return g.gradient(y, s, unconnected_gradients="zero")


# ----------------------------------------------------------------- variables


def case_variable_autowatched(tf):
    # testGradientTapeVariable
    v = tf.Variable(1.0)
    with tf.GradientTape() as g:
        y = v * v
    return g.gradient(y, [v])


def case_variable_reads_use_value_at_read_time(tf):
    v = tf.Variable(1.0)
    with tf.GradientTape(persistent=True) as g:
        y1 = v * 2.0
        v.assign(3.0)
        y2 = v * v
    return g.gradient(y1, v), g.gradient(y2, v), g.gradient([y1, y2], v)


def case_variable_assign_stops_gradient(tf):
    v = tf.Variable(1.0)
    w = tf.Variable(2.0)
    with tf.GradientTape() as g:
        v.assign(w * 3.0)
        y = v * 1.0
    return g.gradient(y, [v, w]), v


def case_variable_assign_sub_then_read(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as g:
        v.assign_sub([0.5, 0.5])
        y = tf.reduce_sum(v * v)
    return g.gradient(y, v), v


def case_variable_not_trainable_is_none(tf):
    v = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as g:
        y = v * v
    return g.gradient(y, v), g.watched_variables()


def case_variable_not_trainable_explicit_watch(tf):
    v = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as g:
        g.watch(v)
        y = v * v
    return g.gradient(y, v), len(g.watched_variables())


def case_variable_created_inside_tape(tf):
    with tf.GradientTape() as g:
        v = tf.Variable(2.0)
        y = v * v * v
    return g.gradient(y, v)


def case_variable_every_read_form_counts(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as g:
        reads = [v.value(), v.read_value(), tf.identity(v), tf.convert_to_tensor(v), v * 1.0]
        y = tf.reduce_sum(tf.stack(reads) * tf.reshape(tf.range(1.0, 6.0), [5, 1])) + v[0] * 10.0
    return g.gradient(y, v)


def case_variable_identity_read(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as g:
        y = tf.identity(v) * 3.0
    return g.gradient(y, v)


def case_variable_slice_read_is_dense(tf):
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as g:
        y = v[0] * 2.0 + v[:, 1]
    return g.gradient(y, v)


@case(deviation=_DENSE_GRADIENTS, tf_adapt=_densify)
def case_variable_gather_gradient(tf):
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as g:
        y = tf.gather(v, [0, 2, 0])
    return g.gradient(y, v)


@case(deviation=_DENSE_GRADIENTS, tf_adapt=_densify)
def case_tensor_gather_gradient(tf):
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.gather(x, [3, 1, 1]) * tf.constant([1.0, 2.0, 3.0])
    return g.gradient(y, x)


def case_gather_plus_dense_aggregates_dense(tf):
    # IndexedSlices + dense aggregate to a dense tensor in TF too.
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_sum(tf.gather(x, [0, 0])) + tf.reduce_sum(x * x)
    return g.gradient(y, x)


def case_python_max_over_variables(tf):
    # testPythonMax: max() returns the variable itself
    x = [tf.Variable(2.0), tf.Variable(3.0), tf.Variable(5.0)]
    with tf.GradientTape() as g:
        f = max(x)
    return f, g.gradient(f, x)


def case_variable_plus_tensor_is_tensor(tf):
    x2 = tf.Variable(2.0) + 1.0
    with tf.GradientTape() as g:
        y = x2 * x2
    return g.gradient(y, x2), x2


def case_variable_and_tensor_same_tape(tf):
    v = tf.Variable([1.0, 2.0])
    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_sum(v * x + v)
    return g.gradient(y, [v, x])


# ----------------------------------------------------------------- watch & watched_variables


def case_watch_nested_structure(tf):
    x = tf.constant(1.0)
    y = tf.constant(2.0)
    z = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, {"a": y, "b": (z,)}])
        out = x * y * z
    return g.gradient(out, [x, y, z])


def case_watch_sparse_tensor_components(tf):
    # testWatchComposite: watching a SparseTensor watches its values
    s = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    with tf.GradientTape() as g:
        g.watch(s)
        z = tf.sparse.reduce_sum(s)
    return g.gradient(z, s.values)


def case_watch_empty_list_is_noop(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch([])
        g.watch(x)
        y = x * x
    return g.gradient(y, x)


@case(match_message=True)
def case_watch_numpy_array_raises(tf):
    with tf.GradientTape() as g:
        g.watch(np.array(1.0))


@case(match_message=True)
def case_watch_python_float_raises(tf):
    with tf.GradientTape() as g:
        g.watch(3.0)


@case(match_message=True)
def case_watch_none_raises(tf):
    with tf.GradientTape() as g:
        g.watch(None)


@case(match_message=True)
def case_watch_bad_leaf_in_structure_raises(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch([x, "text"])


@case(match_message=True)
def case_watch_bad_thing_never_entered(tf):
    # testWatchBadThing: checked before the tape is touched
    g = tf.GradientTape()
    g.watch(np.array(1.0))


def case_watch_good_thing_never_entered(tf):
    g = tf.GradientTape()
    g.watch(tf.constant(1.0))


def case_watch_is_tape_local(tf):
    # testWatchingIsTapeLocal
    x1 = tf.Variable(2.0, trainable=False)
    x2 = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape1:
        with tf.GradientTape() as tape2:
            tape1.watch(x1)
            tape2.watch([x1, x2])
            y = x1**3
            z = x2**2
            dy, dz = tape2.gradient([y, z], [x1, x2])
        d2y, d2z = tape1.gradient([dy, dz], [x1, x2])
    return [dy, dz, d2y, d2z]


def case_watch_between_blocks_has_no_effect(tf):
    x = tf.constant(3.0)
    g = tf.GradientTape(persistent=True)
    with g:
        y = x * 2.0
    g.watch(x)
    with g:
        z = x * x
    return g.gradient(z, x), g.gradient(y, x)


def case_watch_inside_reentered_block(tf):
    x = tf.constant(3.0)
    g = tf.GradientTape()
    with g:
        x * 2.0
    with g:
        g.watch(x)
        z = x * x
    return g.gradient(z, x)


def case_watched_variables_creation_order(tf):
    a = tf.Variable(1.0)
    b = tf.Variable(2.0)
    c = tf.Variable(3.0)
    with tf.GradientTape() as g:
        c * b * a
    order = [[w is v for v in (a, b, c)].index(True) for w in g.watched_variables()]
    return order, type(g.watched_variables()).__name__


def case_watched_variables_deduplicated(tf):
    a = tf.Variable(1.0)
    with tf.GradientTape() as g:
        a * a
        a + 1.0
        g.watch(a)
    return g.watched_variables()


def case_watched_variables_never_entered(tf):
    return tf.GradientTape().watched_variables()


def case_watched_variables_after_nonpersistent_gradient(tf):
    # testWatchedVariablesAfterNonPersistentGradientCall
    x = tf.Variable(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
    g.gradient(x, x)
    return [w is x for w in g.watched_variables()]


def case_watched_variables_only_last_tape(tf):
    # testWatchedVariablesOnlyHasVariablesFromLastTape
    x = tf.Variable(1.0)
    z = tf.Variable(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
    with tf.GradientTape() as g:
        g.watch(z)
    return [w is z for w in g.watched_variables()]


def case_watched_variables_respect_reset(tf):
    # testWatchedVariablesRespectReset
    x = tf.Variable(1.0)
    z = tf.Variable(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        first = [w is x for w in g.watched_variables()]
        g.reset()
        g.watch(z)
        second = [w is z for w in g.watched_variables()]
    g.gradient(z, z)
    third = [w is z for w in g.watched_variables()]
    return first, second, third


def case_automatic_watched_variables(tf):
    # testAutomaticWatchedVariables
    with tf.GradientTape() as g:
        counts = [len(g.watched_variables())]
        v = tf.Variable(1.0)
        loss = v * v
        counts.append(len(g.watched_variables()))
        g.reset()
        counts.append(len(g.watched_variables()))
        loss += v * v
        counts.append(len(g.watched_variables()))
    return counts, g.gradient(loss, v)


def case_explicit_watched_variables(tf):
    # testExplicitWatchedVariables
    with tf.GradientTape() as g:
        counts = [len(g.watched_variables())]
        v = tf.Variable(1.0)
        g.watch(v)
        counts.append(len(g.watched_variables()))
        g.reset()
        counts.append(len(g.watched_variables()))
        g.watch(v)
        counts.append(len(g.watched_variables()))
    return counts


def case_selectively_watch_variables(tf):
    # testSelectivelyWatchVariables
    x1 = tf.Variable(1.0)
    x2 = tf.Variable(1.0)
    with tf.GradientTape(watch_accessed_variables=False) as g:
        g.watch(x2)
        y = x1**2
        z = x2**3
    listed = [w is x2 for w in g.watched_variables()]
    return listed, g.gradient([y, z], [x1, x2])


def case_watched_variables_kinds(tf):
    # int variables are trainable and listed; non-trainable only if watched;
    # assign counts as an access.
    vi = tf.Variable(1)
    vn = tf.Variable(3.0, trainable=False)
    va = tf.Variable(0.0)
    with tf.GradientTape() as g:
        vi * 2
        vn * 2.0
        va.assign(5.0)
    names = {id(vi): "int", id(vn): "nontrainable", id(va): "assigned"}
    return [names[id(w)] for w in g.watched_variables()]


def case_variable_names_and_trainable_flags(tf):
    v0 = tf.Variable(3.0, name="x0")
    v1 = tf.Variable(3.0, name="x1", trainable=False)
    v2 = tf.Variable(1.0)
    with tf.GradientTape() as g:
        v0 * v1 * v2
    return [w.name for w in g.watched_variables()], [v0.trainable, v1.trainable, v2.trainable]


# ----------------------------------------------------------------- stop_recording / reset / reentry


def case_stop_recording_disconnects(tf):
    # testTapeStopRecording
    with tf.GradientTape() as g:
        x = tf.Variable(1.0)
        with g.stop_recording():
            y = x * x
    return g.gradient(y, x)


def case_stop_then_resume_recording(tf):
    # testTapeStopStartRecording
    with tf.GradientTape(persistent=True) as g:
        x = tf.Variable(1.0)
        x2 = x * 2.0
        with g.stop_recording():
            y = x2 * x2
        z = x2 * x2
    return g.gradient(y, x2), g.gradient(z, x2)


def case_stop_recording_only_affects_its_tape(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
        inner_grad = inner.gradient(y, x)
    return inner_grad, outer.gradient(y, x)


@case(match_message=True)
def case_stop_recording_never_entered(tf):
    g = tf.GradientTape()
    with g.stop_recording():
        pass


@case(match_message=True)
def case_stop_recording_after_exit(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
    with g.stop_recording():
        pass


@case(match_message=True)
def case_stop_recording_nested(tf):
    with tf.GradientTape() as g:
        with g.stop_recording():
            with g.stop_recording():
                pass


@case(match_message=True)
def case_stop_recording_after_consuming_gradient(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        first = g.gradient(y, x)
        second = catch(lambda: g.stop_recording().__enter__())
    return first, second


def case_reset_discards_recorded_ops(tf):
    # testTapeReset
    v = tf.Variable(1.0)
    with tf.GradientTape() as g:
        loss = v * v
        g.reset()
        loss += v * v
    return g.gradient(loss, v)


def case_reset_requires_rewatching_tensors(tf):
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        g.reset()
        y = x * 3.0
        g.watch(x)
        z = x * 5.0
    return g.gradient(y, x), g.gradient(z, x)


@case(match_message=True)
def case_reset_outside_context(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
    g.reset()


@case(match_message=True)
def case_reset_never_entered(tf):
    tf.GradientTape().reset()


@case(match_message=True)
def case_reenter_active_tape(tf):
    # testNestedSelfContexts
    with tf.GradientTape() as g:
        with g:
            pass


def case_reenter_continues_same_tape(tf):
    # testGradientTapeReEnterContext
    g = tf.GradientTape()
    with g:
        x = tf.constant(3.0)
        g.watch(x)
        y = 2.0 * x
    with g:
        z = 2.0 * y
    return g.gradient(z, [x])


def case_exception_inside_block_keeps_tape_usable(tf):
    x = tf.constant(3.0)
    g = tf.GradientTape()
    kept = {}

    def body():
        with g:
            g.watch(x)
            kept["y"] = x * x
            raise KeyError("boom")

    raised = catch(body)
    return raised, g.gradient(kept["y"], x)


# ----------------------------------------------------------------- persistence / single use


@case(match_message=True)
def case_nonpersistent_second_gradient_raises(tf):
    # testGradientTapeGradientCalledMultipleTimes
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = y * y
    first = g.gradient(z, [x])
    return first, catch(g.gradient, y, [x])


@case(match_message=True)
def case_never_entered_gradient_raises(tf):
    x = tf.constant(1.0)
    g = tf.GradientTape(persistent=True)
    return g.gradient(x, x)


@case(match_message=True)
def case_gradient_target_none_raises(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
    return g.gradient(None, x)


def case_gradient_target_python_float_raises(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
    return g.gradient(3.0, x)


def case_gradient_target_list_with_none_raises(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient([y, None], x)


def case_gradient_source_python_float_raises(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, 3.0)


def case_gradient_source_none_leaf_raises(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, [x, None])


def case_persistent_tape_many_gradients(tf):
    # testPersistentTape
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    return g.gradient(z, x), g.gradient(y, x), g.gradient(z, x)


def case_gradient_inside_block_nonpersistent(tf):
    # testGradientWithinTapeBlock: the tape is popped, later ops are not recorded,
    # and __exit__ is silent.
    v1 = tf.Variable(1.0)
    with tf.GradientTape() as g:
        loss = 2.0 * v1
        first = g.gradient(loss, v1)
        later = v1 * 5.0
    return first, later, catch(g.gradient, later, v1)


@case(match_warnings=True)
def case_gradient_inside_block_persistent_warns(tf):
    v1 = tf.Variable(1.0)
    with tf.GradientTape(persistent=True) as g:
        loss = 2.0 * v1
        first = g.gradient(loss, v1)
    return first, g.gradient(loss, v1)


# ----------------------------------------------------------------- op conventions (§9)


def case_relu_abs_at_zero(tf):
    x = tf.constant([0.0, -1.0, 2.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        r = tf.nn.relu(x)
        a = tf.abs(x)
    return g.gradient(r, x), g.gradient(a, x)


def case_sqrt_at_zero_is_inf(tf):
    x = tf.constant([0.0, 4.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.sqrt(x)
    return g.gradient(y, x)


def case_where_sqrt_at_zero_has_no_nan(tf):
    x = tf.constant(0.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.where(x > 0.0, tf.sqrt(x), 0.0)
    return g.gradient(y, x)


def case_where_gradient_selects_branch(tf):
    # testWhereGradient
    out = []
    for value in (5.0, 50.0):
        x = tf.constant(value)
        with tf.GradientTape() as g:
            g.watch(x)
            y = tf.where(x < 10.0, x, x * x)
        out.append(g.gradient(y, x))
    return out


def case_where_vector_both_branches(tf):
    x = tf.constant([-2.0, -1.0, 1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.where(x > 0.0, x * x, -3.0 * x)
    return g.gradient(y, x)


def case_reduce_max_ties_share(tf):
    x = tf.constant([2.0, 2.0, 1.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_max(x)
    return g.gradient(y, x)


def case_reduce_max_matrix_one_hot(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_max(x)
    return g.gradient(y, x)


def case_reduce_min_axis_ties(tf):
    x = tf.constant([[1.0, 1.0, 3.0], [5.0, 4.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_min(x, axis=1)
    return g.gradient(y, x)


def case_square_and_pow_at_zero(tf):
    x = tf.constant(0.0)
    e = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, e])
        a = x**2
        b = tf.pow(x, e)
        c = tf.square(x)
    return g.gradient(a, x), g.gradient(b, [x, e]), g.gradient(c, x)


def case_pow_negative_base_exponent_gradient(tf):
    x = tf.constant(-2.0)
    e = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch([x, e])
        y = tf.pow(x, e)
    return g.gradient(y, [x, e])


def case_sign_gives_zeros(tf):
    x = tf.constant([-2.0, 0.0, 3.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.math.sign(x)
    return g.gradient(y, x)


def case_round_is_unconnected(tf):
    x = tf.constant([1.4, 2.6])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.math.round(x)
    return g.gradient(y, x)


def case_round_zero_unconnected(tf):
    x = tf.constant([1.4, 2.6])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.math.round(x) * 2.0
    return g.gradient(y, x, unconnected_gradients="zero")


def case_argmax_is_unconnected(tf):
    x = tf.constant([1.0, 3.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        idx = tf.argmax(x)
        y = tf.cast(idx, tf.float32) * 2.0
    return g.gradient(y, x)


def case_argmax_gather_connects_selected(tf):
    x = tf.constant([1.0, 3.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.gather(x, tf.argmax(x)) * 2.0
    return tf.convert_to_tensor(g.gradient(y, x))


def case_multiply_by_zero_is_connected(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * 0.0
    return g.gradient(y, x)


def case_reduce_prod_with_zero(tf):
    x = tf.constant([2.0, 0.0, 3.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_prod(x)
    return g.gradient(y, x)


def case_log_divide_at_edges(tf):
    x = tf.constant([0.0, 2.0])
    d = tf.constant([4.0, 0.5])
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, d])
        lg = tf.math.log(x)
        q = x / d
    return g.gradient(lg, x), g.gradient(q, [x, d])


def case_elementwise_unary_ops(tf):
    x = tf.constant([-1.5, -0.25, 0.5, 2.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        outs = {
            "exp": tf.exp(x),
            "sin": tf.sin(x),
            "cos": tf.cos(x),
            "tanh": tf.tanh(x),
            "sigmoid": tf.math.sigmoid(x),
            "sigmoid_alias": tf.sigmoid(x),
            "square": tf.square(x),
            "abs": tf.abs(x),
        }
    return {k: g.gradient(v, x) for k, v in outs.items()}


def case_reductions_with_axes(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        outs = [
            tf.reduce_sum(x, axis=0),
            tf.reduce_mean(x, axis=1, keepdims=True),
            tf.reduce_prod(x, axis=[0, 1]),
            tf.reduce_max(x, axis=-1),
            tf.reduce_mean(x),
        ]
    return [g.gradient(o, x) for o in outs]


def case_matmul_gradients(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    b = tf.constant([[1.0, -1.0, 0.5], [2.0, 0.0, -2.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch([a, b])
        c = tf.matmul(a, b)
        d = a @ b
        d2 = d * d
        e = tf.matmul(a, a, transpose_a=True)
    return g.gradient(c, [a, b]), g.gradient(d2, [a, b]), g.gradient(e, a)


def case_shape_ops_gradients(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = tf.constant([[7.0, 8.0, 9.0]])
    w = tf.reshape(tf.range(1.0, 25.0), [4, 6])
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, y])
        outs = {
            "reshape": tf.reshape(x, [3, 2]) * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
            "transpose": tf.transpose(x) * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
            "concat": tf.concat([x, y], axis=0) * tf.reshape(tf.range(9.0), [3, 3]),
            "stack": tf.stack([x, x * 2.0], axis=1) * tf.reshape(w, [2, 2, 6])[:, :, :3],
            "tile": tf.tile(y, [2, 2]) * tf.reshape(tf.range(12.0), [2, 6]),
            "slice": x[1:, ::2] * 3.0 + x[0, -1],
        }
    return {k: g.gradient(v, [x, y]) for k, v in outs.items()}


def case_softmax_gradient(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    weights = tf.constant([[1.0, 0.0, -1.0], [2.0, 3.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_sum(tf.nn.softmax(x) * weights)
    return g.gradient(y, x)


def case_sparse_softmax_cross_entropy_gradient(tf):
    logits = tf.constant([[0.0, 0.0], [1.0, 3.0]])
    with tf.GradientTape() as g:
        g.watch(logits)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0], logits=logits)
    return loss, g.gradient(loss, logits)


def case_creation_ops_are_unconnected(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.zeros([2]) + tf.ones([2]) + tf.fill([2], 3.0) + tf.linspace(0.0, 1.0, 2)
    return g.gradient(y, x)


def case_fill_value_gradient(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.fill([2, 3], x) * tf.reshape(tf.range(6.0), [2, 3])
    return g.gradient(y, x)


def case_broadcast_gradient_reduced(tf):
    x = tf.constant([[1.0], [2.0]])
    b = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as g:
        g.watch([x, b])
        y = x * b + b
    return g.gradient(y, [x, b])


# ----------------------------------------------------------------- control flow


def case_python_if_records_taken_branch(tf):
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    out = []
    for value in (1.0, -1.0):
        x = tf.constant(value)
        with tf.GradientTape(persistent=True) as g:
            g.watch(x)
            result = v0 if x > 0.0 else v1**2
        out.append((g.gradient(result, [v0, v1]), g.gradient(result, x)))
    return out


def case_python_while_loop(tf):
    # eager while: multiply three times
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x
        i = 0
        while i < 3:
            y = y * x
            i += 1
    return y, g.gradient(y, x)


def case_loop_over_tensor_values(tf):
    x = tf.constant([1.0, -2.0, 3.0])
    with tf.GradientTape() as g:
        g.watch(x)
        total = tf.constant(0.0)
        for i in range(3):
            if x[i] > 0.0:
                total = total + x[i] * x[i]
            else:
                total = total - x[i]
    return g.gradient(total, x)


# ----------------------------------------------------------------- stop_gradient (§3)


def case_stop_gradient_blocks_path(tf):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as g:
        z = x**2 + tf.stop_gradient(y**2)
    return g.gradient(z, {"x": x, "y": y})


def case_stop_gradient_zero_unconnected(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.stop_gradient(x * x) * 3.0
    return g.gradient(y, x, unconnected_gradients="zero")


def case_stop_gradient_stops_all_tapes(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.stop_gradient(x) * x
        dy = inner.gradient(y, x)
    return dy, outer.gradient(dy, x)


def case_stop_gradient_of_variable_is_tensor(tf):
    v = tf.Variable([1.0, 2.0])
    s = tf.stop_gradient(v)
    return s, isinstance(s, tf.Variable)


def case_stop_gradient_of_python_list(tf):
    return tf.stop_gradient([1.0, 2.0])


def case_stop_gradient_stable_softmax(tf):
    x = tf.constant([1.0, 2.0, 5.0])
    w = tf.constant([1.0, -1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        z = x - tf.stop_gradient(tf.reduce_max(x))
        p = tf.exp(z) / tf.reduce_sum(tf.exp(z))
        y = tf.reduce_sum(p * w)
    return p, g.gradient(y, x)


test_matches_tensorflow = harness.compat_test(globals())
