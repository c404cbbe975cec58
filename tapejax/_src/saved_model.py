"""``tf.saved_model`` for tapejax: a Module's Variables and compiled functions in a directory.

``save`` walks the object graph as ``tapejax.train.Checkpoint`` does (attributes, lists,
dicts, child Modules), writes every Variable with the checkpoint writer to
``variables/variables.npz``, and exports every signature each reachable
``tapejax.function`` has traced (plus the one its ``input_signature`` defines) with
``jax.export`` to ``functions/<n>.jaxexport``: StableHLO of the pure function
``(variable values, tensor arguments) -> (outputs, new variable values)``, serialized
with its first-order VJP so that tapes differentiate through it after load. ``None``
dimensions of an ``input_signature`` become symbolic dimensions: one export serves every
size. ``tapejax_saved_model.json`` holds the object tree, each function's argument
templates and output structure, and the signatures.

``load`` rebuilds the tree with fresh Variables and functions that read those Variables
at call time and write the new values back, so nothing of the saving process is needed.
The format is tapejax's own: TF cannot read it and this module never reads TF's
``saved_model.pb``. It must never pickle anything: the metadata is JSON, the programs
are ``jax.export``'s serialization.
"""

from __future__ import annotations

import inspect
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import export as jax_export

from . import checkpoint, dispatch, nest, recorder
from .conversion import convert_to_tensor
from .dispatch import Op
from .function import _SINGLE, ConcreteFunction, Function, _Retrace
from .module import Module
from .tensor import Tensor, wrap
from .tensor_spec import TensorSpec

__all__ = [
    "save",
    "load",
    "contains_saved_model",
    "SaveOptions",
    "LoadOptions",
    "SERVING",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
]

SERVING = "serve"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"

_METADATA = "tapejax_saved_model.json"
_VARIABLES = os.path.join("variables", "variables")
_FUNCTIONS = "functions"
_FORMAT = "tapejax-saved-model"
_VERSION = 1

_UNTRACKED = (
    "Tried to export a function which references an 'untracked' resource. TensorFlow "
    "objects (e.g. tf.Variable) captured by functions must be 'tracked' by assigning them "
    "to an attribute of a tracked object or assigned to an attribute of the main object "
    "directly. Trackable Python objects referring to this tensor (from gc.get_referrers, "
    "limited to two hops): {name}"
)


# -- options -------------------------------------------------------------------------


class SaveOptions:
    """Options for ``save`` (``tf.saved_model.SaveOptions``).

    Every argument TF takes is accepted; ``experimental_custom_gradients=False`` exports
    the functions without their VJP (tapes cannot differentiate through them after load).

    Raises:
      NotImplementedError: another argument is set to a non-default value (they configure
        TF's graph and protobuf writer, which tapejax does not have).
    """

    def __init__(
        self,
        namespace_whitelist=None,
        save_debug_info=False,
        function_aliases=None,
        experimental_debug_stripper=False,
        experimental_io_device=None,
        experimental_variable_policy=None,
        experimental_custom_gradients=True,
        experimental_image_format=False,
        experimental_skip_saver=False,
        experimental_sharding_callback=None,
        extra_tags=None,
    ):
        given = {
            "namespace_whitelist": namespace_whitelist,
            "save_debug_info": save_debug_info,
            "function_aliases": function_aliases,
            "experimental_debug_stripper": experimental_debug_stripper,
            "experimental_io_device": experimental_io_device,
            "experimental_variable_policy": experimental_variable_policy,
            "experimental_image_format": experimental_image_format,
            "experimental_skip_saver": experimental_skip_saver,
            "experimental_sharding_callback": experimental_sharding_callback,
            "extra_tags": extra_tags,
        }
        _refuse_non_defaults("SaveOptions", given)
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases or {}
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = bool(experimental_custom_gradients)
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


class LoadOptions:
    """Options for ``load`` (``tf.saved_model.LoadOptions``).

    Raises:
      NotImplementedError: an argument is set to a non-default value (they configure TF's
        graph loader, which tapejax does not have).
    """

    def __init__(
        self,
        allow_partial_checkpoint=False,
        experimental_io_device=None,
        experimental_skip_checkpoint=False,
        experimental_variable_policy=None,
        experimental_load_function_aliases=False,
    ):
        _refuse_non_defaults(
            "LoadOptions",
            {
                "allow_partial_checkpoint": allow_partial_checkpoint,
                "experimental_io_device": experimental_io_device,
                "experimental_skip_checkpoint": experimental_skip_checkpoint,
                "experimental_variable_policy": experimental_variable_policy,
                "experimental_load_function_aliases": experimental_load_function_aliases,
            },
        )
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases


