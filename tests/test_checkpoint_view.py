"""tapejax.train.TrackableView and CheckpointView against live TensorFlow: the same
object structure gives the same children, breadth-first order, node ids and matches."""

import os

import numpy as np
import pytest
import tensorflow as tf_real

import tapejax as tf
import tapejax.train  # noqa: F401 - tf.train


def _build(m):
    """A module tree with every kind of child: Variables, a list, a dict, a tuple, an
    empty list, a list of numbers, a nested module, a shared Variable and a cycle."""

    class Part(m.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.b = m.Variable(1.0)
            self.a = m.Variable(2.0)
            self.count = 3
            self.label = "x"
            self.lst = [m.Variable(3.0), m.Variable(4.0)]
            self.d = {"z": m.Variable(5.0), "y": m.Variable(6.0)}
            self.t = (m.Variable(7.0),)
            self.empty = []
            self.ints = [1, 2]

    root = Part("root")
    root.leaf = Part("leaf")
    root.alias = root.a
    root.loop = root.leaf
    return root


def _label(o):
    """A description of an object that is the same for TF's wrappers and Python's types."""
    kind = type(o).__name__
    if hasattr(o, "numpy") and hasattr(o, "assign"):
        return f"Variable({float(o.numpy())})"
    if kind in ("list", "ListWrapper"):
        return "list"
    if kind in ("dict", "_DictWrapper"):
        return "dict"
    if kind in ("tuple", "_TupleWrapper"):
        return "tuple"
    if kind == "Checkpoint":
        return "Checkpoint"
    return "Module"


def _both(fn):
    return fn(tf), fn(tf_real)


def test_trackable_view_children_and_descendants():
    def run(m):
        root = _build(m)
        view = m.train.TrackableView(root)
        children = [
            {k: _label(v) for k, v in view.children(obj).items()}
            for obj in (root, root.lst, root.d, root.t, root.ints, root.a)
        ]
        return children, [_label(o) for o in view.descendants()], view.root is root

    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[0][0]["lst"] == "list" and ours[0][1] == {
        "0": "Variable(3.0)",
        "1": "Variable(4.0)",
    }


@pytest.mark.parametrize("with_root", [False, True])
def test_trackable_view_of_a_checkpoint(with_root):
    def run(m):
        root = _build(m)
        if with_root:
            ckpt = m.train.Checkpoint(root, extra=m.Variable(9.0))
        else:
            ckpt = m.train.Checkpoint(model=root, c=m.Variable(9.0))
        view = m.train.TrackableView(ckpt)
        return list(view.children(ckpt)), [_label(o) for o in view.descendants()]

    ours, theirs = _both(run)
    assert ours == theirs


@pytest.mark.parametrize("with_root", [False, True])
@pytest.mark.parametrize("method", ["write", "save"])
def test_checkpoint_view_node_ids_match_tf(tmp_path, with_root, method):
    def run(m):
        root = _build(m)
        if with_root:
            ckpt = m.train.Checkpoint(root, extra=m.Variable(9.0))
        else:
            ckpt = m.train.Checkpoint(model=root, c=m.Variable(9.0))
        path = getattr(ckpt, method)(os.fspath(tmp_path / m.__name__ / "ckpt"))
        view = m.train.CheckpointView(path)
        other = m.train.Checkpoint(model=_build(m))
        matched = view.match(other if not with_root else _build(m))
        overlap, only_saved, only_live = view.diff(_build(m))
        return (
            view._descendants_with_paths(),
            [view.children(n) for n in view.descendants()],
            {k: _label(v) for k, v in matched.items()},
            (sorted(overlap), only_saved, [_label(o) for o in only_live]),
        )

    ours, theirs = _both(run)
    assert ours == theirs
    assert len(ours[0]) > 20


def test_checkpoint_view_match_restores_by_node_id(tmp_path):
    """A matched object is the live object itself: assigning through it changes the model."""
    root = _build(tf)
    path = tf.train.Checkpoint(model=root).save(os.fspath(tmp_path / "ckpt"))
    view = tf.train.CheckpointView(path)
    live = _build(tf)
    matched = view.match(tf.train.Checkpoint(model=live))
    node = view.children(view.children(0)["model"])["lst"]
    assert matched[view.children(node)["1"]] is live.lst[1]
    np.testing.assert_array_equal(tf.train.load_variable(path, "model/lst/1"), np.float32(4.0))


@pytest.mark.parametrize(
    "case",
    [
        lambda m, view, root: m.train.TrackableView(3),
        lambda m, view, root: m.train.TrackableView(root).children(3),
        lambda m, view, root: view.children(99),
        lambda m, view, root: view.match(3),
    ],
    ids=["view_of_int", "children_of_int", "no_such_node", "match_int"],
)
def test_view_errors(tmp_path, case):
    def run(m):
        root = _build(m)
        path = m.train.Checkpoint(model=root).save(os.fspath(tmp_path / m.__name__ / "c"))
        try:
            case(m, m.train.CheckpointView(path), root)
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return type(e).__name__, str(e)
        raise AssertionError("no error")

    ours, theirs = _both(run)
    assert ours == theirs


def test_checkpoint_view_missing_file_and_file_without_graph(tmp_path):
    missing = os.fspath(tmp_path / "nope")
    with pytest.raises(tf.errors.NotFoundError) as ours:
        tf.train.CheckpointView(missing)
    with pytest.raises(tf_real.errors.NotFoundError) as theirs:
        tf_real.train.CheckpointView(missing)
    assert str(ours.value) == str(theirs.value)
    # A file written before checkpoints carried their object graph.
    from tapejax._src import checkpoint

    old = os.fspath(tmp_path / "old")
    checkpoint._write_file(old, {"w": np.zeros(2, np.float32)}, {"w": "w:0"})
    with pytest.raises(ValueError, match="missing its object graph"):
        tf.train.CheckpointView(old)


@pytest.mark.usefixtures("x64")  # int64 table keys
def test_tables_and_functions_are_nodes_as_in_tf(tmp_path):
    def run(m):
        class Holder(m.Module):
            def __init__(self):
                super().__init__()
                self.w = m.Variable(1.0)
                init = m.lookup.KeyValueTensorInitializer(
                    m.constant([1, 2], m.int64), m.constant([3, 4], m.int64)
                )
                self.static = m.lookup.StaticHashTable(init, -1)
                self.vocab = m.lookup.StaticVocabularyTable(init, 2)
                self.dense = m.lookup.experimental.DenseHashTable(
                    m.int32, m.float32, 0.0, -1, -2, initial_num_buckets=4
                )
                self.mutable = m.lookup.experimental.MutableHashTable(m.int32, m.float32, 0.0)
                self.f = m.function(lambda x: x)
                self.after = m.Variable(2.0)

        holder = Holder()
        view = m.train.TrackableView(holder)
        path = m.train.Checkpoint(model=holder).write(os.fspath(tmp_path / m.__name__ / "c"))
        return (
            {k: list(view.children(v)) for k, v in view.children(holder).items()},
            m.train.CheckpointView(path)._descendants_with_paths(),
        )

    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[1][max(ours[1])] == "root.model.static._initializer"  # shared with vocab
