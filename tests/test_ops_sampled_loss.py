# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""``tapejax.nn.nce_loss`` and ``tapejax.nn.sampled_softmax_loss`` side by side with real
TensorFlow.

Sampled classes cannot be TF's, so the Cases pass the same ``sampled_values`` to both
frameworks: then values, dtypes, shapes and tape gradients (w.r.t. weights, biases and
inputs; ``None`` for the sampled values) must be TF's, for one tensor or a list of shards
("div" partitioning), several true classes, accidental hits (repeated sampled classes
included) and float64. The default sampler is checked to be
``log_uniform_candidate_sampler(unique=True)`` with the loss's seed, and the losses to run
inside ``tapejax.function``; errors are TF's types and texts. The deterministic
``all_candidate_sampler`` and ``compute_accidental_hits`` (whose last-position rule the
losses use for accidental hits) have Cases here too.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapejax
import tapejax.nn

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
    arr,
    case_id,
    check_accepts_variables,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_values,
    first_of_each_op,
    fixed,
    grad_cases,
    pure_grad_cases,
    value_params,
)

CLASSES, DIM = 10, 4


def _i32(v):
    return np.array(v, np.int32)


def _i64(v):
    return np.array(v, np.int64)


def _sampled(dt, sampled, batch, num_true=1):
    """``sampled_values`` of ``dt``: the classes and positive expected counts."""
    true_count = arr(dt, (batch, num_true), 0.1, 0.9, seed=5)
    sampled_count = arr(dt, (len(sampled),), 0.1, 0.9, seed=6)
    return [_i32(sampled), true_count, sampled_count]


def loss_case(name, labels, sampled, shards=None, diff=(0, 1, 3), dtypes=("float32",), **kwargs):
    """A sampled-loss Case: ``weights`` (or a list of shards of the given row counts),
    biases, ``labels``, inputs, then TF's arguments with ``sampled_values``."""
    labels = _i32(labels)
    batch, num_true = labels.shape

    def make(dt, shape):
        w = arr(dt, (CLASSES, DIM), seed=1)
        weights = w if shards is None else list(np.split(w, np.cumsum(shards)[:-1]))
        args = (weights, arr(dt, (CLASSES,), seed=2), labels, arr(dt, (batch, DIM), seed=3))
        kw = {"num_true": num_true, "sampled_values": _sampled(dt, sampled, batch, num_true)}
        return args + (len(sampled), CLASSES), {**kw, **kwargs}

    x64 = "float64" in dtypes
    return Case(name, make, dtypes=dtypes, shapes=((0,),), diff=diff, x64=x64, rtol=1e-5, atol=1e-5)


