"""``tf.data``'s random source (``Dataset.random``, TF's exact Philox stream),
``rejection_resample`` (TF's Python, transcribed), ``save``/``load`` (``saving.py``), and
the Dataset methods tapejax does not provide, which raise a ``NotImplementedError`` naming what is missing.

``Dataset.random`` must reproduce TF's values for a seed; where it cannot (no seed), it
draws fresh entropy, never a fixed stream.
"""

from __future__ import annotations

import os

import numpy as np

from .. import dtypes
from ..ops._philox import _philox
from ..tensor_spec import TensorSpec
from . import structure
from .structure import INFINITE

_MASK32 = 0xFFFFFFFF
_MAXINT32 = 2**31 - 1
_BLOCK = 256  # Philox counters computed at a time (4 numbers each)


def philox_stream(seed: int, seed2: int):
    """TF's ``SingleSampleAdapter<PhiloxRandom>(PhiloxRandom(seed, seed2))``: its uint32s,
    in order (key from ``seed``, counter words 2-3 from ``seed2``)."""
    key = (seed & _MASK32, (seed >> 32) & _MASK32)
    hi = (seed2 & _MASK32, (seed2 >> 32) & _MASK32)
    start = 0
    while True:
        c = np.arange(start, start + _BLOCK, dtype=np.uint64)
        counter = np.stack(
            [c & np.uint64(_MASK32), c >> np.uint64(32), np.full_like(c, hi[0]),
             np.full_like(c, hi[1])],
            axis=1,
        )  # fmt: skip
        yield from _philox(counter, key).reshape(-1).tolist()
        start += _BLOCK


def tf_seeds(seed) -> tuple[int, int]:
    """TF's ``random_seed.get_seed(seed)`` then its dataset kernels' ``RandomSeeds``: the
    pair a Philox stream starts from. Where TF's pair is not reproducible (no op seed),
    fresh entropy."""
    from ..ops import random_state

    global_seed = random_state._global_seed[0]
    if seed is None:
        return tuple(int(v) for v in np.frombuffer(os.urandom(16), np.uint64))
    # TF truncates both seeds to 31 bits (``_truncate_seed``); the default global seed is
    # left as it is
    seed = int(np.asarray(seed)) % _MAXINT32
    if global_seed is None:
        first = random_state._DEFAULT_GLOBAL_SEED
    else:
        first = int(global_seed) % _MAXINT32
    if (first, seed) == (0, 0):
        return 0, _MAXINT32
    return first, seed


