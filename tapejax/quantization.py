"""``tf.quantization``: fake quantization, quantize/dequantize, quantized concat.

TF 2.21's ``tf.quantization.experimental`` (SavedModel quantization: ``quantize_saved_model``
and its option protos) is not provided: it converts TF SavedModels, which tapejax neither
reads nor writes.
"""

from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.ops.fake_quant_ops import (
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
)
from tapejax._src.ops.quantization_ops import (
    dequantize,
    quantize,
    quantize_and_dequantize,
    quantize_and_dequantize_v2,
    quantized_concat,
)

__getattr__ = _attribute_hook("tapejax.quantization", "quantization")

__all__ = [
    "dequantize",
    "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient",
    "quantize",
    "quantize_and_dequantize",
    "quantize_and_dequantize_v2",
    "quantized_concat",
]