CASES = [
    loss_case("nn.nce_loss", [[1], [4], [9]], [4, 2, 7, 1]),
    loss_case("nn.nce_loss", [[1], [4], [9]], [4, 2, 7, 1, 4], remove_accidental_hits=True),
    loss_case("nn.nce_loss", [[1, 2], [4, 5]], [5, 0, 2, 8], remove_accidental_hits=True),
    loss_case("nn.nce_loss", [[1], [4], [9]], [4, 2, 7], shards=(4, 3, 3), diff=(1, 3)),
    loss_case("nn.sampled_softmax_loss", [[1], [4], [9]], [4, 2, 7, 1, 4]),
    loss_case(
        "nn.sampled_softmax_loss", [[1], [4], [9]], [4, 2, 7, 1], remove_accidental_hits=False
    ),
    loss_case("nn.sampled_softmax_loss", [[3, 1], [0, 7], [2, 2]], [7, 3, 3, 9, 2]),
    loss_case(
        "nn.sampled_softmax_loss", [[1], [4], [9]], [4, 2, 7, 9], shards=(3, 3, 2, 2), diff=(1, 3)
    ),
    loss_case(
        "nn.nce_loss",
        [[1, 2], [4, 5]],
        [5, 0, 2, 2],
        dtypes=("float64",),
        remove_accidental_hits=True,
    ),
    loss_case("nn.sampled_softmax_loss", [[1], [4], [9]], [4, 2, 7, 1, 4], dtypes=("float64",)),
    fixed("nn.all_candidate_sampler", lambda dt: (_i64([[0, 1], [2, 4]]), 2, 5, True), x64=True),
    fixed("nn.all_candidate_sampler", lambda dt: (_i64([[3]]), 1, 4, False), {"seed": 3}, x64=True),
    fixed(
        "nn.compute_accidental_hits",
        lambda dt: (_i64([[0, 1], [2, 5]]), _i64([5, 0, 3, 2, 1]), 2),
        x64=True,
    ),
    fixed(
        "nn.compute_accidental_hits",
        lambda dt: (_i64([[1, 1], [2, 5], [7, 7]]), _i64([1, 1, 2, 1]), 2),
        x64=True,
    ),
    fixed("nn.compute_accidental_hits", lambda dt: (_i64([[1], [2]]), _i64([]), 1), x64=True),
    fixed(
        "nn.compute_accidental_hits",
        lambda dt: (np.zeros((0, 3), np.int64), _i64([4]), 3),
        x64=True,
    ),
]
NOT_DIFFERENTIABLE = {"nn.all_candidate_sampler", "nn.compute_accidental_hits"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


@pytest.mark.parametrize("case", first_of_each_op(CASES, NOT_DIFFERENTIABLE), ids=case_id)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


@pytest.mark.slow
@pytest.mark.parametrize("case", pure_grad_cases(CASES, NOT_DIFFERENTIABLE), ids=case_id)
def test_pure_function_second_order_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=2)


def _loss_and_grads(fw, fn, weights, sampled_values, **kwargs):
    """The loss of fixed data and its tape gradients w.r.t. every weight shard, biases,
    inputs and the sampled values."""
    shards = (
        [fw.constant(w) for w in weights] if isinstance(weights, list) else fw.constant(weights)
    )
    b, x = (
        fw.constant(arr("float32", (CLASSES,), seed=2)),
        fw.constant(arr("float32", (3, DIM), seed=3)),
    )
    sv = [fw.constant(v) for v in sampled_values]
    sources = (shards if isinstance(shards, list) else [shards]) + [b, x] + sv
    with fw.GradientTape() as tape:
        tape.watch(sources)
        loss = getattr(fw.nn, fn)(
            shards,
            b,
            _i32([[1], [4], [9]]),
            x,
            len(sampled_values[0]),
            CLASSES,
            sampled_values=sv,
            **kwargs,
        )
    return loss, tape.gradient(loss, sources)


@pytest.mark.parametrize("fn", ["nce_loss", "sampled_softmax_loss"])
def test_sharded_weights_gradients_and_no_gradient_to_sampled_values(fn):
    """Per shard, the gradient is TF's (TF's IndexedSlices densified); the sampled values
    are constants of the loss (TF stops their gradients)."""
    weights = list(np.split(arr("float32", (CLASSES, DIM), seed=1), [3, 6, 8]))
    sv = _sampled("float32", [8, 2, 5, 2], 3)
    got_loss, got = _loss_and_grads(tapejax, fn, weights, sv)
    want_loss, want = _loss_and_grads(tensorflow, fn, weights, sv)
    np.testing.assert_allclose(got_loss.numpy(), want_loss.numpy(), rtol=1e-5)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(
                g.numpy(), tensorflow.convert_to_tensor(w).numpy(), rtol=1e-4, atol=1e-6
            )
    assert got[-3:] == [None, None, None]


def test_float16_hits_give_tfs_nans():
    """-FLT_MAX is -inf in float16: a row with an accidental hit is NaN in TF's softmax
    cross-entropy too."""

    def loss(fw):
        f16 = [
            arr("float16", s, seed=i) for i, s in enumerate(((CLASSES, DIM), (CLASSES,), (3, DIM)))
        ]
        sv = _sampled("float16", [4, 2, 7, 1], 3)
        return fw.nn.sampled_softmax_loss(
            f16[0], f16[1], _i32([[1], [4], [9]]), f16[2], 4, CLASSES, sampled_values=sv
        ).numpy()

    got, want = loss(tapejax), loss(tensorflow)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(want).sum() == 2
    np.testing.assert_allclose(got[2], want[2], rtol=2e-3)


