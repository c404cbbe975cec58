"""Differential harness: run one TF-API case under TensorFlow and under tapejax, compare.

A *case* is a plain function ``def case_xxx(tf): ...`` whose body uses only the
public TensorFlow API through its ``tf`` argument and returns any nested structure
(list / tuple / dict / namedtuple) of tensors, Variables, Python scalars, strings
or ``None``. The harness runs the same body once with ``tf = tensorflow`` and once
with ``tf = tapejax``, turns each outcome into a JSON-serialisable *record* and
compares the two records leaf by leaf.

TensorFlow's outcome is taken live when ``import tensorflow`` works, and from
``compat_tests/expected/<module>.json`` otherwise, so the suite also runs on a
machine without TensorFlow.

This module must never import tapejax internals (it tests the public surface only)
and must never leave global state changed: the only switch it flips, JAX's x64
flag, is restored after each case.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import logging
import os
import pathlib
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

EXPECTED_DIR = pathlib.Path(__file__).resolve().parent / "expected"
CASE_PREFIX = "case_"
# Loggers that carry TF's user-visible warnings (TF's own) and tapejax's copies of them.
WARNING_LOGGERS = ("tensorflow", "tapejax")
# Which module plays "tapejax". Overridable so the harness itself can be checked by
# running TensorFlow against TensorFlow (TAPEJAX_COMPAT_TARGET=tensorflow).
TARGET_ENV = "TAPEJAX_COMPAT_TARGET"
_HEX_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# TF messages whose presence depends on what ran earlier in the process (tf.function
# retracing counters), never on the case itself.
_NOISE_MESSAGES = ("triggered tf.function retracing",)
_IGNORED_WARNING_CATEGORIES = (
    DeprecationWarning,
    PendingDeprecationWarning,
    FutureWarning,
    ImportWarning,
    ResourceWarning,
)


# --------------------------------------------------------------------------- options


@dataclasses.dataclass(frozen=True)
class CaseOptions:
    """How one case is compared. Set with the :func:`case` decorator.

    Attributes:
      rtol, atol: float tolerance, ``|tapejax - tf| <= atol + rtol * |tf|``.
      match_message: ``True`` = exception texts must be equal; a string = a regex that
        both texts must contain (``re.search``); ``False`` = compare class names only.
      match_warnings: compare the warnings logged/warned while the case ran.
      x64: run tapejax under ``jax_enable_x64=True`` (float64/int64 cases).
      requires: tapejax attribute paths (``"autodiff.ForwardAccumulator"``) the case
        needs; if one is missing the test is skipped, so the suite stays green while
        tapejax grows.
      deviation: why tapejax deliberately differs from TF here. Requires ``tf_adapt``
        or ``expect`` saying what tapejax does instead.
      tf_adapt: ``(tf_module, tf_result) -> result`` applied to TensorFlow's result
        only, e.g. densify an ``IndexedSlices`` that tapejax returns dense.
      expect: what tapejax must produce instead of TF's record: a (partial) record
        (see :func:`raises`) or a callable ``(tapejax_record, tf_record) -> None``
        that raises ``AssertionError``.
    """

    rtol: float = 1e-5
    atol: float = 1e-6
    match_message: bool | str = False
    match_warnings: bool = False
    x64: bool = False
    requires: tuple[str, ...] = ()
    deviation: str | None = None
    tf_adapt: Callable[[Any, Any], Any] | None = None
    expect: Mapping[str, Any] | Callable[[dict, dict], None] | None = None

    def __post_init__(self):
        if isinstance(self.requires, str):
            raise TypeError(f"requires must be a tuple of names, got the string {self.requires!r}")
        has_alternative = self.tf_adapt is not None or self.expect is not None
        if self.deviation is not None and not self.deviation.strip():
            raise ValueError("deviation needs a reason (it is listed in docs/compat.md)")
        if self.deviation and not has_alternative:
            raise ValueError("a deviation case must say what tapejax does: give tf_adapt or expect")
        if has_alternative and not self.deviation:
            raise ValueError("tf_adapt/expect are only for deviation cases: give deviation=reason")


DEFAULT_OPTIONS = CaseOptions()


def case(**options: Any) -> Callable[[Callable], Callable]:
    """Decorator attaching :class:`CaseOptions` to a case function.

    Example::

        @case(match_message=True, requires=("custom_gradient",))
        def case_custom_grad_wrong_count(tf): ...
    """
    opts = CaseOptions(**options)

    def attach(fn: Callable) -> Callable:
        fn.compat_options = opts
        if opts.deviation:
            # The reason must be visible wherever the case is listed (docs/compat.md).
            doc = (fn.__doc__ or "").strip()
            fn.__doc__ = f"DEVIATION: {opts.deviation}\n\n{doc}".strip()
        return fn

    return attach


def options_of(case_fn: Callable) -> CaseOptions:
    return getattr(case_fn, "compat_options", DEFAULT_OPTIONS)


# ------------------------------------------------------------------ in-case helpers


@dataclasses.dataclass(frozen=True)
class Raised:
    """An exception caught inside a case (see :func:`catch`); recorded as a leaf."""

    name: str
    message: str


def catch(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn``; return its result, or a :class:`Raised` leaf if it raised.

    Lets one case check an error *and* what happens afterwards (e.g. that a tape
    is still usable), which a top-level exception would cut short.
    """
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - any exception is data here
        return Raised(type(exc).__name__, _clean_message(str(exc)))


