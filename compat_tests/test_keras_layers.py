"""Keras layers from tapejax.keras against TensorFlow's Keras, with the same weights.

Each case builds a layer, sets its weights from a fixed NumPy generator (so both
frameworks start from the same values), calls it under a ``GradientTape`` and returns
the outputs, the gradients for the inputs and for every trainable variable, and the
non-trainable state after the call. TensorFlow's side runs in a subprocess (see
``test_keras_harness``).
"""

from __future__ import annotations

import numpy as np

from compat_tests import harness
from compat_tests.test_keras_harness import keras_case


def _data(*shape, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _set_weights(layer, seed=1, scale=0.3):
    rng = np.random.default_rng(seed)
    weights = []
    for w in layer.get_weights():
        if w.dtype.kind == "f":
            weights.append((rng.standard_normal(w.shape) * scale).astype(w.dtype))
        else:
            weights.append(w)
    layer.set_weights(weights)


def _positive_variances(layer):
    """BatchNormalization's moving variance must stay positive: use |w| + 0.5 for it."""
    weights = layer.get_weights()
    weights[-1] = np.abs(weights[-1]) + 0.5
    layer.set_weights(weights)


def _run(tf, layer, inputs, differentiable=True, **call_kwargs):
    """The layer's outputs, input and weight gradients of sum(outputs * w), and state."""
    xs = [tf.constant(x) for x in inputs]
    with tf.GradientTape() as tape:
        for x in xs:
            if differentiable:
                tape.watch(x)
        y = layer(*xs, **call_kwargs)
        flat = y if isinstance(y, (list, tuple)) else [y]
        loss = 0.0
        for i, out in enumerate(flat):
            w = tf.constant(_data(*out.shape, seed=10 + i))
            loss = loss + tf.reduce_sum(out * w)
    sources = (xs if differentiable else []) + list(layer.trainable_variables)
    grads = tape.gradient(loss, sources)
    return {
        "y": list(flat),
        "grads": list(grads),
        "state": [v.numpy() for v in layer.non_trainable_weights],
        "n_trainable": len(layer.trainable_variables),
        "n_non_trainable": len(layer.non_trainable_weights),
    }


def _built(layer, shape):
    layer.build(shape)
    _set_weights(layer)
    return layer


def _sweep(tf, specs):
    """Each layer built on its inputs, given fixed weights, then run by ``_run``.

    A spec is ``(make, input shapes)``, or ``(make, input shapes, "list")`` for layers
    that take their inputs as one list (Keras's attention layers).
    """
    results = []
    for make, shapes, *how in specs:
        layer = make(tf.keras.layers)
        inputs = [_data(*shape, seed=20 + i) for i, shape in enumerate(shapes)]
        called = _Listed(layer) if how == ["list"] else layer
        called(*[tf.constant(x) for x in inputs])  # builds it
        _set_weights(layer)
        results.append(_run(tf, called, inputs))
    return results


class _Listed:
    """Calls a layer on its positional inputs as one list."""

    def __init__(self, layer):
        self.layer = layer

    @property
    def trainable_variables(self):
        return self.layer.trainable_variables

    @property
    def non_trainable_weights(self):
        return self.layer.non_trainable_weights

    def __call__(self, *xs, **kwargs):
        return self.layer(list(xs), **kwargs)


@keras_case(rtol=1e-4, atol=1e-5)
def case_sweep_convolutions_and_pooling(tf):
    return _sweep(
        tf,
        [
            (lambda L: L.Conv1DTranspose(2, 3, strides=2), [(2, 5, 3)]),
            (lambda L: L.Conv3DTranspose(2, 2, padding="same"), [(1, 3, 3, 3, 2)]),
            (lambda L: L.DepthwiseConv1D(2), [(2, 6, 3)]),
            (lambda L: L.SeparableConv1D(2, 3, padding="same"), [(2, 6, 3)]),
            (lambda L: L.AveragePooling1D(2), [(2, 6, 3)]),
            (lambda L: L.MaxPooling3D(2), [(1, 4, 4, 4, 2)]),
            (lambda L: L.AveragePooling3D(2), [(1, 4, 4, 4, 2)]),
            (lambda L: L.GlobalAveragePooling1D(), [(2, 6, 3)]),
            (lambda L: L.GlobalMaxPooling3D(), [(1, 3, 3, 3, 2)]),
            (lambda L: L.Cropping2D(((1, 0), (0, 1))), [(1, 4, 4, 2)]),
            (lambda L: L.Cropping3D(1), [(1, 4, 4, 4, 1)]),
            (lambda L: L.UpSampling1D(2), [(2, 3, 2)]),
            (lambda L: L.UpSampling3D(2), [(1, 2, 2, 2, 1)]),
            (lambda L: L.ZeroPadding1D(2), [(2, 3, 2)]),
            (lambda L: L.ZeroPadding3D(1), [(1, 2, 2, 2, 1)]),
            (lambda L: L.ConvLSTM2D(2, 3, padding="same"), [(1, 3, 5, 5, 2)]),
        ],
    )


@keras_case(rtol=1e-4, atol=1e-5)
def case_sweep_other_layers(tf):
    return _sweep(
        tf,
        [
            (lambda L: L.ELU(alpha=0.5), [(2, 4)]),
            (lambda L: L.PReLU(), [(2, 4)]),
            (lambda L: L.ActivityRegularization(l1=0.1), [(2, 4)]),
            (lambda L: L.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c"), [(2, 4)]),
            (lambda L: L.TimeDistributed(L.Dense(3)), [(2, 5, 4)]),
            (lambda L: L.RNN(L.SimpleRNNCell(3)), [(2, 5, 4)]),
            (lambda L: L.RNN([L.GRUCell(3), L.LSTMCell(2)]), [(2, 5, 4)]),
            (lambda L: L.Attention(), [(2, 3, 4), (2, 5, 4)], "list"),
            (lambda L: L.AdditiveAttention(), [(2, 3, 4), (2, 5, 4)], "list"),
            (lambda L: L.GroupQueryAttention(4, 2, 1), [(2, 3, 4), (2, 5, 4)]),
            (lambda L: L.RMSNormalization(), [(2, 4)]),
            (lambda L: L.Rescaling(0.5, offset=1.0), [(2, 4)]),
            (lambda L: L.Identity(), [(2, 4)]),
            (lambda L: L.GaussianNoise(0.3), [(2, 4)]),
            (lambda L: L.GaussianDropout(0.3), [(2, 4)]),
            (lambda L: L.AlphaDropout(0.3), [(2, 4)]),
            (lambda L: L.SpatialDropout2D(0.3), [(1, 3, 3, 2)]),
        ],
    )


@keras_case()
def case_sweep_merging_layers(tf):
    L = tf.keras.layers
    a, b, c = _data(2, 3), _data(2, 3, seed=5), _data(2, 3, seed=6)
    return [
        _run(tf, _Pair(L.Subtract()), [a, b]),
        _run(tf, _Pair(L.Average()), [a, b]),
        _run(tf, _Pair(L.Maximum()), [a, c]),
        _run(tf, _Pair(L.Minimum()), [a, c]),
        _run(tf, _Pair(L.Dot(axes=1)), [a, b]),
        _run(tf, _Pair(L.Dot(axes=1, normalize=True)), [a, b]),
    ]


@keras_case(rtol=1e-5, atol=1e-5)
def case_dense(tf):
    layer = _built(tf.keras.layers.Dense(3, activation="tanh"), (None, 4))
    return _run(tf, layer, [_data(2, 4)])


@keras_case(rtol=1e-5, atol=1e-5)
def case_dense_rank3_no_bias(tf):
    layer = _built(tf.keras.layers.Dense(5, use_bias=False), (None, 3, 4))
    return _run(tf, layer, [_data(2, 3, 4)])


@keras_case(rtol=1e-4, atol=1e-5)
def case_conv2d_same_strided(tf):
    layer = _built(
        tf.keras.layers.Conv2D(4, 3, strides=2, padding="same", activation="relu"), (None, 7, 7, 2)
    )
    return _run(tf, layer, [_data(2, 7, 7, 2)])


@keras_case(rtol=1e-4, atol=1e-5)
def case_conv1d_dilated(tf):
    layer = _built(tf.keras.layers.Conv1D(3, 2, dilation_rate=2), (None, 9, 2))
    return _run(tf, layer, [_data(2, 9, 2)])


@keras_case(rtol=1e-4, atol=1e-5)
def case_conv2d_transpose(tf):
    layer = _built(
        tf.keras.layers.Conv2DTranspose(3, 3, strides=2, padding="same"), (None, 4, 4, 2)
    )
    return _run(tf, layer, [_data(2, 4, 4, 2)])


@keras_case(rtol=1e-4, atol=1e-5)
def case_conv3d(tf):
    layer = _built(tf.keras.layers.Conv3D(2, 2), (None, 4, 4, 4, 1))
    return _run(tf, layer, [_data(1, 4, 4, 4, 1)])


@keras_case(rtol=1e-4, atol=1e-5)
def case_depthwise_and_separable_conv2d(tf):
    dw = _built(tf.keras.layers.DepthwiseConv2D(3, padding="same"), (None, 5, 5, 2))
    sep = _built(tf.keras.layers.SeparableConv2D(3, 3), (None, 5, 5, 2))
    return [_run(tf, dw, [_data(1, 5, 5, 2)]), _run(tf, sep, [_data(1, 5, 5, 2)])]


@keras_case()
def case_pooling(tf):
    L = tf.keras.layers
    x = _data(2, 6, 6, 3)
    return [
        _run(tf, L.MaxPooling2D(2), [x]),
        _run(tf, L.AveragePooling2D(3, strides=2, padding="same"), [x]),
        _run(tf, L.GlobalAveragePooling2D(), [x]),
        _run(tf, L.GlobalMaxPooling2D(), [x]),
        _run(tf, L.MaxPooling1D(2), [_data(2, 6, 3)]),
    ]


@keras_case()
def case_reshaping_layers(tf):
    L = tf.keras.layers
    x = _data(2, 3, 4)
    return [
        _run(tf, L.Flatten(), [x]),
        _run(tf, L.Reshape((4, 3)), [x]),
        _run(tf, L.Permute((2, 1)), [x]),
        _run(tf, L.RepeatVector(2), [_data(2, 3)]),
        _run(tf, L.ZeroPadding2D(1), [_data(1, 2, 2, 1)]),
        _run(tf, L.UpSampling2D(2), [_data(1, 2, 2, 1)]),
        _run(tf, L.Cropping1D(1), [x]),
    ]


@keras_case()
def case_merge_and_activation_layers(tf):
    L = tf.keras.layers
    a, b = _data(2, 3), _data(2, 3, seed=5)
    return [
        _run(tf, _Pair(L.Add()), [a, b]),
        _run(tf, _Pair(L.Concatenate(axis=-1)), [a, b]),
        _run(tf, _Pair(L.Multiply()), [a, b]),
        _run(tf, L.ReLU(max_value=0.5), [a]),
        _run(tf, L.LeakyReLU(negative_slope=0.2), [a]),
        _run(tf, L.Softmax(), [a]),
        _run(tf, L.Activation("gelu"), [a]),
    ]


class _Pair:
    """Calls a merge layer on its two positional inputs as a list (Keras's convention)."""

    def __init__(self, layer):
        self.layer = layer
        self.trainable_variables = []
        self.non_trainable_weights = []

    def __call__(self, a, b, **kwargs):
        return self.layer([a, b], **kwargs)


@keras_case()
def case_dropout_inference_is_identity(tf):
    x = _data(3, 5)
    return [
        _run(tf, tf.keras.layers.Dropout(0.5), [x]),
        _run(tf, tf.keras.layers.Dropout(0.5), [x], training=False),
        _run(tf, tf.keras.layers.SpatialDropout1D(0.5), [_data(2, 3, 4)], training=False),
    ]


@keras_case(rtol=1e-4, atol=1e-5)
def case_batch_normalization_training(tf):
    layer = _built(tf.keras.layers.BatchNormalization(momentum=0.9), (None, 3))
    _positive_variances(layer)
    first = _run(tf, layer, [_data(8, 3)], training=True)
    second = _run(tf, layer, [_data(8, 3, seed=3)], training=True)
    return [first, second]


@keras_case(rtol=1e-4, atol=1e-5)
def case_batch_normalization_inference(tf):
    layer = _built(tf.keras.layers.BatchNormalization(axis=1, center=False), (None, 2, 3))
    _positive_variances(layer)
    return [
        _run(tf, layer, [_data(4, 2, 3)]),
        _run(tf, layer, [_data(4, 2, 3)], training=False),
    ]


@keras_case(rtol=1e-4, atol=1e-5)
def case_layer_and_group_normalization(tf):
    L = tf.keras.layers
    return [
        _run(tf, _built(L.LayerNormalization(), (None, 3, 4)), [_data(2, 3, 4)]),
        _run(tf, _built(L.LayerNormalization(axis=[1, 2]), (None, 3, 4)), [_data(2, 3, 4)]),
        _run(tf, _built(L.GroupNormalization(groups=2), (None, 4)), [_data(3, 4)]),
        _run(tf, _built(L.UnitNormalization(), (None, 4)), [_data(3, 4)]),
    ]


@keras_case()
def case_embedding(tf):
    layer = _built(tf.keras.layers.Embedding(10, 3), (None, 4))
    ids = np.array([[1, 2, 2, 9], [0, 0, 5, 1]], np.int32)
    out = _run(tf, layer, [ids], differentiable=False)
    g = out["grads"][0]
    # TF gives IndexedSlices for the table; compare it densified.
    out["grads"] = [tf.convert_to_tensor(g)]
    return out


@keras_case(rtol=1e-4, atol=1e-5)
def case_simple_rnn_lstm_gru(tf):
    L = tf.keras.layers
    x = _data(2, 5, 3)
    return [
        _run(tf, _built(L.SimpleRNN(4), (None, 5, 3)), [x]),
        _run(tf, _built(L.LSTM(4, return_sequences=True), (None, 5, 3)), [x]),
        _run(tf, _built(L.GRU(4, return_state=True), (None, 5, 3)), [x]),
        _run(tf, _built(L.GRU(4, reset_after=False, go_backwards=True), (None, 5, 3)), [x]),
    ]


@keras_case(rtol=1e-4, atol=1e-5)
def case_masks_flow_between_layers(tf):
    """Embedding(mask_zero=True) masks the padded steps of the LSTM and of the pooling."""
    L = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((5,), dtype="int32"),
            L.Embedding(6, 3, mask_zero=True),
            L.LSTM(4, return_sequences=True),
            L.GlobalAveragePooling1D(),
        ]
    )
    _set_weights(model)
    ids = tf.constant(np.array([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]], np.int32))
    with tf.GradientTape() as tape:
        y = model(ids)
        loss = tf.reduce_sum(y * y)
    grads = tape.gradient(loss, model.trainable_variables)
    return {"y": y, "grads": [tf.convert_to_tensor(g) for g in grads]}