def test_labels_of_any_int_or_float_dtype_are_cast_as_tf():
    sv = _sampled("float32", [4, 2, 7], 3)
    w, b, x = (
        arr("float32", (CLASSES, DIM), seed=1),
        arr("float32", (CLASSES,), seed=2),
        arr("float32", (3, DIM), seed=3),
    )
    want = tensorflow.nn.nce_loss(
        w, b, _i32([[1], [4], [9]]), x, 3, CLASSES, sampled_values=sv
    ).numpy()
    for labels in (tapejax.constant([[1.0], [4.0], [9.0]]), np.array([[1], [4], [9]], np.int32)):
        got = tapejax.nn.nce_loss(w, b, labels, x, 3, CLASSES, sampled_values=sv).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_empty_batch():
    sv = [_i32([4, 2]), np.zeros((0, 1), np.float32), np.ones(2, np.float32)]
    w, b = arr("float32", (CLASSES, DIM), seed=1), arr("float32", (CLASSES,), seed=2)
    got = tapejax.nn.sampled_softmax_loss(
        w,
        b,
        np.zeros((0, 1), np.int32),
        np.zeros((0, DIM), np.float32),
        2,
        CLASSES,
        sampled_values=sv,
    )
    assert got.shape.as_list() == [0] and got.dtype == tapejax.float32


def test_default_sampler_is_log_uniform_unique_with_the_seed():
    """Without ``sampled_values`` the loss draws ``log_uniform_candidate_sampler(labels,
    num_true, num_sampled, unique=True, range_max=num_classes, seed=seed)``: after the
    same ``set_seed`` it equals the loss of that sampler's draw."""
    w, b, x = (
        arr("float32", (50, DIM), seed=1),
        arr("float32", (50,), seed=2),
        arr("float32", (3, DIM), seed=3),
    )
    labels = tapejax.constant(_i32([[1], [4], [9]]))
    tapejax.random.set_seed(3)
    drawn = tapejax.random.log_uniform_candidate_sampler(labels, 1, 6, True, 50, seed=8)
    want = tapejax.nn.sampled_softmax_loss(w, b, labels, x, 6, 50, sampled_values=drawn).numpy()
    tapejax.random.set_seed(3)
    got = tapejax.nn.sampled_softmax_loss(w, b, labels, x, 6, 50, seed=8).numpy()
    np.testing.assert_array_equal(got, want)
    assert len(set(drawn.sampled_candidates.numpy().tolist())) == 6
    again = tapejax.nn.sampled_softmax_loss(w, b, labels, x, 6, 50, seed=8).numpy()
    assert not np.array_equal(again, got)  # the kernel's stream moves on, as TF's


@pytest.mark.slow
def test_losses_run_inside_tapejax_function_with_one_trace():
    w = tapejax.Variable(arr("float32", (50, DIM), seed=1))
    b = tapejax.Variable(arr("float32", (50,), seed=2))
    x = tapejax.constant(arr("float32", (3, DIM), seed=3))
    labels = tapejax.constant(_i32([[1], [4], [9]]))
    sv = [tapejax.constant(v) for v in _sampled("float32", [4, 2, 7, 1], 3)]

    @tapejax.function
    def step(sampled_values):
        with tapejax.GradientTape() as tape:
            fixed = tapejax.reduce_sum(
                tapejax.nn.nce_loss(
                    w,
                    b,
                    labels,
                    x,
                    4,
                    50,
                    sampled_values=sampled_values,
                    remove_accidental_hits=True,
                )
            )
            drawn = tapejax.reduce_sum(tapejax.nn.sampled_softmax_loss(w, b, labels, x, 4, 50))
            total = fixed + drawn
        return fixed, drawn, tape.gradient(total, [w, b])

    results = [step(sv) for _ in range(3)]
    assert step.experimental_get_tracing_count() == 1
    eager = tapejax.nn.nce_loss(
        w, b, labels, x, 4, 50, sampled_values=sv, remove_accidental_hits=True
    )
    np.testing.assert_allclose(float(results[0][0]), float(tapejax.reduce_sum(eager)), rtol=1e-6)
    drawn = [float(r[1]) for r in results]
    assert len(set(drawn)) == 3, "each call draws new classes"
    for _, _, (gw, gb) in results:
        assert np.isfinite(gw.numpy()).all() and np.isfinite(gb.numpy()).all()


