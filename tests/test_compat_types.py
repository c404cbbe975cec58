"""``tapejax.compat`` and ``tapejax.types`` side by side with live TensorFlow: the string
and path helpers on many inputs (values, result types, exception types and texts), the
type tuples, the dimension helpers, the forward-compatibility date, ``TensorLike`` and the
function protocol classes, ``compat.v2``/``v1``, and the differences ``docs/compat.md``
lists."""

from __future__ import annotations

import datetime
import logging
import os
import pathlib
import typing

import numpy as np
import pytest

import tapejax
from tapejax._src import compat as compat_impl

tensorflow = pytest.importorskip("tensorflow")

from opcheck import raised  # noqa: E402 - the shared op-test harness

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}

# tools/tf_coverage.py: names these tests reach through getattr or as strings.
OTHERWISE_TESTED = {
    "compat.as_bytes",
    "compat.as_str",
    "compat.as_str_any",
    "compat.as_text",
    "compat.path_to_str",
    "compat.bytes_or_text_types",
    "compat.complex_types",
    "compat.integral_types",
    "compat.real_types",
}


class _FsPath:
    """An ``os.PathLike`` that is not a ``pathlib`` path, returning ``bytes``."""

    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return self.path

    def __repr__(self) -> str:  # test ids must not hold addresses (xdist compares them)
        return f"_FsPath({self.path!r})"


STRING_INPUTS = [
    "abc",
    "é",
    "",
    b"abc",
    b"\xc3\xa9",
    b"\xff",
    bytearray(b"ab"),
    np.str_("x"),
    np.bytes_(b"y"),
    pathlib.PurePosixPath("./a/../b"),
    _FsPath(b"raw/\xc3\xa9"),
    _FsPath("text"),
    1,
    1.5,
    None,
    (1, 2),
    (1,),
    ("a",),
    (),
    [1],
    np.int32(3),
]
STRING_FUNCTIONS = ["as_bytes", "as_text", "as_str", "as_str_any", "path_to_str"]


