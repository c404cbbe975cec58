"""``tf.config``'s runtime switches: soft device placement, device policy, synchronous
execution, TensorFloat-32, the MLIR bridge, ``tf.config.optimizer`` and
``tf.config.threading``.

Every getter returns what its setter last set (TF's defaults before that). Most of these
steer parts of TF's runtime that XLA does not have, and have no effect here; each
docstring says so, and ``docs/compat.md`` ("``tapejax.config``") lists them. TensorFloat-32
is the one switch with an effect: it sets JAX's ``jax_default_matmul_precision``. This
module must never change JAX's configuration except on an explicit call.
"""

from __future__ import annotations

import jax

__all__ = [
    "get_soft_device_placement",
    "set_soft_device_placement",
    "get_device_policy",
    "set_device_policy",
    "get_synchronous_execution",
    "set_synchronous_execution",
    "enable_tensor_float_32_execution",
    "tensor_float_32_execution_enabled",
    "enable_mlir_bridge",
    "disable_mlir_bridge",
    "get_jit",
    "set_jit",
    "get_experimental_options",
    "set_experimental_options",
    "get_inter_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
    "get_intra_op_parallelism_threads",
    "set_intra_op_parallelism_threads",
]

_state = {
    "soft_device_placement": True,
    "device_policy": "silent",
    "synchronous": True,
    "jit": False,
    "inter_op": 0,
    "intra_op": 0,
    "mlir_bridge": True,
}
_optimizer_options = {"disable_model_pruning": False, "disable_meta_optimizer": False}
_POLICIES = ("silent", "silent_for_int32", "warn", "explicit")


def get_soft_device_placement() -> bool:
    """What ``set_soft_device_placement`` set; True before (``tf.config``'s)."""
    return _state["soft_device_placement"]


def set_soft_device_placement(enabled) -> None:
    """Records soft device placement (``tf.config.set_soft_device_placement``).

    No effect: TF falls back to the CPU for an op without a kernel on the requested
    device; XLA compiles every op for every device, so there is nothing to fall back from.
    """
    _state["soft_device_placement"] = bool(enabled)


def get_device_policy() -> str:
    """What ``set_device_policy`` set; ``"silent"`` before
    (``tf.config.experimental.get_device_policy``)."""
    return _state["device_policy"]


def set_device_policy(device_policy) -> None:
    """Records how inputs on another device are handled
    (``tf.config.experimental.set_device_policy``): None (TF's default, "silent"),
    "silent", "silent_for_int32", "warn" or "explicit".

    No effect: JAX copies uncommitted values to the computation's device and refuses
    values committed to different devices, whatever the policy.

    Raises:
        ValueError: another value (TF's text).
    """
    if device_policy is None:
        device_policy = "silent"
    if device_policy not in _POLICIES:
        raise ValueError(
            f"Invalid argument `device_policy`: {device_policy!r}. Please refer to "
            "https://www.tensorflow.org/api_docs/python/tf/config/experimental/"
            "set_device_policy for valid `device_policy` arguments."
        )
    _state["device_policy"] = device_policy


def get_synchronous_execution() -> bool:
    """What ``set_synchronous_execution`` set; True before
    (``tf.config.experimental.get_synchronous_execution``)."""
    return _state["synchronous"]


def set_synchronous_execution(enable) -> None:
    """Records synchronous execution (``tf.config.experimental.set_synchronous_execution``).

    No effect: JAX always dispatches asynchronously and waits when a value is read; the
    errors tapejax raises for bad inputs come at the call either way.
    """
    _state["synchronous"] = bool(enable)


def enable_tensor_float_32_execution(enabled) -> None:
    """Allows (or forbids) TensorFloat-32 in float32 matmuls and convolutions
    (``tf.config.experimental.enable_tensor_float_32_execution``), through JAX's
    ``jax_default_matmul_precision``: JAX's default when enabled, ``"highest"`` (full
    float32) when not. Only GPUs with TensorFloat-32 (Ampere and later) differ."""
    jax.config.update("jax_default_matmul_precision", None if enabled else "highest")


def tensor_float_32_execution_enabled() -> bool:
    """Whether float32 matmuls may use TensorFloat-32: JAX's
    ``jax_default_matmul_precision`` is not ``"highest"``/``"float32"``
    (``tf.config.experimental.tensor_float_32_execution_enabled``)."""
    precision = jax.config.jax_default_matmul_precision
    return str(precision).lower() not in ("highest", "float32")


def enable_mlir_bridge() -> None:
    """Accepted (``tf.config.experimental.enable_mlir_bridge``); no effect: there is no
    TF graph to bridge, JAX lowers to XLA through MLIR always."""
    _state["mlir_bridge"] = True


def disable_mlir_bridge() -> None:
    """Accepted (``tf.config.experimental.disable_mlir_bridge``); no effect, as
    ``enable_mlir_bridge``."""
    _state["mlir_bridge"] = False


def get_jit() -> str:
    """``"autoclustering"`` if ``set_jit`` turned it on, else ``""`` (``tf.config.optimizer.get_jit``)."""
    return "autoclustering" if _state["jit"] else ""


def set_jit(enabled) -> None:
    """Records XLA auto-clustering (``tf.config.optimizer.set_jit``): True or
    ``"autoclustering"`` turn it on, anything else off.

    No effect: every ``tapejax.function`` is compiled by XLA as a whole, whatever this says.
    """
    _state["jit"] = enabled in (True, "autoclustering")


def get_experimental_options() -> dict:
    """The Grappler options ``set_experimental_options`` set, over TF's defaults
    (``tf.config.optimizer.get_experimental_options``)."""
    return dict(_optimizer_options)


def set_experimental_options(options) -> None:
    """Records Grappler options (``tf.config.optimizer.set_experimental_options``).

    No effect: Grappler rewrites TF graphs; XLA runs its own optimization passes.
    """
    _optimizer_options.update(options)


def get_inter_op_parallelism_threads() -> int:
    """What ``set_inter_op_parallelism_threads`` set; 0 ("the system picks") before
    (``tf.config.threading``'s)."""
    return _state["inter_op"]


def set_inter_op_parallelism_threads(num_threads) -> None:
    """Records the number of threads for independent ops
    (``tf.config.threading.set_inter_op_parallelism_threads``).

    No effect: XLA's CPU thread pool is sized when JAX starts (``XLA_FLAGS``); there is
    no pool of independent ops to size.
    """
    _state["inter_op"] = int(num_threads)


def get_intra_op_parallelism_threads() -> int:
    """What ``set_intra_op_parallelism_threads`` set; 0 before (``tf.config.threading``'s)."""
    return _state["intra_op"]


def set_intra_op_parallelism_threads(num_threads) -> None:
    """Records the number of threads inside one op
    (``tf.config.threading.set_intra_op_parallelism_threads``).

    No effect: as ``set_inter_op_parallelism_threads``.
    """
    _state["intra_op"] = int(num_threads)
