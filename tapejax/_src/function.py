"""``tapejax.function``: a whole TF-style Python step becomes one jitted XLA program.

The first call runs the Python function eagerly (so layers and optimizers may create
their Variables, as TF allows on the first call only) and notes every Variable it
touches. Each new input signature is then traced once into a pure JAX function
``(variable values, tensor args) -> (outputs, new variable values)`` with the
Variables temporarily bound to tracers; a call runs the compiled program and writes
the new values back, donating the old buffers when nothing else holds them (XLA passes
unchanged ones through without a copy). Tapes, jacobians and custom gradients inside
work unchanged: they see Tensors that wrap tracers.

Called while a tape records, the program is applied as one op, so gradients flow
through the call like through any other op. Composite arguments and results (a
``LinearOperator``) pass through as their tensors (``composite.py``), as TF's
``CompositeTensor``s do.

It must never bake a Variable's value into a program as a constant: a Variable read or
assigned during a trace that was not bound to an argument makes the trace start over
with it bound.
"""

from __future__ import annotations

import functools
import sys

import jax
import numpy as np

from . import binding, composite, dispatch, execution, nest, recorder
from .binding import VariableWatcher
from .composite import CompositeTensor
from .conversion import convert_to_tensor
from .dispatch import Op
from .tensor import Tensor, wrap

__all__ = [
    "function",
    "Function",
    "run_functions_eagerly",
    "functions_run_eagerly",
    "building",
]

_run_eagerly = [False]


def building() -> bool:
    """Whether a ``tapejax.function`` is running its Python function on this thread (its
    eager first call or a trace; not inside ``init_scope``): where TF would be building a
    graph, so that objects with graph semantics (``TensorArray``) follow them on every
    call alike."""
    return not execution.executing_eagerly()