class Sampling:
    """The random source and resampling methods of ``Dataset``, and the methods tapejax
    does not provide."""

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """An infinite dataset of pseudorandom int64 scalars in ``[0, 2**32)``
        (``tf.data.Dataset.random``): TF's values for a seed (its Philox stream, seeded as
        TF seeds it from ``seed`` and ``tf.random.set_seed``'s global seed).

        Each ``iter`` (each epoch) restarts the same stream unless
        ``rerandomize_each_iteration``; then each epoch of this Dataset object draws new
        seeds from a stream of the first ones, as TF's seed generator does.

        Args:
            seed: the op seed (an int); None draws fresh entropy.
            rerandomize_each_iteration: a new stream each epoch.
            name: unused (TF's tf.data op name).

        Returns:
            A Dataset of int64 scalars (int32 without JAX's x64, which cannot hold values
            of 2**31 and more: tapejax's x64 error then).

        Example:
            >>> import jax
            >>> jax.config.update("jax_enable_x64", True)  # values up to 2**32 - 1
            >>> import tapejax as tf
            >>> [int(x) for x in tf.data.Dataset.random(seed=4).take(2)]
            [3128586565, 2023892699]
        """
        from .dataset import Dataset

        # 64-bit values JAX cannot hold without x64: tapejax's warning or error, now
        structure.to_tensor(np.asarray([0, _MASK32], np.int64))
        first = tf_seeds(seed)
        if first == (0, 0):  # TF's kernel: seeds (0, 0) mean fresh ones
            first = tuple(int(v) for v in np.frombuffer(os.urandom(16), np.uint64))
        held = structure.held_dtype(dtypes.int64).as_numpy_dtype
        seeds = []  # the seed generator's stream, for rerandomize_each_iteration

        def make_iterator():
            # the seeds are drawn when the iterator is made, not at its first element:
            # TF's ``repeat`` makes one it never reads (see ``repeat``)
            if rerandomize_each_iteration:
                if not seeds:
                    seeds.append(philox_stream(*first))
                pair = (next(seeds[0]), next(seeds[0]))
            else:
                pair = first
            return (np.asarray(v, held) for v in philox_stream(*pair))

        spec = TensorSpec([], structure.held_dtype(dtypes.int64))
        return Dataset(make_iterator, spec, INFINITE, prefetchable=True)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
        """Elements resampled so that their classes follow ``target_dist``, each as
        ``(class, element)`` (``tf.data.Dataset.rejection_resample``), built as TF's Python
        builds it: a ``filter`` accepting an element of class ``c`` with probability
        ``acceptance[c]``, mixed by ``sample_from_datasets`` with the original elements.
        ``initial_dist`` None estimates it from the classes seen (batches of 32, counts
        starting at 10), as TF.

        Args:
            class_func: element -> a scalar int32 class in ``[0, num_classes)``.
            target_dist: the wanted class probabilities, ``[num_classes]``.
            initial_dist: the input's class probabilities, or None to estimate them.
            seed: the seed of the accept draws and of the mixing.
            name: unused (TF's tf.data op name).

        Returns:
            A Dataset of ``(class, element)``.

        .. warning:: Which elements are kept is not TF's (its random draws cannot be
           reproduced); the acceptance probabilities, mixing ratio and element spec are.
        """
        from .dataset import Dataset

        tf = _ops_namespace()
        target_dist_t = tf.cast(structure.to_tensor(target_dist), dtypes.float32)
        if initial_dist is not None:
            initial_dist_t = tf.cast(structure.to_tensor(initial_dist), dtypes.float32)
            acceptance_dist, prob_of_original = _acceptance_with_mixing(
                initial_dist_t, target_dist_t
            )
            initial_dist_ds = Dataset.from_tensors(initial_dist_t).repeat()
            acceptance_dist_ds = Dataset.from_tensors(acceptance_dist).repeat()
            prob_of_original_ds = Dataset.from_tensors(prob_of_original).repeat()
        else:
            initial_dist_ds = _estimate_initial_dist_ds(target_dist_t, self.map(class_func))
            both = initial_dist_ds.map(lambda i: _acceptance_with_mixing(i, target_dist_t))
            acceptance_dist_ds = both.map(lambda a, _: a)
            prob_of_original_ds = both.map(lambda _, p: p)
        filtered_ds = _filter_ds(self, acceptance_dist_ds, initial_dist_ds, class_func, seed)
        filtered_ds = filtered_ds.prefetch(3)
        prob_original_static = None
        if initial_dist is not None:
            prob_original_static = np.min(target_dist_t.numpy() / initial_dist_t.numpy())

        def add_class_value(*x):
            if len(x) == 1:
                return class_func(*x), x[0]
            return class_func(*x), x

        if prob_original_static == 1:
            return self.map(add_class_value)
        if prob_original_static == 0:
            return filtered_ds
        return Dataset.sample_from_datasets(
            [self.map(add_class_value), filtered_ds],
            weights=prob_of_original_ds.map(lambda prob: [(prob, 1.0 - prob)]),
            seed=seed,
            stop_on_empty_dataset=True,
        )

    # -- not provided ---------------------------------------------------------------------

    def fingerprint(self):
        """Not provided: TF's fingerprint hashes the dataset's graph, which tapejax's
        Python pipeline does not have."""
        raise NotImplementedError(
            "tapejax.data: Dataset.fingerprint is not provided (it hashes a tf.data graph; "
            "tapejax's pipeline is Python)"
        )

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """Writes the elements under the directory ``path`` in a tapejax-only format
        (``tf.data.Dataset.save``): NumPy ``.npz`` shards and the element spec, which
        ``Dataset.load`` reads back; TF cannot read them (``docs/compat.md``).

        Args:
            path: the directory (made if missing; an earlier save there is replaced).
            compression: None, or ``"GZIP"``/``"SNAPPY"`` (both: zip-deflated shards).
            shard_func: element -> the int index of its shard (one shard when None).
            checkpoint_args: not provided (``NotImplementedError``).
        """
        from .saving import save

        save(self, path, compression, shard_func, checkpoint_args)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
        """The elements ``Dataset.save`` wrote under ``path`` (``tf.data.Dataset.load``);
        ``reader_func`` gets a Dataset of the shards' Datasets (TF's default: them
        interleaved, ``cycle_length`` the CPU count).

        Raises:
            NotFoundError: nothing saved at ``path`` (when iterated, if ``element_spec``
                is given), as TF's.
            NotImplementedError: ``wait=True``.
        """
        from .saving import load

        return load(path, element_spec, compression, reader_func, wait)

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
        """Not provided: TF's snapshot files, and a snapshot's resumable writes."""
        raise NotImplementedError(_FILES.format(what="Dataset.snapshot"))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """Not provided: its elements are file names, and tapejax has no string Tensors."""
        raise NotImplementedError(
            "tapejax.data: Dataset.list_files is not provided: its elements are strings, "
            "and tapejax has no string Tensors. List the files in Python (glob.glob) and "
            "read them into a Dataset with from_generator."
        )

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=None, name=None):
        """Not provided: tapejax has no RaggedTensor."""
        raise NotImplementedError(
            "tapejax.data: Dataset.ragged_batch is not provided: tapejax has no "
            "RaggedTensor. Use padded_batch instead."
        )

    def sparse_batch(self, batch_size, row_shape, name=None):
        """Not provided: tapejax's Datasets hold no SparseTensor components."""
        raise NotImplementedError(
            "tapejax.data: Dataset.sparse_batch is not provided: tapejax's Datasets hold no "
            "SparseTensor components. Use padded_batch, then tf.sparse.from_dense."
        )


