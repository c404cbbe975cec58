"""``tapejax.nest`` side by side with TF's ``tf.nest`` (and the helpers of
``tensorflow.python.util.nest``): leaf order, rebuilt types, paths, shallow structures,
composites, and TF's exception types and full texts for mismatched structures."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import tapejax
from tapejax import nest

tensorflow = pytest.importorskip("tensorflow")
from tensorflow.python.util import nest as tf_nest  # noqa: E402 - after the skip

# TF 2's public tf.nest; the tests below compare each with TF's (the coverage table's names).
OTHERWISE_TESTED = {
    "nest.assert_same_structure",
    "nest.flatten",
    "nest.is_nested",
    "nest.map_structure",
    "nest.pack_sequence_as",
}

N = collections.namedtuple("N", "b a")
N_AGAIN = collections.namedtuple("N", "b a")  # another class, the same name and fields
M = collections.namedtuple("M", "b a")


class AttrsLike:
    """What ``attrs`` gives a class: ``__attrs_attrs__``, whose items have a ``name``
    (``attrs`` itself is not installed; TF and tapejax both only look for the attribute)."""

    class _Field:
        def __init__(self, name):
            self.name = name

    __attrs_attrs__ = (_Field("z"), _Field("a"))

    def __init__(self, z, a):
        self.z, self.a = z, a

    def __repr__(self):
        return f"AttrsLike({self.z!r}, {self.a!r})"


class Custom:
    """TF's ``CustomNestProtocol``: ``__tf_flatten__`` / ``__tf_unflatten__``."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __tf_flatten__(self):
        return "meta", (self.x, self.y)

    @classmethod
    def __tf_unflatten__(cls, meta, components):
        assert meta == "meta"
        return cls(*components)

    def __repr__(self):
        return f"Custom({self.x!r}, {self.y!r})"


STRUCTURES = {
    "leaf": 3,
    "none": None,
    "string": "abc",
    "set is a leaf": {1, 2},
    "array is a leaf": np.arange(3),
    "dict sorted by key": {"c": 1, "a": [2, None], "b": (3, {"y": 4, "x": 5})},
    "int keys": {3: "c", 1: "a", 2: "b"},
    "ordered dict": collections.OrderedDict([("b", 1), ("a", 2)]),
    "defaultdict": collections.defaultdict(list, {"b": 1, "a": [2]}),
    "namedtuple": N(b=1, a=[2, N(3, 4)]),
    "attrs": AttrsLike(1, [2, 3]),
    "custom protocol": Custom(1, [2, (3,)]),
    "range": range(3),
    "dict views": [{"b": 1, "a": 2}.keys(), {"b": 1, "a": 2}.values(), {"b": (1,)}.items()],
    "empty": [(), [], {}, [[]]],
    "tuple subclass": type("Pair", (tuple,), {})((1, 2)),
}


def _same(got, want):
    assert type(got) is type(want), f"{type(got)} vs TF {type(want)}"
    assert repr(got) == repr(want)


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return e
    raise AssertionError("nothing raised")


def _same_error(ours, theirs):
    """Both raise the same exception type with the same full text."""
    want, got = _raised(theirs), _raised(ours)
    assert type(got) is type(want), f"{type(got).__name__}: {got}\nTF: {type(want).__name__}"
    assert str(got) == str(want)


@pytest.mark.parametrize("structure", STRUCTURES.values(), ids=STRUCTURES.keys())
def test_flatten_pack_and_map_match_tf(structure):
    flat = nest.flatten(structure)
    _same(flat, tensorflow.nest.flatten(structure))
    assert nest.is_nested(structure) == tensorflow.nest.is_nested(structure)
    new = [f"leaf{i}" for i in range(len(flat))]
    _same(nest.pack_sequence_as(structure, new), tensorflow.nest.pack_sequence_as(structure, new))
    _same(nest.map_structure(repr, structure), tensorflow.nest.map_structure(repr, structure))
    _same(nest.flatten_with_tuple_paths(structure), tf_nest.flatten_with_tuple_paths(structure))
    _same(nest.list_to_tuple(structure), tf_nest.list_to_tuple(structure))


def test_map_structure_over_several_structures():
    a, b = {"x": [1, 2], "y": N(3, 4)}, {"x": [10, 20], "y": N(30, 40)}
    _same(
        nest.map_structure(lambda p, q: p + q, a, b),
        tensorflow.nest.map_structure(lambda p, q: p + q, a, b),
    )
    s1, s2 = (((1, 2), 3), 4, (5, 6)), [[[1, 2], 3], 4, [5, 6]]
    _same(
        nest.map_structure(lambda x, y: None, s1, s2, check_types=False),
        tensorflow.nest.map_structure(lambda x, y: None, s1, s2, check_types=False),
    )
    assert nest.map_structure(lambda x: x + 1, ()) == ()
    assert nest.map_structure(lambda x, y: x + y, 3, 4) == 7


