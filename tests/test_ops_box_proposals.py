"""tapejax.image.generate_bounding_box_proposals against TF's GenerateBoundingBoxProposals.

TF registers only a GPU kernel for the op (its CPU build raises NotFoundError, checked
here), so the values are compared with ``_kernel``: the GPU kernel's steps written out
one box at a time in float32 NumPy (sort, decode, clip, min-size filter, greedy NMS with
its ``intersection > union * threshold`` test, truncation and zero padding).
"""

import math

import numpy as np
import pytest
import tensorflow as tf_real

import tapejax as tf

F = np.float32

# TF's CPU build has no kernel, so a Case (run against live TF) cannot hold it.
OTHERWISE_TESTED = {"image.generate_bounding_box_proposals"}


def _kernel(scores, deltas, info, anchors, nms_threshold, pre_nms_topn, min_size, post_nms_topn):
    """TF's GPU kernel, box by box."""
    batch, height, width, num_anchors = scores.shape
    total = height * width * num_anchors
    clip = F(math.log(1000.0 / 16.0))
    rois = np.zeros((batch, post_nms_topn, 4), F)
    probs = np.zeros((batch, post_nms_topn), F)
    for b in range(batch):
        flat = scores[b].reshape(-1)
        order = sorted(range(total), key=lambda i: -flat[i])[: min(total, pre_nms_topn)]
        boxes, box_scores = [], []
        for i in order:
            y1, x1, y2, x2 = anchors.reshape(total, 4)[i]
            dy, dx, dh, dw = deltas[b].reshape(total, 4)[i]
            dw, dh = min(dw, clip), min(dh, clip)
            w = x2 - x1
            cx = x1 + F(0.5) * w + w * dx
            pw = w * np.exp(dw)
            x1, x2 = cx - F(0.5) * pw, cx + F(0.5) * pw
            h = y2 - y1
            cy = y1 + F(0.5) * h + h * dy
            ph = h * np.exp(dh)
            y1, y2 = cy - F(0.5) * ph, cy + F(0.5) * ph
            img_h, img_w, scale = info[b, 0], info[b, 1], info[b, 2]
            x1, x2 = (max(min(v, img_w), F(0)) for v in (x1, x2))
            y1, y2 = (max(min(v, img_h), F(0)) for v in (y1, y2))
            if min(x2 - x1, y2 - y1) >= F(min_size) * scale:
                boxes.append((x1, y1, x2, y2))
                box_scores.append(flat[i])
        kept = []
        for i, a in enumerate(boxes):
            area_a = (a[2] - a[0]) * (a[3] - a[1])
            suppressed = False
            for j in kept:
                k = boxes[j]
                area_k = (k[2] - k[0]) * (k[3] - k[1])
                if area_a == 0 or area_k == 0:
                    continue
                iw = max(min(a[2], k[2]) - max(a[0], k[0]), F(0))
                ih = max(min(a[3], k[3]) - max(a[1], k[1]), F(0))
                inter = iw * ih
                if inter > (area_a + area_k - inter) * F(nms_threshold):
                    suppressed = True
                    break
            if not suppressed:
                kept.append(i)
            if len(kept) == post_nms_topn:
                break
        for out, i in enumerate(kept):
            x1, y1, x2, y2 = boxes[i]
            rois[b, out] = (y1, x1, y2, x2)
            probs[b, out] = box_scores[i]
    return rois, probs


def _inputs(seed, batch, height, width, num_anchors, ties=False):
    rng = np.random.default_rng(seed)
    scores = rng.random((batch, height, width, num_anchors)).astype(F)
    if ties:
        scores = np.round(scores * 4).astype(F) / F(4)
    deltas = (rng.normal(size=(batch, height, width, 4 * num_anchors)) * 0.3).astype(F)
    ys, xs = np.meshgrid(np.arange(height) * 16.0, np.arange(width) * 16.0, indexing="ij")
    sizes = rng.uniform(8, 64, (num_anchors, 2))
    anchors = np.zeros((height, width, num_anchors, 4), F)
    anchors[..., 0] = ys[..., None] - sizes[:, 0] / 2
    anchors[..., 1] = xs[..., None] - sizes[:, 1] / 2
    anchors[..., 2] = ys[..., None] + sizes[:, 0] / 2
    anchors[..., 3] = xs[..., None] + sizes[:, 1] / 2
    info = np.zeros((batch, 5), F)
    info[:, 0] = rng.uniform(height * 12, height * 20, batch)
    info[:, 1] = rng.uniform(width * 12, width * 20, batch)
    info[:, 2] = rng.choice([0.5, 1.0, 2.0], batch)
    return scores, deltas, info, anchors.reshape(height, width, 4 * num_anchors)


KERNEL_CASES = [
    # (seed, batch, height, width, anchors, ties, nms_threshold, pre_nms_topn, min_size, post_nms_topn)
    (0, 2, 3, 4, 2, False, 0.7, 6000, 16, 300),
    (1, 3, 5, 5, 3, True, 0.5, 20, 8, 10),
    (2, 1, 4, 6, 1, False, 0.3, 10, 4, 12),
    (3, 2, 6, 6, 3, True, 0.9, 6000, 24, 120),
    (4, 2, 2, 2, 2, False, 0.0, 3, 0, 8),
]