def raises(name: str, message: str | None = None) -> dict:
    """A partial record for ``expect=``: tapejax must raise ``name`` (message optional)."""
    return {"raises": name, "message": message}


def raises_one_of(*names: str) -> Callable[[dict, dict], None]:
    """An ``expect=`` callable: tapejax must raise one of ``names`` (any message)."""

    def check(tj_record: dict, tf_record: dict) -> None:
        __tracebackhide__ = True
        if tj_record.get("raises") not in names:
            raise Mismatch(
                f"at result: expected tapejax to raise one of {list(names)}\n"
                f"  tensorflow: {_describe_outcome(tf_record)}\n"
                f"  tapejax:    {_describe_outcome(tj_record)}"
            )

    return check


def returns(tj_record: dict, tf_record: dict) -> None:
    """An ``expect=`` callable: tapejax must return (where TF raises), whatever the value."""
    __tracebackhide__ = True
    if "raises" in tj_record:
        raise Mismatch(
            "at result: expected tapejax to return\n"
            f"  tensorflow: {_describe_outcome(tf_record)}\n"
            f"  tapejax:    {_describe_outcome(tj_record)}"
        )


# ------------------------------------------------------------------ frameworks


_TF_MODULE = None


def import_tensorflow():
    """TensorFlow, or ``None`` if it is not installed. Quiet and thread-frugal."""
    global _TF_MODULE
    if _TF_MODULE is not None:
        return _TF_MODULE
    # Must be set before TF's C++ runtime loads; oneDNN off so float results do not
    # depend on which CPU recorded the expectations.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    try:
        import tensorflow as tf
    except ImportError:
        return None
    with contextlib.suppress(RuntimeError):  # already initialised by someone else
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    _TF_MODULE = tf
    return tf


def import_target():
    """The module under test: tapejax (or what TAPEJAX_COMPAT_TARGET names)."""
    name = os.environ.get(TARGET_ENV, "tapejax")
    if name == "tensorflow":
        return import_tensorflow()
    return importlib.import_module(name)


def missing_attribute(module: Any, path: str) -> bool:
    obj = module
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - a lazily failing attribute counts as missing
            return True
    return False


@contextlib.contextmanager
def jax_x64(enabled: bool) -> Iterator[None]:
    """Run with ``jax_enable_x64`` set to ``enabled``, restoring the previous value."""
    import jax

    previous = bool(jax.config.read("jax_enable_x64"))
    if previous == enabled:
        yield
        return
    jax.config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", previous)


# ------------------------------------------------------------------ recording


class _ListHandler(logging.Handler):
    def __init__(self, sink: list[str]):
        super().__init__(level=logging.WARNING)
        self._sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if not any(noise in message for noise in _NOISE_MESSAGES):
            self._sink.append(_clean_message(message))