def _refuse_non_defaults(cls, given):
    for name, value in given.items():
        if value not in (None, False, {}, [], ()):
            raise NotImplementedError(
                f"tapejax.saved_model.{cls}({name}={value!r}) is not supported: it configures "
                "TF's graph SavedModel machinery, which tapejax's format does not have. Leave "
                f"{name} at its default."
            )


# -- JSON encoding of argument and output structures -----------------------------------


def _encode(x):
    """A JSON value for a structure of tensor templates and Python constants."""
    if isinstance(x, (jax.ShapeDtypeStruct, TensorSpec)):
        shape = [None if d is None else int(d) for d in _spec_shape(x)]
        return {"t": shape, "d": np.dtype(_spec_dtype(x)).name}
    if x is None or isinstance(x, (bool, int, float, str)):
        return {"v": x}
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return {"u": [_encode(e) for e in x]}
    if isinstance(x, list):
        return {"l": [_encode(e) for e in x]}
    if isinstance(x, dict) and all(isinstance(k, (str, int)) for k in x):
        return {"m": [[k, _encode(x[k])] for k in nest._sorted_keys(x)]}
    raise NotImplementedError(
        f"tapejax.saved_model cannot save a function whose arguments or results hold {x!r} "
        f"(a {type(x).__name__}): only tensors, Python numbers, strings, bools, None and "
        "lists, tuples and dicts of them are saved."
    )


def _spec_shape(x):
    if isinstance(x, TensorSpec):
        return tuple(x.shape.as_list()) if x.shape.rank is not None else ()
    return x.shape


def _spec_dtype(x):
    return x.dtype.as_numpy_dtype if isinstance(x, TensorSpec) else x.dtype


class _Slot:
    """A tensor position in a decoded structure: its shape (``None`` dims) and dtype."""

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    def spec(self, name=None):
        return TensorSpec(self.shape, self.dtype, name=name)


def _decode(enc):
    if "t" in enc:
        return _Slot(enc["t"], enc["d"])
    if "v" in enc:
        return enc["v"]
    if "u" in enc:
        return tuple(_decode(e) for e in enc["u"])
    if "l" in enc:
        return [_decode(e) for e in enc["l"]]
    return {k: _decode(v) for k, v in enc["m"]}


def _fill(structure, tensors):
    """``structure`` with its ``_Slot``s replaced by ``tensors``' items, in order."""
    if isinstance(structure, _Slot):
        return next(tensors)
    if isinstance(structure, (list, tuple)):
        return type(structure)(_fill(x, tensors) for x in structure)
    if isinstance(structure, dict):
        return {k: _fill(v, tensors) for k, v in structure.items()}
    return structure


# -- save ------------------------------------------------------------------------------


def _is_function(x) -> bool:
    return isinstance(x, (Function, ConcreteFunction))


def _keras_model(obj) -> bool:
    return any(c.__module__.startswith(("tapejax.keras", "keras")) for c in type(obj).__mro__)


def _named_functions(obj) -> dict:
    """``{attribute: Function}``: methods decorated with ``tapejax.function`` (bound to
    ``obj``) and Functions held in instance attributes, as TF lists them."""
    out = {}
    for name in dir(type(obj)):
        if isinstance(inspect.getattr_static(type(obj), name, None), Function):
            out[name] = getattr(obj, name)
    for name, value in vars(obj).items():
        if _is_function(value):
            out[name] = value
    return out