@keras_case(rtol=1e-4, atol=1e-5)
def case_bidirectional_lstm(tf):
    L = tf.keras.layers
    layer = _built(L.Bidirectional(L.LSTM(3)), (None, 4, 2))
    return _run(tf, layer, [_data(2, 4, 2)])


@keras_case(rtol=1e-4, atol=1e-5)
def case_multi_head_attention(tf):
    layer = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)
    q, v = _data(2, 4, 5), _data(2, 6, 5, seed=7)
    layer(tf.constant(q), tf.constant(v))  # builds it
    _set_weights(layer)
    return [
        _run(tf, layer, [q, v]),
        _run(tf, _Scores(layer), [q, v]),
    ]


class _Scores:
    """MultiHeadAttention returning its attention scores too."""

    def __init__(self, layer):
        self.layer = layer
        self.trainable_variables = layer.trainable_variables
        self.non_trainable_weights = []

    def __call__(self, q, v, **kwargs):
        return self.layer(q, v, return_attention_scores=True, **kwargs)


@keras_case(rtol=1e-5, atol=1e-6)
def case_regularizer_losses(tf):
    L = tf.keras.layers
    layer = _built(
        L.Dense(
            2,
            kernel_regularizer=tf.keras.regularizers.L2(0.1),
            activity_regularizer=tf.keras.regularizers.L1(0.01),
        ),
        (None, 3),
    )
    x = tf.constant(_data(4, 3))
    with tf.GradientTape() as tape:
        y = layer(x)
        total = tf.add_n(layer.losses)
    grads = tape.gradient(total, layer.trainable_variables)
    return {"y": y, "losses": list(layer.losses), "grads": grads}


@keras_case()
def case_variables_and_config(tf):
    L = tf.keras.layers
    layer = L.BatchNormalization()
    layer.build((None, 3))
    lstm = L.LSTM(2)
    lstm.build((None, 4, 3))
    cfg = L.Dense(3, activation="relu", name="d").get_config()
    return {
        "bn_trainable": [
            v.shape.as_list() if hasattr(v.shape, "as_list") else list(v.shape)
            for v in layer.trainable_variables
        ],
        "bn_non_trainable": len(layer.non_trainable_variables),
        "lstm_weights": [list(w.shape) for w in lstm.get_weights()],
        "count": lstm.count_params(),
        "dense_config": sorted(cfg),
        "units": cfg["units"],
        "activation": cfg["activation"],
    }


test_matches_tensorflow = harness.compat_test(globals())
