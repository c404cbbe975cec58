"""``MirroredStrategy``: data parallelism (and sharded Variables) with XLA's GSPMD.

TF's ``MirroredStrategy`` runs one copy of the step per device and sums gradients
with explicit all-reduces. Here a strategy is a ``jax.sharding.Mesh``: batches from
``experimental_distribute_dataset`` are split over its batch axis, Variables created
in ``scope()`` are replicated over it (or split by a ``PartitionSpec``), and the step
runs once, in *global view*, on whole arrays. Compiled by ``tapejax.function``, XLA's
SPMD partitioner gives each device its slice of the batch and inserts the all-reduce
of gradients itself, so the step has no replica-specific code.

It must never change a number: with the same global batch a step computes what it
computes on one device. It must never silently place a batch where it does not fit.
"""

from __future__ import annotations

import contextlib
import enum
import re
import threading
import weakref

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .. import devices as _devices
from .. import nest
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..tensor import Tensor, wrap
from ..variables import _creation_hooks
from . import placement
from .options import InputContext, InputReplicationMode, ValueContext

__all__ = [
    "DistributedDataset",
    "DistributedIterator",
    "DistributedValues",
    "MirroredStrategy",
    "OneDeviceStrategy",
    "ReduceOp",
    "ReplicaContext",
    "Strategy",
    "StrategyExtended",
    "experimental_set_strategy",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]


class ReduceOp(enum.Enum):
    """How ``Strategy.reduce`` combines values (``tf.distribute.ReduceOp``)."""

    SUM = "SUM"
    MEAN = "MEAN"


class _Scopes(threading.local):
    def __init__(self):
        self.stack: list = []  # strategies whose scope() is open, innermost last
        # What get_replica_context answers, innermost last: None for a scope() (cross-replica
        # context), a ReplicaContext for a run().
        self.contexts: list = []


_scopes = _Scopes()
# experimental_set_strategy's strategy: in effect in every thread, as TF keeps it on the
# (eager) default graph.
_global_strategy: list = []


def _current():
    if _scopes.stack:
        return _scopes.stack[-1]
    return _global_strategy[0] if _global_strategy else None


def _on_variable_created(variable) -> None:
    strategy = _current()
    # A Variable made from a traced value is left to the tracing code's own rules
    # (tapejax.function refuses it with TF's error).
    if strategy is not None and not isinstance(variable._value, jax.core.Tracer):
        strategy._adopt(variable)


_creation_hooks.append(_on_variable_created)


def _resolve_devices(devices) -> list:
    """JAX devices from JAX devices or TF device names (``"/gpu:0"``, ``"GPU:1"``)."""
    if devices is None:
        return list(jax.devices())
    if isinstance(devices, str):
        devices = [devices]
    out = []
    for d in devices:
        if not isinstance(d, str):
            out.append(d)
            continue
        m = _devices._SPEC.match(d.strip())
        if not m:
            raise ValueError(f"Invalid device specification: {d!r}")
        kind, index = m.group(1).upper(), int(m.group(2))
        found = [dev for k, dev in _devices._jax_devices(kind)]
        if index >= len(found):
            raise ValueError(
                f"Device {d!r} does not exist here: JAX sees "
                f"{[p.name for p in _devices.list_logical_devices()]}."
            )
        out.append(found[index])
    if not out:
        raise ValueError("MirroredStrategy needs at least one device; got an empty list.")
    if len({id(d) for d in out}) != len(out):
        raise ValueError(f"Duplicate devices in {devices!r}: each device may appear once.")
    return out