class _Saver:
    def __init__(self, root, options):
        self.options = options
        self.var_keys = {}  # id(Variable) -> checkpoint key
        self.variables = checkpoint.Checkpoint(root=root)._variables(with_counter=False)
        for key, v in self.variables.items():
            self.var_keys[v._id] = key
        self.functions = []  # exported programs: {"file", "variables", "inputs", "outputs"}
        self.exports = []  # their serialized bytes
        self.by_template = {}  # (id(Function), template JSON) -> index in self.functions
        self.seen = {}  # id(object) -> its node, for objects reached twice

    def node(self, obj):
        if getattr(obj, "_is_variable", False):
            return {"variable": self.var_keys[obj._id]}
        if id(obj) in self.seen:
            return self.seen[id(obj)]
        if isinstance(obj, (list, tuple)):
            node = {"list" if isinstance(obj, list) else "tuple": [self.node(x) for x in obj]}
        elif isinstance(obj, dict):
            node = {"dict": [[k, self.node(obj[k])] for k in nest._sorted_keys(obj)]}
        else:
            node = {"object": self.children(obj), "functions": {}}
            for name, fn in sorted(_named_functions(obj).items()):
                node["functions"][name] = self.function(fn)
        self.seen[id(obj)] = node
        return node

    def children(self, obj):
        named = getattr(obj, "_checkpoint_children", None)
        if callable(named):
            items = named().items()
        else:
            ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
            items = [(k, v) for k, v in vars(obj).items() if k not in ignored]
        out = {}
        for name, value in sorted(items, key=lambda kv: str(kv[0])):
            if _is_function(value) or isinstance(value, type):
                continue
            if isinstance(value, (Module, _Loaded)) or (
                checkpoint._is_trackable(value) and not isinstance(value, (str, bytes))
            ):
                out[str(name)] = self.node(value)
        return out

    def function(self, fn) -> dict:
        """The saved form of one Function: its parameters and exported signatures."""
        if isinstance(fn, ConcreteFunction):
            function, concretes = fn._function, [fn._concrete.input_template]
        else:
            function = fn
            concretes = [c.input_template for c in fn._cache.values()]
            if fn._first_call_template is not None:
                concretes.insert(0, fn._first_call_template)
            if fn._input_signature is not None:
                concretes.append(_signature_template(fn._input_signature))
        params = _parameters(function)
        indices = []
        for template in concretes:
            if template is None:
                raise NotImplementedError(
                    f"tapejax.saved_model cannot save {function.__name__}: a traced signature "
                    "takes composite tensors (SparseTensor, LinearOperator...) as arguments."
                )
            index = self.export(function, template, params)
            if index not in indices:
                indices.append(index)
        return {"name": function.__name__, "parameters": params, "concrete": indices}

    def export(self, function, template, params) -> int:
        args, kwargs = template
        canonical = _canonical(params, args, kwargs)
        key = (id(function), json.dumps(_encode(canonical)))
        if key in self.by_template:
            return self.by_template[key]
        exported, concrete = _export(function, args, kwargs)
        for v in concrete.variables:
            if v._id not in self.var_keys:
                raise ValueError(_UNTRACKED.format(name=v.name))
        outputs = (
            {"single": True}
            if concrete.out_tree is _SINGLE
            else {"tree": _encode(_output_template(concrete))}
        )
        index = len(self.functions)
        self.functions.append(
            {
                "file": f"{index}.jaxexport",
                "variables": [self.var_keys[v._id] for v in concrete.variables],
                "inputs": _encode(canonical),
                "outputs": outputs,
            }
        )
        vjp_order = 1 if self.options.experimental_custom_gradients else 0
        self.exports.append(bytes(exported.serialize(vjp_order=vjp_order)))
        self.by_template[key] = index
        return index


def _parameters(function):
    """The Python function's parameters as ``[name, kind, default?]`` (JSON)."""
    try:
        # Not following __wrapped__: a method's partial must not show `self` again.
        sig = inspect.signature(function._python_function, follow_wrapped=False)
    except (TypeError, ValueError):
        return None
    out = []
    for p in sig.parameters.values():
        entry = [p.name, int(p.kind)]
        if p.default is not inspect.Parameter.empty:
            entry.append(_encode(p.default))
        out.append(entry)
    return out


def _signature(params):
    return inspect.Signature(
        [
            inspect.Parameter(
                p[0],
                inspect._ParameterKind(p[1]),
                default=_decode(p[2]) if len(p) > 2 else inspect.Parameter.empty,
            )
            for p in params
        ]
    )


