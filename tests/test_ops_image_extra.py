# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Unit tests for ``tapejax.image``'s box utilities and crop sampling, side by side with
real TensorFlow.

``draw_bounding_boxes``, ``extract_glimpse(noise='zero')`` and
``non_max_suppression_overlaps`` are deterministic: Cases compare values, dtypes and shapes
with TF's. The random glimpse fills and ``sample_distorted_bounding_box`` draw other numbers
than TF's, so they are tested for what TF guarantees (support, constraints, fallback, seed
determinism), with TF's own outputs checked against the same invariants.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from opcheck import (
    Case,
    arr,
    case_id,
    check_accepts_variables,
    check_error,
    check_tape_gradients,
    check_tf_allowed,
    check_values,
    grad_cases,
    value_params,
)

import tapejax
import tapejax.image
from tapejax._src.ops import image_crop_sampling_ops

tensorflow = pytest.importorskip("tensorflow")


def boxes_for(shape, n, seed=0, lo=-0.3, hi=1.3):
    """``[batch, n, 4]`` boxes, some inverted, some partly or wholly outside the image."""
    return arr("float32", (shape[0], n, 4), lo, hi, seed=seed)


def draw(colors, n=9, dtypes=("float32", "float16"), shapes=((2, 9, 11, 3),)):
    return Case(
        "image.draw_bounding_boxes",
        lambda dt, shape: ((arr(dt, shape, 0, 1), boxes_for(shape, n), colors), {}),
        dtypes=dtypes,
        shapes=shapes,
        diff=(0,) if colors is None else (),
    )


def glimpse(size, centered, normalized, spread):
    def make(dt, shape):
        offsets = arr("float32", (shape[0], 2), -spread, spread, seed=3)
        return (arr(dt, shape), size, offsets), dict(
            centered=centered, normalized=normalized, noise="zero"
        )

    return Case("image.extract_glimpse", make, shapes=((3, 7, 9, 2),))


def overlaps(*args, **kwargs):
    def make(dt, shape):
        table = arr(dt, shape, 0, 1, seed=5)
        scores = np.random.default_rng(2).permutation(shape[0]).astype(dt) / shape[0]
        return (table, scores, *args), kwargs

    return Case("image.non_max_suppression_overlaps", make, shapes=((12, 12),), diff=(0,))


def whole_image(**kwargs):
    """``sample_distorted_bounding_box`` where TF's result is certain: the whole image."""
    return Case(
        "image.sample_distorted_bounding_box",
        lambda dt, shape: ((np.array(shape, dt), [[[0.1, 0.2, 0.5, 0.7]]]), dict(seed=4, **kwargs)),
        dtypes=("int32", "uint8"),
        shapes=((10, 12, 3),),
    )


PALETTE = arr("float32", (3, 5), 0, 1, seed=9)

CASES = [
    draw(None),
    draw(None, shapes=((1, 6, 7, 1), (2, 5, 8, 4))),
    draw(np.zeros((0, 4), np.float32), shapes=((1, 6, 7, 1), (2, 9, 11, 3))),
    draw(PALETTE, shapes=((2, 9, 11, 3), (1, 6, 7, 4))),
    draw([[0.25]], n=4, shapes=((1, 4, 4, 1),)),
    draw(PALETTE, n=15, dtypes=("float32",), shapes=((3, 1, 1, 3), (1, 2, 13, 4))),
    glimpse([3, 4], True, True, 1.4),
    glimpse([8, 12], True, True, 1.0),
    glimpse([3, 4], False, True, 1.2),
    glimpse([2, 5], True, False, 8.0),
    glimpse([4, 4], False, False, 8.0),
    glimpse([1, 1], True, True, 0.9),
    glimpse([0, 3], True, True, 0.5),
    overlaps(12),
    overlaps(5, 0.3),
    overlaps(12, 0.7, 0.4),
    overlaps(0),
    whole_image(min_object_covered=1.5),  # no crop can cover 150 % of a box
    whole_image(area_range=[0.9, 0.2]),  # an empty area range: every attempt fails
    whole_image(area_range=[1.0, 1.0], aspect_ratio_range=[1.2, 1.2]),  # the one crop: 12 / 10
    Case(
        "image.stateless_sample_distorted_bounding_box",
        lambda dt, shape: (
            (np.array(shape, dt), [[[0.0, 0.0, 1.0, 1.0]]], [3, 4]),
            dict(area_range=[1.0, 1.0], aspect_ratio_range=[0.5, 0.5], min_object_covered=1.0),
        ),
        dtypes=("int32", "int8"),
        shapes=((8, 4, 1),),
    ),
]

