"""``broadcast_hoist.hoisted``: dots of broadcast operands run on the smaller array, and
transposed dot outputs are dots of transposed operands."""

import unittest.mock

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import tapejax as tf
from tapejax._src.broadcast_hoist import hoisted

rng = np.random.default_rng(0)


def _dots(fn, *args):
    """The (lhs shape, rhs shape) of every top-level dot_general of ``fn``'s jaxpr."""
    jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
    return [
        (tuple(e.invars[0].aval.shape), tuple(e.invars[1].aval.shape))
        for e in jaxpr.eqns
        if e.primitive.name == "dot_general"
    ]


def _f32(*shape):
    return jnp.asarray(rng.standard_normal(shape).astype(np.float32))


CASES = [
    # name, small operand shape, broadcast (shape, dims), other operand, dimension numbers
    ("lhs rows", (16, 8), ((16, 5, 8), (0, 2)), (6, 8), (((2,), (1,)), ((), ()))),
    ("lhs leading", (8,), ((5, 8), (1,)), (8, 3), (((1,), (0,)), ((), ()))),
    ("rhs columns", (8, 6), ((8, 4, 6), (0, 2)), (3, 8), (((1,), (0,)), ((), ()))),
    ("with batch", (2, 7, 3), ((2, 7, 5, 3), (0, 1, 3)), (2, 3, 4), (((3,), (1,)), ((0,), (0,)))),
]


@pytest.mark.parametrize("name,small,bcast,other,dn", CASES, ids=[c[0] for c in CASES])
def test_hoisted_dot_is_the_same_dot(name, small, bcast, other, dn):
    (shape, dims) = bcast
    a, b = _f32(*small), _f32(*other)
    rhs_side = name.startswith("rhs")

    def fn(a, b):
        big = lax.broadcast_in_dim(a, shape, dims)
        return lax.dot_general(b, big, dn) if rhs_side else lax.dot_general(big, b, dn)

    np.testing.assert_allclose(hoisted(fn)(a, b), fn(a, b), rtol=1e-6, atol=1e-6)
    # The dot now reads the small array, not its broadcast.
    assert _dots(hoisted(fn), a, b) == [(tuple(other), small) if rhs_side else (small, other)]


def test_a_broadcast_along_a_contracted_dimension_is_left_alone():
    a, b = _f32(4), _f32(5, 3)

    def fn(a, b):
        big = lax.broadcast_in_dim(a, (4, 5), (0,))  # repeated along dim 1, contracted
        return lax.dot_general(big, b, (((1,), (0,)), ((), ())))

    np.testing.assert_allclose(hoisted(fn)(a, b), fn(a, b), rtol=1e-6)
    assert _dots(hoisted(fn), a, b) == [((4, 5), (5, 3))]


def test_a_chain_of_dots_stays_small_and_pytrees_pass_through():
    a, w1, w2 = _f32(3, 4), _f32(4, 6), _f32(6, 2)

    def fn(args):
        a, (w1, w2) = args
        big = jnp.broadcast_to(a[:, None, :], (3, 7, 4))
        return {"out": (big @ w1) @ w2, "w": w1}

    args = (a, (w1, w2))
    got, want = hoisted(fn)(args), fn(args)
    np.testing.assert_allclose(got["out"], want["out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got["w"], want["w"])
    assert [lhs for lhs, _ in _dots(hoisted(fn), args)] == [(3, 4), (3, 6)]


def _check_the_mlp_batch_jacobian(x, w1, w2):
    """tapejax's batch jacobian of ``tanh(x @ w1) @ w2`` against a per-example
    ``vmap(jacrev)``."""
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.matmul(tf.tanh(tf.matmul(x, w1)), w2)
    got = g.batch_jacobian(y, x).numpy()
    per_example = jax.vmap(jax.jacrev(lambda r: jnp.tanh(r @ w1.numpy()) @ w2.numpy()))
    np.testing.assert_allclose(got, per_example(x.numpy()), rtol=1e-5, atol=1e-6)


def test_batch_jacobian_backward_dots_the_seed_once(monkeypatch):
    # TF's batch jacobian seeds with a cotangent broadcast over the batch: its dot with
    # the target's weight runs once, not once per example, and the result is unchanged.
    from tapejax._src import broadcast_hoist

    rewritten = []
    dot = broadcast_hoist._dot

    def spy(eqn, ins, spreads):
        out = dot(eqn, ins, spreads)
        if out is not None:
            rewritten.append((tuple(ins[0].shape), tuple(out[0].shape)))
        return out

    monkeypatch.setattr(broadcast_hoist, "_dot", spy)
    x = tf.constant(rng.standard_normal((64, 9)).astype(np.float32))
    w1 = tf.constant(rng.standard_normal((9, 13)).astype(np.float32))
    w2 = tf.constant(rng.standard_normal((13, 5)).astype(np.float32))
    _check_the_mlp_batch_jacobian(x, w1, w2)
    # The (5 rows, 64 examples, 5) seed's dot with w2 became a (5, 5) one: (5, 13) out.
    assert rewritten == [((5, 64, 5), (5, 13))]


def test_nested_jits_and_custom_rules_evaluate_as_they_would():
    # Equations with sub-programs (a jit, a custom JVP under grad) go through `bind`.
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), jnp.cos(p[0]) * t[0]))

    def fn(x):
        y = jax.jit(lambda v: v * 2)(x)
        return jax.grad(lambda v: jnp.sum(f(v)))(y) + lax.stop_gradient(y)

    x = _f32(6)
    np.testing.assert_allclose(jax.jit(hoisted(fn))(x), fn(x), rtol=1e-6)