def _canonical(params, args, kwargs):
    """``(args, kwargs)`` bound to the parameters with defaults applied, as TF matches them."""
    if params is None:
        return (tuple(args), dict(kwargs))
    bound = _signature(params).bind(*args, **kwargs)
    bound.apply_defaults()
    return (tuple(bound.args), dict(bound.kwargs))


def _signature_template(input_signature):
    flat = nest.flatten(list(input_signature))
    args = tuple(nest.pack_sequence_as(list(input_signature), flat))
    return (args, {})


def _output_template(concrete):
    it = iter(concrete.out_kinds)

    def leaf(_):
        kind = next(it)
        return jax.ShapeDtypeStruct((), np.float32) if kind is None else kind[1]

    return nest.map_structure(leaf, concrete.out_tree)


def _export(function, args, kwargs):
    """``jax.export`` of ``function``'s pure program for these argument templates, ``None``
    dimensions symbolic; retraced with more Variables bound while the trace finds some."""
    flat = nest.flatten((args, kwargs))
    specs = [x for x in flat if isinstance(x, (jax.ShapeDtypeStruct, TensorSpec))]
    n_free = sum(d is None for s in specs for d in _spec_shape(s))
    symbols = iter(
        jax_export.symbolic_shape(", ".join(f"d{i}" for i in range(n_free))) if n_free else ()
    )
    arg_avals = []
    for s in specs:
        shape = tuple(next(symbols) if d is None else d for d in _spec_shape(s))
        arg_avals.append(jax.ShapeDtypeStruct(shape, _spec_dtype(s)))
    # Stand-ins for the tensors: the trace only sees their positions.
    dummies = [
        np.zeros([1 if d is None else d for d in _spec_shape(x)], _spec_dtype(x))
        if isinstance(x, (jax.ShapeDtypeStruct, TensorSpec))
        else x
        for x in flat
    ]
    d_args, d_kwargs = nest.pack_sequence_as((args, kwargs), dummies)
    d_flat = nest.flatten((d_args, d_kwargs))
    while True:
        concrete = function._new_concrete(d_args, d_kwargs, d_flat)
        var_avals = [
            jax.ShapeDtypeStruct(v._value.shape, v._value.dtype) for v in concrete.variables
        ]
        try:
            exported = jax_export.export(jax.jit(concrete.pure))(var_avals, arg_avals)
        except _Retrace as r:
            function._variables.update(r.variables)
            continue
        except jax_export.shape_poly.InconclusiveDimensionOperation as e:
            raise NotImplementedError(
                f"tapejax.saved_model cannot export {function.__name__} with a None dimension "
                f"in its input_signature: an op in it needs that size as a constant ({e}). "
                "Give the dimension a size in the TensorSpec."
            ) from None
        return exported, concrete


def _signature_entry(saver, name, fn) -> dict:
    """A serving signature: keyword inputs named like TF's and dict outputs."""
    if isinstance(fn, Function):
        if fn._input_signature is None:
            raise ValueError(
                f"Function {fn.__name__} used as the SavedModel signature {name!r} has no "
                "input_signature: pass `fn.get_concrete_function(...)` or decorate it with "
                "`@tf.function(input_signature=[...])`."
            )
        function, template = fn, _signature_template(fn._input_signature)
    elif isinstance(fn, ConcreteFunction):
        function, template = fn._function, fn._concrete.input_template
    else:
        raise ValueError(
            f"Expected a TensorFlow function for which to generate a signature, but got {fn}. "
            "Only `tf.functions` with an input signature or concrete functions can be used "
            "as a signature."
        )
    params = _parameters(function)
    index = saver.export(function, template, params)
    entry = saver.functions[index]
    args, kwargs = _decode(entry["inputs"])
    names = [p[0] for p in params] if params else []
    inputs = []
    for i, a in enumerate(args):
        spec = (
            nest.flatten(list(fn._input_signature))[i]
            if isinstance(fn, Function) and i < len(nest.flatten(list(fn._input_signature)))
            else None
        )
        if not isinstance(a, _Slot):
            continue
        inputs.append(getattr(spec, "name", None) or (names[i] if i < len(names) else f"arg_{i}"))
    outputs = entry["outputs"]
    if "single" in outputs:
        keys = ["output_0"]
    else:
        tree = _decode(outputs["tree"])
        if isinstance(tree, dict):
            for k in tree:
                if not isinstance(k, str):
                    raise ValueError(
                        f"Got a dictionary with a non-string key {k!r} in the output of the "
                        f"function {function.__name__} used to generate the SavedModel "
                        f"signature {name!r}."
                    )
            keys, values = list(tree), list(tree.values())
        else:
            values = list(tree) if isinstance(tree, (list, tuple)) else [tree]
            keys = [f"output_{i}" for i in range(len(values))]
        for k, v in zip(keys, values):
            if not isinstance(v, _Slot):
                raise ValueError(
                    f"Got a non-Tensor value {v!r} for key {k!r} in the output of the function "
                    f"{function.__name__} used to generate the SavedModel signature {name!r}. "
                    "Outputs for functions used as signatures must be a single Tensor, a "
                    "sequence of Tensors, or a dictionary from string to Tensor."
                )
    return {"function": index, "inputs": inputs, "outputs": keys}


