# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""TF's candidate samplers and ``compute_accidental_hits`` side by side with real
TensorFlow.

The sampled classes cannot be TF's (threefry, not Philox). What TF determines is checked
against TF itself: shapes and dtypes; the expected counts, which are deterministic given
the classes (TF's sampler is run on tapejax's sampled classes as its true classes, and
the learned sampler's counts evolve call by call exactly as TF's); TF's seed and kernel
rules; and TF's errors. The draws are checked by their statistics: frequencies against
the sampler's probabilities, distinct classes with ``unique``, and expected counts
consistent with one number of draws, as TF's rejection loop gives them.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapejax
import tapejax.nn
import tapejax.random

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

# The deterministic all_candidate_sampler and compute_accidental_hits have Cases in
# tests/test_ops_sampled_loss.py.
OTHERWISE_TESTED = {
    "random.uniform_candidate_sampler",
    "random.log_uniform_candidate_sampler",
    "nn.learned_unigram_candidate_sampler",
    "nn.fixed_unigram_candidate_sampler",
}


TRUE = [[0, 1], [2, 5], [9, 9]]
UNIGRAMS = [1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]


def _call(tf, name, true, num_true, num_sampled, unique, range_max, **kw):
    """A sampler of ``tf`` on the classes ``true`` (a Python list: int64 in both)."""
    true = np.asarray(true).tolist()
    return getattr(tf.random, name)(true, num_true, num_sampled, unique, range_max, **kw)


SAMPLERS = [
    ("uniform_candidate_sampler", {}),
    ("log_uniform_candidate_sampler", {}),
    ("learned_unigram_candidate_sampler", {}),
    ("fixed_unigram_candidate_sampler", {"unigrams": UNIGRAMS}),
    (
        "fixed_unigram_candidate_sampler",
        {"unigrams": UNIGRAMS[:7], "num_reserved_ids": 3, "distortion": 0.5},
    ),
    ("fixed_unigram_candidate_sampler", {"unigrams": UNIGRAMS * 2, "num_shards": 2, "shard": 1}),
]
SAMPLER_IDS = [f"{s[0]}-{'-'.join(s[1])}" for s in SAMPLERS]


@pytest.mark.parametrize("unique", [False, True])
@pytest.mark.parametrize("name, kw", SAMPLERS, ids=SAMPLER_IDS)
def test_shapes_dtypes_and_expected_counts_are_tfs(name, kw, unique, x64):
    """Without ``unique`` every expected count is ``p * num_sampled``: the true classes'
    equal TF's exactly, and TF, given tapejax's sampled classes as true classes, gives
    their counts. With ``unique``, the counts are TF's ``1 - (1 - p)**num_tries`` for one
    number of draws ``num_tries >= num_sampled``."""
    _fresh_kernels()
    got = _call(tapejax, name, TRUE, 2, 6, unique, 10, seed=4, **kw)
    want = _call(tensorflow, name, TRUE, 2, 6, unique, 10, seed=4, **kw)
    assert type(got).__name__ == type(want).__name__ and got._fields == want._fields
    for g, w in zip(got, want, strict=True):
        assert g.dtype.name == w.dtype.name and g.shape.as_list() == w.shape.as_list()
    sampled = got.sampled_candidates.numpy()
    assert sampled.min() >= 0 and sampled.max() < 10
    if unique:
        assert len(set(sampled.tolist())) == 6
    # TF's probabilities of the true and the sampled classes, in one call without unique.
    classes = np.concatenate([np.array(TRUE).reshape(-1), sampled])[:, None]
    p = (
        _call(tensorflow, name, classes, 1, 6, False, 10, **kw).true_expected_count.numpy()[:, 0]
        / 6
    )
    counts = np.concatenate(
        [got.true_expected_count.numpy().reshape(-1), got.sampled_expected_count.numpy()]
    )
    if not unique:
        np.testing.assert_array_equal(counts, (p * np.float32(6)).astype(np.float32))
        np.testing.assert_array_equal(
            got.true_expected_count.numpy(), want.true_expected_count.numpy()
        )
        return
    if np.array_equal(counts, (p * np.float32(6)).astype(np.float32)):
        return  # the first 6 draws were distinct: TF's shortcut p * num_sampled
    positive = p > 0
    tries = np.log1p(-counts[positive]) / np.log1p(-p[positive].astype(np.float64))
    assert np.all(tries >= 6 - 1e-3) and np.ptp(tries) < 1e-3 * tries.max()