@contextlib.contextmanager
def capture_warnings() -> Iterator[list[str]]:
    """Collect warning texts from TF/tapejax loggers and from ``warnings.warn``.

    Loggers and ``warnings`` land in one list (in arrival order for each source)
    because tapejax may use either channel for the text TF logs.
    """
    logged: list[str] = []
    handler = _ListHandler(logged)
    loggers = [logging.getLogger(name) for name in WARNING_LOGGERS]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            messages: list[str] = []
            yield messages
            messages.extend(logged)
            messages.extend(
                _clean_message(str(w.message))
                for w in warned
                if not issubclass(w.category, _IGNORED_WARNING_CATEGORIES)
            )
    finally:
        for lg in loggers:
            lg.removeHandler(handler)


def _clean_message(text: str) -> str:
    # Object addresses differ between runs; they would make stored records drift.
    return _HEX_ADDRESS.sub("0x?", text)


def run(
    case_fn: Callable, module: Any, *, adapt: Callable | None = None, x64: bool = False
) -> dict:
    """Run ``case_fn(module)`` and return its normalized, JSON-serialisable record.

    Record: ``{"result": <tree>, "warnings": [...]}`` or, if the case raised,
    ``{"raises": ClassName, "message": str(exc), "warnings": [...]}``.
    """
    x64_context = jax_x64(True) if x64 else contextlib.nullcontext()
    with capture_warnings() as messages, x64_context:
        try:
            result = case_fn(module)
            if adapt is not None:
                result = adapt(module, result)
            record: dict = {"result": normalize(result)}
        except Exception as exc:  # noqa: BLE001 - the exception is the outcome
            record = {"raises": type(exc).__name__, "message": _clean_message(str(exc))}
    record["warnings"] = messages
    return record


def normalize(obj: Any) -> Any:
    """Turn a case result into plain JSON data, keeping structure kinds and dtypes."""
    if obj is None:
        return None
    if isinstance(obj, Raised):
        return {"raises": obj.name, "message": obj.message}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return {
            "namedtuple": type(obj).__name__,
            "fields": {f: normalize(getattr(obj, f)) for f in obj._fields},
        }
    if isinstance(obj, tuple):
        return {"tuple": [normalize(x) for x in obj]}
    if isinstance(obj, list):
        return {"list": [normalize(x) for x in obj]}
    if isinstance(obj, dict):
        return {
            "dict": {
                str(k): normalize(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))
            }
        }
    return _leaf(obj)


def _leaf(obj: Any) -> dict:
    if isinstance(obj, (bool, int, float, complex, np.generic)) and not hasattr(obj, "numpy"):
        kind = "numpy" if isinstance(obj, np.generic) else "python"
        return _array_leaf(kind, np.asarray(obj), np.asarray(obj).dtype.name)
    if isinstance(obj, (str, bytes)):
        return {"kind": "str", "value": obj.decode() if isinstance(obj, bytes) else obj}
    if isinstance(obj, np.ndarray):
        return _array_leaf("numpy", obj, obj.dtype.name)
    type_name = type(obj).__name__
    if type_name == "IndexedSlices":
        return {
            "kind": "indexed_slices",
            "values": _leaf(obj.values),
            "indices": _leaf(obj.indices),
            "dense_shape": None if obj.dense_shape is None else _leaf(obj.dense_shape),
        }
    if hasattr(obj, "as_list") and hasattr(obj, "rank"):  # a TensorShape
        return {"kind": "shape", "value": obj.as_list() if obj.rank is not None else None}
    if hasattr(obj, "numpy") and hasattr(obj, "dtype"):
        kind = "variable" if hasattr(obj, "assign") and hasattr(obj, "read_value") else "tensor"
        return _array_leaf(kind, np.asarray(obj.numpy()), _dtype_name(obj.dtype))
    try:
        array = np.asarray(obj)
    except Exception:  # noqa: BLE001
        return {"kind": f"other:{type_name}", "repr": _clean_message(repr(obj))[:200]}
    return _array_leaf(f"other:{type_name}", array, array.dtype.name)


