"""tapejax.print prints eagerly and on every call of a compiled function."""

import sys

import tapejax as tf


def test_print_eager(capsys):
    tf.print("x:", tf.constant([1, 2]), output_stream=sys.stdout)
    assert capsys.readouterr().out == "x: [1 2]\n"


def test_print_runs_on_every_call_of_a_function(capsys):
    @tf.function
    def f(x):
        tf.print("value", x, output_stream=sys.stdout)
        return x * 2

    for i in range(4):
        f(tf.constant(float(i)))
    assert capsys.readouterr().out.splitlines() == ["value 0.", "value 1.", "value 2.", "value 3."]
