"""TF-semantics op definitions: pure JAX functions behind ``dispatch.Op``."""