_VARIABLE_CREATED_LATER = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure "
    "the tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."
)


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Runs every ``tapejax.function`` as plain Python: the debugging escape hatch.

    As ``tf.config.run_functions_eagerly``.
    """
    _run_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _run_eagerly[0]


_SINGLE = object()  # the output structure of a function returning one tensor


class _Retrace(Exception):
    """A trace met Variables it had not bound: start over with them."""

    def __init__(self, variables):
        super().__init__()
        self.variables = variables


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _is_array(x) -> bool:
    return type(x) is Tensor or isinstance(x, (np.ndarray, jax.Array))


def _refuse_tensor_arrays(leaves) -> None:
    for leaf in leaves:
        if getattr(leaf, "_is_tensor_array", False):
            raise TypeError(
                "tapejax.function cannot return a TensorArray (TF can): return its contents "
                "instead, e.g. `ta.stack()`."
            )


def _inputs_and_program(concrete):
    """The bound variables' values, and the compiled form to run on them: the one that
    donates their buffers, unless something else (a Tensor read earlier, another
    Variable) still holds one."""
    fn = concrete.donating
    values = []
    for v in concrete.variables:
        x = v._value
        values.append(x)
        # Expected: the Variable's, `values`', `x` and getrefcount's own argument.
        if sys.getrefcount(x) > 4:
            fn = concrete.plain
    return values, fn


def _tensor_key(args):
    """The cache key of arguments that are all Tensors (their shapes and dtypes), else None."""
    avals = []
    for a in args:
        if type(a) is not Tensor:
            return None
        v = a._v
        avals.append((v.shape, v.dtype))
    return ("tensors", tuple(avals))


def _leaf_key(x):
    """What of an argument a trace depends on: avals of tensors, values of the rest (TF's rule)."""
    if type(x) is Tensor:
        return ("T", x._v.shape, x._v.dtype)
    if isinstance(x, (np.ndarray, jax.Array)):
        return ("T", x.shape, convert_to_tensor(x)._v.dtype)
    if _is_var(x):
        return ("V", x._id)
    try:
        hash(x)
    except TypeError:
        return ("O", id(x))
    return ("P", type(x), x)


def _aval(x) -> jax.ShapeDtypeStruct:
    v = (x if type(x) is Tensor else convert_to_tensor(x))._v
    return jax.ShapeDtypeStruct(v.shape, v.dtype)


def _input_template(args, kwargs, flat):
    if len(nest.flatten((args, kwargs))) != len(flat):
        return None
    return nest.pack_sequence_as((args, kwargs), [_aval(x) if _is_array(x) else x for x in flat])


def _tree_key(tree):
    if isinstance(tree, CompositeTensor):
        # Its components are leaves of their own; what else a trace reads of it (a
        # SparseTensor's static dense shape) is part of the key.
        return (type(tree).__name__, tree._static_key())
    if isinstance(tree, (list, tuple)):
        return (type(tree).__name__, tuple(_tree_key(x) for x in tree))
    if isinstance(tree, dict):
        items = sorted(tree.items(), key=lambda kv: str(kv[0]))
        return ("dict", tuple((k, _tree_key(v)) for k, v in items))
    return None


class _Concrete:
    """One traced signature: the variables it binds, its compiled forms, its output layout."""

    def __init__(self, function, args, kwargs, flat, variables):
        self.variables = variables
        self.out_tree = None
        self.out_kinds = None
        self.composite_out = False  # the outputs hold composites (``composite.py``)
        # Whether the program holds run-time checks (assertions on traced values, NumPy
        # callbacks): a call then waits for them and raises the first failure
        # (``execution.failure_reporter``).
        self.has_checks = False
        tensor_pos = [i for i, x in enumerate(flat) if _is_array(x)]
        # The arguments with their tensors as shapes and dtypes, for a SavedModel to match
        # calls against after load (None where composites were taken apart).
        self.input_template = _input_template(args, kwargs, flat)
        bound_ids = frozenset(v._id for v in variables)

        def pure(var_values, arg_values):
            watcher = VariableWatcher(bound=bound_ids)
            from .variables import _creation_hooks

            def refuse(var):
                raise ValueError(_VARIABLE_CREATED_LATER)

            _creation_hooks.append(refuse)
            try:
                with (
                    binding.bound(variables, var_values),
                    recorder.only((watcher,)),
                    execution.function_body(),
                ):
                    new_flat = list(flat)
                    for p, value in zip(tensor_pos, arg_values):
                        new_flat[p] = wrap(value)
                    a, k = composite.rebuild(
                        nest.pack_sequence_as((args, kwargs), new_flat, expand_composites=True)
                    )
                    function._tracing_count += 1
                    checks = execution.runtime_checks()
                    result = composite.expand(function._python_function(*a, **k))
                    self.composite_out = composite.has_parts(result)
                    new_values = [v._value for v in variables]
                    if execution.runtime_checks() != checks:
                        self.has_checks = True
                        execution.clear_failed_checks()  # this program's run comes next
            finally:
                _creation_hooks.remove(refuse)
                watcher.restore()
            unbound = {i: v for i, v in watcher.touched.items() if i not in bound_ids}
            if unbound:
                raise _Retrace(unbound)
            outs, kinds = [], []
            for leaf in nest.flatten(result, expand_composites=True):
                if type(leaf) is Tensor or _is_var(leaf):
                    outs.append(leaf._value)
                    kinds.append(None)
                else:
                    _refuse_tensor_arrays((leaf,))
                    kinds.append(("python", leaf))
            # Only the structure is kept (not the traced leaves): a single tensor is
            # returned as it is, without packing.
            self.out_tree = (
                _SINGLE
                if type(result) is Tensor or _is_var(result)
                else (nest.map_structure(lambda _: None, result, expand_composites=True))
            )
            self.out_kinds = kinds
            return outs, new_values

        self.pure = pure
        self.donating = jax.jit(pure, donate_argnums=(0,))
        self.plain = jax.jit(pure)
        self.op = Op(
            "StatefulPartitionedCall", self._op_fn, multiple_outputs=True, runs_user_code=True
        )

    def _op_fn(self, *flat):
        n = len(self.variables)
        outs, new = self.pure(list(flat[:n]), list(flat[n:]))
        return tuple(outs) + tuple(new)


class Function:
    """A Python function compiled once per input signature (``tf.function``'s result).

    See ``tapejax.function``.
    """

    def __init__(
        self, python_function, input_signature=None, jit_compile=None, reduce_retracing=False
    ):
        self._python_function = python_function
        self._input_signature = input_signature
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._cache: dict = {}
        self._variables: dict = {}  # every Variable the function has touched, by id
        self._first_call_done = False
        self._first_call_template = None
        self._tracing_count = 0
        functools.update_wrapper(self, python_function)

    def __call__(self, *args, **kwargs):
        if _run_eagerly[0]:
            return self._python_function(*args, **kwargs)
        if self._input_signature is not None:
            _check_signature(self._input_signature, args, self.__name__)
        if not self._first_call_done:
            return self._first_call(args, kwargs)
        key = _tensor_key(args) if not kwargs else None
        if key is not None:
            # The common case (a step taking tensors): a cheaper key for the same cache.
            concrete = self._cache.get(key)
            if concrete is None:
                concrete = self._cache[key] = self._new_concrete(args, kwargs, list(args))
            elif concrete.out_tree is _SINGLE and not recorder.active():
                # Traced before and returning one tensor, outside any tape: the whole call
                # is the compiled program's (what `_run` and `_execute` do, inlined).
                values, fn = _inputs_and_program(concrete)
                if concrete.has_checks:
                    execution.clear_failed_checks()
                outs, new = fn(values, [a._value for a in args])
                for v, x in zip(concrete.variables, new):
                    v._val = x
                if concrete.has_checks:
                    execution.raise_failed_check()
                return wrap(outs[0])
            return self._run(args, kwargs, list(args), concrete, key)
        args, kwargs, flat = _expanded(args, kwargs)
        return self._run(args, kwargs, flat)

    def _first_call(self, args, kwargs):
        watcher = VariableWatcher()
        recorder.push(watcher)
        try:
            with execution.function_body():
                result = self._python_function(*args, **kwargs)
        finally:
            recorder.remove(watcher)
        _refuse_tensor_arrays(nest.flatten(result))
        self._variables.update(watcher.touched)
        self._first_call_done = True
        # The eager call is a signature TF would have traced: a SavedModel saves it too.
        flat = nest.flatten((args, kwargs))
        if all(_is_array(x) or not isinstance(x, CompositeTensor) for x in flat):
            self._first_call_template = _input_template(args, kwargs, flat)
        return result

    def _key(self, args, kwargs, flat):
        return (_tree_key((args, kwargs)), tuple(_leaf_key(x) for x in flat))

    def _concrete(self, args, kwargs, flat, retrace=False, key=None):
        key = key or self._key(args, kwargs, flat)
        concrete = None if retrace else self._cache.get(key)
        if concrete is None:
            concrete = self._cache[key] = self._new_concrete(args, kwargs, flat)
        return concrete

    def _new_concrete(self, args, kwargs, flat):
        return _Concrete(
            self, args, kwargs, flat, sorted(self._variables.values(), key=lambda v: v._id)
        )

    def _run(self, args, kwargs, flat, concrete=None, key=None):
        arg_tensors = [
            x if type(x) is Tensor else convert_to_tensor(x) for x in flat if _is_array(x)
        ]
        if concrete is None:
            concrete = self._concrete(args, kwargs, flat)
        if concrete.has_checks:
            execution.clear_failed_checks()
        while True:
            try:
                results = self._execute(concrete, arg_tensors)
                break
            except _Retrace as r:
                self._variables.update(r.variables)
                concrete = self._concrete(args, kwargs, flat, retrace=True, key=key)
        outs, new = results
        # Written back even when a check failed: donated buffers hold nothing else now.
        for v, value in zip(concrete.variables, new):
            v._value = value
        if concrete.has_checks:
            execution.raise_failed_check()
        if concrete.out_tree is _SINGLE:
            return outs[0]
        it = iter(outs)
        leaves = [next(it) if kind is None else kind[1] for kind in concrete.out_kinds]
        result = nest.pack_sequence_as(concrete.out_tree, leaves, expand_composites=True)
        return composite.rebuild(result) if concrete.composite_out else result

    def _execute(self, concrete, arg_tensors):
        variables = concrete.variables
        if recorder.active():
            # Under a recording tape: one op whose inputs are the variable reads and the
            # tensor arguments, so gradients flow through the call.
            inputs = tuple(v._dense_read() for v in variables) + tuple(arg_tensors)
            results = dispatch.apply(concrete.op, inputs)
            n_out = len(results) - len(variables)
            return list(results[:n_out]), [r._value for r in results[n_out:]]
        values, fn = _inputs_and_program(concrete)
        outs, new = fn(values, [t._value for t in arg_tensors])
        return [wrap(o) for o in outs], new

    # -- TF's inspection API ---------------------------------------------------------

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function was traced (TF's counter)."""
        return self._tracing_count

    def get_concrete_function(self, *args, **kwargs):
        """Traces for these arguments (if not yet) and returns that signature's function."""
        if not self._first_call_done:
            self._first_call(args, kwargs)
        args, kwargs, flat = _expanded(args, kwargs)
        return ConcreteFunction(self, self._concrete(args, kwargs, flat), flat)

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """``fn(stage='hlo')``: the program's text (``'hlo'``, ``'stablehlo'``, ``'optimized_hlo'``)."""
        return self.get_concrete_function(*args, **kwargs).compiler_ir

    @property
    def python_function(self):
        return self._python_function

    def __get__(self, instance, owner):
        if instance is None:
            return self
        functions = instance.__dict__.setdefault("_tapejax_functions", {})
        bound = functions.get(id(self))
        if bound is None:
            bound = functions[id(self)] = Function(
                # The partial keeps the method's name, which error texts use.
                functools.update_wrapper(
                    functools.partial(self._python_function, instance), self._python_function
                ),
                self._input_signature,
                self._jit_compile,
                self._reduce_retracing,
            )
        return bound


class ConcreteFunction:
    """One traced signature of a ``Function`` (``get_concrete_function``'s result)."""

    def __init__(self, function, concrete, flat):
        self._function = function
        self._concrete = concrete
        self._flat = flat

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)

    def compiler_ir(self, stage="hlo"):
        """The compiled program as text: ``'hlo'``, ``'stablehlo'`` or ``'optimized_hlo'``."""
        c = self._concrete
        args = [convert_to_tensor(x)._value for x in self._flat if _is_array(x)]
        lowered = c.plain.lower([v._value for v in c.variables], args)
        if stage == "stablehlo":
            return lowered.as_text()
        if stage == "hlo":
            return lowered.as_text(dialect="hlo")
        if stage == "optimized_hlo":
            return lowered.compile().as_text()
        raise ValueError(f"Unknown stage {stage!r}: use 'hlo', 'stablehlo' or 'optimized_hlo'.")


def _expanded(args, kwargs):
    """``(args, kwargs, flat leaves)``, composite arguments (``LinearOperator``s) taken
    apart, so that their tensors are arguments of the program."""
    try:
        flat = nest.flatten((args, kwargs), expand_composites=True)
    except NotImplementedError:
        # nest refuses to expand a LinearOperator (TF's component lists are not
        # reproduced): its registered parts are taken apart here instead.
        args, kwargs = composite.expand((args, kwargs))
        flat = nest.flatten((args, kwargs), expand_composites=True)
    return args, kwargs, flat


def _check_signature(signature, args, name):
    flat_sig = nest.flatten(list(signature))
    flat_args = nest.flatten(list(args))
    if len(flat_sig) != len(flat_args):
        raise TypeError(
            f"{name}() takes {len(flat_sig)} tensor argument(s) per its input_signature, got "
            f"{len(flat_args)}"
        )
    for spec, arg in zip(flat_sig, flat_args):
        if isinstance(arg, CompositeTensor):  # a SparseTensor needs a SparseTensorSpec
            t = arg
            ok = getattr(spec, "value_type", None) is type(arg) and spec.is_compatible_with(arg)
        else:
            t = arg if type(arg) is Tensor else convert_to_tensor(arg, dtype=spec.dtype)
            ok = spec.is_compatible_with(t)
        if not ok:
            raise TypeError(
                f"Binding inputs to tf.function failed due to `Can not cast {t!r} to {spec}`."
            )


def function(
    func=None,
    input_signature=None,
    autograph=True,
    jit_compile=None,
    reduce_retracing=False,
    experimental_implements=None,
    experimental_autograph_options=None,
    experimental_attributes=None,
    experimental_relax_shapes=None,
    experimental_compile=None,
    experimental_follow_type_hints=None,
):
    """Compiles a Python function into one XLA program per input signature (``tf.function``).

    Tensors arguments retrace on a new shape or dtype, other arguments on a new value,
    as in TF; ``jit_compile`` is accepted (everything is compiled by XLA) and
    ``autograph`` and ``experimental_autograph_options`` are accepted and not applied
    (tapejax has no AutoGraph: Python control flow on tensors raises; use
    ``tf.cond``/``tf.while_loop``).

    Example:
        >>> import tapejax as tf
        >>> v = tf.Variable(1.0)
        >>> @tf.function
        ... def step(x):
        ...     with tf.GradientTape() as tape:
        ...         loss = (v * x - 3.0) ** 2
        ...     v.assign_sub(0.1 * tape.gradient(loss, v))
        ...     return loss
        >>> [round(float(step(tf.constant(2.0))), 3) for _ in range(3)]
        [1.0, 0.04, 0.002]

    .. warning::
       The first call runs the Python function eagerly (so it may create Variables) and
       the first trace happens on the second call: Python side effects such as ``print``
       show on the first call and once per trace, where TF shows them once per trace.
    """
    if func is None:
        return functools.partial(
            function,
            input_signature=input_signature,
            jit_compile=jit_compile,
            reduce_retracing=reduce_retracing,
        )
    return Function(func, input_signature, jit_compile, reduce_retracing)