@pytest.mark.parametrize("case", KERNEL_CASES, ids=[f"seed{c[0]}" for c in KERNEL_CASES])
def test_values_follow_the_gpu_kernel(case):
    seed, batch, height, width, num_anchors, ties, threshold, pre, min_size, post = case
    scores, deltas, info, anchors = _inputs(seed, batch, height, width, num_anchors, ties)
    rois, probs = tf.image.generate_bounding_box_proposals(
        scores, deltas, info, anchors, threshold, pre, min_size, post
    )
    want_rois, want_probs = _kernel(scores, deltas, info, anchors, threshold, pre, min_size, post)
    assert rois.shape == (batch, post, 4) and probs.shape == (batch, post)
    assert rois.dtype == tf.float32 and probs.dtype == tf.float32
    np.testing.assert_array_equal(probs.numpy(), want_probs)
    np.testing.assert_allclose(rois.numpy(), want_rois, rtol=1e-6, atol=1e-5)
    # Each case drops boxes (by min_size or NMS) and pads.
    available = min(height * width * num_anchors, pre)
    assert ((want_probs > 0).sum(axis=1) < min(available, post)).any()
    assert (want_probs == 0).any()


def test_min_size_scales_with_the_image_and_ties_keep_index_order():
    # Two anchors with equal scores: the lower index comes first. The second image's
    # scale 2 doubles min_size, removing the 10-wide box there.
    scores = np.array([[[[0.5, 0.5]]], [[[0.5, 0.5]]]], F)
    anchors = np.array([[[0, 0, 10, 10, 20, 20, 40, 40]]], F)
    info = np.array([[100, 100, 1, 0, 0], [100, 100, 2, 0, 0]], F)
    deltas = np.zeros((2, 1, 1, 8), F)
    rois, probs = tf.image.generate_bounding_box_proposals(
        scores, deltas, info, anchors, min_size=8, post_nms_topn=3
    )
    np.testing.assert_array_equal(
        rois.numpy(),
        [[[0, 0, 10, 10], [20, 20, 40, 40], [0, 0, 0, 0]], [[20, 20, 40, 40], [0] * 4, [0] * 4]],
    )
    np.testing.assert_array_equal(probs.numpy(), [[0.5, 0.5, 0], [0.5, 0, 0]])


def test_tf_has_no_cpu_kernel():
    scores, deltas, info, anchors = _inputs(0, 1, 2, 2, 1)
    with pytest.raises(tf_real.errors.NotFoundError, match="<no registered kernels>"):
        tf_real.image.generate_bounding_box_proposals(scores, deltas, info, anchors)


def test_tape_gives_none_and_function_traces_once():
    scores, deltas, info, anchors = _inputs(5, 2, 3, 3, 2)
    s = tf.Variable(scores)
    d = tf.Variable(deltas)
    with tf.GradientTape() as tape:
        rois, probs = tf.image.generate_bounding_box_proposals(s, d, info, anchors, min_size=4)
        total = tf.reduce_sum(rois) + tf.reduce_sum(probs)
    assert tape.gradient(total, [s, d]) == [None, None]

    @tf.function
    def run(scores, deltas):
        return tf.image.generate_bounding_box_proposals(scores, deltas, info, anchors, min_size=4)

    for seed in (5, 6, 7):
        sc, de, _, _ = _inputs(seed, 2, 3, 3, 2)
        got = run(tf.constant(sc), tf.constant(de))
        want = tf.image.generate_bounding_box_proposals(sc, de, info, anchors, min_size=4)
        np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-6, atol=1e-5)
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    assert run.experimental_get_tracing_count() == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"post_nms_topn": 0}, tf.errors.InvalidArgumentError, "post_nms_topn can't be 0 or less"),
        (
            {"nms_threshold": 1.5},
            tf.errors.InvalidArgumentError,
            "nms_threshold should be between 0 and 1. Got 1.5",
        ),
        (
            {"pre_nms_topn": -5},
            tf.errors.InvalidArgumentError,
            "pre_nms_topn should be greater than 0-5",
        ),
        (
            {"anchors": np.zeros((2, 2, 6), F)},
            tf.errors.OutOfRangeError,
            "Box dimensions need to be 4",
        ),
        (
            {"scores": np.zeros((1, 2, 2, 1), np.float64)},
            tf.errors.InvalidArgumentError,
            "expected to be a float tensor but is a double tensor",
        ),
        (
            {"image_info": np.zeros((5,), F)},
            tf.errors.InvalidArgumentError,
            "image_info must be rank 2",
        ),
    ],
)
@pytest.mark.usefixtures("x64")  # a float64 tensor to refuse
def test_errors(kwargs, error, text):
    scores, deltas, info, anchors = _inputs(0, 1, 2, 2, 1)
    args = {"scores": scores, "bbox_deltas": deltas, "image_info": info, "anchors": anchors}
    args.update(kwargs)
    if "scores" in kwargs:
        args["scores"] = tf.constant(kwargs["scores"])
    with pytest.raises(error, match=text.replace(".", r"\.").replace("(", r"\(")):
        tf.image.generate_bounding_box_proposals(**args)