# Mismatched structures: TF's exception type and its whole text ("The two structures don't
# have the same nested structure. ... More specifically: ... Entire first structure: ...").
SAME_STRUCTURE_ERRORS = {
    "lengths": ([1, 2], [1, 2, 3], {}),
    "sequence vs leaf": ([1, [2]], [1, 2], {}),
    "leaf vs sequence": ([1], [[]], {}),
    "None is a leaf": (None, [None], {}),
    "list vs tuple": ([1, 2], (1, 2), {}),
    "empty list vs tuple": ([], (), {}),
    "dict keys": ({"a": 1, "b": 2}, {"b": 1}, {}),
    "nested dict keys": ({"a": {"x": 1}}, {"a": {"y": 1}}, {}),
    "namedtuple names": (N(1, 2), M(1, 2), {}),
    "namedtuple vs tuple": (N(1, 2), (1, 2), {}),
    "ordered dict vs list": (collections.OrderedDict(a=1), [1], {}),
    "attrs": (AttrsLike(1, 2), AttrsLike(1, [2]), {}),
    "nested type": ([1, (2, 3)], [1, [2, 3]], {}),
    "without check_types": ([1, (2,)], (1, [2, 3]), {"check_types": False}),
}


@pytest.mark.parametrize(
    "first, second, kwargs", SAME_STRUCTURE_ERRORS.values(), ids=SAME_STRUCTURE_ERRORS.keys()
)
def test_assert_same_structure_errors_are_tfs(first, second, kwargs):
    _same_error(
        lambda: nest.assert_same_structure(first, second, **kwargs),
        lambda: tensorflow.nest.assert_same_structure(first, second, **kwargs),
    )
    _same_error(
        lambda: nest.map_structure(lambda *x: x, first, second, **kwargs),
        lambda: tensorflow.nest.map_structure(lambda *x: x, first, second, **kwargs),
    )


def test_structures_tf_calls_the_same():
    for a, b, kwargs in [
        (N(1, 2), N_AGAIN(3, 4), {}),
        ({"a": 1}, collections.OrderedDict(a=2), {}),
        ({"a": 1}, {"b": 1}, {"check_types": False}),
        ((1, 2), [3, 4], {"check_types": False}),
        ("abc", np.array([1, 2]), {}),
    ]:
        assert tensorflow.nest.assert_same_structure(a, b, **kwargs) is None
        assert nest.assert_same_structure(a, b, **kwargs) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda n: n.pack_sequence_as([1, 2], [1]),
        lambda n: n.pack_sequence_as([1, [2]], [1, 2, 3]),
        lambda n: n.pack_sequence_as(1, [1, 2]),
        lambda n: n.pack_sequence_as([1], 3),
        lambda n: n.pack_sequence_as({"b": 1, 1: 2}, [5, 6]),
        lambda n: n.flatten({1: 1, "a": 2}),
        lambda n: n.map_structure(lambda x: x, [1], foo=1),
        lambda n: n.map_structure(lambda x: x),
        lambda n: n.map_structure(3, [1]),
    ],
)
def test_other_errors_are_tfs(call):
    _same_error(lambda: call(nest), lambda: call(tensorflow.nest))


# -- shallow structures and paths ------------------------------------------------------------


@pytest.mark.parametrize(
    "shallow, deep, kwargs",
    [
        ([1, [2, 3]], [[1, 2], [3, [4]]], {}),
        ({"a": 1}, collections.OrderedDict(a=[1]), {}),
        (N(1, 2), N(3, [4]), {}),
        (0, [0, 1, 2], {}),
        (None, [1], {}),
        ([1, 2], (1, 2), {"check_types": False}),
    ],
)
def test_flatten_up_to_matches_tf(shallow, deep, kwargs):
    _same(
        nest.flatten_up_to(shallow, deep, **kwargs), tf_nest.flatten_up_to(shallow, deep, **kwargs)
    )
    _same(
        nest.flatten_with_tuple_paths_up_to(shallow, deep, **kwargs),
        tf_nest.flatten_with_tuple_paths_up_to(shallow, deep, **kwargs),
    )
    _same(
        nest.map_structure_up_to(shallow, repr, deep, **kwargs),
        tf_nest.map_structure_up_to(shallow, repr, deep, **kwargs),
    )


