"""Python code as an op: ``tf.py_function`` (on tensors, differentiable) and
``tf.numpy_function`` (on NumPy arrays), with TF's conversions, checks and error types.

Eagerly both call the function at once, as TF does. ``py_function``'s gradient is TF's:
the function runs under a tape of its own that watches its inputs (outer tapes see none of
its ops), and the call is one node whose backward is that tape's gradient.

Inside ``tapejax.function`` (TF: a ``PyFunc`` op with unknown result shapes),
``numpy_function`` becomes a host callback of the XLA program; XLA needs the result
shapes before the function runs, so they are those of an earlier call on inputs of the
same shapes and dtypes (the function's eager first call makes one), and a run that
returns other shapes fails with TF's ``InvalidArgumentError``. ``py_function`` there
raises ``NotImplementedError``.

This module must never run the user's function on traced values.
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

from . import dtypes, execution, nest, recorder
from .conversion import canonical_np_dtype, convert_to_tensor
from .dispatch import Op, apply
from .errors import (
    InvalidArgumentError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnimplementedError,
    UnknownError,
)
from .lowering import DIFF_DTYPES
from .ops._helpers import to_tensor
from .tensor import Tensor, is_tensor, wrap

__all__ = ["py_function", "numpy_function"]

_tokens = itertools.count()


def _check_args_and_maybe_make_decorator(script_op, script_op_name, func, inp, Tout, **kwargs):
    """TF's argument checks; a decorator when ``func`` is None."""
    if Tout is None:
        raise TypeError(
            "Missing required argument: 'Tout'\n"
            f"  If using {script_op_name} as a decorator, set `Tout`\n"
            "  **by name** above the function:\n"
            f"  `@{script_op_name}(Tout=tout)`"
        )
    if func is None:
        if inp is not None:
            raise TypeError(
                f"Don't set the `inp` argument when using {script_op_name} as a "
                "decorator (`func=None`)."
            )

        def decorator(fun):
            @functools.wraps(fun)
            def wrapper(*args):
                return script_op(fun, inp=args, Tout=Tout, **kwargs)

            return wrapper

        return decorator
    if inp is None:
        raise TypeError(
            "Missing argument `inp`:\n"
            "  You must set the `inp` argument (the list of arguments to the\n"
            f"  function), unless you use `{script_op_name}` as a decorator"
            "(`func=None`)."
        )
    if not callable(func):
        raise ValueError(
            f"Expected func to be callable. Received func={func} of type {type(func)}."
        )
    return None


def _func_error(e: BaseException, op_name: str):
    """TF's status for an exception the function raised."""
    if isinstance(e, (TypeError, ValueError)):
        cls = InvalidArgumentError
    elif isinstance(e, StopIteration):
        cls = OutOfRangeError
    elif isinstance(e, MemoryError):
        cls = ResourceExhaustedError
    elif isinstance(e, NotImplementedError):
        cls = UnimplementedError
    else:
        cls = UnknownError
    return cls, f"{type(e).__name__}: {e} [Op:{op_name}]"


def _inputs(inp) -> list:
    return [x if type(x) is Tensor else convert_to_tensor(x) for x in inp]


# -- py_function -------------------------------------------------------------------------------


def _conj(x):
    return jnp.conj(x) if jnp.issubdtype(x.dtype, jnp.complexfloating) else x


def _connected(tape, inputs: list, outputs: list, token: int) -> list:
    """``outputs``, with those of a differentiable dtype replaced by the outputs of one
    recorded node whose backward is ``tape``'s gradient (TF's ``_EagerPyFuncGrad``)."""
    sources = [t for t in inputs if t._v.dtype in DIFF_DTYPES]
    positions = [i for i, o in enumerate(outputs) if o is not None and o._v.dtype in DIFF_DTYPES]
    if not sources or not positions:
        return outputs
    targets = [outputs[i] for i in positions]
    values = tuple(t._value for t in targets)

    def fn(*xs, token):
        @jax.custom_vjp
        def call(*xs):
            return values

        def fwd(*xs):
            return values, None

        def bwd(_, cts):
            # JAX's cotangents are the conjugates of TF's gradients (lowering.py).
            upstream = [wrap(_conj(c)) for c in cts]
            with recorder.paused():
                grads = tape.gradient(targets, sources, output_gradients=upstream)
            return tuple(
                jnp.zeros(x.shape, x.dtype) if g is None else _conj(g._value)
                for x, g in zip(xs, grads)
            )

        call.defvjp(fwd, bwd)
        return call(*xs)

    op = Op("EagerPyFunc", fn, multiple_outputs=True)
    connected = apply(op, tuple(sources), (("token", token),))
    outputs = list(outputs)
    for i, t in zip(positions, connected):
        outputs[i] = t
    return outputs


