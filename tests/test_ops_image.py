# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Unit tests for ``tapejax.image``, run side by side with real TensorFlow.

Deterministic ops have Cases (values, dtypes and shapes vs TF on 3-D and 4-D images; tape
gradients vs TF; ``check_grads`` of the pure functions); the random flips are tested for
their distribution and seed behaviour instead.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax.test_util import check_grads
from opcheck import (
    Case,
    arr,
    case_id,
    check_accepts_variables,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_values,
    first_of_each_op,
    grad_cases,
    value_params,
)

import tapejax
import tapejax.image
from tapejax._src.ops import image_color_ops, image_geometry_ops, image_metrics_ops, image_ops

tensorflow = pytest.importorskip("tensorflow")

IMAGES = ((4, 5, 3), (2, 4, 5, 3))
PIXEL_TYPES = ("float32", "uint8")


def image(dt, shape, seed=0):
    """Test pixels: [0, 1) floats, [0, 255] integers."""
    if np.dtype(dt).kind in "iu":
        return arr(dt, shape, 0, 255, seed=seed)
    return arr(dt, shape, 0.0, 1.0, seed=seed)


def on_image(name, diff=True, dtypes=PIXEL_TYPES, shapes=IMAGES, **kwargs):
    """A Case of ``name(image, **kwargs)``; with ``diff``, its gradient w.r.t. the image.
    float64 anywhere needs JAX's x64 mode."""
    return Case(
        name,
        lambda dt, shape: ((image(dt, shape),), dict(kwargs)),
        dtypes=dtypes,
        shapes=shapes,
        diff=(0,) if diff else (),
        x64="float64" in dtypes or kwargs.get("dtype") == "float64",
    )


def pair(
    name,
    make_max=lambda dt: 255 if np.dtype(dt).kind in "iu" else 1.0,
    shapes=IMAGES,
    dtypes=PIXEL_TYPES,
    **kwargs,
):
    """A Case of ``name(a, b, max_val, **kwargs)`` for two similar images of each shape (so
    that every SSIM scale scores above 0)."""

    def make(dt, shape):
        a = image(dt, shape)
        b = (0.8 * a + 0.2 * image(dt, shape, seed=1)).astype(dt)
        return (a, b, make_max(dt)), dict(kwargs)

    return Case(name, make, dtypes=dtypes, shapes=shapes, diff=(0, 1))


# Boxes ``[y1, x1, y2, x2]``: inside, partly outside, flipped, a point, and one whose last
# column lands on 0 only when a * b + c is rounded twice, as TF's kernel does.
BOXES = np.array(
    [[0.1, 0.2, 0.8, 0.9], [-0.2, 0.0, 1.3, 0.5], [0.5, 0.5, 0.5, 0.5], [0.9, 0.75, 0.2, -0.0]],
    np.float32,
)


def crops(dt, shape, size=(3, 4)):
    return (image(dt, shape), BOXES, np.array([0, 1, 1, 0], np.int32), np.array(size, np.int32))


def colours(dt, shape, seed=0):
    """RGB pixels with ties (greys, two equal channels each way) and a black one."""
    x = image(dt, shape, seed)
    flat = x.reshape(-1, 3)
    top = 1.0 if np.dtype(dt).kind == "f" else 200
    flat[:5] = [
        [top / 2] * 3,
        [top, top, top / 4],
        [top / 4, top, top],
        [top, top / 4, top],
        [0, 0, 0],
    ]
    return flat.reshape(shape)


def detections(dt, shape, seed=0, flip=False):
    """``shape`` = ``batch + (num_boxes, 4)`` boxes of assorted overlaps and their scores
    (distinct, so that every framework orders them alike)."""
    rng = np.random.default_rng(seed)
    corner = rng.uniform(0, 1, shape[:-1] + (2,))
    boxes = np.concatenate([corner, corner + rng.uniform(0.1, 0.6, shape[:-1] + (2,))], -1)
    if flip:
        boxes = boxes[..., [2, 3, 0, 1]]
    scores = rng.permutation(int(np.prod(shape[:-1]))).reshape(shape[:-1]) / np.prod(shape[:-1])
    return boxes.astype(dt), scores.astype(dt)


def nms(name, *args, dtypes=("float32",), shapes=((12, 4),), flip=False, **kwargs):
    return Case(
        name,
        lambda dt, shape: ((*detections(dt, shape, flip=flip), *args), dict(kwargs)),
        dtypes=dtypes,
        shapes=shapes,
    )


def combined(*args, q=1, **kwargs):
    def make(dt, shape):
        boxes, _ = detections(dt, shape[:2] + (4,))
        boxes = np.repeat(boxes[:, :, None], q, 2) + np.linspace(0, 0.2, q)[:, None]
        scores = np.random.default_rng(1).permutation(int(np.prod(shape))).reshape(shape)
        return (boxes.astype(dt), (scores / scores.size).astype(dt), *args), kwargs

    return Case("image.combined_non_max_suppression", make, shapes=((2, 10, 3),))