@pytest.mark.parametrize(
    "shallow, deep",
    [
        ([1, [2, 3]], [[1, 2], 3]),
        ([1, 2], [1, 2, 3]),
        ([1, 2], (1, 2)),
        ((1, 2), [1, 2]),
        ({"a": 1, "b": 2}, {"a": 1, "c": 2}),
        ({"a": 1}, {"a": 1, "c": 2}),
        (N(1, 2), (3, [4])),
        ([0], 0),
    ],
)
def test_shallow_structure_errors_are_tfs(shallow, deep):
    _same_error(
        lambda: nest.assert_shallow_structure(shallow, deep),
        lambda: tf_nest.assert_shallow_structure(shallow, deep),
    )
    _same_error(
        lambda: nest.flatten_up_to(shallow, deep), lambda: tf_nest.flatten_up_to(shallow, deep)
    )


def test_paths_match_tf():
    s = {"s": 1, "n": N(1, [2]), "t": AttrsLike(3, Custom(4, 5))}
    for name in ("flatten_with_tuple_paths", "flatten_with_joined_string_paths"):
        _same(getattr(nest, name)(s), getattr(tf_nest, name)(s))
    _same(
        nest.flatten_with_joined_string_paths(s, separator="."),
        tf_nest.flatten_with_joined_string_paths(s, separator="."),
    )
    _same(list(nest.yield_flat_paths(s)), list(tf_nest.yield_flat_paths(s)))
    # TF's mapping with paths asks every node for its len(): an attrs class has none.
    _same_error(
        lambda: nest.map_structure_with_paths(lambda p, x: p, s),
        lambda: tf_nest.map_structure_with_paths(lambda p, x: p, s),
    )
    s = {"s": 1, "n": N(1, [2]), "t": (3, {"u": 4})}
    _same(
        nest.map_structure_with_paths(lambda p, x, y: (p, x + y), s, s),
        tf_nest.map_structure_with_paths(lambda p, x, y: (p, x + y), s, s),
    )
    _same(
        nest.map_structure_with_tuple_paths(lambda p, x: p, s),
        tf_nest.map_structure_with_tuple_paths(lambda p, x: p, s),
    )
    _same(nest.flatten_with_joined_string_paths(5), tf_nest.flatten_with_joined_string_paths(5))
    _same_error(
        lambda: nest.map_structure_up_to([None], lambda x: x),
        lambda: tf_nest.map_structure_up_to([None], lambda x: x),
    )


def test_get_traverse_shallow_structure_matches_tf():
    s = [1, (2, 3), [4, [5]]]
    for fn in (
        lambda x: not isinstance(x, tuple),
        lambda x: [True, False, True] if isinstance(x, list) and len(x) == 3 else True,
    ):
        _same(
            nest.get_traverse_shallow_structure(fn, s),
            tf_nest.get_traverse_shallow_structure(fn, s),
        )
    for fn in (lambda x: 3, lambda x: 3 if not isinstance(x, list) else True, lambda x: [1]):
        _same_error(
            lambda fn=fn: nest.get_traverse_shallow_structure(fn, [1]),
            lambda fn=fn: tf_nest.get_traverse_shallow_structure(fn, [1]),
        )


def test_flatten_dict_items_matches_tf():
    d = {(1, (2, 3)): (4, (5, 6)), 7: 8}
    _same(nest.flatten_dict_items(d), tf_nest.flatten_dict_items(d))
    for bad in ({(1, 2): (3, 4), 1: 6}, {(1, 2): (3, 4, 5)}, [1]):
        _same_error(
            lambda bad=bad: nest.flatten_dict_items(bad),
            lambda bad=bad: tf_nest.flatten_dict_items(bad),
        )


# -- composites ------------------------------------------------------------------------------


def _sparse(fw, values=(1.0,), indices=((0, 1),), shape=(2, 3)):
    return fw.sparse.SparseTensor(
        np.array(indices, np.int64), fw.constant(np.array(values)), np.array(shape, np.int64)
    )