def py_function(func=None, inp=None, Tout=None, name=None):
    """Runs the Python function ``func`` on tensors as an op (``tf.py_function``).

    Args:
        func: a Python function of ``len(inp)`` tensors returning one value per ``Tout``
            entry (a list or tuple of them, or one value for a single dtype).
        inp: the inputs, converted to tensors.
        Tout: a dtype, or a list of dtypes (one per result; ``[]`` for none).
        name: ignored (TF's op name).

    Returns:
        One tensor for a single ``Tout`` dtype, else a list. The gradient with respect to
        each input is that of ``func``'s own tape (Variables read inside get none, and a
        second derivative is None, as in TF). As a decorator (``func=None``), the wrapped
        function.

    Raises:
        InvalidArgumentError: ``func`` raised ``ValueError``/``TypeError`` (also when a
            result cannot be converted to its ``Tout`` dtype) or returned the wrong number
            of values; other exceptions become TF's matching error (``UnknownError`` ...).
        NotImplementedError: inside ``tapejax.function``.

    Example:
        >>> import tapejax as tf
        >>> x = tf.constant([1.0, 2.0])
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = tf.py_function(lambda a: a * a, [x], tf.float32)
        >>> tape.gradient(y, x).numpy()
        array([2., 4.], dtype=float32)
    """
    decorator = _check_args_and_maybe_make_decorator(py_function, "tf.py_function", func, inp, Tout)
    if decorator is not None:
        return decorator
    if execution.inside_function():
        raise NotImplementedError(
            "tapejax.py_function inside tapejax.function is not implemented: XLA cannot run "
            "tapejax ops from inside a compiled program. Use tapejax.numpy_function there, "
            "or call py_function outside the function."
        )
    is_list = isinstance(Tout, (list, tuple))
    out_dtypes = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    inputs = _inputs(inp)
    token = next(_tokens)
    from .tape import GradientTape

    with recorder.paused(), GradientTape(persistent=True) as tape:
        for t in inputs:
            if t._v.dtype in DIFF_DTYPES:
                tape.watch(t)
        try:
            ret = func(*inputs)
            if isinstance(ret, (tuple, list)):
                outputs = [convert_to_tensor(x, dtype=d) for x, d in zip(ret, out_dtypes)]
            elif ret is None:
                outputs = []
            else:
                outputs = [convert_to_tensor(ret, dtype=out_dtypes[0])]
        except Exception as e:  # noqa: BLE001 - TF turns every exception into its status
            cls, text = _func_error(e, "EagerPyFunc")
            raise cls(None, None, text) from e
    if len(outputs) != len(out_dtypes):
        raise InvalidArgumentError(
            None,
            None,
            f"pyfunc_{token} returns {len(outputs)} values, but expects to see "
            f"{len(out_dtypes)} values. [Op:EagerPyFunc]",
        )
    if recorder.active():
        outputs = _connected(tape, inputs, outputs, token)
    return outputs if is_list else outputs[0]


# -- numpy_function ----------------------------------------------------------------------------

# Result shapes and dtypes of the calls made so far, by function code, input avals and
# Tout: what a traced call's XLA program is built with.
_result_avals: dict = {}


def _code_key(func):
    return getattr(func, "__code__", None) or func


