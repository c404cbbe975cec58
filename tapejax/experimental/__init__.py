"""``tf.experimental``: the parts that fit a JAX-array core (DLPack, ``Optional``, the
async executor scopes, the narrow dtypes). ``docs/compat.md`` lists the rest and why."""

from tapejax._src.async_execution import async_clear_error, async_scope, function_executor_type
from tapejax._src.dtypes import (
    float4_e2m1fn,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    int2,
    int4,
    uint2,
    uint4,
)
from tapejax._src.optional import Optional
from tapejax.experimental import dlpack

__all__ = [
    "Optional",
    "async_clear_error",
    "async_scope",
    "dlpack",
    "float4_e2m1fn",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "function_executor_type",
    "int2",
    "int4",
    "uint2",
    "uint4",
]
