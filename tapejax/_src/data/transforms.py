"""The element-wise and ordering transformations of ``tapejax.data.Dataset``: ``map``,
``filter``, ``take``, ``shuffle``, ``interleave``... Each returns a new Dataset whose
iterator pulls from its input's; none runs a pipeline before it is iterated (except
the one abstract run of a user function that finds its output spec, as TF's trace).
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from .. import dtypes, execution
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap
from ..tensor_spec import TensorSpec
from . import compiled, structure
from .structure import INFINITE, UNKNOWN

_END = object()


def _traced_spec(dataset, fn, *extra_specs):
    """The spec of ``fn``'s result on ``dataset``'s elements: from one abstract run, or,
    when that fails (a function only eager code can run), from the first element with
    every dim unknown."""
    try:
        return structure.trace_output(fn, *extra_specs, dataset.element_spec)
    except Exception as error:  # noqa: BLE001 - any failure of the abstract run falls back
        return _first_element_spec(dataset, fn, extra_specs, error)


def _first_element_spec(dataset, fn, extra_specs, failure):
    """A callable giving the spec of ``fn``'s result on the first element, every dim
    unknown; ``failure`` (the abstract run's error) when there is no element."""

    def from_first_element():
        for element in dataset._elements():
            out = structure.run_eagerly(
                fn, *_extra_values(extra_specs), structure.to_tensors(element)
            )
            return structure.map_structure(
                lambda t: (
                    structure.component_spec(t, [None] * t.shape.rank)
                    if isinstance(t, Tensor)
                    else structure.as_specs(t)
                ),
                out,
            )
        raise failure

    return from_first_element


def _compiled_or_spec(dataset, fn):
    """``(traced, spec)``: ``fn`` traced once on ``dataset``'s elements and safe to run
    compiled (``compiled.Traced``), or None where it must run eagerly; and the spec of
    its result, as ``_traced_spec`` gives it."""
    try:
        traced = compiled.trace(fn, dataset.element_spec)
    except Exception as error:  # noqa: BLE001 - any failure of the trace runs eagerly
        return None, _first_element_spec(dataset, fn, (), error)
    if traced is None:
        return None, _traced_spec(dataset, fn)
    return (traced if traced.compiled else None), traced.out_spec


def _dtypes_of(specs):
    return structure.map_structure(lambda s: s.dtype, specs)


def _fold_trace(dataset, fn, initial, new_state_of, type_error):
    """``(traced, found, failure)`` for ``fn(state, element)`` (``scan``'s, ``reduce``'s)
    on ``dataset``'s elements from the state ``initial``, traced as TF traces it: again
    with the state's shapes relaxed (dims that changed unknown) while the new state's
    shapes (``new_state_of(found)``) differ from the state's. ``traced``: a
    ``compiled.Traced`` of ``fn`` on ``(state, element)`` where the last trace's specs
    are fully defined and it is safe to run compiled, else None; ``found``: the last
    trace's result, as specs; ``failure``: the error of a trace that failed (then the
    function runs eagerly). Raises TF's ``TypeError`` (``type_error(expected types,
    new state, found)``) where the new state's dtypes are not the initial state's."""
    state_spec = structure.spec_of(initial)
    while True:
        traced = None
        try:
            element_spec = dataset.element_spec
            specs = (state_spec, element_spec)
            leaves = structure.flatten(specs)
            if all(s.shape.is_fully_defined() for s in leaves):
                traced = compiled.Traced(lambda pair: fn(*pair), specs)
                found = traced.out_spec
            else:
                found = structure.trace_output(fn, state_spec, element_spec)
        except Exception as error:  # noqa: BLE001 - any failure of the trace runs eagerly
            return None, None, error
        new_state = new_state_of(found)
        new_leaves = structure.flatten(new_state)
        if not structure.same_structure(new_state, state_spec) or not all(
            isinstance(s, TensorSpec) for s in new_leaves
        ):
            return None, found, None  # runs eagerly, as before
        if any(a.dtype != b.dtype for a, b in zip(structure.flatten(state_spec), new_leaves)):
            raise TypeError(type_error(_dtypes_of(state_spec), new_state, found))
        relaxed = structure.relax(state_spec, new_state)
        if not any(
            a.shape.rank is not None
            and (b.shape.rank is None or a.shape.as_list() != b.shape.as_list())
            for a, b in zip(structure.flatten(state_spec), structure.flatten(relaxed))
        ):
            return (traced if traced is not None and traced.compiled else None), found, None
        state_spec = relaxed


def _extra_values(extra_specs):
    return [
        structure.map_structure(
            lambda s: structure.to_tensor(np.zeros(s.shape.as_list(), s.dtype.as_numpy_dtype)),
            spec,
        )
        for spec in extra_specs
    ]


def _tolerant(dataset, source, run, is_filter=False):
    """``dataset`` (``source`` mapped or filtered by ``run(element)``) made able to go on
    after an element failed, for ``ignore_errors``: its tolerant iterator yields
    ``selection.Failed`` for an element whose ``run`` (or whose production upstream)
    raised an error ``ignore_errors`` drops."""
    from .selection import Failed, swallowed, tolerant_elements

    def make_tolerant():
        for element in tolerant_elements(source):
            if isinstance(element, Failed):
                yield element
                continue
            try:
                out = run(element)
            except Exception as error:
                if not swallowed(error):
                    raise
                yield Failed(error)
                continue
            if not is_filter:
                yield out
            elif out:
                yield element

    dataset._make_tolerant = make_tolerant
    return dataset


def _map_output(map_func):
    return lambda element: structure.returned(structure.call(map_func, element))


def _check_count(value) -> int:
    return int(np.asarray(value.numpy() if hasattr(value, "numpy") else value))


class Transformations:
    """The methods of ``Dataset`` that transform elements or their order."""

    def map(
        self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
        use_unbounded_threadpool=False, name=None,
    ):  # fmt: skip
        """A dataset of ``map_func(element)`` (a tuple element is unpacked into arguments).

        As TF, ``map_func`` is traced once, when ``map`` is called, on abstract elements
        (its Python code runs then, not per element), and runs compiled by XLA on the
        host, over blocks of elements at a time where the input allows. Where the input's
        element spec leaves a dim unknown, it is traced twice when ``map`` is called (for
        the output spec), then once per element shape met, for 8 shapes at most. It runs
        eagerly per element instead, in order, where compiling could change its results:
        when it reads or assigns a Variable, draws stateful random numbers, holds an
        assertion or a ``numpy_function``/``py_function``/``tf.print``, or cannot be
        traced (Python control flow on tensor values, ``.numpy()``); and for elements of
        shapes past the 8th. ``num_parallel_calls``, ``deterministic`` and
        ``synchronous`` are accepted and change nothing (the order is always the input's).

        Example:
            >>> import tapejax as tf
            >>> ds = tf.data.Dataset.from_tensor_slices(([1, 2], [10, 20]))
            >>> [int(x) for x in ds.map(lambda a, b: a + b)]
            [11, 22]

        .. warning:: Where ``map_func`` runs eagerly (see above), its Python side effects
           happen at each element (and once or twice when ``map`` is called, to find the
           element spec), and each element costs its eager ops. Where it runs compiled,
           float results may differ from TF's in the last bits: XLA may fuse ops (a
           multiply and an add rounded once), as for any compiled program.
        """
        fn = _map_output(map_func)
        traced, spec = _compiled_or_spec(self, fn)

        def eager(element):
            return structure.to_host(structure.run_eagerly(fn, structure.to_tensors(element)))

        if traced is None:

            def make_iterator():
                for element in self._elements():
                    yield eager(element)

            return _tolerant(self._derive(make_iterator, spec), self, eager)

        prefetchable = self._prefetchable and traced.pure

        def make_compiled_iterator():
            for _, out in traced.results(iter(self._elements()), eager, prefetchable):
                yield out

        def one(element):
            return next(traced.results(iter((element,)), eager, False))[1]

        return _tolerant(
            self._derive(make_compiled_iterator, spec, prefetchable=prefetchable), self, one
        )

    def filter(self, predicate, name=None):
        """The elements for which ``predicate(element)`` is True (a scalar bool).

        ``predicate`` is traced once and runs compiled, or eagerly per element, as
        ``map``'s function (see ``map``).
        """
        fn = _map_output(predicate)
        traced, spec = _compiled_or_spec(self, fn)
        if not callable(spec) and spec != TensorSpec([], dtypes.bool_):
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                f"but its return type is {spec}."
            )

        def eager(element):
            return bool(structure.run_eagerly(fn, structure.to_tensors(element)))

        if traced is None:

            def make_iterator():
                for element in self._elements():
                    if eager(element):
                        yield element

            return _tolerant(self._derive(make_iterator, cardinality=UNKNOWN), self, eager, True)

        prefetchable = self._prefetchable and traced.pure

        def make_compiled_iterator():
            for element, keep in traced.results(iter(self._elements()), eager, prefetchable):
                if keep:
                    yield element

        def keeps(element):
            return bool(next(traced.results(iter((element,)), eager, False))[1])

        return _tolerant(
            self._derive(make_compiled_iterator, cardinality=UNKNOWN, prefetchable=prefetchable),
            self,
            keeps,
            True,
        )

    def take_while(self, predicate, name=None):
        """The elements up to the first for which ``predicate(element)`` is False.

        ``predicate`` is traced once and runs compiled, or eagerly per element, as
        ``map``'s function (see ``map``). No element after the first False is output,
        and the input is pulled past it only where that cannot be observed (an input
        that runs no Python code of the user's, evaluated in blocks).
        """
        fn = _map_output(predicate)
        traced, spec = _compiled_or_spec(self, fn)
        if not callable(spec) and not TensorSpec([], dtypes.bool_).is_compatible_with(spec):
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but "
                f"its return type is{spec}."
            )

        def eager(element):
            return bool(structure.run_eagerly(fn, structure.to_tensors(element)))

        if traced is None:

            def make_iterator():
                for element in self._elements():
                    if not eager(element):
                        return
                    yield element

            return self._derive(make_iterator, cardinality=UNKNOWN)

        prefetchable = self._prefetchable and traced.pure

        def make_compiled_iterator():
            for element, keep in traced.results(iter(self._elements()), eager, prefetchable):
                if not keep:
                    return
                yield element

        return self._derive(make_compiled_iterator, cardinality=UNKNOWN, prefetchable=prefetchable)

    def take(self, count, name=None):
        """The first ``count`` elements (all of them when ``count`` is -1)."""
        count = _check_count(count)
        n = self._card
        card = n if n == UNKNOWN or count < 0 else count if n == INFINITE else min(n, count)

        def make_iterator():
            it = self._elements()
            return it if count < 0 else itertools.islice(it, count)

        return self._derive(make_iterator, cardinality=card, prefetchable=self._prefetchable)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none when ``count`` is -1)."""
        count = _check_count(count)
        n = self._card
        card = n if n in (UNKNOWN, INFINITE) else 0 if count < 0 else max(0, n - count)

        def make_iterator():
            it = self._elements()
            if count < 0:
                for _ in it:
                    pass
                return iter(())
            return itertools.islice(it, count, None)

        return self._derive(make_iterator, cardinality=card, prefetchable=self._prefetchable)

    def repeat(self, count=None, name=None):
        """The elements ``count`` times over (forever when ``count`` is None or -1); each
        repetition iterates the input afresh (a ``shuffle`` before it reshuffles)."""
        count = -1 if count is None else _check_count(count)
        n = self._card
        if count < 0:
            card = 0 if n == 0 else INFINITE
        elif count == 0:
            card = 0
        else:
            card = n if n in (UNKNOWN, INFINITE) else count * n

        def make_iterator():
            done = 0
            elements = self._elements() if count != 0 else iter(())
            while count < 0 or done < count:
                empty = True
                for element in elements:
                    empty = False
                    yield element
                done += 1
                # TF makes the next input iterator as an epoch ends, after the last one
                # too: a source drawing seeds per iterator (``random``'s
                # ``rerandomize_each_iteration``) draws one more there, as TF's does
                elements = self._elements()
                if empty and count < 0:  # TF: repeating an empty dataset ends at once
                    return

        return self._derive(make_iterator, cardinality=card, prefetchable=self._prefetchable)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """The elements in random order, drawn from a buffer of ``buffer_size`` as TF's:
        the buffer is filled from the input, and each step outputs a random buffered
        element and puts the next input element in its place.

        The draws come from a NumPy generator seeded by ``seed`` (by fresh entropy when
        None): a given seed gives the same orders on every run; each epoch (each
        ``iter``, or each repetition under ``repeat``) draws a new order unless
        ``reshuffle_each_iteration=False``.

        .. warning:: The order is not TF's (TF's kernel RNG cannot be reproduced); the
           buffer semantics are: an element comes out at most ``buffer_size - 1``
           places before its input position, and each epoch is a permutation.
        """
        buffer_size = _check_count(buffer_size)
        if buffer_size == UNKNOWN:
            buffer_size = None  # the whole dataset
        elif buffer_size <= 0:
            raise InvalidArgumentError(
                None,
                None,
                "buffer_size must be greater than zero or UNKNOWN_CARDINALITY "
                "[Op:ShuffleDatasetV3]",
            )
        base = np.random.SeedSequence().entropy if seed is None else _check_count(seed)
        epochs = itertools.count()

        def make_iterator():
            epoch = next(epochs) if reshuffle_each_iteration else 0
            rng = np.random.default_rng([base % 2**63, epoch])
            it = self._elements()
            buffer = list(itertools.islice(it, buffer_size))
            while buffer:
                i = int(rng.integers(len(buffer)))
                out = buffer[i]
                following = next(it, _END)
                if following is _END:
                    buffer[i] = buffer[-1]
                    buffer.pop()
                else:
                    buffer[i] = following
                yield out

        return self._derive(make_iterator, prefetchable=self._prefetchable)

    def enumerate(self, start=0, name=None):  # noqa: A003 - TF's name
        """A dataset of ``(index, element)`` pairs, indices counting from ``start``
        (int64; int32 without JAX's x64)."""
        start = _check_count(start)
        int64 = dtypes.as_dtype("int64")
        held = structure.held_dtype(int64).as_numpy_dtype

        def make_iterator():
            for i, element in enumerate(self._elements(), start):
                yield np.asarray(i, held), element

        return self._derive(
            make_iterator,
            lambda: (TensorSpec([], structure.held_dtype(int64)), self.element_spec),
            prefetchable=self._prefetchable,
        )

    def prefetch(self, buffer_size, name=None):
        """This dataset (the host pipeline runs in step with the loop: nothing to
        prefetch); ``buffer_size`` is accepted, ``tapejax.data.AUTOTUNE`` included."""
        _check_count(buffer_size)
        dataset = self._derive(self._make_iterator, prefetchable=self._prefetchable)
        dataset._make_tolerant = self._make_tolerant
        return dataset

    def cache(self, filename="", name=None):
        """This dataset, its elements kept in memory by the first complete iteration and
        replayed by later ones. Only the in-memory cache (``filename=""``) is provided."""
        if filename != "":
            raise NotImplementedError(
                "tapejax.data: Dataset.cache(filename=...) (a cache in files) is not "
                'provided; use cache() or cache("") to cache in memory.'
            )
        stored = []

        def make_iterator():
            if stored:
                yield from stored[0]
                return
            seen = []
            for element in self._elements():
                seen.append(element)
                yield element
            if not stored:
                stored.append(seen)

        return self._derive(make_iterator, prefetchable=self._prefetchable)

    def concatenate(self, dataset, name=None):
        """The elements of this dataset, then those of ``dataset`` (same structure and
        dtypes; shapes become the most specific shape both have)."""
        a, b = self.element_spec, dataset.element_spec
        structure.refuse_datasets(a, "Dataset.concatenate")
        structure.refuse_datasets(b, "Dataset.concatenate")
        if not structure.same_structure(a, b) or any(
            x.dtype != y.dtype for x, y in zip(structure.flatten(a), structure.flatten(b))
        ):
            raise TypeError(f"Incompatible dataset elements:\n  {a} vs.   {b}")
        n1, n2 = self._card, dataset._card
        if INFINITE in (n1, n2):
            card = INFINITE
        elif UNKNOWN in (n1, n2):
            card = UNKNOWN
        else:
            card = n1 + n2

        def make_iterator():
            return itertools.chain(self._elements(), dataset._elements())

        return self._derive(
            make_iterator,
            structure.relax(a, b),
            card,
            prefetchable=self._prefetchable and dataset._prefetchable,
        )

    def _dataset_fn(self, map_func):
        from .dataset import Dataset

        def checked(out):
            if not isinstance(out, Dataset):
                raise TypeError(
                    f"The `map_func` argument must return a `Dataset` object. Got {type(out)!r}."
                )
            return out

        def fn(element):
            return checked(structure.call(map_func, element))

        try:
            out = structure.trace_output(lambda e: structure.call(map_func, e), self.element_spec)
        except Exception:  # noqa: BLE001 - an eager-only function: its first dataset tells
            out = next(
                (
                    structure.run_eagerly(fn, structure.to_tensors(element))
                    for element in self._elements()
                ),
                None,
            )
            if out is None:
                raise
        if isinstance(out, structure.DatasetSpec):  # the abstract run's Dataset, as its spec
            return fn, out.element_spec
        return fn, checked(out).element_spec

    def flat_map(self, map_func, name=None):
        """The elements of the datasets ``map_func(element)`` returns, one dataset after
        another."""
        fn, spec = self._dataset_fn(map_func)

        def make_iterator():
            for element in self._elements():
                yield from structure.run_eagerly(fn, structure.to_tensors(element))._elements()

        return self._derive(make_iterator, spec, UNKNOWN)

    def interleave(
        self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
        deterministic=None, name=None,
    ):  # fmt: skip
        """The elements of the datasets ``map_func(element)`` returns, taken in turn from
        ``cycle_length`` open datasets, ``block_length`` at a time, in TF's order.

        ``cycle_length`` None or AUTOTUNE is the number of CPU cores, as in TF;
        ``num_parallel_calls`` and ``deterministic`` are accepted (the order is always
        the deterministic one).
        """
        fn, spec = self._dataset_fn(map_func)
        cycle = os.cpu_count() if cycle_length in (None, -1) else _check_count(cycle_length)
        block = 1 if block_length in (None, -1) else _check_count(block_length)
        if cycle <= 0:
            raise InvalidArgumentError(None, None, "cycle_length must be greater than zero.")
        if block <= 0:
            raise InvalidArgumentError(None, None, "block_length must be greater than zero.")

        def make_iterator():
            # TF's InterleaveDatasetOp::GetNextInternal, step for step.
            inputs = self._elements()
            slots = [None] * cycle
            end_of_input, n_open, index, in_block = False, 0, 0, 0
            while not end_of_input or n_open > 0:
                if slots[index] is not None:
                    element = next(slots[index], _END)
                    if element is not _END:
                        in_block += 1
                        if in_block == block:
                            in_block, index = 0, (index + 1) % cycle
                        yield element
                        continue
                    slots[index] = None
                    n_open -= 1
                    in_block, index = 0, (index + 1) % cycle
                elif not end_of_input:
                    element = next(inputs, _END)
                    if element is _END:
                        end_of_input = True
                    else:
                        dataset = structure.run_eagerly(fn, structure.to_tensors(element))
                        slots[index] = dataset._elements()
                        n_open += 1
                else:
                    in_block, index = 0, (index + 1) % cycle

        return self._derive(make_iterator, spec, UNKNOWN)

    def reduce(self, initial_state, reduce_func, name=None):
        """``reduce_func(state, element)`` folded over the elements from
        ``initial_state``; the final state.

        As TF, ``reduce_func`` is traced when ``reduce`` is called, on abstract values of
        the state's and the elements' specs, and traced again with the state's shapes
        relaxed while the new state's shapes differ from them (its dtypes must be the
        initial state's: TF's ``TypeError`` otherwise). Where the specs are then fully
        defined it runs compiled, the state carried on the device: one program per
        element, or one ``lax.scan`` per block of elements where the input runs no
        Python code of the user's. It runs eagerly per element instead, a Python side
        effect per element, where the state's or the elements' specs leave a dim
        unknown (a state whose shape changes), where the new state is not nested as the
        initial one or holds other values than Tensors, or under ``map``'s rules (a
        Variable, an assertion, a ``numpy_function``/``py_function``/``tf.print``, or a
        function that cannot be traced).
        """
        if execution.inside_function():
            from .dataset import _ITERATE_IN_FUNCTION

            raise NotImplementedError(_ITERATE_IN_FUNCTION)
        initial = structure.normalize(initial_state)

        def fn(state, element):
            return structure.returned(reduce_func(state, element))

        def type_error(expected, new_state, found):
            return (
                "The element types for the new state must match the initial state. "
                f"Expected {expected} but got {_dtypes_of(found)}."
            )

        traced, _, _ = _fold_trace(self, fn, initial, lambda found: found, type_error)
        if traced is None:
            state = initial
            for element in self._elements():
                state = structure.run_eagerly(fn, state, structure.to_tensors(element))
            return state

        def eager(leaves, element):
            state = structure.pack(initial, [wrap(a) for a in leaves])
            state = structure.run_eagerly(fn, state, structure.to_tensors(element))
            return [t._value for t in structure.flatten(state)], None

        run = traced.fold(
            [t._value for t in structure.flatten(initial)],
            iter(self._elements()),
            eager,
            self._prefetchable and traced.pure,
        )
        while True:
            try:
                next(run)
            except StopIteration as end:
                return structure.pack(initial, [wrap(a) for a in end.value])

    def scan(self, initial_state, scan_func, name=None):
        """A dataset of the outputs of ``scan_func(state, element) -> (new_state,
        output)``, the state carried from ``initial_state``.

        ``scan_func`` is traced once (again with the state's shapes relaxed while they
        change, as TF) and runs compiled, or eagerly per element, as ``reduce``'s
        function (see ``reduce``).
        """
        initial = structure.normalize(initial_state)
        state_spec = structure.spec_of(initial)

        def fn(state, element):
            out = structure.returned(scan_func(state, element))
            if not isinstance(out, tuple) or len(out) != 2:
                raise TypeError(
                    "Invalid `scan_func`. `scan_func` should return a pair consisting of new "
                    f"state and the output value but its return type is {type(out)}."
                )
            return out

        def type_error(expected, new_state, found):
            return (
                "Invalid `scan_func`. The element types for the new state must match the "
                f"initial state. Expected {expected}, got {_dtypes_of(new_state)}."
            )

        traced, found, failure = _fold_trace(self, fn, initial, lambda f: f[0], type_error)
        if failure is not None:
            out_spec = _first_element_spec(self, fn, (state_spec,), failure)
            spec = lambda: out_spec()[1]  # noqa: E731
        else:
            spec = found[1]

        def make_iterator():
            state = initial
            for element in self._elements():
                state, out = structure.run_eagerly(fn, state, structure.to_tensors(element))
                yield structure.to_host(out)

        if traced is None:
            return self._derive(make_iterator, spec)

        def eager(leaves, element):
            state = structure.pack(initial, [wrap(a) for a in leaves])
            state, out = structure.run_eagerly(fn, state, structure.to_tensors(element))
            return [t._value for t in structure.flatten(state)], structure.to_host(out)

        prefetchable = self._prefetchable and traced.pure

        def make_compiled_iterator():
            return traced.fold(
                [t._value for t in structure.flatten(initial)],
                iter(self._elements()),
                eager,
                prefetchable,
                lambda leaves: structure.pack(spec, leaves),
            )

        return self._derive(make_compiled_iterator, spec, prefetchable=prefetchable)

    def unique(self, name=None):
        """The elements (scalars of int32, int64) with repeats removed, first one kept."""
        structure.refuse_datasets(self.element_spec, "Dataset.unique")
        for spec in structure.flatten(self.element_spec):
            if spec.dtype.name not in ("int32", "int64"):
                raise TypeError(
                    f"`tf.data.Dataset.unique` does not support type {spec.dtype} -- only "
                    "`tf.int32`, `tf.int64`, and `tf.string` are supported."
                )

        def make_iterator():
            seen = set()
            for element in self._elements():
                key = tuple(np.asarray(a).tobytes() for a in structure.flatten(element))
                if key not in seen:
                    seen.add(key)
                    yield element

        return self._derive(make_iterator, cardinality=UNKNOWN, prefetchable=self._prefetchable)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``."""
        num_shards, index = _check_count(num_shards), _check_count(index)
        if num_shards <= 0:
            raise InvalidArgumentError(
                None,
                None,
                "Number of shards must be greater than zero "
                f"(currently num_shards = {num_shards}). [Op:ShardDataset]",
            )
        if not 0 <= index < num_shards:
            raise InvalidArgumentError(
                None,
                None,
                f"Index must be between 0 and {num_shards - 1} (currently index = {index}). "
                "[Op:ShardDataset]",
            )
        n = self._card
        if n in (UNKNOWN, INFINITE):
            card = n
        else:
            card = n // num_shards + (index < n % num_shards)

        def make_iterator():
            return itertools.islice(self._elements(), index, None, num_shards)

        return self._derive(make_iterator, cardinality=card, prefetchable=self._prefetchable)

    def get_single_element(self, name=None):
        """The one element of this dataset; ``InvalidArgumentError`` if it has none or more."""
        if execution.inside_function():
            from .dataset import _ITERATE_IN_FUNCTION

            raise NotImplementedError(_ITERATE_IN_FUNCTION)
        it = self._elements()
        element = next(it, _END)
        if element is _END:
            raise InvalidArgumentError(None, None, "Dataset was empty. [Op:DatasetToSingleElement]")
        if next(it, _END) is not _END:
            raise InvalidArgumentError(
                None, None, "Dataset had more than one element. [Op:DatasetToSingleElement]"
            )
        return structure.to_tensors(element)