def _host_call(func, arrays, out_dtypes, token, expected=None):
    """TF's ``PyFunc`` kernel on the host: ``(results, None)`` or ``(None, (cls, text))``."""
    try:
        ret = func(*arrays)
    except Exception as e:  # noqa: BLE001 - TF turns every exception into its status
        return None, _func_error(e, "PyFunc")
    values = list(ret) if isinstance(ret, (tuple, list)) else ([] if ret is None else [ret])
    if len(values) != len(out_dtypes):
        return None, (
            InvalidArgumentError,
            f"pyfunc_{token} returns {len(values)} values, but expects to see "
            f"{len(out_dtypes)} values. [Op:PyFunc]",
        )
    results = []
    for i, (v, dt) in enumerate(zip(values, out_dtypes)):
        a = np.asarray(v)
        if a.dtype != dt._np:
            return None, (
                InvalidArgumentError,
                f"{i}-th value returned by pyfunc_{token} is "
                f"{dtypes.tf_type_name(a.dtype)}, but expects {dtypes.tf_type_name(dt._np)} "
                "[Op:PyFunc]",
            )
        a = a.astype(canonical_np_dtype(dt._np))
        if expected is not None and a.shape != expected[i][0]:
            return None, (
                InvalidArgumentError,
                f"{i}-th value returned by pyfunc_{token} has shape "
                f"[{','.join(map(str, a.shape))}], but the traced program expects "
                f"[{','.join(map(str, expected[i][0]))}] (the shape of an earlier call) "
                "[Op:PyFunc]",
            )
        results.append(a)
    return results, None


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Runs the Python function ``func`` on NumPy arrays as an op (``tf.numpy_function``).

    Args:
        func: a Python function of ``len(inp)`` NumPy arrays returning NumPy-convertible
            values.
        inp: the inputs.
        Tout: a dtype, or a list of dtypes, one per result.
        stateful: whether ``func`` has side effects (then every call runs it, as TF).
        name: ignored (TF's op name).

    Returns:
        Eagerly, as TF: each returned value converted as it is (``Tout`` is not enforced),
        a single one unwrapped. Inside ``tapejax.function``: one tensor per ``Tout`` dtype
        (a list if ``Tout`` is a list), whose dtypes must match. No gradient.

    Raises:
        NotImplementedError: traced inside ``tapejax.function`` with inputs of shapes and
            dtypes it has not been called with before (their result shapes are unknown).

    Example:
        >>> import numpy as np
        >>> import tapejax as tf
        >>> tf.numpy_function(lambda a: np.cumsum(a) / 2, [tf.constant([1.0, 2.0])], tf.float64)
        <tf.Tensor: shape=(2,), dtype=float32, numpy=array([0.5, 1.5], dtype=float32)>
    """
    decorator = _check_args_and_maybe_make_decorator(
        numpy_function, "tf.numpy_function", func, inp, Tout, stateful=stateful
    )
    if decorator is not None:
        return decorator
    if execution.executing_eagerly():
        # Read without GradientCutWarning: no gradient flows through a NumPy function, as
        # in TF, so a watched input is expected here.
        arrays = [np.array(to_tensor(x)._value) if is_tensor(x) else np.array(x) for x in inp]
        result = nest.flatten(func(*arrays))
        result = [x if x is None else convert_to_tensor(x) for x in result]
        return result[0] if len(result) == 1 else result
    # Inside tapejax.function: TF's graph op, whose results must match Tout.
    is_list = isinstance(Tout, (list, tuple))
    out_dtypes = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    inputs = _inputs(inp)
    token = next(_tokens)
    key = (
        _code_key(func),
        tuple((t._v.shape, t._v.dtype) for t in inputs),
        tuple(d.name for d in out_dtypes),
    )
    if all(not isinstance(t._value, jax.core.Tracer) for t in inputs):
        results, failure = _host_call(
            func, [np.asarray(t._value) for t in inputs], out_dtypes, token
        )
        if failure is not None:
            raise failure[0](None, None, failure[1])
        _result_avals[key] = [(a.shape, a.dtype) for a in results]
        outputs = [wrap(jnp.asarray(a)) for a in results]
        return outputs if is_list else outputs[0]
    expected = _result_avals.get(key)
    if expected is None:
        raise NotImplementedError(
            "tapejax.numpy_function inside tapejax.function: XLA needs the result shapes "
            "before the function runs, and this function has not been called before with "
            "inputs of these shapes and dtypes. Call the tapejax.function once eagerly on "
            "such inputs first (its first call does), or call numpy_function outside it."
        )
    report = execution.failure_reporter()

    def host(*arrays):
        results, failure = _host_call(func, list(arrays), out_dtypes, token, expected)
        if failure is not None:
            report(*failure)
            return tuple(np.zeros(shape, dt) for shape, dt in expected)
        return tuple(results)

    specs = tuple(jax.ShapeDtypeStruct(shape, dt) for shape, dt in expected)
    values = [jax.lax.stop_gradient(t._value) for t in inputs]
    if stateful:
        arrays = io_callback(host, specs, *values, ordered=True)
    else:
        arrays = jax.pure_callback(host, specs, *values)
    outputs = [wrap(a) for a in arrays]
    return outputs if is_list else outputs[0]
