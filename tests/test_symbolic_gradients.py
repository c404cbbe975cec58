"""``tf.gradients`` and ``tf.hessians`` (``tapejax._src.symbolic_gradients``): TF's eager
refusal, and a clear NotImplementedError inside ``tapejax.function``."""

from __future__ import annotations

import inspect

import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

EAGER = (
    r"^tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead.$"
)


@pytest.mark.parametrize(
    "fn",
    [
        lambda tf: tf.gradients(tf.constant(1.0) * 2.0, tf.constant(1.0)),
        lambda tf: tf.hessians(tf.constant(1.0) * 2.0, tf.constant(1.0)),
    ],
    ids=["gradients", "hessians"],
)
def test_eagerly_refused_as_tf(fn):
    check_error(fn, "RuntimeError", EAGER)


@pytest.mark.parametrize("name", ["gradients", "hessians"])
def test_inside_a_function_not_implemented(name):
    f = tapejax.function(lambda x: getattr(tapejax, name)(x * x, x))
    for _ in range(2):  # the eager first call and the traced second answer alike
        with pytest.raises(NotImplementedError, match=f"tapejax.{name} inside tapejax.function"):
            f(tapejax.constant(2.0))


@pytest.mark.parametrize("name", ["gradients", "hessians"])
def test_argument_names_are_tfs(name):
    ours = inspect.signature(getattr(tapejax, name)).parameters
    theirs = inspect.signature(getattr(tensorflow, name)).parameters
    assert list(ours) == list(theirs)