def test_log_uniform_probabilities_without_x64_are_within_2_ulp_of_tfs():
    got = _call(
        tapejax, "log_uniform_candidate_sampler", [[0, 7], [100, 99_999]], 2, 3, False, 100_000
    )
    want = _call(
        tensorflow, "log_uniform_candidate_sampler", [[0, 7], [100, 99_999]], 2, 3, False, 100_000
    )
    np.testing.assert_allclose(
        got.true_expected_count.numpy(), want.true_expected_count.numpy(), rtol=2.5e-7
    )


def _fresh_kernels():
    """``set_seed(None)`` in both frameworks: fresh kernels, so fresh learned counts."""
    tapejax.random.set_seed(None)
    tensorflow.random.set_seed(None)


def _probabilities(name, range_max, **kw):
    """Each class's probability, by TF (its expected count without unique, / num_sampled)."""
    _fresh_kernels()
    classes = np.arange(range_max)[:, None]
    return _call(
        tensorflow, name, classes, 1, 1, False, range_max, **kw
    ).true_expected_count.numpy()[:, 0]


N = 20_000


@pytest.mark.parametrize(
    "name, range_max, kw",
    [
        ("uniform_candidate_sampler", 7, {}),
        ("log_uniform_candidate_sampler", 12, {}),
        ("learned_unigram_candidate_sampler", 5, {}),
        ("fixed_unigram_candidate_sampler", 10, {"unigrams": UNIGRAMS, "distortion": 0.75}),
    ],
)
def test_frequencies_are_the_samplers_probabilities(name, range_max, kw):
    tapejax.random.set_seed(5)  # statistics of fixed draws: the test cannot flake
    x = _call(tapejax, name, [[0]], 1, N, False, range_max, **kw).sampled_candidates.numpy()
    freq = np.bincount(x, minlength=range_max) / N
    p = _probabilities(name, range_max, **kw)
    np.testing.assert_allclose(freq, p, atol=4 * np.sqrt(p.max() / N))
    assert np.all(freq[p == 0] == 0)


