"""Tests of ``tapejax.queue`` against TF 2's eager queues."""

import threading

import numpy as np
import pytest
import tensorflow as tf_real

import tapejax as tf

KINDS = ["FIFOQueue", "PriorityQueue", "RandomShuffleQueue", "PaddingFIFOQueue"]


def _make(mod, kind, dtypes, shapes):
    if kind == "RandomShuffleQueue":
        return mod.queue.RandomShuffleQueue(10, 0, dtypes, shapes=shapes, seed=1)
    return getattr(mod.queue, kind)(10, dtypes, shapes=shapes)


def _run(fn):
    box = {}

    def target():
        try:
            box["value"] = fn()
        except Exception as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


def test_fifo_roundtrip_matches_tf():
    outs = []
    for mod in (tf, tf_real):
        q = mod.queue.FIFOQueue(5, [mod.int32, mod.float32], shapes=[[2], []])
        q.enqueue(([1, 2], 1))
        q.enqueue_many(([[3, 4], [5, 6]], [2.0, 3.0]))
        size = int(q.size())
        a, b = q.dequeue()
        many = q.dequeue_many(2)
        outs.append(
            (size, a.numpy(), b.numpy(), [m.numpy() for m in many], [m.dtype.name for m in many])
        )
        assert q.name == "Empty"
    (s1, a1, b1, m1, d1), (s2, a2, b2, m2, d2) = outs
    assert s1 == s2 == 3 and d1 == d2
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)
    for x, y in zip(m1, m2):
        np.testing.assert_array_equal(x, y)


def test_single_component_and_dict():
    q = tf.queue.FIFOQueue(3, tf.float32)
    q.enqueue(1)
    q.enqueue([2.0])
    out = q.dequeue()
    assert out.dtype == tf.float32 and float(out) == 1.0
    assert q.dtypes == [tf.float32] and q.shapes[0].rank is None and q.names is None
    qd = tf.queue.FIFOQueue(3, [tf.int32], shapes=[[]], names=["a"])
    qd.enqueue({"a": 1})
    qd.enqueue_many({"a": [2, 3]})
    assert int(qd.dequeue()["a"]) == 1
    assert qd.dequeue_up_to(2)["a"].numpy().tolist() == [2, 3]


@pytest.mark.parametrize(
    "call",
    [
        lambda m, q: q.enqueue(1),
        lambda m, q: q.enqueue({"b": 1}),
    ],
    ids=["not_dict", "wrong_keys"],
)
def test_names_errors_match_tf(call):
    msgs = []
    for mod in (tf, tf_real):
        q = mod.queue.FIFOQueue(3, [mod.int32], shapes=[[]], names=["a"])
        with pytest.raises(ValueError) as e:
            call(mod, q)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize(
    "call",
    [
        lambda q: q.enqueue(([1, 2, 3], 1.0)),
        lambda q: q.enqueue_many(([[1, 2], [3, 4]], [1.0])),
        lambda q: q.enqueue(([1.5, 2], 1.0)),
    ],
    ids=["shape", "batch", "dtype"],
)
def test_shape_and_dtype_errors_match_tf(call):
    got = []
    for mod in (tf, tf_real):
        q = mod.queue.FIFOQueue(3, [mod.int32, mod.float32], shapes=[[2], []])
        with pytest.raises((ValueError, TypeError)) as e:
            call(q)
        got.append((type(e.value).__name__, str(e.value)))
        assert int(q.size()) == 0
    assert got[0] == got[1]


def test_dequeue_many_needs_shapes():
    q = tf.queue.FIFOQueue(3, tf.float32)
    q.enqueue(1.0)
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match="FIFOQueue's DequeueMany and DequeueUpTo require the components to have specified shapes.",
    ):
        q.dequeue_many(1)


@pytest.mark.parametrize("kind", KINDS)
def test_closed_errors(kind):
    name = "FIFOQueue" if kind == "PaddingFIFOQueue" else kind  # TF's own text
    for mod in (tf, tf_real):
        shapes = [[None]] if kind == "PaddingFIFOQueue" else [[]]
        q = _make(mod, kind, [mod.int32], shapes)
        val = {"PriorityQueue": (1, 1), "PaddingFIFOQueue": [[1]]}.get(kind, 1)
        q.enqueue(val)
        q.close()
        assert bool(q.is_closed())
        with pytest.raises(mod.errors.CancelledError, match=rf"^(.*}} )?{name} '\w+' is closed\."):
            q.enqueue(val)
        q.dequeue()
        with pytest.raises(
            mod.errors.OutOfRangeError,
            match=rf"{name} '\w+' is closed and has insufficient elements \(requested 1, current size 0\)",
        ):
            q.dequeue()