# TF registers no gradient for the V2 ops (its tape raises LookupError): tapes give None.
TF_HAS_NO_GRADIENT = {
    "draw_bounding_boxes(colors)": lambda fw, x: fw.image.draw_bounding_boxes(
        x, boxes_for((1,), 3), [[1.0, 0.0, 0.0]]
    ),
    "extract_glimpse": lambda fw, x: fw.image.extract_glimpse(x, [3, 3], [[0.1, 0.2]]),
    "extract_glimpse(offsets)": lambda fw, x: fw.image.extract_glimpse(
        np.ones((1, 5, 6, 3), np.float32), [3, 3], x[0, :1, :2, 0]
    ),
    "stateless_sample_distorted_bounding_box": lambda fw, x: (
        fw.image.stateless_sample_distorted_bounding_box(
            [10, 12, 3], fw.clip_by_value(x[:, :1, :4, 0], 0.0, 1.0), [1, 2]
        ).bboxes
    ),
}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES[:: len(CASES) // 4], ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    """TF's tape gives None through DrawBoundingBoxes, NonMaxSuppressionWithOverlaps."""
    check_tape_gradients(case)


@pytest.mark.parametrize("name", sorted(TF_HAS_NO_GRADIENT))
def test_tape_gives_none_where_tf_has_no_gradient(name):
    fn = TF_HAS_NO_GRADIENT[name]
    x = arr("float32", (1, 5, 6, 3), 0, 1)
    with pytest.raises(LookupError, match="gradient registry has no entry"):
        with tensorflow.GradientTape() as tape:
            v = tensorflow.constant(x)
            tape.watch(v)
            out = fn(tensorflow, v)
        tape.gradient(out, v)
    v = tapejax.constant(x)
    with tapejax.GradientTape() as tape:
        tape.watch(v)
        out = fn(tapejax, v)
    assert tape.gradient(out, v) is None


# -- draw_bounding_boxes ----------------------------------------------------------------------


def test_draw_bounding_boxes_matches_tf_on_edge_cases():
    """Boxes on, across and beyond every edge, degenerate and inverted ones, and later boxes
    painting over earlier ones, at each image depth with TF's default table."""
    edges = np.array([-0.2, -0.01, 0.0, 0.3, 0.5, 0.999, 1.0, 1.01, 1.5], np.float32)
    grid = np.stack(np.meshgrid(edges, edges, indexing="ij"), -1).reshape(-1, 2)
    boxes = np.concatenate([grid, grid[::-1]], 1)[None]  # corners paired both ways round
    for depth in (1, 3, 4):
        x = arr("float32", (1, 7, 8, depth), 0, 1, seed=depth)
        for colors in (None, np.zeros((0, depth), np.float32)):
            want = tensorflow.image.draw_bounding_boxes(x, boxes, colors).numpy()
            got = tapejax.image.draw_bounding_boxes(x, boxes, colors).numpy()
            np.testing.assert_array_equal(got, want)


def test_draw_bounding_boxes_traces():
    x, boxes = arr("float32", (2, 6, 7, 3), 0, 1), boxes_for((2,), 5)
    traced = jax.jit(lambda x, b: tapejax.image.draw_bounding_boxes(x, b, PALETTE)._value)
    want = tensorflow.image.draw_bounding_boxes(x, boxes, PALETTE).numpy()
    np.testing.assert_array_equal(np.asarray(traced(x, boxes)), want)


# -- extract_glimpse --------------------------------------------------------------------------


def test_extract_glimpse_matches_tf_at_many_offsets():
    """Windows straddling each edge, wholly outside, larger than the image, and offsets
    truncated toward zero, in all four offset conventions."""
    x = np.tile(arr("float32", (1, 6, 7, 2), 0, 1), (23, 1, 1, 1))
    for normalized, spread in ((True, 2.2), (False, 9.0)):
        line = np.linspace(-spread, spread, 23, dtype=np.float32)
        offsets = np.stack([line, -0.7 * line], 1)
        for centered in (True, False):
            for size in ((2, 3), (9, 4)):
                kw = dict(centered=centered, normalized=normalized, noise="zero")
                want = tensorflow.image.extract_glimpse(x, size, offsets, **kw).numpy()
                got = tapejax.image.extract_glimpse(x, size, offsets, **kw).numpy()
                np.testing.assert_array_equal(got, want, err_msg=f"{kw} {size}")


def _glimpse_fills(noise, fw, x, offsets):
    """The window's pixels outside the image (those TF fills with noise) and inside."""
    out = fw.image.extract_glimpse(
        x, [4, 5], offsets, centered=False, normalized=False, noise=noise
    )
    return out.numpy()


@pytest.mark.parametrize("noise", ["uniform", "gaussian"])
def test_extract_glimpse_random_fills_have_tfs_support(noise):
    """Inside the image: TF's pixels. Outside: uniform noise spans the image's range, and
    gaussian noise is clipped to each channel's range, in both frameworks."""
    x = arr("float32", (2, 6, 7, 2), 0.2, 0.9, seed=1)
    x[:, :, :, 1] *= 3.0
    offsets = np.array([[-2.0, -3.0], [4.0, 5.0]], np.float32)  # partly outside
    zero = _glimpse_fills("zero", tensorflow, x, offsets)
    rows = np.array([[-2, -1, 0, 1], [4, 5, 6, 7]])[:, :, None]
    cols = np.array([[-3, -2, -1, 0, 1], [5, 6, 7, 8, 9]])[:, None, :]
    outside = ~((rows >= 0) & (rows < 6) & (cols >= 0) & (cols < 7))
    for fw in (tensorflow, tapejax):
        out = _glimpse_fills(noise, fw, x, offsets)
        np.testing.assert_array_equal(out[~outside], zero[~outside])
        fill = out[outside]  # [pixels, channels]
        if noise == "uniform":
            low, high = x.min(), x.max()
            assert fill.min() >= low and fill.max() <= high
            assert len(np.unique(fill)) > fill.size // 2
        else:
            low, high = x.min(axis=(0, 1, 2)), x.max(axis=(0, 1, 2))
            assert np.all(fill >= low) and np.all(fill <= high)
            assert np.all(fill[:, 1] > x[:, :, :, 1].min() - 1e-6)


def test_extract_glimpse_uniform_fill_draws_fresh_numbers_from_the_global_seed():
    x = arr("float32", (1, 4, 4, 1), 0, 1)
    offsets = [[-1.0, -1.0]]
    tapejax.random.set_seed(7)
    a = tapejax.image.extract_glimpse(x, [3, 3], offsets).numpy()
    b = tapejax.image.extract_glimpse(x, [3, 3], offsets).numpy()
    tapejax.random.set_seed(7)
    c = tapejax.image.extract_glimpse(x, [3, 3], offsets).numpy()
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_extract_glimpse_traces_and_draws_each_call():
    x = arr("float32", (2, 5, 6, 1), 0, 1)
    offsets = arr("float32", (2, 2), -0.9, 0.9, seed=2)

    @tapejax.function
    def step(o):
        zero = tapejax.image.extract_glimpse(x, [4, 4], o, noise="zero")
        return zero, tapejax.image.extract_glimpse(x, [4, 4], [[-1.0, -1.0]] * 2)

    want = tensorflow.image.extract_glimpse(x, [4, 4], offsets, noise="zero").numpy()
    (zero, first), (_, second) = step(tapejax.constant(offsets)), step(tapejax.constant(offsets))
    np.testing.assert_array_equal(zero.numpy(), want)
    assert not np.array_equal(first.numpy(), second.numpy())


# -- non_max_suppression_overlaps -------------------------------------------------------------


def test_non_max_suppression_overlaps_is_eager_only():
    table, scores = arr("float32", (6, 6), 0, 1), arr("float32", (6,), 0, 1, seed=1)
    want = tensorflow.image.non_max_suppression_overlaps(table, scores, 4, 0.5).numpy()
    got = tapejax.image.non_max_suppression_overlaps(table, scores, 4, 0.5).numpy()
    np.testing.assert_array_equal(got, want)
    with pytest.raises(NotImplementedError, match="depends on the values"):
        jax.jit(lambda t: tapejax.image.non_max_suppression_overlaps(t, scores, 4)._value)(table)


# -- sample_distorted_bounding_box ------------------------------------------------------------

SIZE = (9, 13)
TARGETS = np.array([[[0.1, 0.2, 0.6, 0.5], [0.5, 0.55, 0.95, 0.9]]], np.float32)


def _pixel_boxes(boxes, height, width):
    """TF's truncated pixel rectangles of normalized boxes: ``[x0, y0, x1, y1]``."""
    b = boxes.reshape(-1, 4)
    return np.stack(
        [(b[:, 1] * width), (b[:, 0] * height), (b[:, 3] * width), (b[:, 2] * height)], 1
    ).astype(np.int32)


def check_crop(result, *, min_covered, aspect, area, boxes=TARGETS, size=SIZE):
    """TF's guarantees for one result: the whole image (fallback), or a crop inside the image
    with TF's aspect and area constraints that covers ``min_covered`` of some box."""
    begin, crop, bbox = (t.numpy() for t in result)
    height, width = size
    y, x, zero = begin
    h, w, minus_one = crop
    assert zero == 0 and minus_one == -1
    assert 0 <= y and 0 <= x and y + h <= height and x + w <= width and h > 0 and w > 0
    np.testing.assert_array_equal(
        bbox, np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]], np.float32)
    )
    if (y, x, h, w) == (0, 0, height, width):
        return "fallback"
    assert area[0] * height * width <= w * h <= area[1] * height * width * (1 + 1e-6)
    # width = round(height * ratio) for a ratio drawn in the range
    assert (w + 0.5) / h >= aspect[0] * (1 - 1e-6) and (w - 0.5) / h <= aspect[1] * (1 + 1e-6)
    covered = []
    for bx0, by0, bx1, by1 in _pixel_boxes(boxes, height, width):
        inter = max(0, min(x + w, bx1) - max(x, bx0)) * max(0, min(y + h, by1) - max(y, by0))
        covered.append(inter / max((bx1 - bx0) * (by1 - by0), 1))
    assert max(covered) >= min_covered - 1e-6
    return (h, w)