def test_log_uniform_reaches_every_class_of_a_large_range():
    """Classes near the top of a 2**20 range come with their probabilities, odd and even
    alike (a float32 ``exp(u * log(range))`` would skip some)."""
    top = 2**20
    tapejax.random.set_seed(6)
    x = _call(
        tapejax, "log_uniform_candidate_sampler", [[0]], 1, 200_000, False, top
    ).sampled_candidates.numpy()
    upper = x[x >= top // 2]
    expected = 200_000 * np.log((top + 1) / (top // 2 + 1)) / np.log(top + 1)
    assert abs(upper.size - expected) < 4 * np.sqrt(expected)
    np.testing.assert_allclose(np.bincount(upper % 4) / upper.size, 0.25, atol=0.01)


def _tf_unique_process(p, k, rounds, rng):
    """TF's ``SampleBatchGetExpectedCountAvoid`` with ``unique``, in NumPy: i.i.d. draws
    until ``k`` distinct, then each class's ``ExpectedCountHelper`` (``p * k`` when no
    draw was rejected). Mean inclusions and mean expected counts per class."""
    seen, counts = np.zeros(p.size), np.zeros(p.size)
    for _ in range(rounds):
        kept, tries = [], 0
        while len(kept) < k:
            tries += 1
            c = rng.choice(p.size, p=p)
            if c not in kept:
                kept.append(c)
        seen[kept] += 1
        counts += p * k if tries == k else -np.expm1(tries * np.log1p(-p))
    return seen / rounds, counts / rounds


def test_unique_draws_and_counts_follow_tfs_process():
    """Which classes a unique draw keeps, and the expected counts from the number of
    draws it took, have the statistics of TF's rejection loop."""
    rounds, k, total = 400, 3, 8
    every_class = [list(range(total))]
    seen, counts = np.zeros(total), np.zeros(total)
    tapejax.random.set_seed(0)
    for _ in range(rounds):
        s = _call(tapejax, "log_uniform_candidate_sampler", every_class, total, k, True, total)
        seen[s.sampled_candidates.numpy()] += 1
        counts += s.true_expected_count.numpy()[0]
    p = _probabilities("log_uniform_candidate_sampler", total).astype(np.float64)
    want_seen, want_counts = _tf_unique_process(p / p.sum(), k, 4000, np.random.default_rng(0))
    np.testing.assert_allclose(seen / rounds, want_seen, atol=0.08)  # 3 sigma of 400 draws
    np.testing.assert_allclose(counts / rounds, want_counts, atol=0.02)
    assert seen.sum() == rounds * k


def test_unique_with_the_whole_range_is_a_permutation():
    tapejax.random.set_seed(7)
    s = _call(tapejax, "uniform_candidate_sampler", [[3]], 1, 10, True, 10)
    assert sorted(s.sampled_candidates.numpy().tolist()) == list(range(10))
    counts = s.sampled_expected_count.numpy()  # 1 - 0.9**num_tries, num_tries >= 10
    assert np.all(counts == counts[0]) and 1 - 0.9**10 - 1e-6 <= counts[0] <= 1.0


def test_learned_counts_evolve_as_tfs_kernel():
    """TF's kernel counts each true class seen; calls with the same seed and arguments
    share the counts (no seed too), another seed has its own, ``set_seed`` resets them,
    and with a global seed but no op seed every call starts afresh."""

    def sequence(tf):
        out = []

        def draw(**kw):
            s = _call(
                tf, "learned_unigram_candidate_sampler", [[0, 1], [2, 5]], 2, 4, False, 10, **kw
            )
            out.append(s.true_expected_count.numpy().tolist())

        tf.random.set_seed(None)
        for _ in range(3):
            draw()
            draw(seed=7)
        draw(seed=8)
        tf.random.set_seed(1)
        for _ in range(2):
            draw()
            draw(seed=7)
        tf.random.set_seed(None)
        return out

    assert sequence(tapejax) == sequence(tensorflow)


def test_learned_counts_are_carried_through_tapejax_function():
    tapejax.random.set_seed(None)
    classes = tapejax.constant([[0, 1], [2, 5]])  # int64 classes, held as int32 (no x64)

    @tapejax.function
    def step(c):
        return tapejax.random.learned_unigram_candidate_sampler(
            c, 2, 4, False, 10, seed=21
        ).true_expected_count

    got = [step(classes).numpy().tolist() for _ in range(3)]
    tensorflow.random.set_seed(None)
    want = [
        _call(
            tensorflow,
            "learned_unigram_candidate_sampler",
            [[0, 1], [2, 5]],
            2,
            4,
            False,
            10,
            seed=21,
        )
        .true_expected_count.numpy()
        .tolist()
        for _ in range(3)
    ]
    assert got == want and step.experimental_get_tracing_count() == 1


def test_seed_rules_are_tfs():
    """An op seed repeats its sequence after ``set_seed``, whatever else is drawn; the
    kernel (op and attributes) has its own stream."""

    def draws(extra):
        tapejax.random.set_seed(11)
        out = []
        for _ in range(3):
            if extra:
                tapejax.random.normal([3])
                _call(tapejax, "uniform_candidate_sampler", TRUE, 2, 5, False, 10, seed=3)
            out.append(
                _call(tapejax, "uniform_candidate_sampler", TRUE, 2, 4, False, 10, seed=3)
                .sampled_candidates.numpy()
                .tolist()
            )
        return out

    first = draws(False)
    assert first == draws(True)
    assert len({tuple(d) for d in first}) > 1


@pytest.mark.slow
def test_samplers_run_inside_tapejax_function():
    classes = tapejax.constant(TRUE)  # int64 classes, held as int32 (no x64)

    @tapejax.function
    def step(c):
        return [
            tapejax.random.uniform_candidate_sampler(c, 2, 4, True, 10).sampled_candidates,
            tapejax.random.fixed_unigram_candidate_sampler(
                c, 2, 4, True, 10, unigrams=UNIGRAMS
            ).sampled_candidates,
        ]

    runs = [[t.numpy().tolist() for t in step(classes)] for _ in range(3)]
    assert step.experimental_get_tracing_count() == 1
    for run in runs:
        for s in run:
            assert len(set(s)) == 4 and min(s) >= 0 and max(s) < 10
    assert runs[0] != runs[1]


def test_fixed_sampler_reads_a_vocabulary_file_as_tf(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a,1\nb, 2.5 \n\nc,x,3\nd,0.5")
    got = _call(
        tapejax,
        "fixed_unigram_candidate_sampler",
        [[0, 1], [2, 3]],
        2,
        2,
        False,
        4,
        vocab_file=str(path),
    )
    want = _call(
        tensorflow,
        "fixed_unigram_candidate_sampler",
        [[0, 1], [2, 3]],
        2,
        2,
        False,
        4,
        vocab_file=str(path),
    )
    np.testing.assert_array_equal(got.true_expected_count.numpy(), want.true_expected_count.numpy())


def test_compute_accidental_hits_is_eager_only():
    @tapejax.function
    def hits(c):
        return tapejax.nn.compute_accidental_hits(c, c[0], 2)

    with pytest.raises(NotImplementedError, match="compute_accidental_hits"):
        for _ in range(2):  # the first call of a tapejax.function may run eagerly
            hits(tapejax.constant([[1, 2]]))


# -- errors: the same expression raises the same error under both frameworks ----------------

IAE = "InvalidArgumentError"
_T = [[0, 1], [2, 4]]


def _c(tf, v=_T):
    """Classes as TF users pass them: a list, int64 to both frameworks."""
    return v


def _u(tf, *args, **kw):
    return tf.random.uniform_candidate_sampler(*args, **kw)


ERRORS = [
    (
        lambda tf: _u(tf, _c(tf, [1, 2]), 1, 2, False, 5),
        IAE,
        r"true_classes must be a matrix \[Op:UniformCandidateSampler\]",
    ),
    (
        lambda tf: _u(tf, _c(tf), 3, 2, False, 5),
        IAE,
        r"true_classes must have num_true columns, expected: 2 was: 3 \[Op:UniformCandidateSampler\]",
    ),
    (
        lambda tf: _u(tf, _c(tf), 2, 6, True, 5),
        IAE,
        r"Sampler's range is too small. \[Op:UniformCandidateSampler\]",
    ),
    (
        lambda tf: _u(tf, _c(tf, [[7, 0]]), 2, 2, False, 5),
        IAE,
        r"`true_candidate` out of range \[0, 5\), received 7 \[Op:UniformCandidateSampler\]",
    ),
    (
        lambda tf: tf.random.log_uniform_candidate_sampler(_c(tf, [[-1]]), 1, 2, False, 5),
        IAE,
        r"`true_candidate` out of range \[0, 5\), received -1 \[Op:LogUniformCandidateSampler\]",
    ),
    (
        lambda tf: _u(tf, _c(tf), 2, 0, False, 5),
        IAE,
        r"Value for attr 'num_sampled' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: _u(tf, _c(tf), 2, 2, False, 0),
        IAE,
        r"Value for attr 'range_max' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: _u(tf, np.zeros((2, 0), np.int64), 0, 2, False, 5),
        IAE,
        r"Value for attr 'num_true' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: _u(tf, [[1.0]], 1, 2, False, 5),
        "TypeError",
        r"Cannot convert \[\[1\.0\]\] to EagerTensor of dtype int64",
    ),
    (
        lambda tf: _u(tf, _c(tf), 2, 2, None, 5),
        "TypeError",
        r"Expected bool for argument 'unique' not None\.",
    ),
    (
        lambda tf: _u(tf, _c(tf), 2, "2", False, 5),
        "TypeError",
        r"Expected int for argument 'num_sampled' not '2'\.",
    ),
    (
        lambda tf: tf.random.learned_unigram_candidate_sampler(_c(tf), 2, 2, False, 2**31),
        "ValueError",
        r"Value of range_max:2147483648 is too large to handle",
    ),
    (
        lambda tf: tf.random.fixed_unigram_candidate_sampler(
            _c(tf), 2, 2, False, 5, unigrams=[1.0, 2.0]
        ),
        IAE,
        r"range is 5 must be equal to weights size  2 \[Op:FixedUnigramCandidateSampler\]",
    ),
    (
        lambda tf: tf.random.fixed_unigram_candidate_sampler(_c(tf), 2, 2, False, 5),
        IAE,
        r"Must provide either vocab_file or unigrams\.",
    ),
    (
        lambda tf: tf.random.fixed_unigram_candidate_sampler(
            _c(tf), 2, 2, False, 5, vocab_file="/tmp/x", unigrams=[1.0] * 5
        ),
        IAE,
        r"Must only provide one of vocab_file and unigrams\.",
    ),
    (
        lambda tf: tf.random.fixed_unigram_candidate_sampler(
            _c(tf), 2, 2, False, 5, vocab_file="/nonexistent/vocab.txt"
        ),
        "NotFoundError",
        r"/nonexistent/vocab\.txt; No such file or directory",
    ),
    (
        lambda tf: tf.random.fixed_unigram_candidate_sampler(
            _c(tf), 2, 2, False, 5, unigrams=[1.0] * 5, num_shards=0
        ),
        IAE,
        r"Value for attr 'num_shards' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: tf.random.fixed_unigram_candidate_sampler(
            _c(tf), 2, 2, False, 5, unigrams=[1.0] * 5, shard=-1
        ),
        IAE,
        r"Value for attr 'shard' of -1 must be at least minimum 0",
    ),
    (
        lambda tf: tf.random.fixed_unigram_candidate_sampler(
            _c(tf), 2, 2, False, 5, unigrams=tf.constant([1.0] * 5)
        ),
        "TypeError",
        r"Expected list for 'unigrams' argument to 'fixed_unigram_candidate_sampler' Op, not ",
    ),
    (
        lambda tf: tf.random.all_candidate_sampler(_c(tf), 2, 0, True),
        IAE,
        r"Value for attr 'num_sampled' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: tf.random.all_candidate_sampler(_c(tf), 1, 3, True),
        IAE,
        r"true_classes must have num_true columns, expected: 2 was: 1 \[Op:AllCandidateSampler\]",
    ),
    (
        lambda tf: tf.random.all_candidate_sampler(_c(tf), 2, 3, True),
        IAE,
        r"`true_candidate` out of range \[0, 3\), received 4 \[Op:AllCandidateSampler\]",
    ),
    (
        lambda tf: tf.nn.compute_accidental_hits(_c(tf), _c(tf, [1]), 1),
        IAE,
        r"true_candidates must be a batch_size \* num_true matrix \[Op:ComputeAccidentalHits\]",
    ),
    (
        lambda tf: tf.nn.compute_accidental_hits(_c(tf), _c(tf, [[1]]), 2),
        IAE,
        r"sampled_candidates must be a vector, which is typically an output from CandidateSampler \[Op:ComputeAccidentalHits\]",
    ),
]
# An int32 tensor is held for int64 without JAX's x64 mode: TF's dtype error needs x64.
ERRORS_X64 = [
    (
        lambda tf: _u(tf, tf.constant([[1]], tf.int32), 1, 2, False, 5),
        IAE,
        r"cannot compute UniformCandidateSampler as input #0\(zero-based\) was expected to be a int64 tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.nn.compute_accidental_hits(
            tf.constant(_T, tf.int64), tf.constant([1], tf.int32), 2
        ),
        IAE,
        r"cannot compute ComputeAccidentalHits as input #1\(zero-based\) was expected to be a int64 tensor but is a int32 tensor",
    ),
]


@pytest.mark.parametrize(
    "fn, error, message, x64_mode", [(*e, False) for e in ERRORS] + [(*e, True) for e in ERRORS_X64]
)
def test_errors_match_tf(fn, error, message, x64_mode, request):
    if x64_mode:
        request.getfixturevalue("x64")
    check_error(fn, error, message)


def test_unique_with_too_few_classes_of_positive_weight_raises():
    """TF's kernel would loop forever: only 2 classes can be drawn."""
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="only 2 have a positive weight"):
        tapejax.random.fixed_unigram_candidate_sampler(
            [[0]], 1, 3, True, 4, unigrams=[1.0, 0.0, 2.0, 0.0]
        )
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="non-negative"):
        tapejax.random.fixed_unigram_candidate_sampler([[0]], 1, 1, False, 2, unigrams=[1.0, -1.0])