def _default_signature(obj):
    """TF's rule: the root's one function with an input_signature is ``serving_default``."""
    if not isinstance(obj, (Module, _Loaded)) and not hasattr(obj, "__dict__"):
        return None
    found = [
        fn
        for _, fn in sorted(_named_functions(obj).items())
        if isinstance(fn, ConcreteFunction)
        or (isinstance(fn, Function) and fn._input_signature is not None)
    ]
    return found[0] if len(found) == 1 else None


def save(obj, export_dir, signatures=None, options=None) -> None:
    """Saves ``obj``'s Variables and traced functions to ``export_dir`` (``tf.saved_model.save``).

    Every ``tapejax.function`` reachable from ``obj`` is saved with each signature it has
    traced and the one its ``input_signature`` defines (``None`` dimensions stay
    symbolic); ``load`` gives them back callable without the Python code.

    Args:
      obj: a ``tapejax.Module`` (or any object whose attributes hold Variables, Modules
        and functions).
      export_dir: the directory to write.
      signatures: a ``tapejax.function`` with an ``input_signature``, a concrete function,
        or a dict ``{name: either}``; a single one is named ``serving_default``. By
        default, the root's one function with an input_signature, if exactly one.
      options: a ``SaveOptions``.

    Raises:
      NotImplementedError: ``obj`` is a Keras model (use ``model.save("x.keras")``), or a
        function's arguments or results cannot be saved.
      ValueError: a function captures a Variable not reachable from ``obj`` (TF's text).

    Example:
        >>> import tempfile, tapejax as tf
        >>> class Scale(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tf.Variable(2.0)
        ...     @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        ...     def __call__(self, x):
        ...         return x * self.w
        >>> path = tempfile.mkdtemp()
        >>> tf.saved_model.save(Scale(), path)
        >>> loaded = tf.saved_model.load(path)
        >>> loaded(tf.constant([1.0, 2.0])).numpy().tolist()
        [2.0, 4.0]
        >>> loaded.signatures["serving_default"](x=tf.constant([3.0]))["output_0"].numpy().tolist()
        [6.0]

    .. warning::
       The directory is tapejax's format (JSON, ``.npz`` and ``jax.export`` files), not
       TF's protobuf: TF cannot load it and ``load`` cannot read TF's SavedModels.
    """
    options = options or SaveOptions()
    if _keras_model(obj):
        raise NotImplementedError(
            "tapejax.saved_model.save does not save Keras models: save them in Keras's "
            'format with `model.save("x.keras")` and load with `tf.keras.models.load_model`.'
        )
    saver = _Saver(obj, options)
    tree = saver.node(obj)
    if signatures is None:
        signatures = _default_signature(obj)
    if signatures is not None and not isinstance(signatures, dict):
        signatures = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    signature_entries = {
        str(name): _signature_entry(saver, name, fn)
        for name, fn in sorted((signatures or {}).items())
    }
    export_dir = os.fspath(export_dir)
    os.makedirs(os.path.join(export_dir, _FUNCTIONS), exist_ok=True)
    arrays = {k: checkpoint._to_host(v._value) for k, v in saver.variables.items()}
    checkpoint._write_file(
        os.path.join(export_dir, _VARIABLES),
        arrays,
        {k: v.name for k, v in saver.variables.items()},
    )
    for entry, data in zip(saver.functions, saver.exports):
        with open(os.path.join(export_dir, _FUNCTIONS, entry["file"]), "wb") as f:
            f.write(data)
    meta = {
        "format": _FORMAT,
        "version": _VERSION,
        "tags": [SERVING],
        "variables": {
            k: {"trainable": bool(v.trainable), "name": v.name} for k, v in saver.variables.items()
        },
        "root": tree,
        "functions": saver.functions,
        "signatures": signature_entries,
    }
    with open(os.path.join(export_dir, _METADATA), "w") as f:
        json.dump(meta, f, indent=1)


