"""The README demo: a small convolutional classifier on 8x8 digits, trained with a custom
GradientTape loop.

TF code, run by tapejax: the layers, the loss, the optimizer and the progress bar are
Keras's own (Keras 3 on its JAX backend); the tape, the Variables and the compiled step
are tapejax's. The data is scikit-learn's 8x8 digits set when scikit-learn is
installed (it ships inside the package, nothing is downloaded), else generated digits:
ten fixed 8x8 patterns with noise.

    pip install -e ".[keras,digits]" && python -m tapejax.demo
"""

from __future__ import annotations

import numpy as np

import tapejax as tf
from tapejax import keras


def load_digits(seed=0):
    """(images (n, 8, 8, 1) in [0, 1], labels (n,), a description of the source)."""
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError:
        rng = np.random.default_rng(seed)
        patterns = rng.random((10, 8, 8)) > 0.6
        labels = rng.integers(0, 10, 1800)
        images = patterns[labels] * 0.8 + rng.normal(0.0, 0.35, (1800, 8, 8))
        return images[..., None].astype(np.float32), labels.astype(np.int32), "generated digits"
    digits = sklearn_digits()
    images = (digits.images / 16.0)[..., None].astype(np.float32)
    return images, digits.target.astype(np.int32), "scikit-learn's 8x8 digits"


def main(epochs=15, batch_size=64, seed=0):
    images, labels, source = load_digits(seed)
    order = np.random.default_rng(seed).permutation(len(labels))
    images, labels = images[order], labels[order]
    split = int(0.8 * len(labels))
    x_train, y_train = images[:split], labels[:split]
    x_test, y_test = images[split:], labels[split:]
    print(f"{source}: {len(y_train)} training and {len(y_test)} test images")

    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
            keras.layers.MaxPooling2D(2),
            keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dropout(0.2),
            keras.layers.Dense(10),
        ]
    )
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = keras.optimizers.Adam(0.01)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    steps = len(y_train) // batch_size
    for epoch in range(epochs):
        print(f"Epoch {epoch + 1}/{epochs}")
        bar = keras.utils.Progbar(steps)
        shuffle = np.random.default_rng(seed + epoch).permutation(len(y_train))
        for step in range(steps):
            index = shuffle[step * batch_size : (step + 1) * batch_size]
            loss = train_step(tf.constant(x_train[index]), tf.constant(y_train[index]))
            bar.update(step + 1, [("loss", float(loss))])

    predictions = tf.argmax(model(tf.constant(x_test)), axis=-1, output_type=tf.int32)
    accuracy = float(tf.reduce_mean(tf.cast(tf.equal(predictions, y_test), tf.float32)))
    print(f"test accuracy: {accuracy:.3f}")
    return accuracy


if __name__ == "__main__":
    main()
