"""``tf.linalg.LinearOperator`` and its family: matrices known by their structure.

Each module ports one of TF's ``tensorflow/python/ops/linalg/linear_operator_*.py`` with
tapejax's public ops in place of TF's, so every method is a sequence of recorded ops:
``GradientTape`` differentiates through them with respect to the Tensors and Variables an
operator holds, and inside ``tapejax.function`` they run on traced Tensors. The public
names are re-exported by ``tapejax.linalg``.

Nothing here may compute a value outside an op (no NumPy on tensor values, no host
round-trips), except the static checks TF also makes on Python or constant arguments.
"""
