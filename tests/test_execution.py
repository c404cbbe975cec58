"""Where code runs (``tapejax._src.execution``): ``executing_eagerly``, ``inside_function``,
``init_scope``, name scopes, ``get_static_value`` and TF's graph-ordering API
(``control_dependencies``, ``group``, ``no_op``, ``tuple``), eagerly and inside
``tapejax.function``, side by side with real TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}


def _seen_inside_function(tf, probe, calls=2):
    """What ``probe(tf)`` returns inside ``tf.function`` on each call (tapejax's first call
    runs eagerly, its second traces: both must answer as TF's traced calls do)."""
    seen = []

    @tf.function
    def f(x):
        seen.append(probe(tf))
        return x + 1

    for i in range(calls):
        f(tf.constant(float(i)))  # a new value each call; shapes equal: one TF trace
    return seen


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_executing_eagerly_and_inside_function(fw):
    tf = FRAMEWORKS[fw]
    assert tf.executing_eagerly() is True
    assert tf.inside_function() is False
    seen = _seen_inside_function(tf, lambda tf: (tf.executing_eagerly(), tf.inside_function()))
    assert set(seen) == {(False, True)}
    assert tf.executing_eagerly() is True and tf.inside_function() is False


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_functions_run_eagerly_execute_eagerly(fw):
    tf = FRAMEWORKS[fw]
    tf.config.run_functions_eagerly(True)
    try:
        seen = _seen_inside_function(tf, lambda tf: (tf.executing_eagerly(), tf.inside_function()))
    finally:
        tf.config.run_functions_eagerly(False)
    assert set(seen) == {(True, False)}


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_init_scope_is_eager_and_stops_tapes(fw):
    tf = FRAMEWORKS[fw]

    def probe(tf):
        with tf.init_scope():
            c = tf.constant([1.0, 2.0]) * 2  # lifted: a concrete value, as in TF
            return tf.executing_eagerly(), tf.inside_function(), c.numpy().tolist()

    assert set(map(repr, _seen_inside_function(tf, probe))) == {repr((True, True, [2.0, 4.0]))}
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tf.init_scope():
            assert tf.executing_eagerly()
            y = x * x
        z = x * x
    assert tape.gradient(y, x) is None
    assert float(tape.gradient(z, x)) == 6.0


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_current_name_scope(fw):
    tf = FRAMEWORKS[fw]
    seen = [tf.get_current_name_scope()]
    with tf.name_scope("a"):
        seen.append(tf.get_current_name_scope())
        with tf.name_scope("b"):
            seen.append(tf.get_current_name_scope())
        with tf.name_scope("c/"):
            seen.append(tf.get_current_name_scope())
        with tf.name_scope(""):
            seen.append(tf.get_current_name_scope())

        def probe(tf):
            with tf.name_scope("q"):
                inner = tf.get_current_name_scope()
                with tf.init_scope():
                    return tf.get_current_name_scope(), inner

        # A function body starts at the top scope, whatever scope calls it.
        seen += _seen_inside_function(tf, probe)
    assert seen[:5] == ["", "a", "a/b", "c", ""]
    assert set(seen[5:]) == {("q", "q")}


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_graph_ordering_api_eagerly(fw):
    tf = FRAMEWORKS[fw]
    a, b = tf.constant([1.0, 2.0]), tf.constant([[1]])
    assert tf.no_op() is None
    assert tf.group(a, b) is None and tf.group() is None
    called = []
    with tf.control_dependencies([a, lambda: called.append(1)]) as inside:
        assert inside is None
    assert called == [1]
    with tf.control_dependencies(None):
        pass
    pair = (a, b)
    assert tf.tuple(pair) is pair  # eagerly: the argument itself
    assert tf.tuple([a, None])[1] is None


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_graph_ordering_api_inside_function(fw):
    tf = FRAMEWORKS[fw]
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        with tf.control_dependencies([v.assign_add(x)]):
            y = v * 2.0
        tf.group(y, tf.no_op())
        t = tf.tuple([y, None, x], control_inputs=[y])
        return t[0] + t[2]

    for x, want in ((1.0, 5.0), (2.0, 10.0)):
        assert float(f(tf.constant(x))) == want


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_get_static_value(fw):
    tf = FRAMEWORKS[fw]
    got = tf.get_static_value(tf.constant([1, 2]))
    assert isinstance(got, np.ndarray) and got.tolist() == [1, 2]
    assert tf.get_static_value(tf.constant(2.5), partial=True) == np.float32(2.5)
    assert tf.get_static_value(tf.Variable(1.0)) is None
    for value in (3, [1, 2], "s", None):
        assert tf.get_static_value(value) == value

    @tf.function
    def f(x):
        assert tf.get_static_value(x * 2.0) is None
        return x

    f(tf.constant(1.0))
    f(tf.constant(2.0))


ERRORS = [
    (
        lambda tf: tf.function(lambda x: tf.tuple([None, None]))(tf.constant(1.0)),
        "ValueError",
        r"'tensors' must have at least one Tensor. Received: \[None, None\].",
    ),
    (
        lambda tf: tf.function(lambda x: tf.tuple([x], control_inputs=[1]))(tf.constant(1.0)),
        "TypeError",
        r"'control_inputs' must only contain Operation or Tensor. Received: <class 'int'>",
    ),
    (
        lambda tf: tf.function(lambda x: tf.group(x, foo=1) or x)(tf.constant(1.0)),
        "ValueError",
        r"Unknown keyword arguments: foo",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