def test_expand_composites_matches_tf(x64):
    structures = {fw: {"s": _sparse(fw), "n": N(1, 2)} for fw in (tapejax, tensorflow)}
    ours, theirs = structures[tapejax], structures[tensorflow]
    # Without expanding, a SparseTensor is a leaf.
    assert len(nest.flatten(ours)) == len(tensorflow.nest.flatten(theirs)) == 3
    assert not nest.is_nested(ours["s"]) and nest.is_nested_or_composite(ours["s"])
    got = nest.flatten_with_tuple_paths(ours, expand_composites=True)
    want = tf_nest.flatten_with_tuple_paths(theirs, expand_composites=True)
    assert [p for p, _ in got] == [p for p, _ in want]  # ("s", "SparseTensor", 0) ...
    for (_, g), (_, w) in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    flat = [x for _, x in got]
    flat[3], flat[4] = flat[3] * 10.0, flat[4] * 2  # values, dense_shape
    back = nest.pack_sequence_as(ours, flat, expand_composites=True)
    assert isinstance(back["s"], tapejax.sparse.SparseTensor) and back["n"] == N(1, 2)
    np.testing.assert_array_equal(back["s"].dense_shape.numpy(), [4, 6])
    np.testing.assert_array_equal(back["s"].values.numpy(), [10.0])
    # The deliberate difference (docs/compat.md): TF checks new components against the
    # SparseTensor's static shape; tapejax takes the new dense shape.
    tf_flat = [x for _, x in want]
    tf_flat[4] = tf_flat[4] * 2
    with pytest.raises(ValueError, match=r"Shapes \(4, 6\) and \(2, 3\) are not compatible"):
        tensorflow.nest.pack_sequence_as(theirs, tf_flat, expand_composites=True)
    mapped = nest.map_structure(lambda x: x, ours, expand_composites=True)
    np.testing.assert_array_equal(tapejax.sparse.to_dense(mapped["s"]).numpy()[0], [0, 1, 0])


def test_composite_structure_errors_are_tfs(x64):
    for make_other, kwargs in [
        (lambda fw: _sparse(fw, values=(1,)), {}),  # dtypes differ
        (lambda fw: [1, 2, 3], {}),
    ]:
        got, want = (
            _raised(
                lambda fw=fw, make_other=make_other, kwargs=kwargs: fw.nest.assert_same_structure(
                    _sparse(fw), make_other(fw), expand_composites=True, **kwargs
                )
            )
            for fw in (tapejax, tensorflow)
        )
        assert type(got) is type(want)
        specifically = str(want).split("More specifically: ")[1].split(" type=")[0]
        assert specifically in str(got)  # "Incompatible CompositeTensor TypeSpecs:" ...
    # Different shapes of one dtype have a common TypeSpec: the same structure for TF.
    for fw in (tapejax, tensorflow):
        fw.nest.assert_same_structure(
            _sparse(fw), _sparse(fw, indices=((0, 1, 1),), shape=(2, 3, 3)), expand_composites=True
        )


def test_what_tapejax_does_not_expand():
    spec = tapejax.SparseTensorSpec([2, 3], tapejax.float32)
    assert nest.flatten(spec) == [spec]
    with pytest.raises(NotImplementedError, match="SparseTensorSpec"):
        nest.flatten(spec, expand_composites=True)
    op = tapejax.linalg.LinearOperatorIdentity(2)
    assert nest.flatten([op]) == [op]
    with pytest.raises(NotImplementedError, match="LinearOperatorIdentity"):
        nest.flatten([op], expand_composites=True)
    with tapejax.GradientTape() as tape, pytest.raises(NotImplementedError, match="LinearOp"):
        tape.watch(op)


# -- with Tensors: tapes and tapejax.function ----------------------------------------------


def test_tape_gradient_keeps_the_structure_of_sources():
    results = []
    for fw in (tapejax, tensorflow):
        v = collections.OrderedDict(w=fw.Variable([1.0, 2.0]), b=fw.Variable(3.0))
        sources = {"v": v, "n": N(b=fw.Variable(2.0), a=fw.Variable(5.0))}
        with fw.GradientTape() as tape:
            loss = fw.reduce_sum(v["w"] * v["b"]) * sources["n"].b
        grads = tape.gradient(loss, fw.nest.map_structure(lambda x: x, sources))
        assert fw.nest.flatten(grads)[1] is None  # the unconnected N.a
        results.append(fw.nest.map_structure(lambda g: None if g is None else g.numpy(), grads))
    got, want = results
    assert type(got["v"]) is collections.OrderedDict and type(got["n"]).__name__ == "N"
    for g, w in zip(nest.flatten(got), tensorflow.nest.flatten(want), strict=True):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w)


def test_inside_function():
    @tapejax.function
    def f(d):
        leaves = nest.flatten(d)
        total = nest.map_structure(lambda x: x * 2.0, d)
        return nest.pack_sequence_as(d, [x + 1.0 for x in leaves]), total

    d = {"b": tapejax.constant([1.0, 2.0]), "a": (tapejax.constant(3.0),)}
    for _ in range(3):  # the first call runs eagerly, the next ones traced
        plus, twice = f(d)
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(plus["b"].numpy(), [2.0, 3.0])
    np.testing.assert_allclose(twice["a"][0].numpy(), 6.0)
