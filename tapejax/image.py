"""``tf.image``: resizing, flips, crops and colour conversions."""

from tapejax._src.ops.image_ops import (
    ResizeMethod,
    adjust_brightness,
    adjust_contrast,
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    grayscale_to_rgb,
    pad_to_bounding_box,
    per_image_standardization,
    random_flip_left_right,
    random_flip_up_down,
    resize,
    resize_with_crop_or_pad,
    rgb_to_grayscale,
)

__all__ = [
    "ResizeMethod",
    "adjust_brightness",
    "adjust_contrast",
    "central_crop",
    "convert_image_dtype",
    "crop_to_bounding_box",
    "flip_left_right",
    "flip_up_down",
    "grayscale_to_rgb",
    "pad_to_bounding_box",
    "per_image_standardization",
    "random_flip_left_right",
    "random_flip_up_down",
    "resize",
    "resize_with_crop_or_pad",
    "rgb_to_grayscale",
]