def _transposed_operands(fn, *args):
    """Shapes of the operands of ``fn``'s top-level transposes."""
    jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
    return [tuple(e.invars[0].aval.shape) for e in jaxpr.eqns if e.primitive.name == "transpose"]


TRANSPOSES = [
    # name, lhs, rhs, dimension numbers, permutation of the dot's output, operand moved
    ("lhs free", (4, 5, 6), (6, 3), (((2,), (0,)), ((), ())), (1, 0, 2), (4, 5, 6)),
    ("rhs free", (3, 6), (4, 6, 5), (((1,), (1,)), ((), ())), (0, 2, 1), (4, 6, 5)),
    ("with batch", (2, 4, 5, 6), (2, 6, 3), (((3,), (1,)), ((0,), (0,))), (0, 2, 1, 3), None),
]


@pytest.mark.parametrize("name,ls,rs,dn,perm,moved", TRANSPOSES, ids=[c[0] for c in TRANSPOSES])
def test_a_transposed_dot_output_is_a_dot_of_a_transposed_operand(name, ls, rs, dn, perm, moved):
    a, b = _f32(*ls), _f32(*rs)

    def fn(a, b):
        return lax.transpose(lax.dot_general(a, b, dn), perm)

    np.testing.assert_allclose(hoisted(fn)(a, b), fn(a, b), rtol=1e-6, atol=1e-6)
    # The transpose moved onto the operand: the dot's output is never transposed.
    assert _transposed_operands(hoisted(fn), a, b) == [moved or ls]


def test_a_transpose_mixing_both_operands_or_a_dot_read_twice_is_left_alone():
    a, b = _f32(4, 5, 6), _f32(6, 3)
    dn = (((2,), (0,)), ((), ()))

    def mixed(a, b):  # the rhs free dim moves in front of an lhs one
        return lax.transpose(lax.dot_general(a, b, dn), (0, 2, 1))

    def read_twice(a, b):
        d = lax.dot_general(a, b, dn)
        return lax.transpose(d, (1, 0, 2)), d

    for fn in (mixed, read_twice):
        got, want = hoisted(fn)(a, b), fn(a, b)
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
        assert _transposed_operands(hoisted(fn), a, b) == [(4, 5, 3)]
        assert len(_dots(hoisted(fn), a, b)) == 1


def test_batch_jacobian_program_writes_its_rows_example_major():
    # The rows come out of the vmap (row, example, ...); the last dot now produces the
    # (example, row, ...) result itself, so no transpose reads a dot's output.
    x = tf.constant(rng.standard_normal((8, 9)).astype(np.float32))
    w1 = tf.constant(rng.standard_normal((9, 13)).astype(np.float32))
    w2 = tf.constant(rng.standard_normal((13, 5)).astype(np.float32))
    from tapejax._src import broadcast_hoist

    calls = []
    hoist = broadcast_hoist.hoisted

    def spy(fn):
        program = hoist(fn)

        def run(*args):
            calls.append((program, [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args]))
            return program(*args)

        return run

    with unittest.mock.patch.object(broadcast_hoist, "hoisted", spy):
        _check_the_mlp_batch_jacobian(x, w1, w2)
    ((program, avals),) = calls
    jaxpr = jax.make_jaxpr(program)(*avals).jaxpr
    made_by_dot = {e.outvars[0] for e in jaxpr.eqns if e.primitive.name == "dot_general"}
    transposed = [e.invars[0] for e in jaxpr.eqns if e.primitive.name == "transpose"]
    assert transposed and not made_by_dot.intersection(transposed)