CONSTRAINTS = dict(min_object_covered=0.6, aspect_ratio_range=[0.6, 1.7], area_range=[0.1, 0.7])


def _check_kwargs():
    c = CONSTRAINTS
    return dict(
        min_covered=c["min_object_covered"], aspect=c["aspect_ratio_range"], area=c["area_range"]
    )


def test_stateless_sample_distorted_bounding_box_keeps_tfs_constraints():
    """For many seeds, TF's crops and tapejax's satisfy the same constraints, and their
    sizes are alike on average (the seeds are fixed: the numbers never change)."""
    image_size = [*SIZE, 3]
    sizes = {}
    for fw in (tensorflow, tapejax):
        found = []
        for s in range(150):
            result = fw.image.stateless_sample_distorted_bounding_box(
                image_size, TARGETS, [s, 17], **CONSTRAINTS
            )
            found.append(check_crop(result, **_check_kwargs()))
        sizes[fw.__name__] = found
    assert "fallback" not in sizes["tapejax"]
    mean = {k: np.mean([c for c in v if c != "fallback"], axis=0) for k, v in sizes.items()}
    np.testing.assert_allclose(mean["tapejax"], mean["tensorflow"], atol=0.5)


def test_sample_distorted_bounding_box_crop_sizes_are_tfs_algorithm():
    """Given TF's kernel's random numbers, the JAX function computes TF's crops: every
    (aspect, height) draw is enumerated, and the sizes reachable are exactly those TF's
    crops take over many seeds (a size no draw can reach, or a missing rule, shows here)."""
    height, width = SIZE
    aspect = np.linspace(0, 1, 2048, endpoint=False)
    steps = np.arange(height + 1)
    a, k = (v.ravel() for v in np.meshgrid(aspect, steps, indexing="ij"))
    draws = np.stack([(a * 2**23).astype(np.int32), k, 0 * k, 0 * k], 1).astype(np.int32)
    begin, crop, _ = jax.jit(
        jax.vmap(
            lambda d: image_crop_sampling_ops._sample_fn(
                np.array([height, width, 3], np.int32),
                np.array([[0.0, 0.0, 1.0, 1.0]], np.float32),
                np.float32(0.0),
                d[None],
                np.array([0.6, 1.7, 0.1, 0.7], np.float32),
            )
        )
    )(draws)
    reachable = {tuple(c[:2]) for c in np.asarray(crop)}
    reachable.discard((height, width))  # the fallback
    tf_sizes = set()
    for s in range(300):
        _, c, _ = tensorflow.image.stateless_sample_distorted_bounding_box(
            [height, width, 3],
            [[[0.0, 0.0, 1.0, 1.0]]],
            [s, 5],
            min_object_covered=0.0,
            aspect_ratio_range=[0.6, 1.7],
            area_range=[0.1, 0.7],
        )
        tf_sizes.add(tuple(c.numpy()[:2]))
    assert tf_sizes <= reachable
    assert len(tf_sizes) >= 0.8 * len(reachable)