class Strategy:
    """A way to place Variables and batches on devices (``tf.distribute.Strategy``).

    The base class of ``MirroredStrategy``, ``OneDeviceStrategy`` and the default
    strategy (``get_strategy()`` outside any scope), so ``isinstance(s, Strategy)`` holds
    for each, as in TF. A strategy is a ``jax.sharding.Mesh``: Variables created in
    ``scope()`` are placed on it, batches are split over its batch axis, and ``run``
    calls the step once, in global view (see ``MirroredStrategy``).

    Raises:
      NotImplementedError: constructing ``Strategy`` itself, as TF code does only to
        write a strategy of its own on TF's ``StrategyExtended`` internals.
    """

    def __init__(self, extended):
        del extended
        raise NotImplementedError(
            "tapejax.distribute.Strategy cannot be constructed from a StrategyExtended: "
            "tapejax's strategies are jax.sharding meshes, not TF's per-replica "
            "extensions. Use MirroredStrategy (any devices or mesh) or OneDeviceStrategy."
        )

    def _init_mesh(self, mesh: Mesh, batch_axis=None, partition_rules=()) -> None:
        axes = (
            (mesh.axis_names[0],)
            if batch_axis is None
            else ((batch_axis,) if isinstance(batch_axis, str) else tuple(batch_axis))
        )
        for a in axes:
            if a not in mesh.axis_names:
                raise ValueError(
                    f"batch_axis {a!r} is not an axis of the mesh (axes: {mesh.axis_names})."
                )
        self._mesh = mesh
        self._batch_axes = axes
        self._batch_spec = PartitionSpec(axes[0] if len(axes) == 1 else axes)
        self._replicated = NamedSharding(mesh, PartitionSpec())
        self._rules = [(re.compile(p), spec) for p, spec in partition_rules]
        self._variables = weakref.WeakValueDictionary()  # id -> Variable placed by us
        self._extended = StrategyExtended(self)

    # -- what it is ---------------------------------------------------------------------

    @property
    def mesh(self) -> Mesh:
        """The ``jax.sharding.Mesh`` the strategy places values on."""
        return self._mesh

    @property
    def num_replicas_in_sync(self) -> int:
        """How many slices a batch is split into (the size of the batch axes)."""
        return int(np.prod([self._mesh.shape[a] for a in self._batch_axes]))

    @property
    def extended(self) -> StrategyExtended:
        """The strategy's ``StrategyExtended``: its devices and flags, as TF code reads them."""
        return self._extended

    @property
    def batch_sharding(self) -> NamedSharding:
        """The sharding of distributed batches: first axis split over the batch axes."""
        return NamedSharding(self._mesh, self._batch_spec)

    # -- variables ----------------------------------------------------------------------

    @contextlib.contextmanager
    def scope(self):
        """Variables created inside are placed by this strategy (replicated by default).

        Raises:
          RuntimeError: another strategy's scope is already open (TF's text).
        """
        current = _current()
        if current is not None and current is not self:
            raise RuntimeError(
                f"Mixing different tf.distribute.Strategy objects: {current} is not {self}"
            )
        _scopes.stack.append(self)
        _scopes.contexts.append(self._scope_context())
        try:
            yield self
        finally:
            _scopes.contexts.pop()
            _scopes.stack.pop()

    def _scope_context(self):
        return None  # a strategy's scope is TF's cross-replica context

    def _run_context(self):
        return ReplicaContext(self)

    def _adopt(self, variable) -> None:
        spec = PartitionSpec()
        name = variable.name
        for pattern, rule_spec in self._rules:
            if pattern.search(name):
                spec = rule_spec
                break
        self.shard(variable, spec)

    def shard(self, variable, partition_spec=None):
        """Places ``variable`` on the mesh split by ``partition_spec`` (tensor parallelism).

        ``PartitionSpec(None, "model")`` splits the second axis over the mesh's
        ``"model"`` axis; ``PartitionSpec()`` (the default) replicates. The Variable
        keeps this sharding after every assignment; XLA partitions the ops that use it.

        Returns:
          The Variable (the same object).

        Raises:
          ValueError: the spec names an axis the mesh lacks, or does not divide the shape.
        """
        spec = PartitionSpec() if partition_spec is None else partition_spec
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec)
        for entry in spec:
            for a in (entry,) if isinstance(entry, str) or entry is None else entry:
                if a is not None and a not in self._mesh.axis_names:
                    raise ValueError(
                        f"PartitionSpec {spec} names axis {a!r}, which the mesh lacks "
                        f"(axes: {self._mesh.axis_names})."
                    )
        try:
            placement.place(variable, NamedSharding(self._mesh, spec))
        except ValueError as e:
            if "evenly divide" not in str(e) and "divisible" not in str(e):
                raise
            raise ValueError(
                f"Cannot shard {variable.name} of shape {variable.shape} by {spec} over "
                f"mesh {dict(self._mesh.shape)}: each split axis must be divisible by the "
                "size of its mesh axes."
            ) from None
        self._variables[variable._id] = variable
        return variable

    # -- running ------------------------------------------------------------------------

    def run(self, fn, args=(), kwargs=None, options=None):
        """Runs ``fn(*args, **kwargs)`` on the distributed values, in global view.

        Call it inside a ``tapejax.function`` so the step is one program for all
        devices. Variables ``fn`` creates belong to this strategy; inside ``fn``,
        ``get_replica_context()`` is a ``ReplicaContext`` standing for all replicas at
        once (see its class). ``options`` (``RunOptions``) is accepted and unused.

        Returns:
          What ``fn`` returns.
        """
        del options  # TF's RunOptions are TPU-only
        with self.scope():
            _scopes.contexts.append(self._run_context())
            try:
                result = fn(*args, **(kwargs or {}))
            finally:
                _scopes.contexts.pop()
        self._constrain_traced_variables()
        return result

    def _constrain_traced_variables(self) -> None:
        # Inside a trace the new values of our Variables are tracers: tell XLA where they
        # live, so the compiled step returns them on their sharding (no copy afterwards).
        for variable in list(self._variables.values()):
            value = placement._SLOT.__get__(variable)
            if isinstance(value, jax.core.Tracer):
                sharding = placement.sharding_of(variable)
                placement._SLOT.__set__(variable, jax.lax.with_sharding_constraint(value, sharding))

    def reduce(self, reduce_op, value, axis):
        """Reduces ``value`` across replicas, and along ``axis`` if given (``Strategy.reduce``).

        With ``axis=None`` the value is returned as it is: in global view a value ``run``
        returns is already the cross-replica result (see the class warning). With an
        ``axis``, the sum or mean over that axis of the global value, which is what TF
        computes over all replicas' slices.
        """
        op = _reduce_op(reduce_op)
        t = value if type(value) is Tensor else convert_to_tensor(value)
        if axis is None:
            return t
        from ..ops import reduction_ops

        reduce = reduction_ops.reduce_sum if op is ReduceOp.SUM else reduction_ops.reduce_mean
        return reduce(t, axis=axis)

    def gather(self, value, axis):
        """The replicas' values joined along ``axis`` (``Strategy.gather``).

        TF joins each replica's part of ``value`` in replica order; a global-view value
        of the batch along its first axis already is that join, so it is returned as is.

        Args:
          value: a nest of tensors that ``run`` returned, per example along axis 0.
          axis: 0 (or ``-rank``); any axis with one replica.

        Returns:
          ``value``'s tensors, as Tensors.

        Raises:
          NotImplementedError: another axis with several replicas (global view cannot
            rebuild the per-replica parts to join along it).
        """
        return nest.map_structure(lambda x: _gathered(self, x, axis, "Strategy.gather"), value)

    # -- input --------------------------------------------------------------------------

    def experimental_distribute_dataset(self, dataset, options=None):
        """Splits each batch of ``dataset`` over the devices along its first axis.

        ``dataset`` is any iterable of batches: NumPy/JAX arrays, Tensors, or nested
        tuples, lists and dicts of them. Each batch comes out with the same structure,
        as Tensors whose values are sharded ``jax.Array``s. A batch whose first axis is
        not divisible by ``num_replicas_in_sync`` (a last, smaller batch) is replicated
        instead: same numbers, no parallelism for that step.
        """
        del options
        return DistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """The global batches of the per-replica batches ``dataset_fn`` makes.

        ``dataset_fn`` is called once, with an ``InputContext(num_input_pipelines=1,
        input_pipeline_id=0, num_replicas_in_sync=n)``, and makes per-replica batches
        (``ctx.get_per_replica_batch_size(global_batch)``), as in TF. TF hands its n
        replicas n consecutive elements per step; in global view the step sees them
        joined along the first axis, each global batch split over the devices as
        ``experimental_distribute_dataset`` splits it. At the end, fewer than n elements
        make the last global batch, where TF gives the replicas without one an empty
        batch: the same examples either way.

        Args:
          dataset_fn: a function of an ``InputContext`` returning an iterable of
            per-replica batches (a ``tapejax.data.Dataset``, or any iterable of nests
            of arrays).
          options: ``InputOptions``; ``PER_REPLICA`` replication is refused.

        Returns:
          A ``DistributedDataset`` of global batches.

        Raises:
          NotImplementedError: ``options`` asks for ``InputReplicationMode.PER_REPLICA``
            (one pipeline per replica, which global view has no place for).
        """
        if options is not None and (
            options.experimental_replication_mode is InputReplicationMode.PER_REPLICA
        ):
            raise NotImplementedError(
                "InputOptions(experimental_replication_mode=PER_REPLICA) is not "
                "supported by tapejax.distribute: a step sees one global batch per "
                "process, so there is one input pipeline per process (PER_WORKER)."
            )
        n = self.num_replicas_in_sync
        pipelines = jax.process_count()
        context = InputContext(
            num_input_pipelines=pipelines,
            input_pipeline_id=jax.process_index(),
            num_replicas_in_sync=n,
        )
        # Each process joins the per-replica batches of its own devices.
        return DistributedDataset(
            self, dataset_fn(context), per_replica_batches=max(n // pipelines, 1)
        )

    def experimental_distribute_datasets_from_function(self, dataset_fn, options=None):
        """The former name of ``distribute_datasets_from_function``."""
        return self.distribute_datasets_from_function(dataset_fn, options)

    def experimental_distribute_values_from_function(self, value_fn):
        """The global value of ``value_fn``'s per-replica values.

        TF calls ``value_fn`` once per replica, with a ``ValueContext``, and gives each
        replica's step its value. In global view the step sees the values of all
        replicas joined along their first axis (batch-split over the devices), as a batch
        of ``distribute_datasets_from_function``. With one replica, the value itself.

        Args:
          value_fn: a function of a ``ValueContext`` returning a nest of arrays.

        Returns:
          The values, as Tensors placed as a distributed batch.

        Raises:
          NotImplementedError: with several replicas, scalar values (per-replica
            scalars have no global-view value).
        """
        n = self.num_replicas_in_sync
        values = [value_fn(ValueContext(i, n)) for i in range(n)]
        return self.distribute_batch(_join_replica_values(values, "a value_fn's values"))

    def distribute_batch(self, batch):
        """One batch (any nest of arrays) placed as ``experimental_distribute_dataset`` does."""
        return nest.map_structure(self._distribute_leaf, batch)

    def _distribute_leaf(self, x):
        if type(x) is Tensor:
            value = x._value
        elif isinstance(x, (np.ndarray, np.generic)) and (
            x.dtype.kind in "biufc" or x.dtype.isbuiltin == 2  # ml_dtypes: bfloat16 & co
        ):
            # Kept on the host until placed: each device receives its slice only.
            value = np.asarray(x).astype(canonical_np_dtype(x.dtype), copy=False)
        else:  # JAX arrays, Python numbers and lists: TF's conversion rules and errors
            value = convert_to_tensor(x)._value
        if value.ndim == 0:
            return wrap(jax.device_put(value, self._replicated))
        if jax.process_count() > 1:
            if not isinstance(value, np.ndarray):
                value = np.asarray(value)
            # Each process feeds its own slice of the global batch.
            return wrap(jax.make_array_from_process_local_data(self.batch_sharding, value))
        if value.shape[0] % self.num_replicas_in_sync:
            return wrap(jax.device_put(value, self._replicated))
        return wrap(jax.device_put(value, self.batch_sharding))

    def experimental_local_results(self, value):
        """The per-device pieces of ``value`` as a tuple of Tensors, in mesh order.

        A batch-sharded value gives each device's slice; a replicated one a copy per
        device; anything else ``(value,)``.
        """
        array = getattr(value, "_value", value)
        if not isinstance(array, jax.Array) or isinstance(array, jax.core.Tracer):
            return (value,)
        by_device = {s.device: s.data for s in array.addressable_shards}
        return tuple(wrap(by_device[d]) for d in self._mesh.devices.flat if d in by_device)


class MirroredStrategy(Strategy):
    """Synchronous data parallelism over a device mesh (``tf.distribute.MirroredStrategy``).

    Variables created in ``scope()`` are replicated on every device; batches from
    ``experimental_distribute_dataset`` are split along their first axis; a step run
    with ``run`` inside a ``tapejax.function`` is compiled once for all devices, and
    XLA reduces the gradients. Tensor parallelism: give a large Variable a
    ``PartitionSpec`` over a mesh axis (``shard``, or ``partition_rules``).

    Args:
      devices: JAX devices or TF device names; default all of ``jax.devices()`` (on
        every host after ``jax.distributed.initialize``). Makes a 1-D mesh ``("batch",)``.
      cross_device_ops: accepted for TF compatibility and unused: XLA chooses the
        all-reduce.
      mesh: a ``jax.sharding.Mesh`` to use instead of ``devices`` (e.g. axes
        ``("batch", "model")`` for data plus tensor parallelism).
      batch_axis: the mesh axis (or tuple of axes) batches are split over; default the
        mesh's first axis.
      partition_rules: ``(regex, PartitionSpec)`` pairs: a Variable created in ``scope()``
        whose name matches a regex (``re.search``, first match wins) is sharded by that
        spec instead of replicated.

    Example:
        >>> import numpy as np, tapejax as tf
        >>> import tapejax.distribute
        >>> strategy = tf.distribute.MirroredStrategy()
        >>> with strategy.scope():
        ...     w = tf.Variable(tf.ones([3, 1]))
        >>> @tf.function
        ... def step(x, y):
        ...     def replica_step(x, y):
        ...         with tf.GradientTape() as tape:
        ...             loss = tf.reduce_mean((tf.matmul(x, w) - y) ** 2)
        ...         w.assign_sub(0.1 * tape.gradient(loss, w))
        ...         return loss
        ...     return strategy.reduce("SUM", strategy.run(replica_step, args=(x, y)), None)
        >>> data = [(np.ones((8, 3), np.float32), np.zeros((8, 1), np.float32))]
        >>> [round(float(step(x, y)), 3) for x, y in strategy.experimental_distribute_dataset(data)]
        [9.0]

    .. warning::
       Steps run in *global view*: ``run`` calls ``fn`` once with the whole distributed
       batch (XLA splits the work), where TF calls it once per replica with its slice.
       A loss averaged over the batch is therefore the global average and its gradient
       needs no all-reduce; ``reduce(op, value, axis=None)`` returns ``value`` as it is
       (it is already the cross-replica value). Code written TF's recommended way
       (``loss = sum(per_example) / global_batch_size``, ``reduce("SUM", ..., None)``)
       gives TF's numbers; a per-replica ``reduce_mean`` whose gradients TF would sum
       over replicas gives the mean instead (``num_replicas_in_sync`` times smaller).
    """

    def __init__(
        self,
        devices=None,
        cross_device_ops=None,
        *,
        mesh: Mesh | None = None,
        batch_axis=None,
        partition_rules=(),
    ):
        del cross_device_ops  # XLA picks the collective algorithm
        if mesh is not None and devices is not None:
            raise ValueError("Pass either `devices` or `mesh` to MirroredStrategy, not both.")
        if mesh is None:
            mesh = Mesh(np.array(_resolve_devices(devices)), ("batch",))
        self._init_mesh(mesh, batch_axis, partition_rules)

    def __repr__(self) -> str:
        return f"<tapejax.distribute.MirroredStrategy mesh={dict(self._mesh.shape)}>"


class DistributedValues:
    """The type of TF's per-replica values (``tf.distribute.DistributedValues``).

    In global view no value is per-replica: ``run`` returns, and distributed datasets
    yield, plain Tensors whose ``jax.Array``s are sharded over the devices. No tapejax
    value is a ``DistributedValues``, so TF code's ``isinstance(x, DistributedValues)``
    takes its plain-Tensor branch, which is right for a global value.

    Raises:
      NotImplementedError: on construction (tapejax has no per-replica values).
    """

    def __init__(self, values):
        del values
        raise NotImplementedError(
            "tapejax.distribute has no DistributedValues: a step runs in global view, "
            "where a distributed value is one Tensor sharded over the devices."
        )


class DistributedDataset:
    """An iterable of batches split over a strategy's devices (TF's ``DistributedDataset``).

    Made by ``experimental_distribute_dataset`` (each input batch is a global batch) or
    ``distribute_datasets_from_function`` (``per_replica_batches`` consecutive input
    batches make a global batch).
    """

    def __init__(self, strategy: Strategy, dataset, per_replica_batches: int = 1):
        self._strategy = strategy
        self._dataset = dataset
        self._per_replica_batches = per_replica_batches

    def __iter__(self) -> DistributedIterator:
        return DistributedIterator(self)

    @property
    def element_spec(self):
        """The spec of a global batch: the input's ``element_spec``.

        Joined per-replica batches have an unknown first dimension (the last global
        batch may be smaller). TF gives a ``PerReplicaSpec`` of per-replica specs instead.

        Raises:
          NotImplementedError: the input is not a ``tapejax.data.Dataset`` (a plain
            iterable has no spec).
        """
        spec = getattr(self._dataset, "element_spec", None)
        if spec is None:
            raise NotImplementedError(
                "element_spec of a DistributedDataset is the element_spec of its input, "
                f"and {type(self._dataset).__name__} has none: distribute a "
                "tapejax.data.Dataset."
            )
        if self._per_replica_batches == 1:
            return spec
        from ..data import structure
        from ..tensor_spec import TensorSpec

        def unknown_batch(s):
            if not s.shape.rank:
                return s
            return TensorSpec([None, *s.shape.as_list()[1:]], s.dtype, s.name)

        return structure.map_structure(unknown_batch, spec)


class DistributedIterator:
    """An iterator over a ``DistributedDataset`` (``tf.distribute.DistributedIterator``)."""

    def __init__(self, dataset: DistributedDataset):
        self._dataset = dataset
        self._it = iter(dataset._dataset)

    def __iter__(self):
        return self

    def __next__(self):
        count = self._dataset._per_replica_batches
        batch = next(self._it)
        if count > 1:
            batches = [batch]
            for _ in range(count - 1):
                try:
                    batches.append(next(self._it))
                except StopIteration:
                    break
            batch = _join_replica_values(batches, "a dataset_fn's elements")
        return self._dataset._strategy.distribute_batch(batch)

    def get_next(self):
        """The next global batch.

        Raises:
          OutOfRangeError: at the end (TF's text).
        """
        from ..errors import OutOfRangeError

        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        """The next global batch as a ``tapejax.experimental.Optional``, empty at the end."""
        from ..optional import Optional

        try:
            return Optional.from_value(next(self))
        except StopIteration:
            return Optional.empty(self.element_spec)

    @property
    def element_spec(self):
        """The dataset's ``element_spec`` (see ``DistributedDataset.element_spec``)."""
        return self._dataset.element_spec


def _join_replica_values(values: list, what: str):
    """One global value from per-replica ones: joined along their first axis."""
    if len(values) == 1:
        return values[0]

    def join(*leaves):
        arrays = [np.asarray(x._value if type(x) is Tensor else x) for x in leaves]
        if arrays[0].ndim == 0:
            raise NotImplementedError(
                f"tapejax.distribute cannot join {what} into a global value: they are "
                "scalars, one per replica. Global view joins per-replica values along "
                "their first axis; give each replica a batch (rank >= 1)."
            )
        return np.concatenate(arrays)

    return nest.map_structure(join, *values)


def _reduce_op(reduce_op) -> ReduceOp:
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    if isinstance(reduce_op, str) and reduce_op.upper() in ("SUM", "MEAN"):
        return ReduceOp(reduce_op.upper())
    raise ValueError(
        f"reduce_op must be ReduceOp.SUM, ReduceOp.MEAN, 'SUM' or 'MEAN'; got {reduce_op!r}"
    )


def _device_name(device) -> str:
    return (
        f"/job:localhost/replica:0/task:{device.process_index}"
        f"/device:{device.platform.upper()}:{device.id}"
    )


class StrategyExtended:
    """A strategy's devices and flags (``tf.distribute.StrategyExtended``).

    TF's per-replica methods (``call_for_each_replica``, ``update``, ``reduce_to``) are
    not here: in global view the step runs once.
    """

    def __init__(self, container_strategy: Strategy):
        self._container_strategy = container_strategy

    @property
    def worker_devices(self) -> tuple:
        """The names of the strategy's devices, in mesh order, as TF names them."""
        return tuple(_device_name(d) for d in self._container_strategy.mesh.devices.flat)

    @property
    def parameter_devices(self) -> tuple:
        """Where Variables live: every device of the mesh."""
        return self.worker_devices

    @property
    def experimental_require_static_shapes(self) -> bool:
        return False

    @property
    def experimental_between_graph(self) -> bool:
        return False

    @property
    def experimental_should_init(self) -> bool:
        return True

    @property
    def should_checkpoint(self) -> bool:
        """Whether this process writes checkpoints: the first process only."""
        return jax.process_index() == 0

    @property
    def should_save_summary(self) -> bool:
        """Whether this process writes summaries: the first process only."""
        return jax.process_index() == 0


class _DefaultExtended(StrategyExtended):
    @property
    def worker_devices(self) -> tuple:
        raise RuntimeError("worker_devices() method unsupported by default tf.distribute.Strategy.")

    @property
    def parameter_devices(self) -> tuple:
        raise RuntimeError(
            "parameter_devices() method unsupported by default tf.distribute.Strategy."
        )

    @property
    def experimental_between_graph(self) -> bool:
        raise NotImplementedError("must be implemented in descendants")


class ReplicaContext:
    """What ``get_replica_context()`` returns inside ``run`` (``tf.distribute.ReplicaContext``).

    TF runs ``fn`` once per replica, each with its own context. In global view ``fn``
    runs once on the global batch, and its context stands for all replicas at once:
    ``num_replicas_in_sync`` is the strategy's count (so ``x / num_replicas_in_sync``
    is TF's number), and a value computed from the global batch already is the
    cross-replica value (see ``all_reduce``). Outside any strategy, the default
    strategy's context: one replica, id 0.

    Args:
      strategy: the strategy this context belongs to.
      replica_id_in_sync_group: the replica's id; None for the global-view context of
        ``run``, which stands for every replica.
    """

    def __init__(self, strategy: Strategy, replica_id_in_sync_group=None):
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group

    @property
    def strategy(self) -> Strategy:
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's id: an int32 Tensor 0 with one replica (TF's).

        Raises:
          NotImplementedError: with several replicas: the step runs once for all of
            them, so there is no one replica id to give.
        """
        if self._replica_id is not None:
            return self._replica_id
        self._refuse_per_replica("replica_id_in_sync_group")
        from ..conversion import constant

        return constant(0, "int32")

    def _refuse_per_replica(self, what: str) -> None:
        if self.num_replicas_in_sync > 1:
            raise NotImplementedError(
                f"ReplicaContext.{what} is not supported by tapejax.distribute with "
                f"{self.num_replicas_in_sync} replicas: strategy.run calls the step once "
                "on the global batch (global view), not once per replica, so there is no "
                "per-replica value to give. Write the step on the global batch."
            )

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` reduced across replicas: in global view, ``value`` itself.

        The step sees the global batch, so a value reduced over it already is TF's
        cross-replica value for TF's usual pairings: ``SUM`` of a sum over the batch
        (a loss sum, a count, a gradient of ``sum(per_example) / global_batch``) and
        ``MEAN`` of a mean over the batch. Other pairings differ from TF with several
        replicas: ``SUM`` of a batch mean, or of a value that does not depend on the
        batch (TF adds one copy per replica), gives the value once.

        Args:
          reduce_op: ``ReduceOp.SUM``, ``ReduceOp.MEAN`` or their names.
          value: a nest of tensors.
          options: ``CommunicationOptions``, accepted and unused.

        Returns:
          ``value``'s tensors, as Tensors.

        Raises:
          ValueError: an unknown ``reduce_op``.
        """
        del options  # XLA chooses the collective
        _reduce_op(reduce_op)
        return nest.map_structure(_as_tensor, value)

    def all_gather(self, value, axis, options=None):
        """The replicas' values joined along ``axis``: in global view, ``value`` itself.

        TF joins the replicas' slices in replica order; a value of the global batch
        along its first axis already is that join.

        Args:
          value: a nest of tensors, per example along axis 0.
          axis: 0 (or ``-rank``); any axis with one replica.
          options: ``CommunicationOptions``, accepted and unused.

        Raises:
          NotImplementedError: another axis with several replicas (global view cannot
            rebuild the per-replica slices to join along it).
        """
        del options
        return nest.map_structure(
            lambda x: _gathered(self._strategy, x, axis, "ReplicaContext.all_gather"), value
        )

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Calls ``merge_fn(strategy, *args, **kwargs)`` in cross-replica context.

        Raises:
          NotImplementedError: with several replicas (there are no per-replica values
            to merge).
        """
        self._refuse_per_replica("merge_call")
        _scopes.contexts.append(None)
        try:
            return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            _scopes.contexts.pop()


def _as_tensor(x):
    return x if type(x) is Tensor else convert_to_tensor(x)


def _gathered(strategy: Strategy, x, axis, what: str):
    t = _as_tensor(x)
    if strategy.num_replicas_in_sync > 1 and axis not in (0, -t.shape.rank):
        raise NotImplementedError(
            f"{what} along axis {axis} is not supported by tapejax.distribute with "
            "several replicas: in global view the value is the global batch, which is "
            "the replicas' values joined along axis 0 only."
        )
    return t


class OneDeviceStrategy(Strategy):
    """Everything on one device (``tf.distribute.OneDeviceStrategy``).

    Variables created in ``scope()`` and distributed batches are placed on ``device``;
    ``run`` calls the step with them; one replica, so ``reduce`` and the replica context
    give TF's numbers exactly.

    Args:
      device: a TF device name (``"/gpu:0"``) or a JAX device.

    Raises:
      ValueError: the device does not exist.
    """

    def __init__(self, device):
        self._init_mesh(Mesh(np.array(_resolve_devices([device])), ("batch",)))

    def __repr__(self) -> str:
        return f"<tapejax.distribute.OneDeviceStrategy device={self.extended.worker_devices[0]}>"


def has_strategy() -> bool:
    """Whether a strategy other than the default is current (``tf.distribute.has_strategy``)."""
    return not isinstance(get_strategy(), _DefaultStrategy)


class _DefaultStrategy(Strategy):
    """TF's default strategy: one device, and Variables are left where they are."""

    def __init__(self):
        self._init_mesh(Mesh(np.array([jax.devices()[0]]), ("batch",)))
        self._extended = _DefaultExtended(self)
        self._replica_context = ReplicaContext(self, 0)

    def _adopt(self, variable) -> None:
        pass

    def _scope_context(self):
        return self._replica_context  # TF's default scope stays in replica context

    def _run_context(self):
        return self._replica_context

    def __repr__(self) -> str:
        return "<tapejax.distribute default strategy>"


