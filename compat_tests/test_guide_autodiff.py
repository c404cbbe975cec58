"""Every example of TF's guide "Introduction to gradients and automatic differentiation".

(tensorflow/docs site/en/guide/autodiff.ipynb, in order.) Random initial values are
replaced by fixed ones, Keras layers by raw Variables, and ops outside the core set
by equivalent ones (``softplus`` as ``log(1 + exp)``); what each example
demonstrates is kept. ``tf.image.adjust_contrast`` (no gradient registered) is left
out: tapejax has no image ops.
"""

import numpy as np

from compat_tests import harness
from compat_tests.harness import case

_W = np.array([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]], dtype=np.float32)


def case_guide_variable_square(tf):
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x**2
    dy_dx = tape.gradient(y, x)
    return y, dy_dx, dy_dx.numpy()


def case_guide_any_tensor_list_matmul(tf):
    # `x` is a Python list: `x @ w` goes through Variable.__rmatmul__.
    w = tf.Variable(_W, name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    return [dl_dw, dl_db], list(w.shape), list(dl_dw.shape)


def case_guide_dict_of_variables(tf):
    w = tf.Variable(_W, name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    tape.gradient(loss, [w, b])
    my_vars = {"w": w, "b": b}
    grad = tape.gradient(loss, my_vars)
    return grad, grad["b"]


def case_guide_model_raw_variables(tf):
    # The guide's Dense(2, activation='relu') with its variables written out.
    kernel = tf.Variable(_W, name="kernel")
    bias = tf.Variable(tf.constant([0.1, -3.0]), name="bias")
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as tape:
        y = tf.nn.relu(tf.matmul(x, kernel) + bias)
        loss = tf.reduce_mean(y**2)
    grad = tape.gradient(loss, [kernel, bias])
    return grad, [list(g.shape) for g in grad]


@case(requires=("Module",))
def case_guide_model_module_trainable_variables(tf):
    class Dense(tf.Module):
        def __init__(self):
            super().__init__()
            self.kernel = tf.Variable(_W, name="kernel")
            self.bias = tf.Variable(tf.constant([0.1, -3.0]), name="bias")
            self.frozen = tf.Variable(1.0, trainable=False, name="frozen")

        def __call__(self, x):
            return tf.nn.relu(tf.matmul(x, self.kernel) + self.bias) * self.frozen

    layer = Dense()
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_mean(y**2)
    grad = tape.gradient(loss, layer.trainable_variables)
    return grad, [v.name for v in layer.trainable_variables], len(layer.variables)


def case_guide_what_is_watched(tf):
    x0 = tf.Variable(3.0, name="x0")
    x1 = tf.Variable(3.0, name="x1", trainable=False)
    x2 = tf.Variable(2.0, name="x2") + 1.0
    x3 = tf.constant(3.0, name="x3")
    with tf.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    grad = tape.gradient(y, [x0, x1, x2, x3])
    return grad, [var.name for var in tape.watched_variables()]


def case_guide_watch_tensor(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    dy_dx = tape.gradient(y, x)
    return dy_dx.numpy()


def case_guide_watch_accessed_variables_false(tf):
    x0 = tf.Variable(0.0)
    x1 = tf.Variable(10.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.math.log(1.0 + tf.exp(x1))  # tf.nn.softplus
        y = y0 + y1
        ys = tf.reduce_sum(y)
    grad = tape.gradient(ys, {"x0": x0, "x1": x1})
    return grad["x0"], grad["x1"].numpy()


def case_guide_intermediate_results(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    return tape.gradient(z, y).numpy()


def case_guide_persistent_tape(tf):
    x = tf.constant([1, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    out = (tape.gradient(z, x).numpy(), tape.gradient(y, x).numpy())
    del tape
    return out


def case_guide_two_targets_persistent(tf):
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y0 = x**2
        y1 = 1 / x
    return tape.gradient(y0, x).numpy(), tape.gradient(y1, x).numpy()


def case_guide_dict_of_targets_summed(tf):
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y0 = x**2
        y1 = 1 / x
    return tape.gradient({"y0": y0, "y1": y1}, x).numpy()


def case_guide_nonscalar_target(tf):
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * [3.0, 4.0]
    return tape.gradient(y, x).numpy()


def case_guide_sigmoid_elementwise(tf):
    x = tf.linspace(-10.0, 10.0, 200 + 1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.sigmoid(x)  # the guide spells it tf.nn.sigmoid
    dy_dx = tape.gradient(y, x)
    return x, y, dy_dx


def case_guide_control_flow(tf):
    x = tf.constant(1.0)
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    dx = tape.gradient(result, x)
    return dv0, dv1, dx


def case_guide_unconnected_is_none(tf):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y * y
    return tape.gradient(z, x)


def case_guide_replaced_variable_with_tensor(tf):
    x = tf.Variable(2.0)
    out = []
    for _epoch in range(2):
        with tf.GradientTape() as tape:
            y = x + 1
        # The guide prints type(x).__name__; the class names differ between
        # frameworks, "is it a Variable" is the point.
        out.append((isinstance(x, tf.Variable), tape.gradient(y, x)))
        x = x + 1  # This should be `x.assign_add(1)`
    return out


def case_guide_numpy_round_trip(tf):
    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    with tf.GradientTape() as tape:
        x2 = x**2
        # This step is calculated with NumPy
        y = np.mean(x2, axis=0)
        # Like most ops, reduce_mean will cast the NumPy array to a constant tensor
        y = tf.reduce_mean(y, axis=0)
    return y, tape.gradient(y, x)


@case(match_warnings=True)
def case_guide_integer_gradient(tf):
    x = tf.constant(10)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    return y, g.gradient(y, x)


def case_guide_stateful_assign_add(tf):
    x0 = tf.Variable(3.0)
    x1 = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        # Update x1 = x1 + x0.
        x1.assign_add(x0)
        # The tape starts recording from x1.
        y = x1**2  # y = (x1 + x0)**2
    # This doesn't work.
    return y, tape.gradient(y, x0)


def case_guide_zeros_instead_of_none(tf):
    x = tf.Variable([2.0, 2.0])
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y**2
    return tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)


test_matches_tensorflow = harness.compat_test(globals())
