"""TensorFlow names that tapejax deliberately does not provide, each with its reason.

Reading one (``tapejax.strings``, ``tapejax.io.decode_png``, ``tapejax.RaggedTensor``)
raises ``NamespaceNotProvidedError``: a ``NotImplementedError`` whose text names the TF
name, why tapejax lacks it and what to use instead, and an ``AttributeError``, so that
``hasattr`` still answers False. A name that is in no table here gets Python's plain
``AttributeError``, as a typo should.

``tests/test_tf_coverage.py`` checks the tables against TF 2.21: every public name of a
mirrored namespace that tapejax lacks is listed, and nothing listed is provided. This
module must never import TensorFlow.
"""

from __future__ import annotations

from tapejax._src.compat import NamespaceNotProvidedError

__all__ = ["NOT_PROVIDED", "attribute_hook", "missing"]

# Why a group of names is missing and what to use instead.
_STRINGS = (
    "tapejax has no string tensors (a JAX array holds numbers and bools only). Keep text, "
    "file contents and serialized protos on the host as Python or NumPy values and give "
    "tapejax their numeric encoding; tapejax.io.gfile reads and writes files"
)
_CODECS = (
    "tapejax has no string tensors to hold encoded images (a JAX array holds numbers "
    "only). Decode on the host (e.g. with Pillow) and pass the pixel array; the "
    "tapejax.image ops take it from there"
)
_RAGGED = (
    "tapejax has no RaggedTensor: XLA compiles for static shapes. Pad rows to a common "
    "length (tapejax.pad, Dataset.padded_batch) and carry a mask or the lengths, or use "
    "tapejax.sparse.SparseTensor"
)
_GRAPHS = (
    "tapejax builds no TensorFlow graphs: tapejax.function compiles through JAX to XLA. "
    "Inspect a compiled step with f.experimental_get_compiler_ir(...) or "
    "f.get_concrete_function(...).compiler_ir(), and profile it with jax.profiler"
)
_TF_RUNTIME = (
    "tapejax runs JAX and XLA, not TensorFlow's C++ runtime, so TF kernels, op libraries "
    "and TF's own build and runtime settings do not apply. Write a custom op in JAX "
    "(jax.pure_callback, or jax.ffi for C++)"
)
_CLUSTERS = (
    "tapejax has no TF cluster runtime (gRPC servers, cluster specs). Multi-process "
    "runs start with jax.distributed.initialize; tapejax.distribute's MirroredStrategy "
    "then spans all processes' devices (docs/interop.md)"
)
_EXTENSION_TYPES = (
    "tapejax has no TF extension types or API dispatch. Register a class as a JAX pytree "
    "(jax.tree_util.register_dataclass) to pass it through tapejax.function, tapes and "
    "tapejax.nest"
)
_PROTOS = (
    "tapejax does not use TensorFlow's protobufs. Convert with tensor.numpy() and "
    "tapejax.constant(array)"
)
_KERAS2 = (
    "TF 2.21's tf.nn RNN cell wrappers wrap Keras 2 cells, which Keras 3 (the Keras of "
    "tapejax.keras) does not have. Write the wrapper as a tapejax.keras Layer"
)
_OTHER_STACKS = (
    "it belongs to another deployment stack (TF Lite, TensorRT, TPU, DTensor, MLIR) with no "
    "counterpart on JAX; on TPUs, JAX itself runs tapejax's programs"
)

_SHARDING = (
    "a tapejax checkpoint is one .npz file written by one process, so TF's checkpoint "
    "sharding policies have nothing to split (CheckpointOptions("
    "experimental_sharding_callback=...) raises NotImplementedError). Save as usual: "
    "restoring puts each value on its Variable's current sharding"
)