# -- load ------------------------------------------------------------------------------


class _Loaded:
    """An object of a loaded SavedModel: its saved attributes, Variables and functions."""

    def _checkpoint_children(self) -> dict:
        # Checkpoint and save walk what was restored, not the loader's internals.
        return {
            k: v
            for k, v in vars(self).items()
            if not k.startswith("_tapejax_") and not _is_function(v) and k != "signatures"
        }

    def __call__(self, *args, **kwargs):
        # A saved ``__call__`` is an instance attribute here; Python looks calls up on the type.
        fn = vars(self).get("__call__")
        if fn is None:
            raise TypeError("'_UserObject' object is not callable")
        return fn(*args, **kwargs)

    def __repr__(self):
        return f"<tapejax.saved_model loaded object with attributes {sorted(vars(self))}>"


class _Program:
    """One exported signature: runs it on the loaded Variables, writes their new values."""

    def __init__(self, export_dir, entry, variables):
        with open(os.path.join(export_dir, _FUNCTIONS, entry["file"]), "rb") as f:
            self.exported = jax_export.deserialize(bytearray(f.read()))
        self.variables = [variables[k] for k in entry["variables"]]
        self.inputs = _decode(entry["inputs"])
        outputs = entry["outputs"]
        self.single = "single" in outputs
        self.outputs = None if self.single else _decode(outputs["tree"])
        self.jitted = jax.jit(self.exported.call)
        self.op = Op(
            "StatefulPartitionedCall", self._op_fn, multiple_outputs=True, runs_user_code=True
        )

    def _call_flat(self, *flat):
        n = len(self.variables)
        outs, new = self.exported.call(list(flat[:n]), list(flat[n:]))
        return tuple(outs) + tuple(new)

    def _op_fn(self, *flat):
        return _with_float0_cotangents(self._call_flat)(*flat)

    def run(self, tensors):
        if recorder.active():
            # Under a tape: one op, so gradients flow to the arguments and Variables.
            inputs = tuple(v._dense_read() for v in self.variables) + tuple(tensors)
            results = dispatch.apply(self.op, inputs)
            n_out = len(results) - len(self.variables)
            outs, new = list(results[:n_out]), [r._value for r in results[n_out:]]
        else:
            values = [v._value for v in self.variables]
            outs, new = self.jitted(values, [t._value for t in tensors])
            outs = [wrap(o) for o in outs]
        for v, value in zip(self.variables, new):
            v._value = value
        if self.single:
            return outs[0]
        return _fill(self.outputs, iter(outs))


def _with_float0_cotangents(fn):
    """``fn`` whose VJP takes integer outputs' cotangents as the tape passes them (zeros
    of the output's dtype): the exported VJP accepts only ``float0`` ones there."""

    @jax.custom_vjp
    def call(*flat):
        return fn(*flat)

    def fwd(*flat):
        return jax.vjp(fn, *flat)

    def bwd(vjp, cts):
        return vjp(
            tuple(
                c if jnp.issubdtype(c.dtype, jnp.inexact) else np.zeros(c.shape, jax.dtypes.float0)
                for c in cts
            )
        )

    call.defvjp(fwd, bwd)
    return call


def _match(template, value):
    """``value``'s tensors (converted) in order if it fits ``template``, else None."""
    if isinstance(template, _Slot):
        if isinstance(value, (list, tuple, dict)) and not isinstance(value, Tensor):
            return None
        try:
            t = value if type(value) is Tensor else convert_to_tensor(value)
        except Exception:
            return None
        v = t._v
        if np.dtype(v.dtype) != template.dtype or len(v.shape) != len(template.shape):
            return None
        if any(d is not None and d != s for d, s in zip(template.shape, v.shape)):
            return None
        return [t]
    if isinstance(template, (list, tuple)):
        if type(value) is not type(template) or len(value) != len(template):
            return None
        out = []
        for t, x in zip(template, value):
            m = _match(t, x)
            if m is None:
                return None
            out += m
        return out
    if isinstance(template, dict):
        if not isinstance(value, dict) or set(value) != set(template):
            return None
        return _match([template[k] for k in sorted(template)], [value[k] for k in sorted(template)])
    if type(value) is not type(template) or value != template:
        return None
    return []


