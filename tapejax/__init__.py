"""tapejax: TensorFlow's eager autodiff API on top of JAX.

``import tapejax as tf`` and TF-style code (``GradientTape``, ``Variable``, ``Module``,
ops) runs with TF's semantics, compiled by XLA. Tensors are JAX arrays underneath.
"""

from tapejax import (
    autodiff,
    autograph,
    bitwise,
    compat,
    config,
    data,
    debugging,
    distribute,
    dtypes,
    errors,
    experimental,
    image,
    io,
    linalg,
    lookup,
    math,
    nest,
    nn,
    profiler,
    quantization,
    queue,
    random,
    saved_model,
    sets,
    signal,
    sparse,
    summary,
    train,
    types,
)
from tapejax._src import operators as _operators  # noqa: F401 - installs Tensor operators
from tapejax._src.asserts import Assert, assert_equal, assert_greater, assert_less, assert_rank
from tapejax._src.conversion import constant, convert_to_tensor
from tapejax._src.conversion_registry import register_tensor_conversion_function
from tapejax._src.critical_section import CriticalSection
from tapejax._src.custom_gradient import custom_gradient, grad_pass_through, recompute_grad
from tapejax._src.device_spec import DeviceSpec
from tapejax._src.devices import device
from tapejax._src.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from tapejax._src.dtypes import (
    bool_ as bool,  # noqa: A001 - TF's name
)
from tapejax._src.execution import (
    control_dependencies,
    executing_eagerly,
    get_current_name_scope,
    get_static_value,
    group,
    init_scope,
    inside_function,
    is_symbolic_tensor,
    no_op,
    tuple,  # noqa: A004 - TF's name
)
from tapejax._src.function import function
from tapejax._src.indexed_slices import IndexedSlices
from tapejax._src.initializers import Constant as constant_initializer
from tapejax._src.initializers import Ones as ones_initializer
from tapejax._src.initializers import RandomNormal as random_normal_initializer
from tapejax._src.initializers import RandomUniform as random_uniform_initializer
from tapejax._src.initializers import Zeros as zeros_initializer
from tapejax._src.interop import functionalize, lift
from tapejax._src.module import Module
from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.ops.array_ops import (
    bitcast,
    boolean_mask,
    broadcast_dynamic_shape,
    broadcast_static_shape,
    broadcast_to,
    ensure_shape,
    expand_dims,
    gather_nd,
    guarantee_const,
    identity,
    rank,
    reshape,
    scatter_nd,
    shape,
    size,
    slice,  # noqa: A004 - TF's name
    squeeze,
    stop_gradient,
    strided_slice,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
    tile,
    transpose,
)
from tapejax._src.ops.atrous_ops import required_space_to_batch_paddings
from tapejax._src.ops.clip_ops import clip_by_global_norm, clip_by_norm
from tapejax._src.ops.control_flow_ops import case, cond, switch_case, while_loop
from tapejax._src.ops.creation_ops import (
    eye,
    fill,
    linspace,
    meshgrid,
    one_hot,
    ones,
    ones_like,
    range,  # noqa: A004 - TF's name
    sequence_mask,
    zeros,
    zeros_like,
)
from tapejax._src.ops.edit_distance_ops import edit_distance
from tapejax._src.ops.fft_ops import fftnd, ifftnd, irfftnd, rfftnd
from tapejax._src.ops.fingerprint_ops import fingerprint
from tapejax._src.ops.functional_ops import foldl, foldr, map_fn, scan, vectorized_map
from tapejax._src.ops.histogram_ops import histogram_fixed_width, histogram_fixed_width_bins
from tapejax._src.ops.index_ops import dynamic_partition, dynamic_stitch, unravel_index
from tapejax._src.ops.index_shuffle_ops import random_index_shuffle
from tapejax._src.ops.join_split_ops import concat, split, stack, unstack
from tapejax._src.ops.linalg_ops import matmul
from tapejax._src.ops.list_ops import identity_n, parallel_stack, shape_n
from tapejax._src.ops.logging_ops import print_v2 as print  # noqa: A004 - TF's name
from tapejax._src.ops.logging_ops import timestamp
from tapejax._src.ops.math_ops import (
    abs,  # noqa: A004 - TF's name
    add,
    cast,
    clip_by_value,
    complex,  # noqa: A004 - TF's name
    cos,
    divide,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,  # noqa: A004 - TF's name
    realdiv,
    round,  # noqa: A004 - TF's name
    saturate_cast,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
    truediv,
)
from tapejax._src.ops.pad_ops import pad, repeat, reverse, reverse_sequence, roll
from tapejax._src.ops.raw_conv_ops import (
    conv,
    conv2d_backprop_filter_v2,
    conv2d_backprop_input_v2,
)
from tapejax._src.ops.reduction_ops import (
    argmax,
    argmin,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from tapejax._src.ops.selection_ops import gather, where
from tapejax._src.ops.sequence_ops import add_n
from tapejax._src.ops.sort_ops import argsort, searchsorted, sort, unique, unique_with_counts
from tapejax._src.ops.space_ops import batch_to_space, space_to_batch, space_to_batch_nd
from tapejax._src.ops.spectral_ops import sqrtm as matrix_square_root  # tf.linalg.sqrtm
from tapejax._src.ops.tensor_array_ops import TensorArray
from tapejax._src.ops.top_k_ops import approx_top_k
from tapejax._src.ops.volume_patch_ops import extract_volume_patches
from tapejax._src.optional import OptionalSpec
from tapejax._src.py_functions import numpy_function, py_function
from tapejax._src.registry import RegisterGradient, no_gradient
from tapejax._src.sparse_tensor import SparseTensor, SparseTensorSpec
from tapejax._src.symbolic_gradients import AggregationMethod, gradients, hessians
from tapejax._src.tape import GradientTape, UnconnectedGradients
from tapejax._src.tensor import GradientCutWarning, Tensor, is_tensor
from tapejax._src.tensor_shape import TensorShape
from tapejax._src.tensor_spec import TensorSpec, TypeSpec
from tapejax._src.tf_logging import get_logger
from tapejax._src.type_spec import (
    IndexedSlicesSpec,
    NoneTensorSpec,
    TensorArraySpec,
    type_spec_from_value,
)
from tapejax._src.variables import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
    name_scope,
    variable_creator_scope,
)