_FILES = (
    "tapejax.data: {what} is not provided: it reads or writes TF's tf.data snapshot files "
    "(protobuf), which tapejax does not implement. Keep the elements in memory (cache()) "
    "or save() them (tapejax's own format) and load() them."
)


def _ops_namespace():
    import tapejax

    return tapejax


def _target_to_initial_ratio(initial_probs, target_probs):
    denom = initial_probs + np.finfo(initial_probs.dtype.as_numpy_dtype).tiny
    return target_probs / denom


def _acceptance_with_mixing(initial_probs, target_probs):
    """TF's ``_calculate_acceptance_probs_with_mixing``: per-class acceptance
    probabilities, and the probability of drawing an original element."""
    tf = _ops_namespace()
    ratio_l = _target_to_initial_ratio(initial_probs, target_probs)
    max_ratio = tf.reduce_max(ratio_l)
    m = tf.reduce_min(ratio_l)
    return (ratio_l - m) / (max_ratio - m), m


def _estimate_data_distribution(c, num_examples_per_class_seen):
    tf = _ops_namespace()
    num_classes = num_examples_per_class_seen.shape[0]
    num_examples_per_class_seen = num_examples_per_class_seen + tf.reduce_sum(
        tf.one_hot(c, num_classes, dtype=num_examples_per_class_seen.dtype), 0
    )
    estimate = tf.math.truediv(
        num_examples_per_class_seen, tf.reduce_sum(num_examples_per_class_seen)
    )
    return num_examples_per_class_seen, tf.cast(estimate, dtypes.float32)


def _estimate_initial_dist_ds(target_dist_t, class_values_ds, batch_size=32, smoothing=10):
    tf = _ops_namespace()
    num_classes = target_dist_t.shape[0]
    seen = tf.fill([num_classes], tf.constant(smoothing, dtypes.int64))

    def update_estimate_and_tile(num_examples_per_class_seen, c):
        updated, dist = _estimate_data_distribution(c, num_examples_per_class_seen)
        return updated, tf.tile(tf.expand_dims(dist, 0), [batch_size, 1])

    return class_values_ds.batch(batch_size).scan(seen, update_estimate_and_tile).unbatch()


def _filter_ds(dataset, acceptance_dist_ds, initial_dist_ds, class_func, seed):
    from .dataset import Dataset

    tf = _ops_namespace()

    def maybe_warn_on_large_rejection(accept_dist, initial_dist):
        # TF's tf.Print of a high rejection proportion is a log line only: not reproduced
        return accept_dist

    acceptance_dist_ds = Dataset.zip((acceptance_dist_ds, initial_dist_ds)).map(
        maybe_warn_on_large_rejection
    )

    def gather_and_copy(acceptance_prob, data):
        class_val = class_func(*data) if isinstance(data, tuple) else class_func(data)
        return class_val, tf.gather(acceptance_prob, class_val), data

    with_probs = Dataset.zip((acceptance_dist_ds, dataset)).map(gather_and_copy)

    def reject(unused_class_val, p, unused_data):
        return tf.random.uniform([], seed=seed, dtype=p.dtype) < p

    return with_probs.filter(reject).map(lambda class_value, _, data: (class_value, data))