def _dtype_name(dtype: Any) -> str:
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype)


def _array_leaf(kind: str, array: np.ndarray, dtype_name: str) -> dict:
    return {"kind": kind, "dtype": dtype_name, "shape": list(array.shape), "value": _values(array)}


def _values(array: np.ndarray) -> Any:
    if array.dtype.kind == "c":
        return np.stack([array.real, array.imag], axis=-1).tolist()
    if array.dtype.kind in "SO":
        return (
            np.vectorize(
                lambda s: s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s),
                otypes=[object],
            )(array).tolist()
            if array.size
            else array.tolist()
        )
    if array.dtype.kind not in "biuf":  # bfloat16 and other ml_dtypes
        array = array.astype(np.float32)
    return array.tolist()


# ------------------------------------------------------------------ comparing


class Mismatch(AssertionError):
    """tapejax's record differs from TensorFlow's."""


def compare(
    tf_record: Mapping[str, Any],
    tj_record: Mapping[str, Any],
    options: CaseOptions = DEFAULT_OPTIONS,
    *,
    labels: tuple[str, str] = ("tensorflow", "tapejax"),
) -> None:
    """Assert the records agree; raise :class:`Mismatch` listing every difference.

    Message format (one block per difference)::

        at result[1]['x']: dtype differs
          tensorflow: float32
          tapejax:    float64
    """
    __tracebackhide__ = True  # pytest: show the mismatch list, not this function
    problems: list[str] = []
    _compare_outcome(tf_record, tj_record, options, "result", problems, labels)
    if options.match_warnings:
        want, got = list(tf_record.get("warnings", [])), list(tj_record.get("warnings", []))
        if want != got:
            problems.append(_block("warnings", "logged warnings differ", want, got, labels))
    if problems:
        shown = problems[:12]
        more = f"\n... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
        raise Mismatch(f"{len(problems)} difference(s):\n" + "\n".join(shown) + more)


def _block(path: str, what: str, want: Any, got: Any, labels: tuple[str, str]) -> str:
    width = max(len(labels[0]), len(labels[1])) + 1
    return (
        f"at {path}: {what}\n"
        f"  {(labels[0] + ':').ljust(width)} {_short(want)}\n"
        f"  {(labels[1] + ':').ljust(width)} {_short(got)}"
    )


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe_outcome(rec: Mapping[str, Any]) -> str:
    if "raises" in rec:
        return f"raised {rec['raises']}: {rec.get('message')}"
    return "returned " + _short(rec.get("result"), 200)


def _compare_outcome(want, got, options, path, problems, labels) -> None:
    if ("raises" in want) != ("raises" in got):
        problems.append(
            _block(
                path,
                "one raised, the other did not",
                _describe_outcome(want),
                _describe_outcome(got),
                labels,
            )
        )
        return
    if "raises" in want:
        _compare_exception(want, got, options, path, problems, labels)
        return
    _compare_tree(want["result"], got["result"], options, path, problems, labels)


def _compare_exception(want, got, options, path, problems, labels) -> None:
    if want["raises"] != got["raises"]:
        problems.append(
            _block(
                path,
                "exception class differs",
                _describe_outcome(want),
                _describe_outcome(got),
                labels,
            )
        )
        return
    expected_text = want.get("message")
    if expected_text is None or options.match_message is False:
        return
    if options.match_message is True:
        if expected_text != got.get("message"):
            problems.append(
                _block(path, "exception message differs", expected_text, got.get("message"), labels)
            )
        return
    pattern = options.match_message
    if not re.search(pattern, expected_text):
        problems.append(
            _block(
                path,
                f"the case's regex {pattern!r} does not match {labels[0]}'s message (fix the case)",
                expected_text,
                got.get("message"),
                labels,
            )
        )
    elif not re.search(pattern, got.get("message") or ""):
        problems.append(
            _block(
                path,
                f"exception message does not match {pattern!r}",
                expected_text,
                got.get("message"),
                labels,
            )
        )


