"""``tapejax.summary``'s implementation: event files that TensorBoard reads (``tf.summary``)."""
