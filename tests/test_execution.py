"""Where code runs (``tapejax._src.execution``): ``executing_eagerly``, ``inside_function``,
``init_scope`` and name scopes, eagerly and inside ``tapejax.function``, side by side with
real TensorFlow."""

from __future__ import annotations

import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

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