def test_sample_distorted_bounding_box_falls_back_to_the_whole_image():
    """Impossible constraints give the whole image, as TF's; so does ``max_attempts=1`` for
    a target almost no crop covers, some of the time."""
    for fw in (tensorflow, tapejax):
        begin, size, bbox = fw.image.sample_distorted_bounding_box(
            [7, 5, 3], TARGETS, seed=3, min_object_covered=1.0, area_range=[0.05, 0.1]
        )
        np.testing.assert_array_equal(begin.numpy(), [0, 0, 0])
        np.testing.assert_array_equal(size.numpy(), [7, 5, -1])
        np.testing.assert_array_equal(bbox.numpy(), [[[0, 0, 1, 1]]])
    outcomes = {
        check_crop(
            tapejax.image.stateless_sample_distorted_bounding_box(
                [*SIZE, 3], TARGETS, [s, 0], max_attempts=1, **CONSTRAINTS
            ),
            **_check_kwargs(),
        )
        == "fallback"
        for s in range(40)
    }
    assert outcomes == {True, False}


def test_stateless_sample_distorted_bounding_box_is_determined_by_its_seed():
    run = lambda seed: [  # noqa: E731
        t.numpy()
        for t in tapejax.image.stateless_sample_distorted_bounding_box(
            [40, 60, 3], TARGETS, seed, **CONSTRAINTS
        )
    ]
    first = run([1, 2])
    for got, want in zip(run(np.array([1, 2], np.int64)), first, strict=True):
        np.testing.assert_array_equal(got, want)
    assert any(not np.array_equal(run([s, 2])[0], first[0]) for s in range(3, 8))
    traced = tapejax.function(
        lambda seed: (
            tapejax.image.stateless_sample_distorted_bounding_box(
                [40, 60, 3], TARGETS, seed, **CONSTRAINTS
            ).begin
        )
    )
    np.testing.assert_array_equal(traced(tapejax.constant([1, 2])).numpy(), first[0])