def _outcome(fw, name, value, **kwargs):
    """What ``fw.compat.<name>(value)`` gives: ``("ok", type, value)`` or the exception."""
    try:
        result = getattr(fw.compat, name)(value, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return ("raised", type(e).__name__, str(e))
    shown = result if isinstance(result, (str, bytes, bytearray, int, float, tuple, list)) else None
    return ("ok", type(result), shown if shown is not None else result)


@pytest.mark.parametrize("name", STRING_FUNCTIONS)
@pytest.mark.parametrize("value", STRING_INPUTS, ids=repr)
def test_string_helpers_match_tf(name, value):
    want = _outcome(tensorflow, name, value)
    got = _outcome(tapejax, name, value)
    if want[0] == "ok" and want[2] is value:  # path_to_str passes other values through
        assert got[2] is value
    else:
        assert got == want


@pytest.mark.parametrize("name", ["as_bytes", "as_text", "as_str", "as_str_any"])
@pytest.mark.parametrize(
    "value,encoding",
    [("é", "latin-1"), (b"\xe9", "latin-1"), ("é", "ascii"), (b"ab", "nope"), ("ab", "UTF8")],
)
def test_string_helpers_encodings_match_tf(name, value, encoding):
    want = _outcome(tensorflow, name, value, encoding=encoding)
    assert _outcome(tapejax, name, value, encoding=encoding) == want


def test_as_bytes_error_text_is_tfs():
    with pytest.raises(TypeError, match=r"^Expected binary or unicode string, got 1$"):
        tapejax.compat.as_bytes(1)
    with pytest.raises(TypeError, match=r"^Expected binary or unicode string, got \(1, 2\)$"):
        tapejax.compat.as_bytes((1, 2))


@pytest.mark.parametrize(
    "name", ["bytes_or_text_types", "complex_types", "integral_types", "real_types"]
)
def test_type_tuples_are_tfs(name):
    # TF's hold only Python's and NumPy's classes, so they are the very same objects.
    assert getattr(tapejax.compat, name) == getattr(tensorflow.compat, name)


@pytest.mark.parametrize(
    "value", [1, True, 1.5, 1j, np.int8(1), np.uint64(1), np.float16(1), np.complex64(1), "1"]
)
def test_type_tuples_classify_as_tfs(value):
    for name in ["bytes_or_text_types", "complex_types", "integral_types", "real_types"]:
        want = isinstance(value, getattr(tensorflow.compat, name))
        assert isinstance(value, getattr(tapejax.compat, name)) == want, name


# -- dimensions ----------------------------------------------------------------------------

SHAPES = [[2, None, 0], [], [7], None]


@pytest.mark.parametrize("dims", SHAPES, ids=repr)
def test_dimension_value_of_shape_entries_matches_tf(dims):
    ours, theirs = tapejax.TensorShape(dims), tensorflow.TensorShape(dims)
    if dims is None:
        assert ours.dims is None and theirs.dims is None
        return
    for a, b in zip(ours.dims, theirs.dims, strict=True):
        assert tapejax.compat.dimension_value(a) == tensorflow.compat.dimension_value(b)
    for i in range(len(dims)):
        assert tapejax.compat.dimension_value(ours[i]) == tensorflow.compat.dimension_value(
            theirs[i]
        )


@pytest.mark.parametrize("value", [3, 0, None, np.int64(4)], ids=repr)
def test_dimension_value_of_plain_values_matches_tf(value):
    want = tensorflow.compat.dimension_value(value)
    got = tapejax.compat.dimension_value(value)
    assert got is value and (got == want or got is want)


@pytest.mark.parametrize("dims,index", [([2, None], 0), ([2, None], 1), ([2, 3], -1), (None, 5)])
def test_dimension_at_index_matches_tfs_value(dims, index):
    want = tensorflow.compat.dimension_at_index(tensorflow.TensorShape(dims), index)
    got = tapejax.compat.dimension_at_index(tapejax.TensorShape(dims), index)
    # Documented difference: TF returns a TF 1 Dimension, tapejax its value.
    assert type(want).__name__ == "Dimension"
    assert got == want.value and (got is None) == (want.value is None)
    assert type(got) in (int, type(None))


@pytest.mark.parametrize(
    "make",
    [
        lambda fw: fw.compat.dimension_at_index([1, 2], 0),
        lambda fw: fw.compat.dimension_at_index(fw.TensorShape([2]), 3),
    ],
    ids=["not-a-shape", "out-of-range"],
)
def test_dimension_at_index_errors_match_tf(make):
    want, got = raised(make, tensorflow), raised(make, tapejax)
    assert want is not None and got is not None
    assert (type(got), str(got)) == (type(want), str(want))


# -- forward compatibility -----------------------------------------------------------------


def test_horizon_is_tf_2_21s():
    from tensorflow.python.compat import compat as tf_compat

    assert tensorflow.__version__.startswith("2.21")
    assert compat_impl._FORWARD_COMPATIBILITY_HORIZON == tf_compat._FORWARD_COMPATIBILITY_HORIZON
    if not os.getenv("TF_FORWARD_COMPATIBILITY_DELTA_DAYS"):
        assert (
            compat_impl._FORWARD_COMPATIBILITY_DATE_NUMBER
            == tf_compat._FORWARD_COMPATIBILITY_DATE_NUMBER
        )


DATES = [
    (2026, 1, 15),
    (2026, 1, 16),
    (2026, 1, 17),
    (2025, 12, 31),
    (2026, 2, 1),
    (2030, 1, 1),
    (2000, 1, 1),
    (2026, 13, 1),
    (2026, 0, 40),
]


@pytest.mark.parametrize("date", DATES)
def test_forward_compatible_matches_tf(date):
    assert tapejax.compat.forward_compatible(*date) == tensorflow.compat.forward_compatible(*date)


@pytest.mark.parametrize("horizon", [(2026, 3, 1), (2026, 1, 16), (2020, 3, 1), (2100, 12, 31)])
def test_forward_compatible_inside_horizon_matches_tf(horizon):
    probes = DATES + [(2026, 2, 28), (2026, 3, 1), (2026, 3, 2), (2100, 12, 30)]
    with tensorflow.compat.forward_compatibility_horizon(*horizon):
        want = [tensorflow.compat.forward_compatible(*d) for d in probes]
    with tapejax.compat.forward_compatibility_horizon(*horizon):
        got = [tapejax.compat.forward_compatible(*d) for d in probes]
    assert got == want
    after = [tapejax.compat.forward_compatible(*d) for d in probes]
    assert after == [tensorflow.compat.forward_compatible(*d) for d in probes]


def test_horizon_restores_default_even_when_nested_or_raising():
    with pytest.raises(RuntimeError):
        with tapejax.compat.forward_compatibility_horizon(2030, 1, 1):
            assert tapejax.compat.forward_compatible(2029, 1, 1)
            raise RuntimeError
    assert not tapejax.compat.forward_compatible(2029, 1, 1)
    with tapejax.compat.forward_compatibility_horizon(2030, 1, 1):
        with tapejax.compat.forward_compatibility_horizon(2040, 1, 1):
            pass
        # TF resets to the default, not to the enclosing block's date.
        assert not tapejax.compat.forward_compatible(2029, 1, 1)


def test_past_horizon_is_ignored_with_tfs_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="tapejax"):
        with tapejax.compat.forward_compatibility_horizon(2020, 3, 1):
            assert tapejax.compat.forward_compatible(2026, 1, 15)
            assert not tapejax.compat.forward_compatible(2026, 1, 16)
    assert (
        "Trying to set the forward compatibility date to the past date 2020-03-01. This will "
        "be ignored by TensorFlow." in caplog.messages
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda fw: fw.compat.forward_compatibility_horizon(2026, 13, 1).__enter__(),
        lambda fw: fw.compat.forward_compatibility_horizon(2026, 2, 30).__enter__(),
        lambda fw: fw.compat.forward_compatible("2026", 1, 1),
        lambda fw: fw.compat.forward_compatible(2026.0, 1, 1),
    ],
)
def test_forward_compatibility_errors_match_tf(make):
    want, got = raised(make, tensorflow), raised(make, tapejax)
    assert want is not None and got is not None
    assert (type(got), str(got)) == (type(want), str(want))