newaxis = None
_not_provided = _attribute_hook("tapejax", "")
to_jax = functionalize  # the interop issue's name for it


# TF 2.21's ``tf.optimizers``, ``tf.losses``, ``tf.metrics`` and ``tf.initializers`` are
# its ``tf.keras`` modules of those names; so are tapejax's.
_KERAS_ALIASES = frozenset({"optimizers", "losses", "metrics", "initializers"})


def __getattr__(name):
    # ``tf.keras`` is imported on first use: it takes a second and brings Keras up on its
    # JAX backend, which a user who never touches it should not pay for or be bound by.
    if name == "keras" or name in _KERAS_ALIASES:
        import importlib

        keras = importlib.import_module("tapejax.keras")
        return keras if name == "keras" else getattr(keras, name)
    return _not_provided(name)


NoGradient = NotDifferentiable = no_gradient

__version__ = "0.1.0"

__all__ = [
    "Assert",
    "CriticalSection",
    "DType",
    "GradientCutWarning",
    "GradientTape",
    "IndexedSlices",
    "Module",
    "NoGradient",
    "NotDifferentiable",
    "RegisterGradient",
    "SparseTensor",
    "SparseTensorSpec",
    "Tensor",
    "TensorArray",
    "TensorShape",
    "TensorSpec",
    "UnconnectedGradients",
    "Variable",
    "VariableAggregation",
    "VariableSynchronization",
    "abs",
    "add",
    "add_n",
    "approx_top_k",
    "argmax",
    "argmin",
    "argsort",
    "as_dtype",
    "assert_equal",
    "assert_greater",
    "assert_less",
    "assert_rank",
    "autodiff",
    "autograph",
    "batch_to_space",
    "bfloat16",
    "bitcast",
    "bitwise",
    "bool",
    "boolean_mask",
    "broadcast_dynamic_shape",
    "broadcast_static_shape",
    "broadcast_to",
    "case",
    "cast",
    "clip_by_global_norm",
    "clip_by_norm",
    "clip_by_value",
    "complex",
    "complex128",
    "complex64",
    "compat",
    "config",
    "concat",
    "cond",
    "constant",
    "constant_initializer",
    "control_dependencies",
    "conv",
    "conv2d_backprop_filter_v2",
    "conv2d_backprop_input_v2",
    "convert_to_tensor",
    "cos",
    "device",
    "distribute",
    "custom_gradient",
    "data",
    "debugging",
    "divide",
    "double",
    "dtypes",
    "dynamic_partition",
    "dynamic_stitch",
    "ensure_shape",
    "equal",
    "errors",
    "exp",
    "executing_eagerly",
    "experimental",
    "expand_dims",
    "extract_volume_patches",
    "eye",
    "fftnd",
    "fill",
    "fingerprint",
    "float16",
    "float32",
    "float64",
    "foldl",
    "foldr",
    "function",
    "functionalize",
    "gather",
    "gather_nd",
    "get_current_name_scope",
    "get_static_value",
    "grad_pass_through",
    "gradients",
    "greater",
    "greater_equal",
    "group",
    "half",
    "hessians",
    "histogram_fixed_width",
    "histogram_fixed_width_bins",
    "identity",
    "identity_n",
    "ifftnd",
    "int16",
    "int32",
    "int64",
    "image",
    "io",
    "init_scope",
    "inside_function",
    "int8",
    "irfftnd",
    "is_tensor",
    "less",
    "less_equal",
    "lift",
    "linalg",
    "lookup",
    "linspace",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "map_fn",
    "math",
    "matmul",
    "matrix_square_root",
    "maximum",
    "meshgrid",
    "minimum",
    "multiply",
    "name_scope",
    "negative",
    "nest",
    "newaxis",
    "no_gradient",
    "no_op",
    "nn",
    "not_equal",
    "numpy_function",
    "one_hot",
    "ones",
    "ones_initializer",
    "ones_like",
    "pad",
    "parallel_stack",
    "pow",
    "print",
    "profiler",
    "py_function",
    "qint16",
    "qint32",
    "qint8",
    "quint16",
    "quint8",
    "quantization",
    "queue",
    "random",
    "random_index_shuffle",
    "random_normal_initializer",
    "random_uniform_initializer",
    "range",
    "realdiv",
    "rank",
    "reduce_all",
    "reduce_any",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "recompute_grad",
    "reduce_sum",
    "repeat",
    "required_space_to_batch_paddings",
    "reshape",
    "resource",
    "reverse",
    "reverse_sequence",
    "rfftnd",
    "roll",
    "round",
    "saved_model",
    "saturate_cast",
    "scan",
    "scatter_nd",
    "searchsorted",
    "sequence_mask",
    "sets",
    "shape",
    "shape_n",
    "sigmoid",
    "sign",
    "signal",
    "sin",
    "size",
    "slice",
    "sort",
    "space_to_batch",
    "space_to_batch_nd",
    "sparse",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "stop_gradient",
    "strided_slice",
    "string",
    "subtract",
    "summary",
    "switch_case",
    "tanh",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_update",
    "tile",
    "to_jax",
    "train",
    "transpose",
    "truediv",
    "tuple",
    "types",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "unique",
    "unique_with_counts",
    "unravel_index",
    "unstack",
    "variant",
    "vectorized_map",
    "where",
    "while_loop",
    "zeros",
    "zeros_initializer",
    "zeros_like",
    "AggregationMethod",
    "DeviceSpec",
    "get_logger",
    "guarantee_const",
    "is_symbolic_tensor",
    "timestamp",
    "register_tensor_conversion_function",
    "variable_creator_scope",
    "TypeSpec",
    "type_spec_from_value",
    "IndexedSlicesSpec",
    "TensorArraySpec",
    "NoneTensorSpec",
    "OptionalSpec",
    "edit_distance",
]


def _export_toplevel():
    """TF's top-level aliases of namespace functions (``tf.einsum`` is ``tf.linalg.einsum``):
    each namespace lists its own in ``TOPLEVEL``."""
    for module in (math, nn, linalg, random):
        for n in module.TOPLEVEL:
            globals()[n] = getattr(module, n)
            if n not in __all__:
                __all__.append(n)


_export_toplevel()
del _export_toplevel