# -- errors: the same expression raises the same error under both frameworks ----------------

IAE = "InvalidArgumentError"
_W, _B, _X = (
    arr("float32", (CLASSES, DIM), seed=1),
    arr("float32", (CLASSES,), seed=2),
    arr("float32", (3, DIM), seed=3),
)
_L = _i32([[1], [4], [9]])


def _sv(tf, sampled=(4, 2, 7, 1), true_count=None, count_dtype="float32"):
    tc = np.full((3, 1), 0.5, count_dtype) if true_count is None else true_count
    return (
        tf.constant(_i32(sampled)),
        tf.constant(tc),
        tf.constant(np.full(len(sampled), 0.3, count_dtype)),
    )


ERRORS = [
    (
        lambda tf: tf.nn.nce_loss(_W, _B, [[1], [4], [9]], _X, 4, CLASSES, sampled_values=_sv(tf)),
        "AttributeError",
        r"'list' object has no attribute 'dtype'",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W, _B, _i32([[1], [4], [12]]), _X, 4, CLASSES, sampled_values=_sv(tf)
        ),
        IAE,
        r"indices\[2\] = 12 is not in \[0, 10\) \[Op:GatherV2\]",
    ),
    (
        lambda tf: tf.nn.sampled_softmax_loss(
            _W, _B, _L, _X, 4, CLASSES, sampled_values=_sv(tf, (4, 2, 17, 1))
        ),
        IAE,
        r"indices\[5\] = 17 is not in \[0, 10\) \[Op:GatherV2\]",
    ),
    (
        lambda tf: tf.nn.nce_loss([_W[:2], _W[2:]], _B, _L, _X, 4, CLASSES, sampled_values=_sv(tf)),
        IAE,
        r"indices\[1\] = 4 is not in \[0, 2\) \[Op:GatherV2\]",
    ),
    (
        lambda tf: tf.nn.nce_loss((_W[:5], _W[5:]), _B, _L, _X, 4, CLASSES, sampled_values=_sv(tf)),
        IAE,
        r"indices\[1\] = 4 is not in \[0, 2\) \[Op:GatherV2\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(_W, _B[:5], _L, _X, 4, CLASSES, sampled_values=_sv(tf)),
        IAE,
        r"indices\[2\] = 9 is not in \[0, 5\) \[Op:GatherV2\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(_W, None, _L, _X, 4, CLASSES, sampled_values=_sv(tf)),
        "ValueError",
        r"params must be specified",
    ),
    (
        lambda tf: tf.nn.nce_loss(_W, _B, _L, _X[:, :3], 4, CLASSES, sampled_values=_sv(tf)),
        IAE,
        r"Matrix size-incompatible: In\[0\]: \[3,3\], In\[1\]: \[4,4\] \[Op:MatMul\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W.astype(np.int32),
            _B.astype(np.int32),
            _L,
            _X.astype(np.int32),
            4,
            CLASSES,
            sampled_values=_sv(tf),
        ),
        IAE,
        r"cannot compute Sub as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor \[Op:Sub\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W,
            _B,
            _L,
            _X,
            4,
            CLASSES,
            sampled_values=(
                tf.constant(_i32([4, 2, 7, 1])),
                tf.constant([[1], [2], [3]]),
                tf.constant([0.3] * 4),
            ),
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W, _B, _L, _X, 3, CLASSES, sampled_values=_sv(tf), remove_accidental_hits=True
        ),
        IAE,
        r"Indices are not valid \(out of bounds\).  Shape: \[3,3\]",
    ),
    (
        lambda tf: tf.nn.sampled_softmax_loss(
            _W, _B, _L, _X, 5, CLASSES, sampled_values=_sv(tf, (4, 2, 7, 3))
        ),
        IAE,
        r"Incompatible shapes: \[3,4\] vs. \[3,5\] \[Op:AddV2\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W, _B, _i32([[1, 2], [4, 5], [9, 0]]), _X, 4, CLASSES, sampled_values=_sv(tf)
        ),
        IAE,
        r"Incompatible shapes: \[3,1,4\] vs. \[6,1,4\] \[Op:Mul\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W,
            _B,
            _i32([[1, 2], [4, 5], [9, 0]]),
            _X,
            4,
            CLASSES,
            num_true=2,
            sampled_values=_sv(tf, true_count=np.ones((2, 1), np.float32)),
        ),
        IAE,
        r"Incompatible shapes: \[3,2\] vs. \[2,1\] \[Op:Sub\]",
    ),
    (
        lambda tf: tf.nn.sampled_softmax_loss(
            _W, _B, _i32([1, 4, 9]), _X, 4, CLASSES, sampled_values=_sv(tf)
        ),
        IAE,
        r"true_candidates must be a batch_size \* num_true matrix \[Op:ComputeAccidentalHits\]",
    ),
    (
        lambda tf: tf.nn.sampled_softmax_loss(
            _W,
            _B,
            _L,
            _X,
            4,
            CLASSES,
            sampled_values=(tf.constant(_i32([[4, 2, 7, 1]])),) + _sv(tf)[1:],
        ),
        IAE,
        r"ConcatOp : Ranks of all input tensors should match: shape\[0\] = \[3\] vs. shape\[1\] = \[1,4\] \[Op:ConcatV2\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W, _B, _i32([[1, 2], [4, 5]]), _X, 4, CLASSES, num_true=3, sampled_values=_sv(tf)
        ),
        IAE,
        r"Input to reshape is a tensor with 16 values, but the requested shape requires a multiple of 12 \[Op:Reshape\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W,
            _B,
            _i32([[1], [4]]),
            _X,
            4,
            CLASSES,
            sampled_values=_sv(tf, true_count=np.ones((2, 1), np.float32)),
        ),
        IAE,
        r"Incompatible shapes: \[3,1,4\] vs. \[2,1,4\] \[Op:Mul\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W,
            _B,
            _i32([[1]]),
            _X,
            4,
            CLASSES,
            sampled_values=_sv(tf, true_count=np.ones((1, 1), np.float32)),
        ),
        None,
        None,
    ),
]