_MULTI_WORKER = (
    "tapejax has no TF cluster runtime (TF_CONFIG, gRPC workers). Start every process "
    "with jax.distributed.initialize: tapejax.distribute.MirroredStrategy() then spans "
    "all processes' devices, which is what MultiWorkerMirroredStrategy does in TF "
    "(docs/interop.md, multi-host)"
)
_PARAMETER_SERVERS = (
    "tapejax trains synchronously on a device mesh, with no parameter servers, workers "
    "or coordinator to dispatch steps to. Use tapejax.distribute.MirroredStrategy, and "
    "shard large Variables over the mesh with a PartitionSpec (strategy.shard, or "
    "partition_rules)"
)
_TPU_STRATEGY = (
    "on TPUs, JAX sees the TPU cores as devices: tapejax.distribute.MirroredStrategy() "
    "over jax.devices() is the TPU data-parallel strategy, with no TPU cluster resolver "
    "or TPU system initialization"
)
_PREEMPTION = (
    "TF's preemption handling runs on TF's cluster coordination service, which tapejax "
    "does not have. Save with tapejax.train.CheckpointManager at intervals and restore "
    "the latest checkpoint when the job restarts"
)

# TF namespace ("" for ``tf``) -> {public name: reason}. Submodules are listed by their
# own name, as TF's ``tf.strings`` is an attribute of ``tf``.
NOT_PROVIDED: dict[str, dict[str, str]] = {
    "": {
        "strings": _STRINGS,
        "as_string": _STRINGS,
        "audio": _STRINGS,
        "RaggedTensor": _RAGGED,
        "RaggedTensorSpec": _RAGGED,
        "ragged": _RAGGED,
        "ragged_fill_empty_rows": _RAGGED,
        "ragged_fill_empty_rows_grad": _RAGGED,
        "Graph": _GRAPHS,
        "Operation": _GRAPHS,
        "import_graph_def": _GRAPHS,
        "graph_util": _GRAPHS,
        "mlir": _OTHER_STACKS,
        "raw_ops": (
            "tapejax does not provide tf.raw_ops, TF's kernel-level op names: call the public "
            "op it backs (tf.math.add for raw_ops.AddV2, tf.nn.conv2d for raw_ops.Conv2D)"
        ),
        "load_library": _TF_RUNTIME,
        "load_op_library": _TF_RUNTIME,
        "sysconfig": _TF_RUNTIME,
        "check_pinned": _TF_RUNTIME,
        "nondifferentiable_batch_function": _TF_RUNTIME,
        "security": _TF_RUNTIME,
        "tools": _TF_RUNTIME,
        "make_ndarray": _PROTOS,
        "make_tensor_proto": _PROTOS,
        "lite": _OTHER_STACKS,
        "tpu": _OTHER_STACKS,
        "dtensor": _OTHER_STACKS,
        "xla": (
            "tapejax has no tf.xla: every tapejax.function is compiled by XLA already "
            "(jit_compile is accepted and always on)"
        ),
        "feature_column": (
            "tf.feature_column, TF's deprecated input-feature API, is not provided: build "
            "the features with tapejax.keras preprocessing layers or in the input pipeline"
        ),
        "test": (
            "tapejax does not provide tf.test: write tests with pytest and compare with "
            "numpy.testing or chex (tensor.numpy() gives the values)"
        ),
        "version": (
            "tapejax does not provide tf.version: tapejax.__version__ is tapejax's version, "
            "and tapejax follows TensorFlow 2.21's API"
        ),
    },
    "saved_model": {
        **{
            name: (
                "it names a file or directory of TF's SavedModel format, which tapejax does "
                "not write: tapejax.saved_model's own layout is in tapejax/_src/saved_model.py"
            )
            for name in (
                "ASSETS_DIRECTORY",
                "ASSETS_KEY",
                "DEBUG_DIRECTORY",
                "DEBUG_INFO_FILENAME_PB",
                "SAVED_MODEL_FILENAME_PB",
                "SAVED_MODEL_FILENAME_PBTXT",
                "SAVED_MODEL_SCHEMA_VERSION",
                "VARIABLES_DIRECTORY",
                "VARIABLES_FILENAME",
            )
        },
        "Asset": _STRINGS,
        "experimental": (
            "tf.saved_model.experimental (fingerprints of saved_model.pb, TrackableResource, "
            "VariablePolicy) configures TF's SavedModel format, which tapejax does not write"
        ),
    },
    "nn": {
        "RNNCellDeviceWrapper": _KERAS2,
        "RNNCellDropoutWrapper": _KERAS2,
        "RNNCellResidualWrapper": _KERAS2,
    },
    "image": {
        name: _CODECS
        for name in (
            "adjust_jpeg_quality",
            "decode_and_crop_jpeg",
            "decode_bmp",
            "decode_gif",
            "decode_image",
            "decode_jpeg",
            "decode_jxl",
            "decode_png",
            "decode_webp",
            "encode_jpeg",
            "encode_png",
            "extract_jpeg_shape",
            "is_jpeg",
            "random_jpeg_quality",
            "stateless_random_jpeg_quality",
        )
    },
    "sparse": {"cross": _STRINGS},
    "debugging": {
        "experimental": (
            "tf.debugging.experimental's dump functions (TF Debugger V2) record TF graph "
            "execution, which tapejax does not run; use jax.debug.print and JAX's "
            "jax_debug_nans / jax_debug_infs flags"
        ),
    },
    "quantization": {"experimental": _OTHER_STACKS},
    "io": {
        **{
            name: _CODECS
            for name in (
                "decode_and_crop_jpeg",
                "decode_bmp",
                "decode_gif",
                "decode_image",
                "decode_jpeg",
                "decode_jxl",
                "decode_png",
                "decode_webp",
                "encode_jpeg",
                "encode_png",
                "extract_jpeg_shape",
                "is_jpeg",
            )
        },
        **{
            name: _STRINGS
            for name in (
                "FixedLenFeature",
                "FixedLenSequenceFeature",
                "SparseFeature",
                "VarLenFeature",
                "decode_base64",
                "decode_compressed",
                "decode_csv",
                "decode_json_example",
                "decode_proto",
                "decode_raw",
                "deserialize_many_sparse",
                "encode_base64",
                "encode_proto",
                "match_filenames_once",
                "matching_files",
                "parse_example",
                "parse_sequence_example",
                "parse_single_example",
                "parse_single_sequence_example",
                "parse_tensor",
                "read_file",
                "serialize_many_sparse",
                "serialize_sparse",
                "serialize_tensor",
                "write_file",
            )
        },
        "RaggedFeature": _RAGGED,
        "write_graph": _GRAPHS,
    },
    "config": {
        "experimental_connect_to_cluster": _CLUSTERS,
        "experimental_connect_to_host": _CLUSTERS,
    },
    "train": {
        "ClusterDef": _CLUSTERS,
        "ClusterSpec": _CLUSTERS,
        "JobDef": _CLUSTERS,
        "ServerDef": _CLUSTERS,
    },
    "train.experimental": {
        name: _SHARDING
        for name in (
            "MaxShardSizePolicy",
            "ShardByTaskPolicy",
            "ShardableTensor",
            "ShardingCallback",
        )
    },
    "data": {
        "FixedLengthRecordDataset": _STRINGS,
        "TFRecordDataset": _STRINGS,
        "TextLineDataset": _STRINGS,
    },
    "data.experimental": {
        "CsvDataset": _STRINGS,
        "make_csv_dataset": _STRINGS,
        "SqlDataset": _STRINGS,
        "make_batched_features_dataset": _STRINGS,
        "parse_example_dataset": _STRINGS,
        "TFRecordWriter": (
            "tf.data.experimental.TFRecordWriter writes a Dataset of strings, which tapejax "
            "cannot hold; write the records' bytes from the host with tapejax.io.TFRecordWriter"
        ),
        "from_variant": "tapejax has no variant tensors: a Dataset is a Python object here",
        "to_variant": "tapejax has no variant tensors: a Dataset is a Python object here",
        "DatasetInitializer": (
            "tapejax does not provide tf.data.experimental.DatasetInitializer: build the "
            "table with tapejax.data.experimental.table_from_dataset"
        ),
        "ServiceOptions": _TF_RUNTIME,
        "service": _TF_RUNTIME,
        "distributed_save": _TF_RUNTIME,
        "get_model_proto": _PROTOS,
        "make_saveable_from_iterator": (
            "it makes a TF 1 saveable for tf.compat.v1.train.Saver, which tapejax does not "
            "provide (tapejax.train.Checkpoint saves Variables)"
        ),
        "enable_debug_mode": (
            "tapejax does not provide tf.data.experimental.enable_debug_mode: to debug a "
            "function a transformation runs, call tapejax.config.run_functions_eagerly(True)"
        ),
    },
    "lookup": {
        "TextFileIndex": _STRINGS,
        "TextFileInitializer": _STRINGS,
    },
    "summary": {
        name: (
            "tf.summary's graph and trace functions record TF graphs and TF profiler traces, "
            "which tapejax does not build. Profile with jax.profiler.trace(logdir)"
        )
        for name in ("graph", "trace_export", "trace_off", "trace_on")
    },
    "distribute": {
        "MultiWorkerMirroredStrategy": _MULTI_WORKER,
        "ParameterServerStrategy": _PARAMETER_SERVERS,
        "coordinator": _PARAMETER_SERVERS,
        "TPUStrategy": _TPU_STRATEGY,
        "Server": _CLUSTERS,
        "cluster_resolver": _CLUSTERS,
    },
    "distribute.experimental": {
        "MultiWorkerMirroredStrategy": _MULTI_WORKER,
        "ParameterServerStrategy": _PARAMETER_SERVERS,
        "coordinator": _PARAMETER_SERVERS,
        "partitioners": _PARAMETER_SERVERS,
        "TPUStrategy": _TPU_STRATEGY,
        "rpc": _CLUSTERS,
        "PreemptionCheckpointHandler": _PREEMPTION,
        "PreemptionWatcher": _PREEMPTION,
        "TerminationConfig": _PREEMPTION,
        "CentralStorageStrategy": (
            "tapejax keeps no Variables on a central device: XLA compiles one program for "
            "the mesh. Use tapejax.distribute.MirroredStrategy (Variables replicated, or "
            "sharded by a PartitionSpec)"
        ),
        "CollectiveHints": (
            "TF deprecated CollectiveHints for CommunicationOptions: use "
            "tapejax.distribute.experimental.CommunicationOptions"
        ),
    },
    "experimental": {
        **{
            name: _EXTENSION_TYPES
            for name in (
                "BatchableExtensionType",
                "ExtensionType",
                "ExtensionTypeBatchEncoder",
                "ExtensionTypeSpec",
                "dispatch_for_api",
                "dispatch_for_binary_elementwise_apis",
                "dispatch_for_binary_elementwise_assert_apis",
                "dispatch_for_unary_elementwise_apis",
                "extension_type",
                "unregister_dispatch_for",
            )
        },
        "DynamicRaggedShape": _RAGGED,
        "RowPartition": _RAGGED,
        "StructuredTensor": _RAGGED,
        "dtensor": _OTHER_STACKS,
        "tensorrt": _OTHER_STACKS,
        "register_filesystem_plugin": _TF_RUNTIME,
        "enable_strict_mode": (
            "tapejax does not provide tf.experimental.enable_strict_mode, which turns TF's "
            "deprecation warnings into errors; tapejax has no deprecated endpoints to police"
        ),
        "numpy": (
            "tapejax does not provide tf.experimental.numpy: use jax.numpy, whose functions "
            "take tapejax Tensors (outside a tape; inside one, use tapejax's own ops so "
            "that the tape records them)"
        ),
    },
    # -- tf.keras (Keras 3's ``_tf_keras`` API) ------------------------------------------
    "keras": {
        **{
            name: (
                "it is Keras's symbolic-graph machinery, which runs Keras's own tensors, not "
                "tapejax's: build a functional model with tapejax.keras.Input and "
                "tapejax.keras.Model(inputs, outputs), or subclass tapejax.keras.Layer or Model"
            )
            for name in ("Function", "Operation", "SymbolicScope")
        },
        "StatelessScope": (
            "tapejax.keras runs Keras's layers and optimizers inside StatelessScopes itself, "
            "with their weights in tapejax Variables; a user's scope would map Keras "
            "variables that tapejax.keras layers do not expose. Use "
            "tapejax.functionalize for a pure function of the weights"
        ),
        "Variable": (
            "tapejax.keras layers keep their weights in tapejax Variables: use "
            "tapejax.Variable, or Layer.add_weight inside a layer"
        ),
        **{
            name: (
                "Keras's rematerialization wraps Keras's own backend calls, not tapejax ops "
                "on a tape: use tapejax.recompute_grad"
            )
            for name in ("remat", "RematScope")
        },
        **{
            name: (
                "Keras's quantization rewrites a Keras layer's weights and kernels in place, "
                "which tapejax.keras's bridged layers (weights in tapejax Variables) do not "
                "support"
            )
            for name in ("Quantizer", "quantizers")
        },
        "export": (
            "Keras's ExportArchive writes a TensorFlow SavedModel and needs TensorFlow's "
            "graph runtime; save weights with Model.save_weights, or use "
            "tapejax.saved_model"
        ),
        "distribution": (
            "Keras's JAX distribution API shards Keras's own variables; tapejax.keras "
            "weights are tapejax Variables, sharded by tapejax.distribute (docs/interop.md)"
        ),
        "legacy": (
            "tf.keras.legacy holds Keras 2's legacy saving format (HDF5 whole models), "
            "which needs TensorFlow; use Model.save_weights / load_weights"
        ),
        "applications": (
            "keras.applications build Keras functional models from Keras's own layer "
            "objects, which tapejax.keras does not bridge after the fact; build the "
            "network from tapejax.keras.layers (weights load with load_weights)"
        ),
        "wrappers": (
            "Keras's scikit-learn wrappers build and fit Keras models of their own, not "
            "tapejax.keras models"
        ),
        "distillation": (
            "Keras's Distiller is a Keras Model trained by Keras's own trainer, not "
            "tapejax.keras's: write the distillation loss in a tapejax.keras Model's "
            "train_step"
        ),
    },
    "keras.losses": {
        "Reduction": (
            "tf.keras.losses.Reduction is Keras 2's enum; Keras 3 takes reduction strings "
            '("sum_over_batch_size", "sum", "mean", "none")'
        ),
    },
    "keras.optimizers": {
        "OptimizerMap": (
            "Keras's OptimizerMap maps Keras variables to Keras optimizers: use "
            "tapejax.keras.optimizers.MultiOptimizer"
        ),
        "legacy": "tf.keras.optimizers.legacy holds Keras 2's optimizers, absent from Keras 3",
    },
    "keras.models": {
        name: (
            "Keras's whole-model saving (.keras / .h5) does not cover tapejax.keras models; "
            "use Model.save_weights / load_weights (docs/keras.md)"
        )
        for name in ("clone_model", "load_model", "model_from_json", "save_model")
    },
    "keras.layers": {
        **{
            name: (
                "it wraps another framework's objects (a TF SavedModel, a PyTorch module, a "
                "Flax or JAX function), not bridged: use tapejax.lift for JAX code"
            )
            for name in ("TFSMLayer", "TorchModuleWrapper", "FlaxLayer", "JaxLayer")
        },
        "Wrapper": (
            "Keras's Wrapper base class wraps Keras layers; subclass tapejax.keras.Layer "
            "and hold the bridged layer as an attribute"
        ),
        **{
            name: (
                "they (de)serialize Keras's own layer objects: use a bridged layer's "
                "get_config and its class's from_config"
            )
            for name in ("serialize", "deserialize")
        },
        **{
            name: (
                "it is one of Keras 2's layers that tf.keras keeps, written with TensorFlow "
                "ops (keras.src.legacy), which do not run on JAX: use RandomZoom or "
                "Resizing, or ReLU(threshold=...)"
            )
            for name in ("RandomHeight", "RandomWidth", "ThresholdedReLU")
        },
    },
    # -- end of tf.keras -----------------------------------------------------------------
}


def missing(namespace: str, name: str) -> NamespaceNotProvidedError | None:
    """The error for reading ``tf.<namespace>.<name>`` if tapejax lacks it on purpose."""
    reason = NOT_PROVIDED.get(namespace, {}).get(name)
    if reason is None:
        return None
    where = f"tf.{namespace}.{name}" if namespace else f"tf.{name}"
    return NamespaceNotProvidedError(
        f"{where} is not provided by tapejax: {reason}. See docs/compat.md, "
        f'"Coverage of TensorFlow\'s namespaces".'
    )


def attribute_hook(module_name: str, namespace: str):
    """A module ``__getattr__`` that raises ``missing``'s error, or Python's own."""

    def __getattr__(name):  # noqa: N807 - the module hook's name
        error = missing(namespace, name)
        if error is not None:
            raise error
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__
