# ruff: noqa: E501 - tables of TF's texts read best one case a line
"""``tapejax.CriticalSection`` side by side with live TensorFlow: what ``execute`` returns
(nests, numbers, Variables, None), serialization of Python threads, TF's errors for
re-entry and bad arguments, the rules TF's graph mode applies inside ``tapejax.function``,
gradients through ``execute``, and the differences ``docs/compat.md`` lists. Also
``tapejax.newaxis`` in indexing."""

from __future__ import annotations

import gc
import re
import threading
import time

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import raised  # noqa: E402 - the shared op-test harness

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}
_names = iter(range(10**6))


def shared(tf):
    """A section of its own mutex in both frameworks (TF's eager sections without a
    ``shared_name`` all share one)."""
    return tf.CriticalSection(shared_name=f"test-section-{next(_names)}")


def plain(value):
    """A result as Python data: Tensors as ``(dtype, list)``, structure kept."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if value is None:
        return None
    return (
        type(value).__name__ in ("Tensor", "EagerTensor"),
        value.dtype.name,
        value.numpy().tolist(),
    )


def same_outcome(fn):
    """``fn(tf)`` gives the same result, or raises the same exception type and text, in
    both frameworks (run-specific numbers and object addresses in texts masked)."""

    def outcome(tf):
        try:
            return ("ok", plain(fn(tf)))
        except Exception as e:  # noqa: BLE001 - the exception is the result under test
            text = str(e).split("\n\n")[-1].strip()
            return (type(e).__name__, re.sub(r"0x[0-9a-f]+|\d{6,}|test-section-\d+", "N", text))
        finally:
            gc.collect()  # TF releases a section's mutex when its lock tensor is freed

    want = outcome(tensorflow)
    got = outcome(tapejax)
    assert got == want
    return got


RESULTS = {
    "tensor": lambda tf: shared(tf).execute(lambda: tf.constant(1.5)),
    "python int": lambda tf: shared(tf).execute(lambda: 3),
    "python float": lambda tf: shared(tf).execute(lambda: 2.5),
    "none": lambda tf: shared(tf).execute(lambda: None),
    "empty list": lambda tf: shared(tf).execute(lambda: []),
    "nest": lambda tf: shared(tf).execute(
        lambda: (1, [tf.constant([2, 3]), {"b": 3.5, "a": None}])
    ),
    "variable is read": lambda tf: shared(tf).execute(lambda: tf.Variable([2.0, 4.0])),
    "assign_add": lambda tf: (lambda v: shared(tf).execute(lambda: v.assign_add(1.0)))(
        tf.Variable(1.0)
    ),
    "unconvertible": lambda tf: shared(tf).execute(lambda: object()),
    "fn not callable": lambda tf: shared(tf).execute(3),
    "fn with arguments": lambda tf: shared(tf).execute(lambda x: x),
    "keywords unchecked": lambda tf: shared(tf).execute(
        lambda: tf.constant(1), exclusive_resource_access=False, name=3
    ),
    "re-entry": lambda tf: (lambda cs: cs.execute(lambda: cs.execute(lambda: 1)))(shared(tf)),
    "re-entry by shared name": lambda tf: tf.CriticalSection(shared_name="reentry").execute(
        lambda: tf.CriticalSection(shared_name="reentry").execute(lambda: 1)
    ),
    "nested sections": lambda tf: shared(tf).execute(
        lambda: shared(tf).execute(lambda: tf.constant(7))
    ),
    "name raises": lambda tf: shared(tf).name,
    "def and name": lambda tf: tf.CriticalSection(name="a", critical_section_def=1),
    "def": lambda tf: tf.CriticalSection(critical_section_def=1),
    "shared name not a string": lambda tf: tf.CriticalSection(shared_name=3),
    "name and import scope unused": lambda tf: (
        tf.CriticalSection(name=3, import_scope="s"),
        shared(tf).execute(lambda: tf.constant(2)),
    )[1],
}


@pytest.mark.parametrize("name", list(RESULTS))
def test_execute_results_and_errors_are_tfs(name):
    same_outcome(RESULTS[name])


def test_reentry_text_names_the_signature():
    kind, text = same_outcome(RESULTS["re-entry by shared name"])
    assert kind == "ValueError"
    assert text == (
        "Attempting to lock a CriticalSection (signature=('', 'reentry', "
        "'/job:localhost/replica:0/task:0/device:CPU:0')) in which we are already running. "
        "This is illegal and may cause deadlocks."
    )


def test_the_lock_is_released_when_fn_raises():
    def run(tf):
        cs = shared(tf)

        def boom():
            raise KeyError("inside")

        with pytest.raises(KeyError):
            cs.execute(boom)
        gc.collect()
        return cs.execute(lambda: tf.constant(4))

    assert plain(run(tapejax)) == plain(run(tensorflow))


def test_threads_are_serialized_without_lost_updates():
    def run(tf, section):
        count = tf.Variable(0)
        seen = []

        def increment():
            old = count.read_value()
            time.sleep(0.002)  # another thread would read the same value here
            count.assign(old + 1)
            seen.append(int(old))
            return old

        def worker():
            for _ in range(15):
                section.execute(increment)

        threads = [threading.Thread(target=worker) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return int(count.numpy()), sorted(seen)

    want = run(tensorflow, shared(tensorflow))
    assert want == (45, list(range(45)))
    assert run(tapejax, tapejax.CriticalSection()) == want
    # Sections with one shared_name share the lock.
    one, two = (tapejax.CriticalSection(shared_name="threads") for _ in range(2))
    count = tapejax.Variable(0)
    barrier = []

    def increment():
        old = count.read_value()
        time.sleep(0.002)
        count.assign(old + 1)
        barrier.append(1)

    def worker(section):
        for _ in range(15):
            section.execute(increment)

    threads = [threading.Thread(target=worker, args=(s,)) for s in (one, two)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(count.numpy()) == 30


def test_without_the_section_the_same_threads_lose_updates():
    # The test above can fail: run unserialized, the read-sleep-write loses updates.
    count = tapejax.Variable(0)

    def increment():
        old = count.read_value()
        time.sleep(0.002)
        count.assign(old + 1)

    def worker():
        for _ in range(15):
            increment()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(count.numpy()) < 45


def test_a_thread_waits_for_the_section_another_holds():
    cs = tapejax.CriticalSection()
    entered, release, order = threading.Event(), threading.Event(), []

    def holder():
        def fn():
            entered.set()
            release.wait(5)
            order.append("holder")
            return 1

        cs.execute(fn)

    t = threading.Thread(target=holder)
    t.start()
    entered.wait(5)
    waiter = threading.Thread(target=lambda: cs.execute(lambda: order.append("waiter") or 2))
    waiter.start()
    time.sleep(0.05)
    assert order == []  # the waiter is blocked
    release.set()
    t.join()
    waiter.join()
    assert order == ["holder", "waiter"]


def test_nested_sections_without_shared_names_run_where_tf_deadlocks():
    # docs/compat.md: TF's eager sections without a shared_name share one mutex, so this
    # nesting never returns in TF; tapejax gives each section its own lock.
    outer, inner = tapejax.CriticalSection(), tapejax.CriticalSection()
    assert int(outer.execute(lambda: inner.execute(lambda: tapejax.constant(7)))) == 7
    assert outer._signature != inner._signature


IN_FUNCTION = {
    "values in program order": lambda tf, cs, v: [
        cs.execute(lambda: v.assign_add(2.0)),
        cs.execute(lambda: v.read_value() * 10.0),
    ],
    "nest": lambda tf, cs, v: cs.execute(lambda: {"x": v * 2.0, "y": [tf.constant(1), 5]}),
    "python number": lambda tf, cs, v: cs.execute(lambda: 5),
    "none refused": lambda tf, cs, v: cs.execute(lambda: [tf.constant(1.0), None]),
    "empty refused": lambda tf, cs, v: cs.execute(lambda: []),
    "re-entry": lambda tf, cs, v: cs.execute(lambda: cs.execute(lambda: 1.0)),
}


@pytest.mark.parametrize("name", list(IN_FUNCTION))
def test_inside_a_function_graph_rules_are_tfs(name):
    body = IN_FUNCTION[name]

    def run(tf):
        cs, v = shared(tf), tf.Variable(1.0)

        def f():
            return body(tf, cs, v)

        if tf is tensorflow:  # the body's lambdas are not autograph's to convert
            f = tensorflow.autograph.experimental.do_not_convert(f)
        f = tf.function(f)
        first = f()
        second = f()  # tapejax's traced call (the first one runs the Python eagerly)
        return [first, second, v.read_value()]

    same_outcome(run)


def test_gradients_through_execute_are_tfs():
    def run(tf):
        cs = shared(tf)
        x = tf.Variable(3.0)
        w = tf.constant([1.0, -2.0])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(w)
            y = cs.execute(lambda: x * x + tf.reduce_sum(w * x))
            z = cs.execute(lambda: {"a": y * 2.0, "b": [x**3, w * w]})
            out = z["a"] + z["b"][0] + tf.reduce_sum(z["b"][1])
            passed = cs.execute(lambda: x)
        grads = tape.gradient(out, [x, w])
        return [g.numpy().tolist() for g in grads] + [tape.gradient(passed, x).numpy().tolist()]

    want = run(tensorflow)
    assert want == [37.0, [8.0, 2.0], 1.0]
    assert run(tapejax) == want


def test_gradients_inside_a_function_are_tfs():
    def run(tf):
        cs, x = shared(tf), tf.Variable(3.0)

        @tf.function
        def f():
            with tf.GradientTape() as tape:
                y = cs.execute(lambda: x * x)
            return tape.gradient(y, x)

        return [float(f()), float(f())]

    assert run(tapejax) == run(tensorflow) == [6.0, 6.0]


def test_inside_a_function_a_returned_variable_is_read_where_tf_raises():
    # docs/compat.md: TF's graph mode raises for a Variable created outside the function.
    def run(tf):
        cs, v = shared(tf), tf.Variable(2.0)
        return tf.function(lambda: cs.execute(lambda: [v, 1.0]))()

    e = raised(run, tensorflow)
    assert type(e) is AttributeError and "Tensor.op is undefined" in str(e)
    assert plain(run(tapejax)) == [(True, "float32", 2.0), (True, "float32", 1.0)]


def test_exclusive_resource_access_is_accepted_where_tf_raises():
    # docs/compat.md: TF's graph mode refuses two sections touching one Variable.
    def run(tf):
        one, two, w = shared(tf), shared(tf), tf.Variable(0.0)

        def f():
            x = one.execute(lambda: w.assign_add(1.0))
            y = two.execute(lambda: w.assign_add(1.0))
            return x, y

        if tf is tensorflow:
            f = tensorflow.autograph.experimental.do_not_convert(f)
        return tf.function(f)()

    e = raised(run, tensorflow)
    assert type(e) is ValueError and "This execution would access resources" in str(e)
    assert [float(t) for t in run(tapejax)] == [1.0, 2.0]


# -- tapejax.newaxis ----------------------------------------------------------------------


NEWAXIS = {
    "front": lambda tf, x: x[tf.newaxis],
    "middle": lambda tf, x: x[:, tf.newaxis, 1:],
    "end": lambda tf, x: x[..., tf.newaxis],
    "two": lambda tf, x: x[tf.newaxis, 0, tf.newaxis],
    "with stride": lambda tf, x: x[::-1, tf.newaxis, ::2],
}


@pytest.mark.parametrize("name", list(NEWAXIS))
def test_indexing_with_newaxis_is_tfs(name):
    assert tapejax.newaxis is None and tensorflow.newaxis is None
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = NEWAXIS[name](tapejax, tapejax.constant(x))
    want = NEWAXIS[name](tensorflow, tensorflow.constant(x))
    assert got.shape.as_list() == want.shape.as_list()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_another_thread_is_not_inside_the_section_it_waits_for():
    # The stack of sections a thread is inside is per thread: another thread executing
    # the held section waits for it (no re-entry error), then runs.
    cs = tapejax.CriticalSection()
    results, threads = [], []

    def other():
        results.append(raised(lambda tf: int(cs.execute(lambda: tf.constant(1))), tapejax))

    def fn():
        threads.append(threading.Thread(target=other))
        threads[0].start()
        time.sleep(0.05)
        assert not results  # blocked on the lock, not refused
        return tapejax.constant(0)

    cs.execute(fn)
    threads[0].join()
    assert results == [None]