def test_delta_days_variable_moves_the_date(monkeypatch):
    monkeypatch.setenv("TF_FORWARD_COMPATIBILITY_DELTA_DAYS", "10")
    compat_impl._update_forward_compatibility_date_number()
    try:
        assert tapejax.compat.forward_compatible(2026, 1, 25)
        assert not tapejax.compat.forward_compatible(2026, 1, 26)
    finally:
        monkeypatch.delenv("TF_FORWARD_COMPATIBILITY_DELTA_DAYS")
        compat_impl._update_forward_compatibility_date_number()
    assert not tapejax.compat.forward_compatible(2026, 1, 16)


# -- v1, v2 --------------------------------------------------------------------------------


def test_v2_is_tapejax():
    assert tapejax.compat.v2 is tapejax
    from tapejax.compat import v2

    assert v2.constant is tapejax.constant


def test_v1_raises_a_not_implemented_error_naming_it():
    with pytest.raises(NotImplementedError, match=r"^tf\.compat\.v1 \(TensorFlow 1's graph API"):
        tapejax.compat.v1  # noqa: B018 - the access is the test
    with pytest.raises(AttributeError, match=r"tapejax\.compat\.v2 is tapejax itself"):
        tapejax.compat.v1  # noqa: B018
    assert not hasattr(tapejax.compat, "v1")
    assert getattr(tapejax.compat, "v1", "absent") == "absent"
    with pytest.raises(ImportError):
        from tapejax.compat import v1  # noqa: F401
    with pytest.raises(AttributeError, match=r"^module 'tapejax\.compat' has no attribute 'v3'$"):
        tapejax.compat.v3  # noqa: B018


def test_compat_names_are_tfs():
    ours = {n for n in dir(tapejax.compat) if not n.startswith("_")}
    theirs = {n for n in dir(tensorflow.compat) if not n.startswith("_")}
    assert ours == theirs - {"v1"}
    assert set(tapejax.compat.__all__) == ours


# -- tapejax.types -------------------------------------------------------------------------


def test_types_experimental_names_are_tfs():
    ours = {n for n in dir(tapejax.types.experimental) if not n.startswith("_")}
    theirs = {n for n in dir(tensorflow.types.experimental) if not n.startswith("_")}
    assert ours == theirs - {"distributed"}
    assert {n for n in dir(tapejax.types) if not n.startswith("_")} == {"experimental"}
    assert tapejax.types.experimental.GenericFunction is (
        tapejax.types.experimental.PolymorphicFunction
    )