def _describe(args, kwargs, names=()):
    def one(x, name=None):
        if isinstance(x, _Slot):
            return repr(x.spec(name))
        if isinstance(x, Tensor) or getattr(x, "_is_variable", False):
            label = f"'{name}:0' " if name else ""
            shape = tuple(x.shape.as_list())
            return f"<tf.Tensor {label}shape={shape} dtype={x.dtype.name}>"
        return repr(x)

    lines = [f"  Positional arguments ({len(args)} total):"]
    for i, a in enumerate(args):
        lines.append(f"    * {one(a, names[i] if i < len(names) else None)}")
    lines.append(f"  Keyword arguments: { ({k: one(v, k) for k, v in kwargs.items()}) }")
    return "\n".join(lines)


class _RestoredFunction:
    """A loaded ``tapejax.function``: calls the saved signature its arguments match."""

    def __init__(self, saved, programs):
        self.__name__ = saved["name"]
        self._params = saved["parameters"]
        self._programs = [programs[i] for i in saved["concrete"]]

    def __call__(self, *args, **kwargs):
        if not self._programs:
            raise ValueError("Found zero restored functions for caller function.")
        if self._params is not None:
            try:
                args, kwargs = _canonical(self._params, args, kwargs)
            except TypeError:
                pass  # reported as a mismatch below, with the options
        for program in self._programs:
            tensors = _match(program.inputs, (tuple(args), dict(kwargs)))
            if tensors is not None:
                return program.run(tensors)
        names = [p[0] for p in self._params or ()]
        options = "\n\n".join(
            f"Option {i + 1}:\n{_describe(*p.inputs, names)}" for i, p in enumerate(self._programs)
        )
        raise ValueError(
            "Could not find matching concrete function to call loaded from the SavedModel. "
            f"Got:\n{_describe(args, kwargs, names)}\n\n Expected these arguments to match one "
            f"of the following {len(self._programs)} option(s):\n\n{options}"
        )


class _SignatureFunction:
    """A serving signature: keyword tensor arguments in, a dict of tensors out."""

    def __init__(self, program, inputs, outputs):
        self._program = program
        self._inputs = inputs
        self._outputs = outputs
        args = program.inputs[0]
        self.structured_input_signature = (
            (),
            {n: a.spec(n) for n, a in zip(inputs, [a for a in args if isinstance(a, _Slot)])},
        )
        self.structured_outputs = {k: TensorSpec(None, np.float32, name=k) for k in outputs}

    def __call__(self, *args, **kwargs):
        if len(args) > len(self._inputs):
            raise TypeError(
                f"signature_wrapper takes {len(self._inputs)} positional arguments but "
                f"{len(args)} were given"
            )
        given = dict(zip(self._inputs, args))
        for k, v in kwargs.items():
            if k not in self._inputs:
                raise TypeError(f"signature_wrapper got an unexpected keyword argument {k!r}")
            given[k] = v
        missing = [n for n in self._inputs if n not in given]
        if missing:
            raise TypeError(f"signature_wrapper missing required argument: {missing[0]!r}")
        template_args, template_kwargs = self._program.inputs
        it = iter(self._inputs)
        call_args = tuple(given[next(it)] if isinstance(a, _Slot) else a for a in template_args)
        slots = [a for a in template_args if isinstance(a, _Slot)]
        tensors = []
        for name, slot, value in zip(self._inputs, slots, [given[n] for n in self._inputs]):
            t = value if type(value) is Tensor else convert_to_tensor(value, dtype=slot.dtype)
            if _match(slot, t) is None:
                raise ValueError(
                    f"Signature input {name!r} expects {slot.spec(name)}, got a tensor of shape "
                    f"{tuple(t.shape.as_list())} and dtype {t.dtype.name}."
                )
            tensors.append(t)
        del call_args, template_kwargs
        result = self._program.run(tensors)
        if isinstance(result, dict):
            return dict(result)
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        return dict(zip(self._outputs, values))


