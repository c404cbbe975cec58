"""Optional framework imports for the benchmarks.

Each loader returns the module or raises `Skip` with the reason, so a framework
that is missing (or, for tapejax, still incomplete) skips its contenders instead
of stopping the run. Nothing here is ever a tapejax dependency.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

from benchmarks.harness import Skip

# Quiet TensorFlow's C++ start-up logs unless the user asked for them.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# PyTorch's OpenMP threads spin while waiting by default; when anything else
# runs on a small shared machine, that turns into stalls of up to hundreds of
# milliseconds per step (measured: medium MLP step median 5 ms -> 22-75 ms).
# Passive waiting removes the stalls; OMP_WAIT_POLICY=ACTIVE restores the default.
# Read by libgomp when torch loads, so it must be set before the import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_cache: dict[str, ModuleType | Skip] = {}

# What a module must have before its contenders are worth running.
_REQUIRED = {"tapejax": ("GradientTape", "Variable")}


def _load(name: str) -> ModuleType:
    if name not in _cache:
        try:
            module = importlib.import_module(name)
            missing = [a for a in _REQUIRED.get(name, ()) if not hasattr(module, a)]
            if missing:
                raise Skip(f"{name} has no {', '.join(missing)} yet")
            _cache[name] = module
        except Skip as exc:
            _cache[name] = exc
        except ImportError as exc:
            _cache[name] = Skip(f"{name} is not importable ({type(exc).__name__}: {exc})")
        except Exception as exc:  # a package mid-development may fail on import
            _cache[name] = Skip(f"importing {name} failed ({type(exc).__name__}: {exc})")
    got = _cache[name]
    if isinstance(got, Skip):
        raise got
    return got


def tensorflow() -> Any:
    return _load("tensorflow")


def torch() -> Any:
    return _load("torch")


def tapejax() -> Any:
    return _load("tapejax")


def jax() -> Any:
    return _load("jax")


def torch_device() -> str:
    """Where the PyTorch contenders run: "cuda" when JAX's default device is a GPU and
    PyTorch sees one too (so that both sides of a comparison use the same chip), else
    "cpu"."""
    torch_ = torch()
    try:
        on_gpu = jax().default_backend() == "gpu"
    except Skip:
        on_gpu = False
    return "cuda" if on_gpu and torch_.cuda.is_available() else "cpu"


def versions() -> dict[str, str]:
    """Version of each framework, or why it is unavailable; imports them."""
    out = {}
    for name in ("jax", "tensorflow", "torch", "tapejax"):
        try:
            module = _load(name)
            out[name] = str(getattr(module, "__version__", "?"))
        except Skip as exc:
            out[name] = f"unavailable: {exc}"
    return out