def _kind_of(node: Any) -> str:
    if node is None:
        return "None"
    for key in ("tuple", "list", "dict", "namedtuple", "raises"):
        if key in node:
            return {"raises": "caught exception"}.get(key, key)
    return node.get("kind", "?")


def _compare_tree(want, got, options, path, problems, labels) -> None:
    kw, kg = _kind_of(want), _kind_of(got)
    if kw != kg:
        problems.append(
            _block(
                path,
                "kind differs",
                f"{kw}: {_short(want, 200)}",
                f"{kg}: {_short(got, 200)}",
                labels,
            )
        )
        return
    if want is None:
        return
    if kw in ("tuple", "list"):
        a, b = want[kw], got[kw]
        if len(a) != len(b):
            problems.append(_block(path, f"{kw} length differs", len(a), len(b), labels))
            return
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _compare_tree(x, y, options, f"{path}[{i}]", problems, labels)
    elif kw in ("dict", "namedtuple"):
        if kw == "namedtuple" and want["namedtuple"] != got["namedtuple"]:
            problems.append(
                _block(
                    path, "namedtuple type differs", want["namedtuple"], got["namedtuple"], labels
                )
            )
        a, b = (want["dict"], got["dict"]) if kw == "dict" else (want["fields"], got["fields"])
        if list(a) != list(b):
            problems.append(_block(path, "keys differ", list(a), list(b), labels))
            return
        for key in a:
            _compare_tree(a[key], b[key], options, f"{path}[{key!r}]", problems, labels)
    elif kw == "caught exception":
        _compare_exception(want, got, options, path, problems, labels)
    elif kw == "indexed_slices":
        for part in ("values", "indices", "dense_shape"):
            _compare_tree(want[part], got[part], options, f"{path}.{part}", problems, labels)
    elif "dtype" in want:
        _compare_array(want, got, options, path, problems, labels)
    elif want != got:
        problems.append(
            _block(
                path, f"{kw} value differs", want.get("value", want), got.get("value", got), labels
            )
        )


def _compare_array(want, got, options, path, problems, labels) -> None:
    if want["dtype"] != got["dtype"]:
        problems.append(_block(path, "dtype differs", want["dtype"], got["dtype"], labels))
        return
    if want["shape"] != got["shape"]:
        problems.append(_block(path, "shape differs", want["shape"], got["shape"], labels))
        return
    a, b = want["value"], got["value"]
    if _is_inexact(want["dtype"]):
        x = np.asarray(a, dtype=np.float64)
        y = np.asarray(b, dtype=np.float64)
        close = np.isclose(y, x, rtol=options.rtol, atol=options.atol, equal_nan=True)
        if not np.all(close):
            worst = _worst_error(x, y)
            problems.append(
                _block(
                    path,
                    f"values differ (rtol={options.rtol}, atol={options.atol}{worst})",
                    a,
                    b,
                    labels,
                )
            )
    elif a != b:
        problems.append(_block(path, "values differ", a, b, labels))


def _is_inexact(dtype_name: str) -> bool:
    return dtype_name.startswith(("float", "complex", "bfloat", "half", "double"))


def _worst_error(x: np.ndarray, y: np.ndarray) -> str:
    with np.errstate(invalid="ignore"):
        err = np.abs(x - y)
    finite = err[np.isfinite(err)]
    return f", max abs err {finite.max():.3g}" if finite.size else ""


# ------------------------------------------------------------------ expectations


_LIVE_TF_RECORDS: dict[str, dict] = {}


def case_key(case_fn: Callable) -> tuple[str, str]:
    """(module basename, case name) — where the case's stored record lives."""
    return case_fn.__module__.rsplit(".", 1)[-1], case_fn.__name__


