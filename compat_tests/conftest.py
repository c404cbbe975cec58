"""pytest setup for the differential suite.

TF reads its C++ log level and oneDNN switch when it is first imported, so they are
set here, before any test module can import it.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