CASES = [
    # -- non-max suppression
    nms("image.non_max_suppression", 5, dtypes=("float32", "float16")),
    nms("image.non_max_suppression", 20, 0.2, flip=True),
    nms("image.non_max_suppression", 4, 0.3, 0.5),
    nms("image.non_max_suppression", 0),
    nms("image.non_max_suppression_with_scores", 6, 0.3),
    nms("image.non_max_suppression_with_scores", 8, 0.5, 0.2, 0.5),
    nms("image.non_max_suppression_padded", 6, 0.3),
    nms("image.non_max_suppression_padded", 6, 0.3, 0.4, pad_to_max_output_size=True),
    nms(
        "image.non_max_suppression_padded",
        8,
        0.2,
        shapes=((2, 12, 4),),
        pad_to_max_output_size=True,
        tile_size=4,
    ),
    nms(
        "image.non_max_suppression_padded",
        5,
        0.5,
        shapes=((2, 3, 12, 4),),
        pad_to_max_output_size=True,
        flip=True,
    ),
    combined(3, 5),
    combined(2, 10, 0.3, 0.2, True, False, q=3),
    combined(4, 3, 0.5, q=3),
    # -- colour
    on_image("image.rgb_to_hsv", dtypes=("float32", "float64")),
    on_image("image.rgb_to_hsv", dtypes=("float32",), shapes=((3,), (2, 3))),
    Case("image.rgb_to_hsv", lambda dt, shape: ((colours(dt, shape),), {}), shapes=((2, 4, 5, 3),)),
    on_image("image.hsv_to_rgb", diff=False, dtypes=("float32", "float64")),
    *(
        on_image(f"image.{name}", dtypes=("float32", "float64"), shapes=IMAGES + ((3,),))
        for name in ("rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb")
    ),
    *(
        Case(
            "image.adjust_hue",
            lambda dt, shape, d=d: ((colours(dt, shape), d), {}),
            dtypes=("float32", "uint8", "float64"),
            shapes=IMAGES,
            x64=True,
        )
        for d in (0.2, -0.7, 1.0)
    ),
    *(
        Case(
            "image.adjust_saturation",
            lambda dt, shape, f=f: ((colours(dt, shape), f), {}),
            dtypes=("float32", "uint8", "float64"),
            shapes=IMAGES,
            x64=True,
        )
        for f in (0.0, 0.6, 2.5)
    ),
    on_image("image.adjust_gamma", gamma=0.5, gain=2.0),
    on_image("image.adjust_gamma", dtypes=("float64", "int32"), gamma=2.2),
    Case(
        "image.adjust_gamma",
        lambda dt, shape: ((image(dt, shape), np.float32(1.3), np.float32(0.7)), {}),
        shapes=IMAGES,
        diff=(0, 1, 2),
    ),
    # -- geometry
    on_image("image.rot90", dtypes=("float32", "uint8")),
    on_image("image.rot90", k=2, shapes=((2, 4, 5, 3),)),
    on_image("image.rot90", k=3),
    on_image("image.rot90", k=-1, shapes=((4, 5, 3),)),
    on_image("image.rot90", k=4, shapes=((4, 5, 3),)),
    on_image("image.transpose", dtypes=("float32", "int32")),
    Case(
        "image.extract_patches",
        lambda dt, shape: (
            (image(dt, shape), [1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
            {},
        ),
        dtypes=("float32", "int32"),
        shapes=((2, 6, 7, 3),),
        diff=(0,),
    ),
    Case(
        "image.extract_patches",
        lambda dt, shape: (
            (image(dt, shape),),
            {
                "sizes": [1, 3, 2, 1],
                "strides": [1, 2, 3, 1],
                "rates": [1, 2, 1, 1],
                "padding": "SAME",
            },
        ),
        shapes=((2, 6, 7, 3),),
        diff=(0,),
    ),
    Case(
        "image.crop_and_resize",
        lambda dt, shape: (crops(dt, shape), {}),
        dtypes=PIXEL_TYPES,
        shapes=((2, 6, 7, 3),),
        diff=(0, 1),
    ),
    Case(
        "image.crop_and_resize",
        lambda dt, shape: (
            crops(dt, shape, (4, 3)),
            {"method": "nearest", "extrapolation_value": -1.0},
        ),
        shapes=((2, 6, 7, 3),),
        diff=(0, 1),
    ),
    Case(
        "image.crop_and_resize",
        lambda dt, shape: (crops(dt, shape, (1, 5)), {}),
        shapes=((2, 6, 7, 1),),
        diff=(0, 1),
    ),
    Case(
        "image.resize_with_pad",
        lambda dt, shape: ((image(dt, shape), 8, 5), {}),
        dtypes=PIXEL_TYPES,
        shapes=IMAGES,
        diff=(0,),
    ),
    Case(
        "image.resize_with_pad",
        lambda dt, shape: ((image(dt, shape), 3, 9), {"method": "nearest"}),
        dtypes=PIXEL_TYPES,
        shapes=IMAGES,
        diff=(0,),
    ),
    Case(
        "image.resize_with_pad",
        lambda dt, shape: ((image(dt, shape), 7, 7), {"antialias": True}),
        shapes=((4, 5, 3),),
        diff=(0,),
    ),
    # -- measures
    on_image("image.total_variation", dtypes=("float32", "int32")),
    on_image("image.image_gradients", dtypes=PIXEL_TYPES, shapes=((2, 4, 5, 3), (1, 3, 3, 1))),
    on_image(
        "image.sobel_edges", dtypes=("float32", "float64"), shapes=((2, 4, 5, 3), (1, 2, 2, 1))
    ),
    pair("image.psnr"),
    pair(
        "image.psnr",
        shapes=((2, 4, 5, 3),),
        dtypes=("float32",),
        make_max=lambda dt: np.float32(2.0),
    ),
    pair("image.ssim", filter_size=3),
    pair("image.ssim", shapes=((2, 12, 11, 1),)),
    pair(
        "image.ssim",
        shapes=((2, 6, 7, 2),),
        dtypes=("float32",),
        filter_size=5,
        filter_sigma=0.8,
        k1=0.02,
        k2=0.05,
        return_index_map=True,
    ),
    pair(
        "image.ssim_multiscale",
        shapes=((2, 12, 13, 2),),
        power_factors=(0.3, 0.3, 0.4),
        filter_size=3,
    ),
    # -- resize: TF 2's kernels, half-pixel centers; up, down, mixed and odd ratios
    on_image("image.resize", size=[7, 9]),
    on_image("image.resize", size=[2, 3]),
    on_image("image.resize", size=[3, 11]),
    on_image("image.resize", size=[4, 5]),
    on_image("image.resize", size=[13, 2], dtypes=("float32", "float64", "float16", "int32")),
    on_image("image.resize", size=[7, 9], method="nearest", dtypes=("float32", "uint8", "int32")),
    on_image("image.resize", size=[3, 2], method="nearest"),
    on_image("image.resize", size=[9, 4], method=tapejax.image.ResizeMethod.NEAREST_NEIGHBOR),
    on_image("image.resize", size=[3, 7], preserve_aspect_ratio=True),
    on_image("image.resize", size=[8, 7], preserve_aspect_ratio=True, method="nearest"),
    on_image("image.resize", size=[5, 5], method="nearest", antialias=True),
    on_image("image.resize", size=[7, 3], method="bicubic"),
    on_image("image.resize", size=[2, 9], method="bicubic", dtypes=("float32", "uint8", "float64")),
    on_image("image.resize", size=[2, 3], antialias=True),
    on_image("image.resize", size=[9, 2], method="bicubic", antialias=True),
    on_image("image.resize", size=[3, 8], method="lanczos3"),
    on_image("image.resize", size=[2, 2], method="lanczos5", antialias=False),
    # area (TF has no gradient for it: tested below), gaussian and mitchellcubic
    on_image(
        "image.resize",
        diff=False,
        size=[3, 2],
        method="area",
        dtypes=("float32", "uint8", "int32", "float64"),
    ),
    on_image("image.resize", diff=False, size=[9, 7], method="area", antialias=True),
    on_image("image.resize", diff=False, size=[8, 3], method="area", preserve_aspect_ratio=True),
    on_image(
        "image.resize", size=[7, 3], method="gaussian", dtypes=("float32", "uint8", "float64")
    ),
    on_image("image.resize", size=[2, 9], method="gaussian", antialias=False),
    on_image("image.resize", size=[9, 2], method="mitchellcubic"),
    on_image(
        "image.resize",
        size=[3, 8],
        method="mitchellcubic",
        antialias=False,
        dtypes=("float32", "int32"),
    ),
    on_image("image.resize", size=[3, 7], method="mitchellcubic", preserve_aspect_ratio=True),
    # -- conversions
    on_image(
        "image.convert_image_dtype", diff=False, dtypes=("uint8", "int16", "int32"), dtype="float32"
    ),
    on_image("image.convert_image_dtype", diff=False, dtypes=("uint8", "int32"), dtype="int16"),
    on_image(
        "image.convert_image_dtype", diff=False, dtypes=("int32",), dtype="uint8", saturate=True
    ),
    on_image("image.convert_image_dtype", diff=False, dtypes=("float32", "float64"), dtype="uint8"),
    on_image("image.convert_image_dtype", dtypes=("float32",), dtype="float64"),
    on_image("image.convert_image_dtype", diff=False, dtypes=("uint8",), dtype="uint8"),
    # -- flips, crops, pads
    on_image("image.flip_left_right", dtypes=("float32", "int32")),
    on_image("image.flip_up_down", dtypes=("float32", "int32")),
    on_image("image.central_crop", central_fraction=0.5, shapes=((5, 7, 3), (2, 6, 5, 3))),
    on_image("image.central_crop", central_fraction=0.33, shapes=((9, 8, 2), (2, 10, 7, 1))),
    on_image("image.central_crop", central_fraction=1.0),
    Case(
        "image.crop_to_bounding_box",
        lambda dt, shape: ((image(dt, shape), 1, 2, 2, 3), {}),
        dtypes=PIXEL_TYPES,
        shapes=IMAGES,
        diff=(0,),
    ),
    Case(
        "image.pad_to_bounding_box",
        lambda dt, shape: ((image(dt, shape), 1, 2, 7, 9), {}),
        dtypes=PIXEL_TYPES,
        shapes=IMAGES,
        diff=(0,),
    ),
    Case(
        "image.resize_with_crop_or_pad",
        lambda dt, shape: ((image(dt, shape), 7, 3), {}),
        dtypes=PIXEL_TYPES,
        shapes=IMAGES,
        diff=(0,),
    ),
    Case(
        "image.resize_with_crop_or_pad",
        lambda dt, shape: ((image(dt, shape), 2, 8), {}),
        dtypes=PIXEL_TYPES,
        shapes=((5, 5, 1), (2, 3, 4, 2)),
        diff=(0,),
    ),
    # -- colour
    on_image("image.per_image_standardization", dtypes=("float32", "uint8", "float64")),
    on_image("image.rgb_to_grayscale", dtypes=("float32", "uint8", "float64")),
    on_image("image.rgb_to_grayscale", shapes=((3,), (2, 3))),
    on_image("image.grayscale_to_rgb", dtypes=("float32", "int32"), shapes=((4, 5, 1), (2, 1))),
    Case(
        "image.adjust_brightness",
        lambda dt, shape: ((image(dt, shape), np.array(0.2, np.float32)), {}),
        dtypes=("float32",),
        shapes=IMAGES,
        diff=(0, 1),
    ),
    Case(
        "image.adjust_brightness",
        lambda dt, shape: ((image(dt, shape),), {"delta": 0.3}),
        dtypes=("uint8", "float64", "float16"),
        shapes=IMAGES,
        x64=True,
    ),
    Case(
        "image.adjust_brightness",
        lambda dt, shape: ((image(dt, shape),), {"delta": -0.6}),
        dtypes=("uint8", "int32"),
        shapes=IMAGES,
    ),
    # TF registers no gradient for AdjustContrastv2: values only here, gradients below.
    on_image(
        "image.adjust_contrast",
        diff=False,
        dtypes=("float32", "uint8", "float64"),
        contrast_factor=1.7,
    ),
    on_image("image.adjust_contrast", diff=False, dtypes=("float32", "uint8"), contrast_factor=0.3),
]

# The pure functions of these cast to float32 inside (as TF's kernels): ``check_grads`` in
# float64 runs on their float64 cores below instead.
CASTS_TO_FLOAT32 = {
    "image.resize",
    "image.adjust_gamma",
    "image.resize_with_pad",
    "image.crop_and_resize",
    "image.psnr",
    "image.ssim",
    "image.ssim_multiscale",
    "image.per_image_standardization",
    "image.rgb_to_grayscale",
    "image.adjust_brightness",
}

# TF registers no gradient for these (HSVToRGB: none; AdjustHue, AdjustSaturation: its tape
# raises LookupError): tapes give None, tested below.
NOT_DIFFERENTIABLE = {
    "image.hsv_to_rgb",
    "image.adjust_hue",
    "image.adjust_saturation",
    "image.non_max_suppression",
    "image.non_max_suppression_with_scores",
    "image.non_max_suppression_padded",
    "image.combined_non_max_suppression",
}

RANDOM_ADJUSTMENTS = {
    # name: (extra args, the adjustment it draws for, the range of the drawn amount)
    "random_brightness": ((0.2,), "adjust_brightness", (-0.2, 0.2)),
    "random_contrast": ((0.5, 1.5), "adjust_contrast", (0.5, 1.5)),
    "random_hue": ((0.3,), "adjust_hue", (-0.3, 0.3)),
    "random_saturation": ((0.5, 1.5), "adjust_saturation", (0.5, 1.5)),
}

OTHERWISE_TESTED = {
    *(f"image.{n}" for n in RANDOM_ADJUSTMENTS),
    *(f"image.stateless_{n}" for n in RANDOM_ADJUSTMENTS),
    "image.random_crop",
    "image.stateless_random_crop",
    "image.stateless_random_flip_left_right",
    "image.stateless_random_flip_up_down",
    "image.random_flip_left_right",
    "image.random_flip_up_down",
    "image.ResizeMethod",
}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


@pytest.mark.parametrize(
    "case", first_of_each_op(CASES, CASTS_TO_FLOAT32 | NOT_DIFFERENTIABLE), ids=case_id
)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


CORES = [
    ("bilinear", lambda x: image_ops._bilinear_fn(x, size=(7, 3))),
    ("nearest", lambda x: image_ops._nearest_fn(x, size=(3, 8))),
    ("bicubic", lambda x: image_ops._bicubic_fn(x, size=(3, 8))),
    (
        "lanczos3",
        lambda x: image_ops._scale_and_translate_fn(
            x, size=(3, 8), method="lanczos3", antialias=True
        ),
    ),
    (
        "mitchellcubic",
        lambda x: image_ops._scale_and_translate_fn(
            x, size=(7, 3), method="mitchellcubic", antialias=True
        ),
    ),
    ("area", lambda x: image_ops._area_fn(x, size=(3, 8))),
    ("standardization", image_ops._standardize_fn),
    ("grayscale", image_ops._gray_op.fn),
    ("contrast", lambda x: image_ops._contrast_fn(x, np.float64(1.7))),
    ("rgb_to_hsv", image_color_ops._rgb_to_hsv),
    ("psnr", lambda x: image_metrics_ops._psnr_fn(x, x[::-1] * 0.9, np.float64(1.0))),
    (
        "ssim",
        lambda x: image_metrics_ops._ssim_fn(
            x,
            x[::-1] * 0.9,
            np.float64(1.0),
            filter_size=3,
            sigma=1.5,
            k1=0.01,
            k2=0.03,
            index_map=False,
        ),
    ),
    (
        "crop_and_resize",
        lambda x: image_geometry_ops._crop_bilinear(
            x, np.array([[0.5, 1.2, 2.9]] * 2), np.array([[0.0, 1.7, 3.5, 4.0]] * 2)
        ),
    ),
]


@pytest.mark.parametrize("name, fn", CORES, ids=[c[0] for c in CORES])
def test_float64_cores_have_right_gradients(name, fn, x64):
    x = arr("float64", (2, 4, 5, 3), 0.0, 1.0)
    check_grads(fn, (x,), order=2, modes=["rev"], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(NOT_DIFFERENTIABLE))
def test_ops_tf_has_no_gradient_for_give_none(name):
    case = next(c for c in CASES if c.name == name)
    args, kwargs = case.make("float32", case.shapes[-1])
    x = tapejax.constant(args[0])
    with tapejax.GradientTape() as tape:
        tape.watch(x)
        out = case.op(tapejax)(x, *args[1:], **kwargs)
    out = out if isinstance(out, tuple) else (out,)
    assert tape.gradient([o for o in out if o.dtype.is_floating], x) is None


def test_nms_traces_only_in_its_padded_forms():
    boxes, scores = detections("float32", (2, 12, 4))
    padded = jax.jit(
        lambda b, s: [
            t._value
            for t in tapejax.image.non_max_suppression_padded(
                b, s, 5, 0.3, pad_to_max_output_size=True
            )
        ]
    )
    want = tensorflow.image.non_max_suppression_padded(
        boxes, scores, 5, 0.3, pad_to_max_output_size=True
    )
    for got, w in zip(padded(boxes, scores), want, strict=True):
        np.testing.assert_array_equal(got, w.numpy())
    per_class = jax.jit(
        lambda b, s: [
            t._value
            for t in tapejax.image.combined_non_max_suppression(b[:, :, None], s[..., None], 3, 4)
        ]
    )
    want = tensorflow.image.combined_non_max_suppression(boxes[:, :, None], scores[..., None], 3, 4)
    for got, w in zip(per_class(boxes, scores), want, strict=True):
        np.testing.assert_allclose(got, w.numpy())
    for fn in (
        lambda b, s: tapejax.image.non_max_suppression(b, s, 3)._value,
        lambda b, s: tapejax.image.non_max_suppression_with_scores(b, s, 3)[0]._value,
        lambda b, s: tapejax.image.non_max_suppression_padded(b, s, 3)[0]._value,
    ):
        with pytest.raises(NotImplementedError, match="depends on the values"):
            jax.jit(fn)(boxes[0], scores[0])


def test_rgb_to_hsv_gradient_at_ties_is_tfs_formula():
    """TF's registered formula breaks ties R > G > B and divides with div_no_nan."""
    x = tensorflow.constant(colours("float32", (3, 4, 3)))
    w = tensorflow.constant(image("float32", (3, 4, 3), seed=4))
    grads = []
    for fw in (tensorflow, tapejax):
        v = fw.constant(x.numpy())
        with fw.GradientTape() as tape:
            tape.watch(v)
            loss = fw.reduce_sum(fw.image.rgb_to_hsv(v) * w.numpy())
        grads.append(tape.gradient(loss, v).numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


def test_adjust_contrast_gradient_is_the_formulas():
    """TF has none (LookupError); tapejax's is the derivative of (x - mean) * f + mean."""
    x = tapejax.constant(image("float32", (3, 4, 2)))
    f = tapejax.constant(1.7)
    with tapejax.GradientTape() as tape:
        tape.watch([x, f])
        y = tapejax.image.adjust_contrast(x, f)
        loss = tapejax.reduce_sum(y * tapejax.constant(image("float32", (3, 4, 2), seed=1)))
    gx, gf = tape.gradient(loss, [x, f])
    w = image("float32", (3, 4, 2), seed=1)
    xv = x.numpy()
    mean = xv.mean(axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(gf.numpy(), ((xv - mean) * w).sum(), rtol=1e-4)
    want_gx = 1.7 * w + (1 - 1.7) * w.mean(axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(gx.numpy(), want_gx, rtol=1e-4, atol=1e-6)


RESIZE_METHODS = (
    "bilinear",
    "nearest",
    "bicubic",
    "lanczos3",
    "lanczos5",
    "area",
    "gaussian",
    "mitchellcubic",
)


@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("method", RESIZE_METHODS)
def test_resize_matches_tf_on_many_sizes(method, antialias):
    """Every output size from 1 to 12 on both axes: sample positions are TF's float32
    arithmetic (ties included), bicubic weights TF's quantized table, area coverages and
    ScaleAndTranslate spans TF's."""
    x = image("float32", (1, 7, 5, 1))
    for h in range(1, 13):
        got = tapejax.image.resize(x, [h, 13 - h], method, antialias=antialias).numpy()
        want = tensorflow.image.resize(x, [h, 13 - h], method, antialias=antialias).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"{method} {h}")


@pytest.mark.parametrize("method", ["area", "gaussian", "mitchellcubic"])
def test_resize_matches_tf_on_long_axes(method):
    """Ratios far from 1 and non-integer ones (wide spans, several pixels per area cell,
    float32 cell edges that round past the last pixel: 29 -> 11 or 23, 7 -> 13 or 26) on
    both axes, with their gradients."""
    x = image("float32", (2, 29, 7, 2))
    for size in ([5, 22], [11, 13], [30, 1], [23, 26], [3, 17]):
        for antialias in (False, True):
            tx, wx = tapejax.constant(x), tensorflow.constant(x)
            with tapejax.GradientTape() as tape, tensorflow.GradientTape() as tf_tape:
                tape.watch(tx)
                tf_tape.watch(wx)
                got = tapejax.image.resize(tx, size, method, antialias=antialias)
                want = tensorflow.image.resize(wx, size, method, antialias=antialias)
                weights = np.linspace(-1.0, 2.0, got.numpy().size, dtype=np.float32)
                weights = weights.reshape(got.shape)
                loss, tf_loss = (
                    tapejax.reduce_sum(got * weights),
                    tensorflow.reduce_sum(want * weights),
                )
            msg = f"{method} {size} antialias={antialias}"
            assert got.dtype == tapejax.float32 and got.shape == want.shape
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, err_msg=msg)
            if method == "area":
                continue  # TF has no gradient: test_resize_area_has_no_gradient
            np.testing.assert_allclose(
                tape.gradient(loss, tx).numpy(),
                tf_tape.gradient(tf_loss, wx).numpy(),
                rtol=1e-5,
                atol=1e-6,
                err_msg=msg,
            )


def test_resize_area_has_no_gradient():
    """TF registers no gradient for ResizeArea (its tape raises LookupError); tapejax's
    tape gives None, as for TF's other ops without one."""
    x = image("float32", (4, 5, 3))
    tx, wx = tapejax.constant(x), tensorflow.constant(x)
    with tapejax.GradientTape() as tape, tensorflow.GradientTape() as tf_tape:
        tape.watch(tx)
        tf_tape.watch(wx)
        got = tapejax.image.resize(tx, [3, 7], "area")
        want = tensorflow.image.resize(wx, [3, 7], "area")
    assert tape.gradient(got, tx) is None
    with pytest.raises(LookupError, match="ResizeArea"):
        tf_tape.gradient(want, wx)


def test_resize_method_names_are_tfs():
    for name in (
        "BILINEAR",
        "NEAREST_NEIGHBOR",
        "BICUBIC",
        "AREA",
        "LANCZOS3",
        "LANCZOS5",
        "GAUSSIAN",
        "MITCHELLCUBIC",
    ):
        assert getattr(tapejax.image.ResizeMethod, name) == getattr(
            tensorflow.image.ResizeMethod, name
        )


def test_crop_and_resize_traces_with_traced_boxes():
    """Inside a trace the sample positions are XLA's (one FMA may move a sample that lies
    exactly on an edge); away from edges the values are TF's."""
    x = image("float32", (2, 6, 7, 3))
    boxes = BOXES[:2]
    f = jax.jit(lambda b: tapejax.image.crop_and_resize(x, b, [0, 1], [3, 4])._value)
    want = tensorflow.image.crop_and_resize(x, boxes, [0, 1], [3, 4]).numpy()
    np.testing.assert_allclose(f(boxes), want, rtol=1e-5, atol=1e-6)


def test_rot90_takes_a_tensor_k_and_refuses_a_traced_one():
    x = image("float32", (4, 5, 3))
    np.testing.assert_array_equal(
        tapejax.image.rot90(x, tapejax.constant(3)).numpy(), np.rot90(x, 3)
    )
    with pytest.raises(NotImplementedError, match="traced `k`"):
        jax.jit(lambda k: tapejax.image.rot90(x, k)._value)(1)


# -- random flips -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, flip",
    [
        ("random_flip_left_right", "flip_left_right"),
        ("random_flip_up_down", "flip_up_down"),
    ],
)
def test_random_flips_flip_about_half_of_the_images(name, flip):
    random_flip = getattr(tapejax.image, name)
    x = tapejax.constant(image("float32", (400, 3, 4, 2)))
    flipped = getattr(tapejax.image, flip)(x).numpy()
    y = random_flip(x, seed=3).numpy()
    is_flipped = np.all(y == flipped, axis=(1, 2, 3))
    is_same = np.all(y == x.numpy(), axis=(1, 2, 3))
    assert np.all(is_flipped ^ is_same), "each image is either flipped or unchanged"
    assert 150 < is_flipped.sum() < 250, is_flipped.sum()
    # A single image: one decision; over 200 draws both outcomes happen.
    one = x[0]
    outcomes = {bool(np.all(random_flip(one).numpy() == flipped[0])) for _ in range(200)}
    assert outcomes == {True, False}


@pytest.mark.parametrize("name", ["random_flip_left_right", "random_flip_up_down"])
def test_random_flips_repeat_after_set_seed_and_pass_gradients(name):
    random_flip = getattr(tapejax.image, name)
    x = tapejax.constant(image("float32", (16, 3, 4, 2)))
    tapejax.random.set_seed(11)
    first = [random_flip(x).numpy() for _ in range(3)]
    tapejax.random.set_seed(11)
    again = [random_flip(x).numpy() for _ in range(3)]
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not all(np.array_equal(first[0], f) for f in first[1:])
    w = tapejax.constant(image("float32", (16, 3, 4, 2), seed=2))
    with tapejax.GradientTape() as tape:
        tape.watch(x)
        y = random_flip(x)
        loss = tapejax.reduce_sum(y * w)
    g = tape.gradient(loss, x).numpy()
    # The gradient is the weights carried back through the same flips.
    np.testing.assert_array_equal(np.sort(g.ravel()), np.sort(w.numpy().ravel()))
    flipped_w = getattr(tapejax.image, name[len("random_") :])(w).numpy()
    yv = y.numpy()
    for i in range(16):
        same = np.array_equal(yv[i], x.numpy()[i])
        np.testing.assert_array_equal(g[i], w.numpy()[i] if same else flipped_w[i])


# -- random adjustments and crops -------------------------------------------------------


def _amount_that_explains(name, x, y, lo, hi):
    """The amount in [lo, hi] for which ``adjust(x, amount)`` is ``y`` (a grid search: the
    draw itself is not TF's, the adjustment applied must be)."""
    adjust = getattr(tapejax.image, RANDOM_ADJUSTMENTS[name][1])
    for _ in range(3):  # refine around the best of each grid
        grid = np.linspace(lo, hi, 41)
        errors = [np.abs(adjust(x, float(a)).numpy() - y).max() for a in grid]
        best, step = grid[int(np.argmin(errors))], grid[1] - grid[0]
        lo, hi = best - step, best + step
    return best, min(errors)


@pytest.mark.parametrize("name", sorted(RANDOM_ADJUSTMENTS))
def test_random_adjustments_apply_tfs_adjustment_with_an_amount_in_range(name):
    args, _, (lo, hi) = RANDOM_ADJUSTMENTS[name]
    x = tapejax.constant(colours("float32", (3, 4, 3)))
    for fn in (
        lambda: getattr(tapejax.image, name)(x, *args, seed=3),
        lambda: getattr(tapejax.image, f"stateless_{name}")(x, *args, seed=(1, 2)),
    ):
        _, err = _amount_that_explains(name, x, fn().numpy(), lo, hi)
        assert err < 2e-3, f"{name}: no amount in [{lo}, {hi}] explains the result"


@pytest.mark.parametrize(
    "name",
    sorted(RANDOM_ADJUSTMENTS) + ["random_flip_left_right", "random_flip_up_down", "random_crop"],
)
def test_stateless_random_image_ops_depend_on_the_seed_only(name):
    args = RANDOM_ADJUSTMENTS.get(name, ((),))[0] if name in RANDOM_ADJUSTMENTS else ()
    if name == "random_crop":
        args = ([2, 3, 3],)
    op = getattr(tapejax.image, f"stateless_{name}")
    x = tapejax.constant(colours("float32", (6, 7, 3)))
    first = op(x, *args, seed=(4, 5)).numpy()
    tapejax.random.set_seed(1)
    np.testing.assert_array_equal(op(x, *args, seed=(4, 5)).numpy(), first)
    outcomes = {op(x, *args, seed=(4, k)).numpy().tobytes() for k in range(12)}
    assert len(outcomes) > 1, "every seed gave the same result"


@pytest.mark.parametrize("crop", ["random_crop", "stateless_random_crop"])
def test_random_crops_are_blocks_at_every_offset(crop):
    x = np.arange(5 * 6 * 2, dtype=np.float32).reshape(5, 6, 2)
    seen = set()
    for k in range(60):
        seed = {"seed": (k, 1)} if crop.startswith("stateless") else {"seed": k}
        y = getattr(tapejax.image, crop)(x, [3, 4, 2], **seed).numpy()
        top, left = np.argwhere(x == y[0, 0, 0])[0][:2]
        np.testing.assert_array_equal(y, x[top : top + 3, left : left + 4])
        seen.add((int(top), int(left)))
    assert seen == {(i, j) for i in range(3) for j in range(3)}, seen


def test_random_crop_traces_and_passes_gradients():
    f = tapejax.function(lambda x: tapejax.image.random_crop(x, [2, 2, 3], seed=2))
    x = tapejax.constant(colours("float32", (4, 5, 3)))
    assert f(x).shape == [2, 2, 3]
    with tapejax.GradientTape() as tape:
        tape.watch(x)
        y = tapejax.image.stateless_random_crop(x, [2, 2, 3], seed=(1, 1))
    g = tape.gradient(y, x).numpy()
    assert g.sum() == 12 and set(np.unique(g)) == {0.0, 1.0}


# -- errors: the same expression raises the same error under both frameworks --------------

IAE = "InvalidArgumentError"
IM = lambda tf: tf.ones([4, 5, 3])  # noqa: E731 - a table helper
ERRORS = [
    (
        lambda tf: tf.image.resize(tf.ones([4, 5, 3], tf.bool), [2, 2], "nearest"),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([4, 5, 3], tf.bool), [2, 2], "lanczos3"),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([4, 5, 3], tf.bool), [2, 2], "area"),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([4, 5, 3], tf.bool), [2, 2], "gaussian"),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [0, 2], "area"),
        IAE,
        r"output dimensions must be positive \[Op:ResizeArea\]",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [2, -1], "mitchellcubic"),
        IAE,
        r"output dimensions must be positive \[Op:ScaleAndTranslate\]",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([2, 0, 5, 3]), [2, 2], "area"),
        IAE,
        r"input image must be of non-zero size \[Op:ResizeArea\]",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([4, 0, 3]), [2, 2], "nearest"),
        IAE,
        r"input image must be of non-zero size \[Op:ResizeNearestNeighbor\]",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([4, 5, 0]), [2, 2], "lanczos3"),
        IAE,
        r"image must have at least one channel \[Op:ScaleAndTranslate\]",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([0, 5, 0]), [2, 2], "bicubic"),
        IAE,
        r"image must have at least one channel \[Op:ResizeBicubic\]",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([0, 5, 3]), [2, 2], "gaussian"),
        IAE,
        r"input image must be of non-zero size \[Op:ScaleAndTranslate\]",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [2, 2], "Area"),
        "ValueError",
        r"Resize method is not implemented: Area",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [0, 2], "bicubic"),
        IAE,
        r"output dimensions must be positive \[Op:ResizeBicubic\]",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [2, 0], "lanczos5"),
        IAE,
        r"output dimensions must be positive \[Op:ScaleAndTranslate\]",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [2, 0], antialias=True),
        IAE,
        r"output dimensions must be positive \[Op:ScaleAndTranslate\]",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([4, 5]), [2, 2]),
        "ValueError",
        r"'images' must have either 3 or 4 dimensions\.",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [2]),
        "ValueError",
        r"'size' must be a 1-D Tensor of 2 elements: new_height, new_width",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [2.5, 2]),
        "ValueError",
        r"'size' must be a 1-D int32 Tensor",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [0, 2]),
        IAE,
        r"output dimensions must be positive \[Op:ResizeBilinear\]",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [2, -1], method="nearest"),
        IAE,
        r"output dimensions must be positive \[Op:ResizeNearestNeighbor\]",
    ),
    (
        lambda tf: tf.image.resize(IM(tf), [2, 2], method="foo"),
        "ValueError",
        r"Resize method is not implemented: foo",
    ),
    (
        lambda tf: tf.image.resize(tf.ones([4, 5, 3], tf.bool), [2, 2]),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.image.flip_left_right(tf.ones([2, 2])),
        "ValueError",
        r"'image' \(shape \(2, 2\)\) must be at least three-dimensional\.",
    ),
    (
        lambda tf: tf.image.flip_up_down(tf.ones([2, 2, 2, 2, 2])),
        "ValueError",
        r"'image' \(shape \(2, 2, 2, 2, 2\)\)must have either 3 or 4 dimensions\.",
    ),
    (
        lambda tf: tf.image.random_flip_left_right(tf.ones([2])),
        "ValueError",
        r"'image' \(shape \(2,\)\) must be at least three-dimensional\.",
    ),
    (
        lambda tf: tf.image.central_crop(IM(tf), 0.0),
        "ValueError",
        r"central_fraction must be within \(0, 1\]",
    ),
    (
        lambda tf: tf.image.central_crop(IM(tf), 1.5),
        "ValueError",
        r"central_fraction must be within \(0, 1\]",
    ),
    (
        lambda tf: tf.image.central_crop(tf.ones([2, 2]), 0.5),
        "ValueError",
        r"'image' \(shape \(2, 2\)\) must be at least three-dimensional\.",
    ),
    (
        lambda tf: tf.image.per_image_standardization(tf.ones([2, 2])),
        "ValueError",
        r"'image' \(shape \(2, 2\)\) must be at least three-dimensional\.",
    ),
    (
        lambda tf: tf.image.rgb_to_grayscale(tf.ones([2, 2, 4])),
        IAE,
        r"Matrix size-incompatible: In\[0\]: \[4,4\], In\[1\]: \[3,1\]",
    ),
    (
        lambda tf: tf.image.grayscale_to_rgb(tf.ones([2, 2, 3])),
        "ValueError",
        r"Last dimension of a grayscale image should be size 1\.",
    ),
    (
        lambda tf: tf.image.grayscale_to_rgb(tf.ones([2])),
        "ValueError",
        r"A grayscale image \(shape \(2,\)\) must be at least two-dimensional\.",
    ),
    (
        lambda tf: tf.image.adjust_contrast(tf.ones([2, 3]), 2.0),
        IAE,
        r"input must be at least 3-D, got shape\[2,3\]",
    ),
    (
        lambda tf: tf.image.crop_to_bounding_box(IM(tf), -1, 0, 2, 2),
        "ValueError",
        r"offset_height must be >= 0\.",
    ),
    (
        lambda tf: tf.image.crop_to_bounding_box(IM(tf), 0, -1, 2, 2),
        "ValueError",
        r"offset_width must be >= 0\.",
    ),
    (
        lambda tf: tf.image.crop_to_bounding_box(IM(tf), 0, 0, 0, 2),
        "ValueError",
        r"target_height must be > 0\.",
    ),
    (
        lambda tf: tf.image.crop_to_bounding_box(IM(tf), 0, 0, 2, 0),
        "ValueError",
        r"target_width must be > 0\.",
    ),
    (
        lambda tf: tf.image.crop_to_bounding_box(IM(tf), 3, 0, 2, 2),
        "ValueError",
        r"height must be >= target \+ offset\.",
    ),
    (
        lambda tf: tf.image.crop_to_bounding_box(IM(tf), 0, 4, 2, 2),
        "ValueError",
        r"width must be >= target \+ offset\.",
    ),
    (
        lambda tf: tf.image.crop_to_bounding_box(tf.ones([2, 2]), 0, 0, 1, 1),
        "ValueError",
        r"'image' \(shape \(2, 2\)\) must have either 3 or 4 dimensions\.",
    ),
    (
        lambda tf: tf.image.pad_to_bounding_box(IM(tf), -1, 0, 6, 6),
        "ValueError",
        r"offset_height must be >= 0",
    ),
    (
        lambda tf: tf.image.pad_to_bounding_box(IM(tf), 0, -1, 6, 6),
        "ValueError",
        r"offset_width must be >= 0",
    ),
    (
        lambda tf: tf.image.pad_to_bounding_box(IM(tf), 0, 0, 3, 6),
        "ValueError",
        r"height must be <= target - offset",
    ),
    (
        lambda tf: tf.image.pad_to_bounding_box(IM(tf), 0, 0, 6, 3),
        "ValueError",
        r"width must be <= target - offset",
    ),
    (
        lambda tf: tf.image.pad_to_bounding_box(tf.ones([2, 2]), 0, 0, 3, 3),
        "ValueError",
        r"'image' \(shape \(2, 2\)\) must have either 3 or 4 dimensions\.",
    ),
    (
        lambda tf: tf.image.resize_with_crop_or_pad(IM(tf), 0, 3),
        "ValueError",
        r"target_height must be > 0\.",
    ),
    (
        lambda tf: tf.image.resize_with_crop_or_pad(IM(tf), 3, 0),
        "ValueError",
        r"target_width must be > 0\.",
    ),
    (
        lambda tf: tf.image.random_brightness(IM(tf), -0.1),
        "ValueError",
        r"max_delta must be non-negative\.",
    ),
    (
        lambda tf: tf.image.stateless_random_hue(IM(tf), 0.6, (1, 2)),
        "ValueError",
        r"max_delta must be <= 0\.5\.",
    ),
    (
        lambda tf: tf.image.random_contrast(IM(tf), 0.5, 0.5),
        "ValueError",
        r"upper must be > lower\.",
    ),
    (
        lambda tf: tf.image.stateless_random_saturation(IM(tf), -0.5, 0.5, (1, 2)),
        "ValueError",
        r"lower must be non-negative\.",
    ),
    (
        lambda tf: tf.image.random_crop(IM(tf), [5, 5, 3]),
        IAE,
        r"Expected 'tf\.Tensor\(False, shape=\(\), dtype=bool\)' to be true\. Summarized data: b'Need value\.shape >= size, got '\n4, 5, 3\n5, 5, 3",
    ),
    (
        lambda tf: tf.image.random_crop(IM(tf), [2, 2]),
        IAE,
        r"Incompatible shapes: \[3\] vs\. \[2\]",
    ),
    (
        lambda tf: tf.image.stateless_random_crop(IM(tf), [2, 2, 3], seed=(1, 2, 3)),
        IAE,
        r"seed must have shape \[2\], not \[3\]",
    ),
    (
        lambda tf: tf.image.stateless_random_flip_up_down(tf.ones([2, 2]), seed=(1, 2)),
        "ValueError",
        r"'image' \(shape \(2, 2\)\) must be at least three-dimensional\.",
    ),
    (
        lambda tf: tf.image.non_max_suppression(tf.ones([3]), tf.ones([3]), 2),
        IAE,
        r"boxes must be 2-D\[3\] \(Shape must be rank 2 but is rank 1\)",
    ),
    (
        lambda tf: tf.image.non_max_suppression(tf.ones([3, 4]), tf.ones([2]), 2),
        IAE,
        r"scores has incompatible shape \(Dimensions must be equal, but are 3 and 2\)",
    ),
    (
        lambda tf: tf.image.non_max_suppression(tf.ones([3, 3]), tf.ones([3]), 2),
        IAE,
        r"boxes must have 4 columns \(Dimension must be 4 but is 3\)",
    ),
    (
        lambda tf: tf.image.non_max_suppression(tf.ones([3, 4]), tf.ones([3]), 2, 1.5),
        IAE,
        r"iou_threshold must be in \[0, 1\]",
    ),
    (
        lambda tf: tf.image.non_max_suppression(tf.ones([3, 4]), tf.ones([3]), -1),
        IAE,
        r"output size must be non-negative",
    ),
    (
        lambda tf: tf.image.non_max_suppression(tf.ones([3, 4]), tf.ones([3]), [2, 3]),
        IAE,
        r"max_output_size must be 0-D, got shape \[2\] \(Shape must be rank 0 but is rank 1\)",
    ),
    (
        lambda tf: tf.image.non_max_suppression(
            tf.ones([3, 4], tf.int32), tf.ones([3], tf.int32), 2
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, float",
    ),
    (
        lambda tf: tf.image.non_max_suppression_with_scores(
            tf.ones([3, 4]), tf.ones([3]), 2, soft_nms_sigma=-1.0
        ),
        IAE,
        r"soft_nms_sigma_val must be >= 0",
    ),
    (
        lambda tf: tf.image.non_max_suppression_padded(tf.ones([2, 3, 4]), tf.ones([2, 3]), 2),
        "ValueError",
        r"'pad_to_max_output_size' \(value False\) must be True for batched input",
    ),
    (
        lambda tf: tf.image.combined_non_max_suppression(
            tf.ones([2, 3, 4]), tf.ones([2, 3, 1]), 2, 2
        ),
        IAE,
        r"boxes must be 4-D\[2,3,4\] \[Op:CombinedNonMaxSuppression\]",
    ),
    (
        lambda tf: tf.image.combined_non_max_suppression(
            tf.ones([2, 3, 2, 4]), tf.ones([2, 3, 3]), 2, 2
        ),
        IAE,
        r"third dimension of boxes must be either 1 or num classes",
    ),
    (
        lambda tf: tf.image.combined_non_max_suppression(
            tf.ones([2, 3, 1, 4]), tf.ones([2, 3, 1]), 0, 2
        ),
        IAE,
        r"max_size_per_class must be positive",
    ),
    (
        lambda tf: tf.image.combined_non_max_suppression(
            tf.ones([2, 3, 1, 4]), tf.ones([2, 3, 1]), 2, 0
        ),
        IAE,
        r"max_total_size must be > 0",
    ),
    (
        lambda tf: tf.image.combined_non_max_suppression(
            tf.ones([2, 3, 1, 4]), tf.ones([1, 3, 1]), 2, 2
        ),
        IAE,
        r"boxes and scores must have same batch size",
    ),
    (
        lambda tf: tf.image.rgb_to_hsv(tf.ones([4, 5, 2])),
        "FailedPreconditionError",
        r"input must have 3 channels but input only has 2 channels\. \[Op:RGBToHSV\]",
    ),
    (
        lambda tf: tf.image.hsv_to_rgb(tf.ones([4, 5, 3], tf.uint8)),
        IAE,
        r"Value for attr 'T' of uint8 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.image.rgb_to_yiq(tf.ones([4, 5, 2])),
        IAE,
        r"Matrix size-incompatible: In\[0\]: \[20,2\], In\[1\]: \[3,3\]",
    ),
    (
        lambda tf: tf.image.rgb_to_yuv(tf.ones([4, 5, 3], tf.int32)),
        "TypeError",
        r"Cannot convert \[\[0\.299, -0\.14714119, 0\.61497538\], .* to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.image.adjust_gamma(IM(tf), -1.0),
        "ValueError",
        r"Gamma should be a non-negative real number\.",
    ),
    (
        lambda tf: tf.image.adjust_gamma(IM(tf), tf.constant(-2.0)),
        IAE,
        r"Expected 'tf\.Tensor\(False, shape=\(\), dtype=bool\)' to be true\. Summarized data: b'Gamma should be a non-negative real number\.'",
    ),
    (
        lambda tf: tf.image.adjust_hue(IM(tf), 1.5),
        "ValueError",
        r"delta must be in the interval \[-1, 1\]",
    ),
    (
        lambda tf: tf.image.adjust_hue(tf.ones([5, 3]), 0.2),
        IAE,
        r"input must be at least 3-D, got shape\[5,3\] \[Op:AdjustHue\]",
    ),
    (
        lambda tf: tf.image.adjust_hue(tf.ones([4, 5, 2]), 0.2),
        IAE,
        r"input must have 3 channels but instead has 2 channels\. \[Op:AdjustHue\]",
    ),
    (
        lambda tf: tf.image.adjust_saturation(IM(tf), [2.0, 1.0]),
        IAE,
        r"scale must be scalar: \[2\] \[Op:AdjustSaturation\]",
    ),
    (
        lambda tf: tf.image.adjust_saturation(tf.ones([4, 5, 2]), 2.0),
        IAE,
        r"input must have 3 channels but instead has 2 channels\. \[Op:AdjustSaturation\]",
    ),
    (
        lambda tf: tf.image.rot90(tf.ones([2, 2])),
        "ValueError",
        r"'image' \(shape \(2, 2\)\) must be at least three-dimensional\.",
    ),
    (
        lambda tf: tf.image.rot90(tf.ones([1, 2, 2, 2, 1])),
        "ValueError",
        r"'image' \(shape \(1, 2, 2, 2, 1\)\) must have either 3 or 4 dimensions\.",
    ),
    (lambda tf: tf.image.rot90(IM(tf), k=[1, 2]), "ValueError", r"Shape \(2,\) must have rank 0"),
    (
        lambda tf: tf.image.rot90(IM(tf), k=1.5),
        "TypeError",
        r"Cannot convert 1\.5 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.image.transpose(tf.ones([1, 2, 2, 2, 1])),
        "ValueError",
        r"'image' \(shape \(1, 2, 2, 2, 1\)\) must have either 3 or 4 dimensions\.",
    ),
    (
        lambda tf: tf.image.total_variation(tf.ones([2, 2])),
        "ValueError",
        r"'images' must be either 3 or 4-dimensional\.",
    ),
    (
        lambda tf: tf.image.total_variation(tf.ones([2, 2, 2], tf.uint8)),
        IAE,
        r"Value for attr 'T' of uint8 is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64",
    ),
    (
        lambda tf: tf.image.image_gradients(IM(tf)),
        "ValueError",
        r"image_gradients expects a 4D tensor \[batch_size, h, w, d\], not \(4, 5, 3\)\.",
    ),
    (
        lambda tf: tf.image.sobel_edges(IM(tf)),
        IAE,
        r"The first dimension of paddings must be the rank of inputs\[4,2\], \[4,5,3\] \[Op:MirrorPad\]",
    ),
    (
        lambda tf: tf.image.sobel_edges(tf.ones([1, 1, 2, 1])),
        IAE,
        r"paddings must be less than the dimension size: 1, 1 not less than 1",
    ),
    (
        lambda tf: tf.image.sobel_edges(tf.ones([1, 2, 2, 1], tf.int32)),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.image.psnr(IM(tf), tf.ones([4, 6, 3]), 1.0),
        IAE,
        r"Incompatible shapes: \[4,5,3\] vs\. \[4,6,3\] \[Op:SquaredDifference\]",
    ),
    (
        lambda tf: tf.image.psnr(tf.ones([4, 5]), tf.ones([4, 5]), 1.0),
        IAE,
        r"Invalid reduction dimension \(-3 for input with 2 dimension\(s\)",
    ),
    (
        lambda tf: tf.image.ssim(IM(tf), IM(tf), 1.0),
        IAE,
        r"Expected 'tf\.Tensor\(False, shape=\(\), dtype=bool\)' to be true\. Summarized data: 4, 5, 3\n11",
    ),
    (
        lambda tf: tf.image.ssim(tf.ones([12, 13, 3]), tf.ones([12, 13, 2]), 1.0),
        "ValueError",
        r"Shapes \(12, 13, 3\) and \(12, 13, 2\) are incompatible",
    ),
    (
        lambda tf: tf.image.ssim(tf.ones([2, 2]), tf.ones([2, 2]), 1.0),
        "ValueError",
        r"Shape \(2, 2\) must have rank at least 3",
    ),
    (
        lambda tf: tf.image.ssim(tf.ones([2, 12, 12, 1]), tf.ones([3, 12, 12, 1]), 1.0),
        "ValueError",
        r"Two images are not compatible: \(2, 12, 12, 1\) and \(3, 12, 12, 1\)",
    ),
    (
        lambda tf: tf.image.ssim_multiscale(tf.ones([2, 12, 13, 3]), tf.ones([2, 12, 13, 3]), 1.0),
        IAE,
        r"Expected 'tf\.Tensor\(False, shape=\(\), dtype=bool\)' to be true\. Summarized data: 2, 6, 7, 3\n11",
    ),
    (
        lambda tf: tf.image.extract_patches(
            tf.ones([2, 6, 7, 3]), [3, 3], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"
        ),
        IAE,
        r"Length for attr 'ksizes' of 2 must be at least minimum 4",
    ),
    (
        lambda tf: tf.image.extract_patches(
            tf.ones([2, 6, 7, 3]), [2, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"
        ),
        "UnimplementedError",
        r"Only support ksizes across space\.",
    ),
    (
        lambda tf: tf.image.extract_patches(
            tf.ones([2, 6, 7, 3]), [1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "FOO"
        ),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\"",
    ),
    (
        lambda tf: tf.image.extract_patches(
            IM(tf), [1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"
        ),
        IAE,
        r"input must be 4-dimensional\[4,5,3\]",
    ),
    (
        lambda tf: tf.image.extract_patches(
            tf.ones([2, 6, 7, 3]), [1, 0, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"
        ),
        "OutOfRangeError",
        r"ksizes is out of range\.",
    ),
    (
        lambda tf: tf.image.crop_and_resize(tf.ones([2, 6, 7, 3]), BOXES, [0, 2, 1, 0], [3, 4]),
        "OutOfRangeError",
        r"box_index has values outside \[0, batch_size\) \[Op:CropAndResize\]",
    ),
    (
        lambda tf: tf.image.crop_and_resize(tf.ones([2, 6, 7, 3]), BOXES, [0, 1, 1, 0], [0, 4]),
        IAE,
        r"crop dimensions must be positive",
    ),
    (
        lambda tf: tf.image.crop_and_resize(tf.ones([2, 6, 7, 3]), BOXES, [0], [3, 4]),
        IAE,
        r"box_index has incompatible shape",
    ),
    (
        lambda tf: tf.image.crop_and_resize(tf.ones([2, 6, 7, 3]), BOXES[0], [0], [3, 4]),
        IAE,
        r"boxes must be 2-D, got: \[4\]",
    ),
    (
        lambda tf: tf.image.crop_and_resize(tf.ones([6, 7, 3]), BOXES, [0, 1, 1, 0], [3, 4]),
        IAE,
        r"input image must be 4-D\[6,7,3\]",
    ),
    (
        lambda tf: tf.image.crop_and_resize(tf.ones([2, 6, 7, 3]), BOXES, [0, 1, 1, 0], [3, 4, 5]),
        IAE,
        r"crop_size must have two elements\[3\]",
    ),
    (
        lambda tf: tf.image.crop_and_resize(
            tf.ones([2, 6, 7, 3]), BOXES[:, :3], [0, 1, 1, 0], [3, 4]
        ),
        IAE,
        r"boxes must have 4 columns",
    ),
    (
        lambda tf: tf.image.crop_and_resize(
            tf.ones([2, 6, 7, 3]), BOXES, [0, 1, 1, 0], [3, 4], method="foo"
        ),
        IAE,
        r"Value for attr 'method' of \"foo\" is not in the list of allowed values: \"bilinear\", \"nearest\"",
    ),
    (
        lambda tf: tf.image.crop_and_resize(tf.ones([1, 2, 2, 1], tf.bool), BOXES[:1], [0], [3, 4]),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: uint8, uint16, int8, int16, int32, int64, half, float, double",
    ),
    (
        lambda tf: tf.image.crop_and_resize(
            tf.ones([2, 6, 7, 3]), BOXES, [0.0, 1.0, 1.0, 0.0], [3, 4]
        ),
        "TypeError",
        r"Cannot convert \[0\.0, 1\.0, 1\.0, 0\.0\] to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.image.resize_with_pad(IM(tf), 0, 5),
        "ValueError",
        r"target_height must be > 0\.",
    ),
    (
        lambda tf: tf.image.resize_with_pad(IM(tf), 5, 0),
        "ValueError",
        r"target_width must be > 0\.",
    ),
    (
        lambda tf: tf.image.resize_with_pad(tf.ones([7, 3]), 5, 5),
        "ValueError",
        r"'image' \(shape \(7, 3\)\) must have either 3 or 4 dimensions\.",
    ),
    (
        lambda tf: tf.image.resize_with_pad(tf.ones([0, 5, 3]), 8, 5),
        "ValueError",
        r"inner 3 dims of 'image\.shape' must be > 0: \(1, 0, 5, 3\)",
    ),
    (
        lambda tf: tf.image.convert_image_dtype(tf.ones([2], tf.bool), tf.float32),
        "AttributeError",
        r"image dtype must be either floating point or integer",
    ),
    (
        lambda tf: tf.image.convert_image_dtype(IM(tf), tf.bool),
        "AttributeError",
        r"dtype must be either floating point or integer",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