def test_closed_dequeue_up_to_returns_rest_but_many_fails():
    for mod in (tf, tf_real):
        q = mod.queue.FIFOQueue(5, mod.int32, shapes=[])
        q.enqueue_many(mod.constant([1, 2, 3]))
        q.close()
        with pytest.raises(mod.errors.OutOfRangeError, match=r"\(requested 4, current size 3\)"):
            q.dequeue_many(4)
        assert q.dequeue_up_to(4).numpy().tolist() == [1, 2, 3]
        with pytest.raises(mod.errors.OutOfRangeError, match=r"\(requested 4, current size 0\)"):
            q.dequeue_up_to(4)


def test_pending_dequeue_gets_out_of_range_on_close():
    q = tf.queue.FIFOQueue(3, tf.int32, shapes=[])
    t, box = _run(q.dequeue)
    t.join(0.2)
    assert t.is_alive()
    q.close()
    t.join(5)
    assert not t.is_alive()
    assert isinstance(box.get("error"), tf.errors.OutOfRangeError)


def test_blocked_dequeue_wakes_on_enqueue():
    q = tf.queue.FIFOQueue(3, tf.int32, shapes=[])
    t, box = _run(q.dequeue)
    t.join(0.2)
    assert t.is_alive()
    q.enqueue(7)
    t.join(5)
    assert not t.is_alive() and int(box["value"]) == 7


@pytest.mark.parametrize("cancel", [False, True], ids=["keep", "cancel"])
def test_full_enqueue_blocks_and_close(cancel):
    q = tf.queue.FIFOQueue(1, tf.int32, shapes=[])
    q.enqueue(1)
    t, box = _run(lambda: q.enqueue(2))
    t.join(0.2)
    assert t.is_alive()
    q.close(cancel_pending_enqueues=cancel)
    if cancel:
        t.join(5)
        assert not t.is_alive()
        assert isinstance(box.get("error"), tf.errors.CancelledError)
        assert q.dequeue_up_to(5).numpy().tolist() == [1]
    else:
        assert int(q.dequeue()) == 1
        t.join(5)
        assert not t.is_alive() and "error" not in box
        assert int(q.dequeue()) == 2


def test_producer_consumer_1000_items():
    q = tf.queue.FIFOQueue(7, tf.int32, shapes=[])
    got = []

    def produce():
        for i in range(1000):
            q.enqueue(i)
        q.close()

    def consume():
        while True:
            try:
                got.append(int(q.dequeue()))
            except tf.errors.OutOfRangeError:
                return

    threads = [threading.Thread(target=f, daemon=True) for f in (produce, consume)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
        assert not t.is_alive()
    assert got == list(range(1000))


def test_padding_fifo_matches_tf():
    outs = []
    for mod in (tf, tf_real):
        q = mod.queue.PaddingFIFOQueue(5, [mod.int32, mod.float32], shapes=[[None], [None, 2]])
        q.enqueue(([1], [[1, 2]]))
        q.enqueue(([1, 2, 3], [[1, 2], [3, 4]]))
        with pytest.raises(ValueError) as e:
            q.enqueue(([1], [[1, 2, 3]]))
        outs.append(([x.numpy() for x in q.dequeue_many(2)], str(e.value)))
    assert outs[0][1] == outs[1][1]
    for x, y in zip(outs[0][0], outs[1][0]):
        np.testing.assert_array_equal(x, y)
        assert x.dtype == y.dtype


@pytest.mark.parametrize(
    "prios",
    [[5, 5, 5, 1, 1], [3, 1, 3, 1, 2], [2, 2, 2, 2, 2, 2, 2], [4, 0, 4, 0, 4, 0, 1, 1]],
    ids=["a", "b", "c", "d"],
)
def test_priority_order_and_ties_match_tf(prios):
    outs = []
    for mod in (tf, tf_real):
        q = mod.queue.PriorityQueue(10, [mod.int32], shapes=[[]])
        q.enqueue_many((prios, list(range(len(prios)))))
        p, v = q.dequeue_many(len(prios) - 2)
        q.enqueue((1, 99))
        rest = q.dequeue_many(3)
        outs.append((p.numpy().tolist(), v.numpy().tolist(), [r.numpy().tolist() for r in rest]))
        assert q.dtypes == [mod.int64, mod.int32]
    assert outs[0] == outs[1]


def test_random_shuffle_properties():
    q = tf.queue.RandomShuffleQueue(20, 5, tf.int32, shapes=[], seed=4)
    q.enqueue_many(tf.constant(list(range(8))))
    first = q.dequeue_many(3).numpy().tolist()
    assert int(q.size()) == 5
    t, box = _run(q.dequeue)  # would leave 4 < min_after_dequeue: waits
    t.join(0.2)
    assert t.is_alive()
    q.close()
    t.join(5)
    assert not t.is_alive()
    rest = [int(box["value"])] + q.dequeue_up_to(10).numpy().tolist()
    assert sorted(first + rest) == list(range(8))
    assert first + rest != list(range(8))
    again = tf.queue.RandomShuffleQueue(20, 5, tf.int32, shapes=[], seed=4)
    again.enqueue_many(tf.constant(list(range(8))))
    assert again.dequeue_many(3).numpy().tolist() == first


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.queue.RandomShuffleQueue(2, 2, m.int32),
        lambda m: m.queue.FIFOQueue(3, m.int32, shapes=[]).dequeue_many(-1),
        lambda m: m.queue.FIFOQueue(3, m.int32, shapes=[]).dequeue_up_to(-2),
    ],
    ids=["min_after_dequeue", "many_negative", "up_to_negative"],
)
def test_invalid_argument_texts_match_tf(call):
    texts = []
    for mod in (tf, tf_real):
        with pytest.raises(mod.errors.InvalidArgumentError) as e:
            call(mod)
        texts.append(str(e.value).split("}} ")[-1].split(" [Op:")[0])
    assert texts[0] == texts[1]