def test_sample_distorted_bounding_box_follows_the_global_seed():
    tapejax.random.set_seed(11)
    a = [
        tapejax.image.sample_distorted_bounding_box([40, 60, 3], TARGETS, seed=2) for _ in range(6)
    ]
    tapejax.random.set_seed(11)
    b = [
        tapejax.image.sample_distorted_bounding_box([40, 60, 3], TARGETS, seed=2) for _ in range(6)
    ]
    for r, s in zip(a, b, strict=True):
        np.testing.assert_array_equal(r.begin.numpy(), s.begin.numpy())
        check_crop(r, min_covered=0.1, aspect=(0.75, 1.33), area=(0.05, 1.0), size=(40, 60))
    assert len({tuple(r.size.numpy()) for r in a}) > 1
    step = tapejax.function(
        lambda: tapejax.image.sample_distorted_bounding_box([40, 60, 3], TARGETS).size
    )
    assert len({tuple(step().numpy()) for _ in range(6)}) > 1


def test_sample_distorted_bounding_box_without_boxes_uses_the_image():
    no_boxes = np.zeros((1, 0, 4), np.float32)
    for fw in (tensorflow, tapejax):
        result = fw.image.sample_distorted_bounding_box(
            [*SIZE, 3], no_boxes, seed=5, use_image_if_no_bounding_boxes=True
        )
        whole = np.array([[[0, 0, 1, 1]]], np.float32)
        check_crop(result, min_covered=0.1, aspect=(0.75, 1.33), area=(0.05, 1.0), boxes=whole)
        assert result.__class__.__name__ == "SampleDistortedBoundingBoxV2"
        assert [t.dtype.name for t in result] == ["int32", "int32", "float32"]