def test_distributed_is_not_provided():
    with pytest.raises(NotImplementedError, match=r"^tf\.types\.experimental\.distributed"):
        tapejax.types.experimental.distributed  # noqa: B018
    assert not hasattr(tapejax.types.experimental, "distributed")


class _ConvertsToTF:
    def __tf_tensor__(self, dtype=None, name=None):
        return tensorflow.constant(1.0)


class _ConvertsToJax:
    def __jax_array__(self):
        return np.float32(1.0)


def _pairs():
    """``(name, TF value, tapejax value)``: each framework's counterpart of one value."""
    return [
        ("constant", tensorflow.constant(1.0), tapejax.constant(1.0)),
        ("Variable", tensorflow.Variable(1.0), tapejax.Variable(1.0)),
        ("ndarray", np.zeros(2), np.zeros(2)),
        ("np.float32", np.float32(1), np.float32(1)),
        ("int", 1, 1),
        ("float", 1.0, 1.0),
        ("bool", True, True),
        ("str", "a", "a"),
        ("bytes", b"a", b"a"),
        ("complex", 1j, 1j),
        ("tuple", (1,), (1,)),
        ("list", [1.0], [1.0]),
        ("None", None, None),
        ("dict", {}, {}),
        ("object", object(), object()),
        ("set", {1}, {1}),
    ]


def test_tensor_like_isinstance_matches_tf():
    ours, theirs = tapejax.types.experimental.TensorLike, tensorflow.types.experimental.TensorLike
    for name, tf_value, our_value in _pairs():
        assert isinstance(our_value, ours) == isinstance(tf_value, theirs), name


def test_tensor_like_args_mirror_tfs():
    theirs = typing.get_args(tensorflow.types.experimental.TensorLike)
    ours = typing.get_args(tapejax.types.experimental.TensorLike)
    assert typing.get_origin(tapejax.types.experimental.TensorLike) is typing.Union
    assert [c.__name__ for c in theirs[:2]] == ["Tensor", "TensorProtocol"]
    # Documented: tapejax's Tensor and Variable for TF's base class, __jax_array__ for
    # __tf_tensor__, and jax.Array added; the Python and NumPy classes are TF's, in order.
    assert ours[:3] == (tapejax.Tensor, tapejax.Variable, ours[2])
    assert ours[3:-1] == theirs[2:]
    import jax

    assert ours[-1] is jax.Array


def test_tensor_like_conversion_protocols_differ_as_documented():
    import jax.numpy as jnp

    ours, theirs = tapejax.types.experimental.TensorLike, tensorflow.types.experimental.TensorLike
    assert isinstance(_ConvertsToTF(), theirs) and not isinstance(_ConvertsToTF(), ours)
    assert isinstance(_ConvertsToJax(), ours) and not isinstance(_ConvertsToJax(), theirs)
    assert isinstance(jnp.ones(2), ours)
    # What the union admits tapejax converts (strings aside: no tapejax tensor holds one).
    for value in [_ConvertsToJax(), jnp.ones(2), tapejax.Variable(2.0), np.float32(1)]:
        assert isinstance(tapejax.convert_to_tensor(value), tapejax.Tensor)


def test_tensor_like_in_annotations():
    def f(x: tapejax.types.experimental.TensorLike) -> tapejax.types.experimental.TensorLike:
        return x

    hints = typing.get_type_hints(f)
    assert hints["x"] == tapejax.types.experimental.TensorLike
    assert hints["return"] == tapejax.types.experimental.TensorLike


def _function_objects(fw):
    f = fw.function(lambda x: x + 1)
    f(fw.constant(1.0))
    return {
        "function": f,
        "concrete": f.get_concrete_function(fw.constant(1.0)),
        "python": lambda x: x,
        "tensor": fw.constant(1.0),
    }


PROTOCOL_CLASSES = [
    "AtomicFunction",
    "Callable",
    "ConcreteFunction",
    "FunctionType",
    "GenericFunction",
    "PolymorphicFunction",
    "TraceType",
]


