"""tapejax.keras has what tf.keras (Keras 3's ``_tf_keras`` API) has, or says why not.

As in tests/test_keras.py, Keras comes up on JAX before TensorFlow is imported, so
``tensorflow.keras`` here is the same Keras on its JAX backend: its API listing is
TensorFlow's, and its ``ops``/``random`` compute with JAX, which gives the reference
numbers for the bridged functions. Gradients against TensorFlow's own backend are in
compat_tests/test_keras_namespace.py.
"""

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import types  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import tapejax as tf  # noqa: E402
from tapejax import keras  # noqa: E402
from tapejax._src.compat import NamespaceNotProvidedError  # noqa: E402

RNG = np.random.default_rng(0)


def _public(module):
    return sorted(n for n in dir(module) if not n.startswith("_"))


def _provided_or_explained(module, name):
    try:
        getattr(module, name)
    except NotImplementedError as e:
        assert isinstance(e, NamespaceNotProvidedError)
        assert "is not provided by tapejax: " in str(e)
        return "explained"
    except AttributeError:
        return "missing"
    return "provided"


def test_every_tf_keras_name_exists_or_raises_with_a_reason():
    tensorflow = pytest.importorskip("tensorflow")
    missing = []
    for name in _public(tensorflow.keras):
        if _provided_or_explained(keras, name) == "missing":
            missing.append(name)
        sub = getattr(tensorflow.keras, name)
        if isinstance(sub, types.ModuleType) and hasattr(keras, name):
            mine = getattr(keras, name)
            missing += [
                f"{name}.{n}" for n in _public(sub) if _provided_or_explained(mine, n) == "missing"
            ]
    assert not missing


def test_a_name_not_provided_says_why_and_hasattr_is_false():
    with pytest.raises(NotImplementedError, match=r"tf\.keras\.export is not provided.*SavedModel"):
        keras.export  # noqa: B018
    assert not hasattr(keras, "applications")
    with pytest.raises(NotImplementedError, match=r"tf\.keras\.models\.load_model"):
        keras.models.load_model  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        keras.no_such_name  # noqa: B018


def test_pure_python_parts_are_keras_own():
    import keras as real

    api = real._tf_keras.keras
    assert keras.datasets.mnist.load_data is api.datasets.mnist.load_data
    assert keras.config.floatx() == "float32"
    assert keras.tree.flatten({"a": [1, 2]}) == [1, 2]
    assert keras.version() == real.version()
    assert keras.DTypePolicy is api.DTypePolicy
    assert keras.preprocessing.sequence.pad_sequences is api.preprocessing.sequence.pad_sequences
    assert isinstance(keras.Input((3,)), keras.KerasTensor)


def test_base_classes_are_the_submodules():
    assert keras.Loss is keras.losses.Loss
    assert keras.Metric is keras.metrics.Metric
    assert keras.Optimizer is keras.optimizers.Optimizer
    assert keras.Initializer is keras.initializers.Initializer
    assert keras.Regularizer is keras.regularizers.Regularizer


def test_tf_keras_aliases_in_submodules():
    y_true = tf.constant([[0.0, 1.0], [1.0, 0.5]])
    y_pred = tf.Variable([[0.2, 0.7], [0.9, 0.1]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(keras.losses.mse(y_true, y_pred))
    grad = tape.gradient(loss, y_pred)
    expected = jax.grad(lambda p: jax.numpy.sum(jax.numpy.mean((y_true.numpy() - p) ** 2, -1)))(
        y_pred.numpy()
    )
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-6)
    assert keras.metrics.MAE.__name__ == "mean_absolute_error"


_X = RNG.standard_normal((2, 3)).astype(np.float32)
_W = RNG.standard_normal((3, 4)).astype(np.float32)
_IMG = RNG.standard_normal((1, 5, 5, 2)).astype(np.float32)
_K = RNG.standard_normal((3, 3, 2, 4)).astype(np.float32)

# (name, function of (ops, x, w, img, k) giving a scalar)
_OPS_CASES = [
    ("matmul", lambda o, x, w, i, k: o.sum(o.matmul(x, w) ** 2)),
    ("relu", lambda o, x, w, i, k: o.sum(o.relu(x) * w[:2, :3])),
    ("softmax", lambda o, x, w, i, k: o.sum(o.softmax(x, axis=-1) * w[:2, :3])),
    ("logsumexp", lambda o, x, w, i, k: o.sum(o.logsumexp(x, axis=1))),
    ("conv", lambda o, x, w, i, k: o.sum(o.conv(i, k, padding="same") ** 2)),
    ("where", lambda o, x, w, i, k: o.sum(o.where(x > 0, x * x, -x))),
    ("take", lambda o, x, w, i, k: o.sum(o.take(w, [0, 2, 2], axis=1))),
    ("einsum", lambda o, x, w, i, k: o.sum(o.einsum("ij,jk->ik", x, w) ** 2)),
    ("split", lambda o, x, w, i, k: o.sum(o.split(w, 2, axis=1)[1] * 3.0)),
    ("stack", lambda o, x, w, i, k: o.sum(o.stack([x, x * x]))),
    ("nn.gelu", lambda o, x, w, i, k: o.sum(o.nn.gelu(x))),
    ("linalg.norm", lambda o, x, w, i, k: o.linalg.norm(w)),
]


@pytest.mark.parametrize("name,fn", _OPS_CASES, ids=[c[0] for c in _OPS_CASES])
def test_ops_are_recorded_ops_with_keras_gradients(name, fn):
    import keras as real

    args = [tf.Variable(a) for a in (_X, _W, _IMG, _K)]
    with tf.GradientTape() as tape:
        out = fn(keras.ops, *args)
    assert type(out) is tf.Tensor
    grads = tape.gradient(out, args)
    ref_value, ref_grads = jax.value_and_grad(
        lambda *a: fn(real.ops, *a), argnums=(0, 1, 2, 3), allow_int=True
    )(_X, _W, _IMG, _K)
    np.testing.assert_allclose(out.numpy(), ref_value, rtol=1e-5, atol=1e-6)
    for g, r in zip(grads, ref_grads):
        if g is None:
            assert not np.any(r)
        else:
            np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-5)


