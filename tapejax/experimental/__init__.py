"""``tf.experimental``: the parts that fit a JAX-array core (DLPack, ``Optional``, the
async executor scopes, the narrow dtypes). ``docs/compat.md`` lists the rest and why."""

from tapejax._src.async_execution import async_clear_error, async_scope, function_executor_type
from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.optional import Optional
from tapejax.dtypes import experimental as _narrow_dtypes
from tapejax.dtypes.experimental import *  # noqa: F403  (TF's tf.experimental has them too)
from tapejax.experimental import dlpack

__getattr__ = _attribute_hook("tapejax.experimental", "experimental")

__all__ = ["Optional", "async_clear_error", "async_scope", "dlpack", "function_executor_type"]
__all__ += _narrow_dtypes.__all__