@pytest.mark.parametrize("cls", PROTOCOL_CLASSES)
def test_function_protocol_isinstance_matches_tf(cls):
    theirs = _function_objects(tensorflow)
    ours = _function_objects(tapejax)
    for kind in theirs:
        want = isinstance(theirs[kind], getattr(tensorflow.types.experimental, cls))
        got = isinstance(ours[kind], getattr(tapejax.types.experimental, cls))
        assert got == want, kind


def test_methods_and_input_signature_functions_are_polymorphic():
    class M(tapejax.Module):
        @tapejax.function
        def __call__(self, x):
            return x

    sig = tapejax.function(lambda x: x, input_signature=[tapejax.TensorSpec([], tapejax.float32)])
    for f in [M().__call__, sig, tapejax.function(jit_compile=True)(lambda x: x)]:
        assert isinstance(f, tapejax.types.experimental.PolymorphicFunction)
        assert not isinstance(f, tapejax.types.experimental.ConcreteFunction)


def test_supports_tracing_protocol_differs_as_documented():
    proto = tapejax.types.experimental.SupportsTracingProtocol
    assert isinstance(
        tensorflow.function(lambda x: x), tensorflow.types.experimental.SupportsTracingProtocol
    )
    assert not isinstance(tapejax.function(lambda x: x), proto)

    class Traced:
        def __tf_tracing_type__(self, context):
            return None

    assert isinstance(Traced(), proto)
    assert not isinstance(object(), proto)


def test_trace_type_is_abstract_and_its_defaults_are_tfs():
    for fw in FRAMEWORKS.values():
        with pytest.raises(TypeError, match="abstract"):
            fw.types.experimental.TraceType()

    def make(base):
        class Fixed(base):
            def is_subtype_of(self, other):
                return self == other

            def most_specific_common_supertype(self, others):
                return self if all(self == o for o in others) else None

            def placeholder_value(self, placeholder_context):
                return 7

            def __hash__(self):
                return 0

            def __eq__(self, other):
                return type(other) is type(self)

        return Fixed()

    ours = make(tapejax.types.experimental.TraceType)
    theirs = make(tensorflow.types.experimental.TraceType)
    assert ours.to_tensors(3) == theirs.to_tensors(3) == []
    assert ours.flatten() == theirs.flatten() == []
    assert ours.from_tensors(iter([])) == theirs.from_tensors(iter([])) == 7
    assert ours.cast(7, None) == theirs.cast(7, None) == 7
    want = raised(lambda _: theirs.cast(8, None), tensorflow)
    got = raised(lambda _: ours.cast(8, None), tapejax)
    assert type(want) is type(got) is AssertionError
    assert str(got).split(" to type")[0] == str(want).split(" to type")[0] == "Can not cast 8"


def test_tapejax_function_ignores_tf_tracing_type_as_documented():
    # TF keys the trace on __tf_tracing_type__; tapejax on the argument's hash and ==
    # (identity here), so two such objects give two traces.
    class Same(tapejax.types.experimental.TraceType):
        def is_subtype_of(self, other):
            return True

        def most_specific_common_supertype(self, others):
            return self

        def placeholder_value(self, placeholder_context):
            return None

        def __hash__(self):
            return 0

        def __eq__(self, other):
            return isinstance(other, Same)

    class Arg:
        def __tf_tracing_type__(self, context):
            return Same()

    f = tapejax.function(lambda x, a: x + 1)
    x = tapejax.constant(1.0)
    f(x, Arg())
    before = f.experimental_get_tracing_count()
    f(x, Arg())
    f(x, Arg())
    assert f.experimental_get_tracing_count() == before + 2


def test_function_type_is_a_signature():
    ft = tapejax.types.experimental.FunctionType.from_callable(lambda x, y=1, *a, k, **kw: x)
    want = tensorflow.types.experimental.FunctionType.from_callable(lambda x, y=1, *a, k, **kw: x)
    assert str(ft) == str(want) == "(x, y=1, *a, k, **kw)"
    assert isinstance(ft, tapejax.types.experimental.FunctionType)
    assert isinstance(ft, __import__("inspect").Signature)


def test_namespaces_are_exported():
    assert "compat" in tapejax.__all__ and "types" in tapejax.__all__
    assert datetime.date(2026, 1, 16) == compat_impl._FORWARD_COMPATIBILITY_HORIZON