def test_ops_structures_metadata_and_control_flow():
    x = tf.constant(_X)
    parts = keras.ops.split(x, 3, axis=1)
    assert isinstance(parts, list) and all(type(p) is tf.Tensor for p in parts)
    assert keras.ops.shape(x) == (2, 3)
    assert keras.ops.is_tensor(x) and keras.ops.ndim(x) == 2
    assert keras.ops.dtype(x) == "float32"
    assert type(keras.ops.ones((2, 2))) is tf.Tensor
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = keras.ops.fori_loop(0, 3, lambda i, v: v * 2.0 + tf.sin(v), x)
        c = keras.ops.cond(True, lambda: x * 3.0, lambda: x)
    grads = tape.gradient([y, c], x)

    def ref(a):
        v = a
        for _ in range(3):
            v = v * 2.0 + jax.numpy.sin(v)
        return jax.numpy.sum(v) + jax.numpy.sum(a * 3.0)

    np.testing.assert_allclose(grads.numpy(), jax.grad(ref)(_X), rtol=1e-5)


def test_ops_custom_gradient():
    @keras.ops.custom_gradient
    def double(a):
        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            return upstream * 10.0

        return a * 2.0, grad

    x = tf.constant(_X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = double(x)
    np.testing.assert_allclose(y.numpy(), _X * 2.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.full_like(_X, 10.0))


def test_random_draws_are_keras_and_seed_generators_advance():
    import keras as real

    np.testing.assert_array_equal(
        keras.random.normal((3,), seed=5).numpy(), np.asarray(real.random.normal((3,), seed=5))
    )
    mine, theirs = keras.random.SeedGenerator(1), real.random.SeedGenerator(1)
    a = [keras.random.uniform((2,), seed=mine).numpy() for _ in range(2)]
    b = [np.asarray(real.random.uniform((2,), seed=theirs)) for _ in range(2)]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a[0], a[1])
    x = tf.constant(np.ones(6, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        d = keras.random.dropout(x, 0.5, seed=3)
    np.testing.assert_array_equal(d.numpy(), tape.gradient(d, x).numpy())


def test_random_with_a_seed_generator_inside_a_function_raises():
    gen = keras.random.SeedGenerator(2)

    @tf.function
    def draw():
        return keras.random.normal((2,), seed=gen)

    with pytest.raises(NotImplementedError, match="needs an int seed"):
        draw()

    @tf.function
    def fixed():
        return keras.random.normal((2,), seed=7)

    np.testing.assert_array_equal(fixed().numpy(), keras.random.normal((2,), seed=7).numpy())


def test_backend_is_keras_3s_and_keras_2_functions_say_why_not():
    assert keras.backend.floatx() == "float32"
    with pytest.raises(NotImplementedError, match="keras.backend.mean .*tapejax.keras.ops"):
        keras.backend.mean  # noqa: B018


def test_random_with_seed_none_inside_a_function_raises():
    @tf.function
    def draw():
        return keras.random.uniform((2,), seed=None)

    with pytest.raises(NotImplementedError, match="needs an int seed"):
        draw()


def test_metrics_metric_is_keras_own_and_loss_scale_optimizer_is_bridged():
    import keras as real

    assert keras.metrics.Metric is real.metrics.Metric
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=4.0)
    assert isinstance(opt.keras_optimizer, real.optimizers.LossScaleOptimizer)
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        scaled = opt.scale_loss(tf.reduce_sum(v * v))
    opt.apply_gradients(zip(tape.gradient(scaled, [v]), [v]))
    np.testing.assert_allclose(scaled.numpy(), 20.0)
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])


def test_loss_scale_optimizer_on_other_variables_than_it_was_built_on_raises():
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=1.0)
    a, b = tf.Variable([1.0]), tf.Variable([2.0])
    opt.apply_gradients([(tf.constant([1.0]), a), (tf.constant([1.0]), b)])
    opt.apply_gradients([(tf.constant([1.0]), b), (tf.constant([1.0]), a)])  # reordered
    np.testing.assert_allclose([a.numpy()[0], b.numpy()[0]], [0.0, 1.0])
    with pytest.raises(NotImplementedError, match="variables it was built on"):
        opt.apply_gradients([(tf.constant([1.0]), a)])