_default: list = []


def _default_strategy() -> _DefaultStrategy:
    if not _default:
        _default.append(_DefaultStrategy())
    return _default[0]


def get_strategy():
    """The strategy whose ``scope()`` is open in this thread (``tf.distribute.get_strategy``).

    Outside any scope, the strategy ``experimental_set_strategy`` set, else TF's default
    strategy: one replica on the first device, whose ``run`` calls the function and
    whose scope places nothing.
    """
    current = _current()
    return current if current is not None else _default_strategy()


def experimental_set_strategy(strategy) -> None:
    """Makes ``strategy`` current everywhere, as entering its scope for good.

    ``None`` (or the default strategy) goes back to the default strategy
    (``tf.distribute.experimental_set_strategy``).

    Raises:
      RuntimeError: called inside a strategy's ``scope()`` (TF's text).
    """
    if _scopes.stack:
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    _global_strategy.clear()
    if strategy is not None and not isinstance(strategy, _DefaultStrategy):
        _global_strategy.append(strategy)


def get_replica_context():
    """The current ``ReplicaContext``, or None in cross-replica context
    (``tf.distribute.get_replica_context``).

    Inside ``run``: the strategy's (global-view) replica context. Inside a strategy's
    ``scope()`` (or after ``experimental_set_strategy``), outside ``run``: None.
    Otherwise the default strategy's context (one replica, id 0).
    """
    if _scopes.contexts:
        return _scopes.contexts[-1]
    if _global_strategy:
        return None
    return _default_strategy()._replica_context


def in_cross_replica_context() -> bool:
    """Whether code runs in a strategy's scope but not in its ``run``
    (``tf.distribute.in_cross_replica_context``)."""
    return get_replica_context() is None