def live_tf_record(case_fn: Callable) -> dict | None:
    """TensorFlow's record for the case, computed at most once per process.

    Once per process matters: TF's ``log_first_n`` warnings are rate-limited per
    call site, so a second run of the same case would log less.
    """
    tf = import_tensorflow()
    if tf is None:
        return None
    key = "/".join(case_key(case_fn))
    if key not in _LIVE_TF_RECORDS:
        opts = options_of(case_fn)
        record = run(case_fn, tf, adapt=opts.tf_adapt)
        if not opts.match_warnings:
            # Unchecked warnings are not part of the expectation: some of TF's are
            # rate-limited per process and would make the stored records order-dependent.
            record["warnings"] = []
        _LIVE_TF_RECORDS[key] = record
    return _LIVE_TF_RECORDS[key]


def expected_path(module_name: str) -> pathlib.Path:
    return EXPECTED_DIR / f"{module_name}.json"


_STORED: dict[str, dict] = {}


def stored_records(module_name: str) -> dict:
    if module_name not in _STORED:
        path = expected_path(module_name)
        _STORED[module_name] = json.loads(path.read_text())["cases"] if path.exists() else {}
    return _STORED[module_name]


def stored_tf_record(case_fn: Callable) -> dict | None:
    module_name, name = case_key(case_fn)
    return stored_records(module_name).get(name)


def tf_record(case_fn: Callable) -> dict | None:
    """Live TensorFlow record if TF is installed, else the stored one (or None)."""
    live = live_tf_record(case_fn)
    return live if live is not None else stored_tf_record(case_fn)


def collect_cases(namespace: Mapping[str, Any]) -> list[Callable]:
    """Every ``case_*`` function of a module namespace, in definition order."""
    return [v for k, v in namespace.items() if k.startswith(CASE_PREFIX) and callable(v)]


CASE_MODULES = (
    "test_gradient",
    "test_guide_autodiff",
    "test_higher_order",
    "test_custom_gradient",
    "test_keras_layers",
    "test_keras_optimizers",
    "test_keras_models",
    "test_tensor_array",
)


def all_case_modules() -> list[Any]:
    package = __name__.rsplit(".", 1)[0]
    return [importlib.import_module(f"{package}.{name}") for name in CASE_MODULES]


# ------------------------------------------------------------------ pytest glue


def check_case(case_fn: Callable) -> None:
    """The body of every generated test: tapejax's record must match TF's."""
    import pytest

    __tracebackhide__ = True
    opts = options_of(case_fn)
    target = import_target()
    for name in opts.requires:
        if missing_attribute(target, name):
            pytest.skip(f"tapejax has no {name} yet")
    expected = tf_record(case_fn)
    if expected is None:
        module_name, name = case_key(case_fn)
        pytest.fail(
            f"no TensorFlow record for {module_name}/{name}: TensorFlow is not installed and "
            f"{expected_path(module_name)} has no entry; run `python -m compat_tests.record` "
            "where TensorFlow is installed"
        )
    actual = run(case_fn, target, x64=opts.x64)
    if opts.expect is None:
        compare(expected, actual, opts)
    elif callable(opts.expect):
        opts.expect(actual, expected)
    else:
        compare(opts.expect, actual, opts, labels=("expected (deviation)", "tapejax"))


def compat_test(namespace: Mapping[str, Any]) -> Callable:
    """Build the module's parametrized test over all its ``case_*`` functions.

    Use at the bottom of a case module::

        test_matches_tensorflow = harness.compat_test(globals())
    """
    import pytest

    params = []
    for fn in collect_cases(namespace):
        deviation = options_of(fn).deviation
        # The id carries a marker so deviations stand out in test listings; the
        # reason itself is in the docstring and in `python -m compat_tests.record --deviations`.
        params.append(pytest.param(fn, id=fn.__name__ + ("--deviation" if deviation else "")))

    @pytest.mark.parametrize("case_fn", params)
    def test_matches_tensorflow(case_fn):
        __tracebackhide__ = True
        check_case(case_fn)

    return test_matches_tensorflow


def deviations() -> list[tuple[str, str]]:
    """(case, reason) for every deviation case, for docs/compat.md."""
    rows = []
    for module in all_case_modules():
        for fn in collect_cases(vars(module)):
            reason = options_of(fn).deviation
            if reason:
                rows.append(("/".join(case_key(fn)), reason))
    return rows


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use `python -m compat_tests.record` to (re-)record expectations")
