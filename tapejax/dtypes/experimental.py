"""``tf.dtypes.experimental``: the narrow float8, float4, int4 and int2 types of
``ml_dtypes``, which JAX arrays hold (XLA computes with them where the device supports it).
"""

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

__all__ = [
    "float4_e2m1fn",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "int2",
    "int4",
    "uint2",
    "uint4",
]