# float64 needs JAX's x64 mode.
ERRORS_X64 = [
    (
        lambda tf: tf.nn.nce_loss(
            _W, _B, _L, _X.astype(np.float64), 4, CLASSES, sampled_values=_sv(tf)
        ),
        IAE,
        r"cannot compute Sub as input #1\(zero-based\) was expected to be a double tensor but is a float tensor \[Op:Sub\]",
    ),
    (
        lambda tf: tf.nn.nce_loss(
            _W, _B, _L, _X, 4, CLASSES, sampled_values=_sv(tf, count_dtype="float64")
        ),
        IAE,
        r"cannot compute Sub as input #1\(zero-based\) was expected to be a float tensor but is a double tensor \[Op:Sub\]",
    ),
]


@pytest.mark.parametrize(
    "fn, error, message, x64_mode",
    [(*e, False) for e in ERRORS if e[1]] + [(*e, True) for e in ERRORS_X64],
)
def test_errors_match_tf(fn, error, message, x64_mode, request):
    if x64_mode:
        request.getfixturevalue("x64")
    check_error(fn, error, message)


def test_one_label_row_broadcasts_over_the_batch_as_tf():
    """TF's row-wise product broadcasts a single label row over every example."""
    fn = ERRORS[-1][0]
    np.testing.assert_allclose(fn(tapejax).numpy(), fn(tensorflow).numpy(), rtol=1e-6)
