"""Data and tensor parallelism on ``jax.sharding``: see ``strategy.py``."""