def test_type_lists_are_tfs():
    check_tf_allowed(
        [
            "DrawBoundingBoxes",
            "DrawBoundingBoxesV2",
            "SampleDistortedBoundingBoxV2",
            "StatelessSampleDistortedBoundingBox",
        ]
    )


# -- errors -----------------------------------------------------------------------------------

IMG = np.zeros((1, 5, 6, 3), np.float32)
BOX = [[[0.1, 0.2, 0.8, 0.9]]]
GL = np.zeros((1, 5, 6, 1), np.float32)
OV = np.eye(3, dtype=np.float32)
SC = [0.9, 0.8, 0.7]
S = lambda fw, *a, **k: fw.image.sample_distorted_bounding_box(*a, **k)  # noqa: E731
SS = lambda fw, *a, **k: fw.image.stateless_sample_distorted_bounding_box(*a, **k)  # noqa: E731
BB = [[[0.1, 0.1, 0.5, 0.5]]]

ERRORS = [
    # draw_bounding_boxes
    (
        lambda tf: tf.image.draw_bounding_boxes(IMG, BOX, []),
        "InvalidArgumentError",
        r"colors must be a 2-D matrix\[0\] \[Op:DrawBoundingBoxesV2\]",
    ),
    (
        lambda tf: tf.image.draw_bounding_boxes(IMG, BOX, [[1.0, 0.0]]),
        "InvalidArgumentError",
        r"colors must have equal or more channels than the image provided: \[1,2\]",
    ),
    (
        lambda tf: tf.image.draw_bounding_boxes(IMG[0], BOX, None),
        "InvalidArgumentError",
        r"The rank of the images should be 4 \[Op:DrawBoundingBoxes\]",
    ),
    (
        lambda tf: tf.image.draw_bounding_boxes(IMG, BOX[0], None),
        "InvalidArgumentError",
        "The rank of the boxes tensor should be 3",
    ),
    (
        lambda tf: tf.image.draw_bounding_boxes(np.zeros((2, 5, 6, 3), np.float32), BOX, None),
        "InvalidArgumentError",
        "The batch sizes should be the same",
    ),
    (
        lambda tf: tf.image.draw_bounding_boxes(IMG[..., :2], BOX, None),
        "InvalidArgumentError",
        r"Channel depth should be either 1 \(GRY\), 3 \(RGB\), or 4 \(RGBA\)",
    ),
    (
        lambda tf: tf.image.draw_bounding_boxes(IMG, [[[0.1, 0.2, 0.8, 0.9, 1.0]]], None),
        "InvalidArgumentError",
        "The size of the third dimension of the box must be 4. Received: 5",
    ),
    (
        lambda tf: tf.image.draw_bounding_boxes(tf.constant(IMG.astype(np.uint8)), BOX, None),
        "InvalidArgumentError",
        "Value for attr 'T' of uint8 is not in the list of allowed values: float, half",
    ),
    (
        lambda tf: tf.image.draw_bounding_boxes(
            IMG, tf.constant(BOX, tf.float16), [[1.0, 0.0, 0.0]]
        ),
        "ValueError",
        "Tensor conversion requested dtype float32 for Tensor with dtype float16",
    ),
    # extract_glimpse
    (
        lambda tf: tf.image.extract_glimpse(GL[0], [3, 3], [[0.0, 0.0]]),
        "InvalidArgumentError",
        r"input must be 4-dimensional \(batch_size, height, width, depth\)\[5,6,1\] \[Op:ExtractGlimpseV2\]",
    ),
    (
        lambda tf: tf.image.extract_glimpse(GL, [3, 3, 3], [[0.0, 0.0]]),
        "InvalidArgumentError",
        r"input must be a vector of size 2 \(height, width\)\[3\]",
    ),
    (
        lambda tf: tf.image.extract_glimpse(GL, [3, -2], [[0.0, 0.0]]),
        "InvalidArgumentError",
        "Expected a non-negative size, got -2",
    ),
    (
        lambda tf: tf.image.extract_glimpse(GL, [3, 3], [0.0, 0.0]),
        "InvalidArgumentError",
        r"input must be a matrix\[2\]",
    ),
    (
        lambda tf: tf.image.extract_glimpse(GL, [3, 3], [[0.0, 0.0]] * 2),
        "InvalidArgumentError",
        r"first dimension should be batch\[2,2\]",
    ),
    (
        lambda tf: tf.image.extract_glimpse(GL, [3, 3], [[0.0, 0.0, 0.0]]),
        "InvalidArgumentError",
        r"second dimension should be of size 2 \(y,x\)\[1,3\]",
    ),
    (
        lambda tf: tf.image.extract_glimpse(GL, [3, 3], [[0.0, 0.0]], noise="salt"),
        "InvalidArgumentError",
        "The noise could only be uniform, gaussian, or zero, gotsalt",
    ),
    (
        lambda tf: tf.image.extract_glimpse(tf.constant(GL.astype(np.int32)), [3, 3], [[0.0, 0.0]]),
        "ValueError",
        "Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda tf: tf.image.extract_glimpse(GL, tf.constant([3, 3], tf.int16), [[0.0, 0.0]]),
        "ValueError",
        "Tensor conversion requested dtype int32 for Tensor with dtype int16",
    ),
    # non_max_suppression_overlaps
    (
        lambda tf: tf.image.non_max_suppression_overlaps(SC, SC, 3),
        "InvalidArgumentError",
        r"overlaps must be 2-D\[3\] \[Op:NonMaxSuppressionWithOverlaps\]",
    ),
    (
        lambda tf: tf.image.non_max_suppression_overlaps(OV[:, :2], SC, 3),
        "InvalidArgumentError",
        r"overlaps must be square\[3,2\]",
    ),
    (
        lambda tf: tf.image.non_max_suppression_overlaps(OV, SC[:2], 3),
        "InvalidArgumentError",
        r"scores has incompatible shape \(Dimensions must be equal, but are 3 and 2\)",
    ),
    (
        lambda tf: tf.image.non_max_suppression_overlaps(OV, [SC], 3),
        "InvalidArgumentError",
        r"scores must be 1-D\[1,3\] \(Shape must be rank 1 but is rank 2\)",
    ),
    (
        lambda tf: tf.image.non_max_suppression_overlaps(OV, SC, [3]),
        "InvalidArgumentError",
        r"max_output_size must be 0-D, got shape \[1\] \[",
    ),
    (
        lambda tf: tf.image.non_max_suppression_overlaps(OV, SC, -1),
        "InvalidArgumentError",
        "output size must be non-negative",
    ),
    (
        lambda tf: tf.image.non_max_suppression_overlaps(OV, SC, 3, [0.5]),
        "InvalidArgumentError",
        r"overlap_threshold must be 0-D, got shape \[1\]",
    ),
    (
        lambda tf: tf.image.non_max_suppression_overlaps(OV, SC, 3, 0.5, [0.5]),
        "InvalidArgumentError",
        r"score_threshold must be 0-D, got shape \[1\]",
    ),
    (
        lambda tf: tf.image.non_max_suppression_overlaps(tf.constant(OV, tf.float16), SC, 3),
        "ValueError",
        "Tensor conversion requested dtype float32 for Tensor with dtype float16",
    ),
    # sample_distorted_bounding_box
    (
        lambda tf: S(tf, tf.constant([10.0, 12, 3]), BB),
        "InvalidArgumentError",
        "Value for attr 'T' of float is not in the list of allowed values: uint8, int8, int16, int32, int64",
    ),
    (
        lambda tf: S(tf, [10, 12], BB),
        "InvalidArgumentError",
        r"image_size must contain 3 elements\[2\] \[Op:SampleDistortedBoundingBoxV2\]",
    ),
    (
        lambda tf: S(tf, [[10, 12, 3]], BB),
        "InvalidArgumentError",
        r"image_size must be 1-dimensional\[1,3\]",
    ),
    (
        lambda tf: S(tf, [-10, 12, 3], BB),
        "InvalidArgumentError",
        "image height cannot be >= int32 max",
    ),
    (
        lambda tf: S(tf, [10, 2**31 - 1, 3], BB),
        "InvalidArgumentError",
        "image width cannot be >= int32 max",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB[0]),
        "InvalidArgumentError",
        r"input boxes must be 3-dimensional \[batch, num_boxes, coords\]: \[1,4\]",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], [[[0.1, 0.1, 0.5, 0.5, 1.0]]]),
        "InvalidArgumentError",
        r"bounding boxes must have shape \[4\] or \[\*, 4\], got \[1,1,5\]",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], [[[0.1, 0.1, 0.5, 1.5]]]),
        "InvalidArgumentError",
        r"All bounding box coordinates must be in \[0.0, 1.0\]: 1.5",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], [[[0.1, np.nan, 0.5, 0.5]]]),
        "InvalidArgumentError",
        r"All bounding box coordinates must be in \[0.0, 1.0\]: nan",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], np.zeros((1, 0, 4), np.float32)),
        "InvalidArgumentError",
        "No bounding boxes provided as input. One must enable use_image_if_no_bounding_boxes",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB, min_object_covered=-0.1),
        "InvalidArgumentError",
        "Min object covered must be non-negative: -0.1",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB, min_object_covered=[0.1]),
        "InvalidArgumentError",
        r"min_object_covered must be 0-D, got shape \[1\]",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB, aspect_ratio_range=[0.5, 1, 2]),
        "InvalidArgumentError",
        "Aspect ratio range field must specify 2 dimensions",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB, aspect_ratio_range=[-0.5, 1]),
        "InvalidArgumentError",
        r"Aspect ratio range must be non-negative: \[-0.5, 1\]",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB, area_range=[0.5]),
        "InvalidArgumentError",
        "Area range field must specify 2 dimensions",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB, area_range=[0, 1]),
        "InvalidArgumentError",
        r"Area range must be non-negative: \[0, 1\]",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB, area_range=[0.05, 1.5]),
        "InvalidArgumentError",
        r"Area range must be less then or equal to 1.0: \[0.05, 1.5\]",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], BB, max_attempts=0),
        "InvalidArgumentError",
        "Max attempts must be non-negative: 0",
    ),
    (
        lambda tf: S(tf, [10, 12, 3], tf.constant(BB, tf.float16)),
        "ValueError",
        "Tensor conversion requested dtype float32 for Tensor with dtype float16",
    ),
    (
        lambda tf: SS(tf, [10, 12, 3], BB, [1, 2, 3]),
        "InvalidArgumentError",
        r"seed must have shape \[2\], not \[3\] \[Op:StatelessSampleDistortedBoundingBox\]",
    ),
    (
        lambda tf: SS(tf, [10, 12, 3], BB, [1.0, 2.0]),
        "InvalidArgumentError",
        "Value for attr 'Tseed' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: SS(tf, [10, 12, 3], BB, None),
        "ValueError",
        r"Attempt to convert a value \(None\)",
    ),
    (
        lambda tf: SS(tf, [-10, 12, 3], BB, [1, 2]),
        "InvalidArgumentError",
        r"image height cannot be >= int32 max \[Op:StatelessSampleDistortedBoundingBox\]",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
