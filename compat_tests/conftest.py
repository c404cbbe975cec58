"""pytest setup for the differential suite.

TF reads its C++ log level and oneDNN switch when it is first imported, so they are
set here, before any test module can import it.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
# Keras picks its backend once, on first import, and `import tensorflow` imports it;
# tapejax.keras needs Keras on JAX (the Keras compat cases run TF's side in a subprocess).
os.environ.setdefault("KERAS_BACKEND", "jax")