def contains_saved_model(export_dir) -> bool:
    """Whether ``export_dir`` holds a tapejax SavedModel (``tf.saved_model.contains_saved_model``).

    A TF SavedModel (``saved_model.pb``) is not one: tapejax cannot load it.
    """
    return os.path.isfile(os.path.join(os.fspath(export_dir), _METADATA))


def load(export_dir, tags=None, options=None):
    """Loads a SavedModel written by ``tapejax.saved_model.save`` (``tf.saved_model.load``).

    Args:
      export_dir: the directory ``save`` wrote.
      tags: ``None``, ``"serve"`` or ``["serve"]`` (the one tag tapejax writes).
      options: a ``LoadOptions``.

    Returns:
      An object with the saved attribute tree: Variables (fresh ``tapejax.Variable``\\ s
      with the saved values), child objects, lists and dicts, each saved function
      callable with the signatures it was saved with, and ``.signatures`` (name ->
      function taking keyword tensors and returning a dict).

    Raises:
      OSError: nothing was saved at ``export_dir`` (TF's text), or it is a TF SavedModel,
        which tapejax cannot read.
      RuntimeError: ``tags`` other than ``serve`` (TF's text).
    """
    export_dir = os.fspath(export_dir)
    meta_path = os.path.join(export_dir, _METADATA)
    if not os.path.isfile(meta_path):
        if any(
            os.path.isfile(os.path.join(export_dir, f))
            for f in ("saved_model.pb", "saved_model.pbtxt")
        ):
            raise OSError(
                f"{export_dir} is a TensorFlow SavedModel (saved_model.pb): tapejax cannot load "
                "TF's SavedModel format, only directories written by "
                "tapejax.saved_model.save. Rebuild the model in tapejax and restore its "
                "weights instead (e.g. from a checkpoint or .keras file)."
            )
        raise OSError(
            f"SavedModel file does not exist at: {export_dir}/{{saved_model.pbtxt|saved_model.pb}}"
        )
    with open(meta_path) as f:
        meta = json.load(f)
    if meta.get("format") != _FORMAT or meta.get("version", 0) > _VERSION:
        raise ValueError(
            f"{meta_path} has format {meta.get('format')!r} version {meta.get('version')!r}; "
            f"this tapejax reads {_FORMAT!r} up to version {_VERSION}."
        )
    if tags is not None:
        wanted = [tags] if isinstance(tags, str) else list(tags)
        if set(wanted) - set(meta["tags"]):
            raise RuntimeError(
                f"MetaGraphDef associated with tags {wanted!r} could not be found in "
                f"SavedModel, with available tags '{meta['tags']!r}'. To inspect available "
                "tag-sets in the SavedModel, please use the SavedModel CLI: `saved_model_cli`."
            )
    options = options or LoadOptions()
    from .variables import Variable

    values = checkpoint._read_file(os.path.join(export_dir, _VARIABLES))
    variables = {}
    for key, info in meta["variables"].items():
        variables[key] = Variable(
            values[key], trainable=info["trainable"], name=info["name"].split(":")[0]
        )
    programs = [_Program(export_dir, entry, variables) for entry in meta["functions"]]

    built = {}

    def build(node):
        if "variable" in node:
            return variables[node["variable"]]
        key = id(node)
        if key in built:
            return built[key]
        if "list" in node:
            out = [build(n) for n in node["list"]]
        elif "tuple" in node:
            out = tuple(build(n) for n in node["tuple"])
        elif "dict" in node:
            out = {k: build(n) for k, n in node["dict"]}
        else:
            out = _Loaded()
            for name, child in node["object"].items():
                setattr(out, name, build(child))
            for name, saved in node["functions"].items():
                setattr(out, name, _RestoredFunction(saved, programs))
        built[key] = out
        return out

    root = build(meta["root"])
    signatures = {
        name: _SignatureFunction(programs[s["function"]], s["inputs"], s["outputs"])
        for name, s in meta["signatures"].items()
    }
    if isinstance(root, _Loaded):
        root.signatures = signatures
    return root
