"""Side-by-side benchmarks of tapejax against TensorFlow, JAX and PyTorch.

Run with ``python -m benchmarks``; see ``benchmarks/README.md``. Not part of the
installed package.
"""
