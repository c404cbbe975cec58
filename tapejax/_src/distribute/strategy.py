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

__all__ = ["MirroredStrategy", "ReduceOp", "get_strategy", "has_strategy"]


class ReduceOp(enum.Enum):
    """How ``Strategy.reduce`` combines values (``tf.distribute.ReduceOp``)."""

    SUM = "SUM"
    MEAN = "MEAN"


class _Scopes(threading.local):
    def __init__(self):
        self.stack: list = []


_scopes = _Scopes()


def _current():
    return _scopes.stack[-1] if _scopes.stack else None


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


class MirroredStrategy:
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
    def batch_sharding(self) -> NamedSharding:
        """The sharding of distributed batches: first axis split over the batch axes."""
        return NamedSharding(self._mesh, self._batch_spec)

    def __repr__(self) -> str:
        return f"<tapejax.distribute.MirroredStrategy mesh={dict(self._mesh.shape)}>"

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
        try:
            yield self
        finally:
            _scopes.stack.pop()

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
        devices. Variables ``fn`` creates belong to this strategy. Returns what ``fn``
        returns.
        """
        del options
        with self.scope():
            result = fn(*args, **(kwargs or {}))
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


class DistributedDataset:
    """An iterable of batches split over a strategy's devices (TF's ``DistributedDataset``)."""

    def __init__(self, strategy: MirroredStrategy, dataset):
        self._strategy = strategy
        self._dataset = dataset

    def __iter__(self):
        for batch in self._dataset:
            yield self._strategy.distribute_batch(batch)


def _reduce_op(reduce_op) -> ReduceOp:
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    if isinstance(reduce_op, str) and reduce_op.upper() in ("SUM", "MEAN"):
        return ReduceOp(reduce_op.upper())
    raise ValueError(
        f"reduce_op must be ReduceOp.SUM, ReduceOp.MEAN, 'SUM' or 'MEAN'; got {reduce_op!r}"
    )


def has_strategy() -> bool:
    """Whether a strategy's ``scope()`` is open in this thread (``tf.distribute.has_strategy``)."""
    return _current() is not None


class _DefaultStrategy(MirroredStrategy):
    """TF's default strategy: one device, and Variables are left where they are."""

    def __init__(self):
        super().__init__(devices=[jax.devices()[0]])

    def _adopt(self, variable) -> None:
        pass

    def __repr__(self) -> str:
        return "<tapejax.distribute default strategy>"


_default: list = []


def get_strategy():
    """The strategy whose ``scope()`` is open in this thread (``tf.distribute.get_strategy``).

    Outside any scope, TF's default strategy: one replica on the first device, whose
    ``run`` calls the function and whose scope places nothing.
    """
    current = _current()
    if current is not None:
        return current
    if not _default:
        _default.append(_DefaultStrategy())
    return _default[0]