def test_dequeue_many_zero_and_result_dtypes_match_tf():
    got = []
    for mod in (tf, tf_real):
        q = mod.queue.FIFOQueue(3, [mod.int32, mod.float32], shapes=[[2], []])
        empty = q.dequeue_many(0)
        got.append(
            [(e.shape.as_list(), e.dtype.name) for e in empty]
            + [q.size().dtype.name, q.is_closed().dtype.name]
        )
    assert got[0] == got[1]


def test_constructor_errors_match_tf():
    for kwargs in ({"shapes": [[], []]}, {"names": ["a", "b"]}):
        got = []
        for mod in (tf, tf_real):
            with pytest.raises(
                (ValueError, tf_real.errors.InvalidArgumentError, tf.errors.InvalidArgumentError)
            ) as e:
                mod.queue.FIFOQueue(3, [mod.int32], **kwargs)
            text = str(e.value).split("}} ")[-1].split(" [Op:")[0]
            got.append((type(e.value).__name__, text))
        assert got[0] == got[1]


def test_inside_function_raises():
    q = tf.queue.FIFOQueue(3, tf.int32, shapes=[])
    q.enqueue(1)

    @tf.function
    def f():
        return q.dequeue()

    with pytest.raises(NotImplementedError, match="dequeue cannot run inside a tapejax.function"):
        f()
    assert int(q.size()) == 1


def test_no_queue_ref_or_shared_name():
    q = tf.queue.FIFOQueue(3, tf.int32)
    assert not hasattr(q, "queue_ref")
    with pytest.raises(NotImplementedError, match="shared_name"):
        tf.queue.FIFOQueue(3, tf.int32, shared_name="s")
    assert isinstance(q, tf.queue.QueueBase)


def test_kinds_are_queue_bases_as_in_tf():
    ours = [
        tf.queue.FIFOQueue,
        tf.queue.PaddingFIFOQueue,
        tf.queue.PriorityQueue,
        tf.queue.RandomShuffleQueue,
    ]
    theirs = [
        tf_real.queue.FIFOQueue,
        tf_real.queue.PaddingFIFOQueue,
        tf_real.queue.PriorityQueue,
        tf_real.queue.RandomShuffleQueue,
    ]
    assert [issubclass(c, tf.queue.QueueBase) for c in ours] == [
        issubclass(c, tf_real.queue.QueueBase) for c in theirs
    ]
    assert [c.__name__ for c in ours] == [c.__name__ for c in theirs]


def test_priority_dtype_follows_64_bit_mode():
    import jax

    q = tf.queue.PriorityQueue(3, [tf.int32], shapes=[[]])
    q.enqueue((2**20, 1))
    priority, _ = q.dequeue()
    want = tf.int64 if jax.config.jax_enable_x64 else tf.int32
    assert priority.dtype == want and int(priority) == 2**20
    assert q.dtypes[0] == tf.int64
