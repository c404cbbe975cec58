# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Tests of ``tapejax.nn`` beyond the basics in ``tests/test_ops.py``: activations, losses,
normalization, embeddings, convolutions and pooling, side by side with real TensorFlow.

Each op has Cases (values, dtypes and shapes equal TF's; Variables accepted; tape
gradients equal TF's for inputs and filters; ``check_grads`` of the pure function) and
error cases checked under both frameworks, so the expected texts cannot drift from TF's.
Where TF's CPU kernels have no gradient (dilated or grouped convolutions), gradients are
checked numerically and against ``tf.nn.convolution``'s space-to-batch route.
"""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest

import tapejax
import tapejax.nn

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    FI,
    Case,
    Sparse,
    arr,
    case_id,
    check_accepts_variables,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_tf_allowed,
    check_values,
    first_of_each_op,
    grad_cases,
    no_kernel_case,
    pure_grad_cases,
    unary,
    value_params,
)

F64 = ("float32", "float64")
ONE = ((0,),)  # the shape argument of a Case whose inputs are fixed


def fixed_case(name, make, diff=(), dtypes=("float32",), **kw):
    """A Case whose inputs have fixed shapes; ``make(dtype)`` gives ``(args, kwargs)``."""
    return Case(name, lambda dt, shape: make(dt), dtypes=dtypes, shapes=ONE, diff=diff, **kw)


def conv(name, xshape, wshape, *args, diff=(0, 1), dtypes=("float32",), x64=False, **kwargs):
    """A convolution Case: input and filter of the given shapes, then TF's arguments."""
    return fixed_case(
        name,
        lambda dt: ((arr(dt, xshape), arr(dt, wshape, seed=1)) + args, kwargs),
        diff=diff,
        dtypes=dtypes,
        x64=x64,
        rtol=1e-4,
        atol=1e-5,
    )


def pooling(name, xshape, *args, diff=(0,), dtypes=("float32",), x64=False, **kwargs):
    """A pooling Case: an input of the given shape, then TF's arguments."""
    return fixed_case(
        name,
        lambda dt: ((arr(dt, xshape, seed=2),) + args, kwargs),
        diff=diff,
        dtypes=dtypes,
        x64=x64,
    )


def transpose(name, yshape, wshape, *args, **kwargs):
    """A transposed-convolution Case: input, filter, then TF's arguments."""
    return conv(name, yshape, wshape, *args, **kwargs)


# Dense CTC labels, zero-padded (0 is the default blank, never a label).
CTC_LABELS = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0]], np.int32)
# SparseTensor CTC labels: two, three and one labels (the last two repeat a label).
CTC_SPARSE_IDX = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]])


def ctc_sparse_labels_case(logits_shape, logit_length, kwargs, diff=()):
    """A ``ctc_loss`` Case with SparseTensor labels (TF's CTCLoss kernel path)."""
    labels = Sparse(CTC_SPARSE_IDX, np.array([1, 2, 3, 3, 1, 2], np.int32), (3, 3))
    lengths = np.array(logit_length, np.int32)
    return fixed_case(
        "nn.ctc_loss",
        lambda dt: ((labels, arr(dt, logits_shape), None, lengths), kwargs),
        diff=diff,
    )


# SparseTensor embedding ids: rows 0 and 2 hold ids, row 1 and 3 none; with invalid ids
# (negative) for the safe lookup.
EMB_IDX = np.array([[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]])
EMB_IDS = Sparse(EMB_IDX, np.array([1, 3, 0, 5, 1], np.int32), (4, 3))
EMB_IDS_INVALID = Sparse(EMB_IDX, np.array([1, -3, 0, 5, -1], np.int32), (4, 3))


def emb_weights(dt):
    return Sparse(EMB_IDX, np.array([2.0, 0.5, 1.0, -1.0, 3.0], dt), (4, 3))


CASES = [
    # -- activations
    unary("nn.gelu", dtypes=F64, x64=True),
    Case("nn.gelu", lambda dt, shape: ((arr(dt, shape),), {"approximate": True}), diff=(0,)),
    Case("nn.gelu", lambda dt, shape: ((arr(dt, shape, -9, -5),), {}), diff=(0,)),
    unary("nn.silu"),
    Case(
        "nn.silu",
        lambda dt, shape: ((arr(dt, shape),), {"beta": np.array(1.5, dt)}),
        diff=(0, "beta"),
    ),
    unary("nn.swish"),
    unary("nn.leaky_relu"),
    Case("nn.leaky_relu", lambda dt, shape: ((arr(dt, shape),), {"alpha": 0.5}), diff=(0,)),
    Case("nn.leaky_relu", lambda dt, shape: ((arr(dt, shape, -3, 3),), {}), dtypes=("int32",)),
    Case("nn.crelu", lambda dt, shape: ((arr(dt, shape),), {}), dtypes=FI, diff=(0,)),
    Case("nn.crelu", lambda dt, shape: ((arr(dt, (2, 3)),), {"axis": 0}), shapes=ONE, diff=(0,)),
    # -- losses
    Case(
        "nn.weighted_cross_entropy_with_logits",
        lambda dt, shape: ((arr(dt, shape, 0, 1, seed=1), arr(dt, shape), 2.5), {}),
        diff=(0, 1),
    ),
    Case(
        "nn.weighted_cross_entropy_with_logits",
        lambda dt, shape: (
            (),
            {
                "labels": arr(dt, shape, 0, 1, seed=1),
                "logits": arr(dt, shape),
                "pos_weight": arr(dt, shape[-1:], 0.5, 3, seed=3),
            },
        ),
        diff=("labels", "logits", "pos_weight"),
    ),
    fixed_case("nn.compute_average_loss", lambda dt: ((arr(dt, (4,)),), {}), diff=(0,)),
    WEIGHTED_AVERAGE_LOSS := fixed_case(
        "nn.compute_average_loss",
        lambda dt: ((arr(dt, (4, 2)),), {"sample_weight": arr(dt, (4,), 0, 2, seed=1)}),
        diff=(0, "sample_weight"),
    ),
    fixed_case(
        "nn.compute_average_loss",
        lambda dt: ((arr(dt, (3,)),), {"global_batch_size": 8}),
        diff=(0,),
    ),
    fixed_case("nn.compute_average_loss", lambda dt: ((arr(dt, (3,)),), {"global_batch_size": 0})),
    # integer losses: summed in their dtype, then TF's true division (float64 from int32)
    fixed_case(
        "nn.compute_average_loss",
        lambda dt: ((arr(dt, (4,), 0, 100),), {}),
        dtypes=("int32", "uint8", "int16"),
        x64=True,
    ),
    fixed_case(
        "nn.compute_average_loss",
        lambda dt: ((arr(dt, (4, 2), 0, 100),), {"sample_weight": arr("float32", (4,), 0, 2)}),
        dtypes=("int32", "uint8"),
        x64=True,
    ),
    fixed_case(
        "nn.compute_average_loss",
        lambda dt: ((arr(dt, (3,), 0, 100),), {"global_batch_size": 0}),
        dtypes=("int32",),
        x64=True,
    ),
    Case("nn.scale_regularization_loss", lambda dt, shape: ((arr(dt, shape),), {}), diff=(0,)),
    # TF divides the sum by the replica count: an integer sum becomes float (truediv).
    Case(
        "nn.scale_regularization_loss",
        lambda dt, shape: ((arr(dt, shape, 0, 9),), {}),
        dtypes=("int8", "uint16"),
    ),
    Case(
        "nn.scale_regularization_loss",
        lambda dt, shape: ((arr(dt, shape, 0, 9),), {}),
        dtypes=("int32",),
        x64=True,
    ),
    Case(
        "nn.log_poisson_loss",
        lambda dt, shape: ((arr(dt, shape, 0, 4, seed=1), arr(dt, shape)), {}),
        diff=(0, 1),
    ),
    Case(
        "nn.log_poisson_loss",
        lambda dt, shape: (
            (arr(dt, shape, 1.5, 4, seed=1), arr(dt, shape)),
            {"compute_full_loss": True},
        ),
        diff=(0, 1),
    ),
    fixed_case(
        "nn.log_poisson_loss",
        lambda dt: (
            (np.array([0.0, 0.5, 1.0, 3.0], dt), arr(dt, (4,))),
            {"compute_full_loss": True},
        ),
    ),
    fixed_case(
        "nn.ctc_loss",
        lambda dt: (
            (
                CTC_LABELS,
                arr(dt, (7, 3, 5)),
                np.array([3, 2, 1], np.int32),
                np.array([7, 5, 6], np.int32),
            ),
            {},
        ),
        diff=(1,),
    ),
    fixed_case(
        "nn.ctc_loss",
        lambda dt: (
            (
                CTC_LABELS,
                arr(dt, (3, 7, 5)),
                np.array([3, 2, 1], np.int32),
                np.array([7, 7, 4], np.int32),
            ),
            {"logits_time_major": False, "blank_index": -1},
        ),
        diff=(1,),
    ),
    fixed_case(
        "nn.ctc_loss",
        lambda dt: (
            (
                CTC_LABELS,
                arr(dt, (6, 3, 5)),
                np.array([3, 2, 1], np.int32),
                np.array([6, 6, 6], np.int32),
            ),
            {"blank_index": 2},
        ),
        diff=(1,),
    ),
    CTC_SPARSE := ctc_sparse_labels_case((5, 3, 4), [5, 4, 5], {"blank_index": 1}, diff=(1,)),
    ctc_sparse_labels_case((3, 5, 4), [5, 5, 3], {"blank_index": -1, "logits_time_major": False}),
    # -- CTC decoders (SparseTensor results with int64 indices)
    fixed_case(
        "nn.ctc_greedy_decoder",
        lambda dt: ((arr(dt, (6, 3, 5)), np.array([6, 4, 0], np.int32)), {}),
        dtypes=F64,
        x64=True,
    ),
    fixed_case(
        "nn.ctc_greedy_decoder",
        lambda dt: (
            (arr(dt, (6, 2, 4), seed=1), np.array([5, 6], np.int32)),
            {"merge_repeated": False, "blank_index": 0},
        ),
        x64=True,
    ),
    fixed_case(
        "nn.ctc_beam_search_decoder",
        lambda dt: (
            (arr(dt, (6, 3, 5)), np.array([6, 4, 2], np.int32)),
            {"beam_width": 4, "top_paths": 3},
        ),
        dtypes=F64,
        x64=True,
    ),
    fixed_case(
        "nn.ctc_beam_search_decoder",
        lambda dt: ((arr(dt, (5, 2, 4), seed=2), np.array([5, 3], np.int32)), {}),
        x64=True,
    ),
    # -- normalization
    Case(
        "nn.moments",
        lambda dt, shape: ((arr(dt, shape),), {"axes": [0]}),
        dtypes=F64,
        x64=True,
        diff=(0,),
    ),
    Case(
        "nn.moments",
        lambda dt, shape: ((arr(dt, (2, 3, 2)),), {"axes": [0, 2], "keepdims": True}),
        shapes=ONE,
        diff=(0,),
    ),
    Case(
        "nn.moments",
        lambda dt, shape: ((arr(dt, (2, 3), -9, 9),), {"axes": 1}),
        dtypes=("int32",),
        shapes=ONE,
    ),
    Case(
        "nn.moments",
        lambda dt, shape: ((arr(dt, (3, 2)),), {"axes": [0], "shift": 5.0}),
        dtypes=("float16",),
        shapes=ONE,
        rtol=1e-3,
        atol=1e-3,
    ),
    Case(
        "nn.batch_normalization",
        lambda dt, shape: (
            (
                arr(dt, (2,) + shape),
                arr(dt, shape[-1:], seed=1),
                arr(dt, shape[-1:], 0.5, 2, seed=2),
                arr(dt, shape[-1:], seed=3),
                arr(dt, shape[-1:], seed=4),
                1e-3,
            ),
            {},
        ),
        diff=(0, 1, 2, 3, 4),
    ),
    Case(
        "nn.batch_normalization",
        lambda dt, shape: (
            (arr(dt, (2,) + shape), 0.5, arr(dt, shape, 0.5, 2, seed=2), None, None, 0.1),
            {},
        ),
        diff=(0, 2),
    ),
    Case(
        "nn.sufficient_statistics",
        lambda dt, shape: ((arr(dt, shape),), {"axes": [-1], "shift": np.array(0.5, dt)}),
        diff=(0,),
    ),
    Case(
        "nn.sufficient_statistics",
        lambda dt, shape: (
            (arr(dt, (2, 3, 2)),),
            {"axes": [0, 2], "shift": arr(dt, (3, 1), seed=1), "keepdims": True},
        ),
        shapes=ONE,
        diff=(0, "shift"),
    ),
    Case(
        "nn.weighted_moments",
        lambda dt, shape: ((arr(dt, shape), [0], arr(dt, shape, 0, 2, seed=1)), {}),
        dtypes=F64,
        x64=True,
        diff=(0, 2),
    ),
    Case(
        "nn.weighted_moments",
        lambda dt, shape: (
            (arr(dt, (2, 3)), [1], np.array([[1.0], [0.0]], dt)),
            {"keepdims": True},
        ),
        shapes=ONE,
        diff=(0,),
    ),
    fixed_case(
        "nn.normalize_moments",
        lambda dt: ((np.array(4.0, dt), arr(dt, (3,)), arr(dt, (3,), 2, 5, seed=1), None), {}),
        diff=(0, 1, 2),
    ),
    fixed_case(
        "nn.normalize_moments",
        lambda dt: (
            (np.array(4.0, dt), arr(dt, (3,)), arr(dt, (3,), 2, 5, seed=1), arr(dt, (3,), seed=2)),
            {},
        ),
        diff=(1, 2, 3),
    ),
    fixed_case(
        "nn.local_response_normalization",
        lambda dt: (
            (arr(dt, (1, 2, 2, 7)),),
            {"depth_radius": 2, "bias": 1.5, "alpha": 0.7, "beta": 0.75},
        ),
        diff=(0,),
    ),
    fixed_case("nn.lrn", lambda dt: ((arr(dt, (2, 1, 2, 3)),), {}), diff=(0,)),
    Case(
        "nn.bias_add",
        lambda dt, shape: (
            (arr(dt, (2, 3) + shape), arr(dt, (3,), seed=1)),
            {"data_format": "NCHW"},
        ),
        shapes=((4,), (2, 2)),
        dtypes=FI,
        diff=(0, 1),
    ),
    fixed_case(
        "nn.bias_add",
        lambda dt: ((arr(dt, (2, 3)), arr(dt, (3,), seed=1)), {"data_format": "NCHW"}),
        diff=(0, 1),
    ),
    # -- embeddings (TF's gradients are IndexedSlices: checked below)
    fixed_case(
        "nn.embedding_lookup",
        lambda dt: ((arr(dt, (5, 3)), np.array([[0, 4], [2, 2]], np.int32)), {}),
    ),
    fixed_case(
        "nn.embedding_lookup",
        lambda dt: (
            (
                [arr(dt, (3, 2)), arr(dt, (2, 2), seed=1), arr(dt, (2, 2), seed=2)],
                np.array([6, 0, 3, 2, 4, 5, 1], np.int32),
            ),
            {},
        ),
    ),
    fixed_case(
        "nn.embedding_lookup",
        lambda dt: (
            (np.array([[3.0, 4.0], [0.0, 0.0], [0.3, 0.4]], dt), np.array([0, 1, 2, 0], np.int32)),
            {"max_norm": 1.0},
        ),
    ),
    *[
        fixed_case(
            "nn.embedding_lookup_sparse",
            lambda dt, c=combiner: ((arr(dt, (6, 2)), EMB_IDS, None), {"combiner": c}),
            diff=(0,),
        )
        for combiner in ("sum", "mean", "sqrtn")
    ],
    *[
        fixed_case(
            "nn.embedding_lookup_sparse",
            lambda dt, c=combiner: ((arr(dt, (6, 2)), EMB_IDS, emb_weights(dt)), {"combiner": c}),
            diff=(0, 2),
        )
        for combiner in ("sum", "mean", "sqrtn")
    ],
    fixed_case(
        "nn.embedding_lookup_sparse",
        lambda dt: (
            (arr(dt, (6, 2)), EMB_IDS, emb_weights(dt)),
            {"combiner": "mean", "max_norm": 1.0},
        ),
        diff=(0, 2),
    ),
    *[
        fixed_case(
            "nn.safe_embedding_lookup_sparse",
            lambda dt, c=combiner: (
                (arr(dt, (6, 2)), EMB_IDS_INVALID, emb_weights(dt)),
                {"combiner": c},
            ),
            diff=(0, 2),
        )
        for combiner in ("sum", "mean", "sqrtn")
    ],
    fixed_case(
        "nn.safe_embedding_lookup_sparse",
        lambda dt: ((arr(dt, (6, 2)), EMB_IDS_INVALID), {"default_id": 4}),
        diff=(0,),
    ),
    fixed_case(
        "nn.safe_embedding_lookup_sparse",
        lambda dt: (
            (
                arr(dt, (6, 2)),
                Sparse(
                    np.array([[0, 0, 0], [0, 1, 1], [1, 0, 0]]),
                    np.array([1, 3, 2], np.int32),
                    (2, 2, 2),
                ),
            ),
            {"combiner": "sqrtn"},
        ),
        diff=(0,),
    ),
    # -- convolutions (diff=() where TF's CPU kernels have no gradient: see PURE_ONLY)
    conv("nn.conv1d", (2, 7, 3), (3, 3, 4), 1, "SAME"),
    conv("nn.conv1d", (2, 8, 3), (3, 3, 2), 2, "VALID", dtypes=F64, x64=True),
    conv("nn.conv1d", (1, 9, 2), (3, 2, 2), [1], "SAME", diff=(), dilations=2),
    conv("nn.conv1d", (2, 1, 6, 2), (2, 2, 3), [1, 2, 1], "SAME"),
    conv("nn.conv2d", (2, 6, 6, 3), (3, 3, 3, 4), 1, "SAME"),
    fixed_case(
        "nn.conv2d",
        lambda dt: ((arr(dt, (1, 5, 5, 2)), arr(dt, (3, 3, 2, 2), seed=1), 1, "SAME"), {}),
        dtypes=("float16",),
        rtol=1e-2,
        atol=1e-2,
    ),
    conv("nn.conv2d", (1, 7, 6, 2), (3, 2, 2, 3), 2, "VALID", dtypes=F64, x64=True),
    conv("nn.conv2d", (1, 6, 7, 2), (3, 3, 2, 2), [2, 1], "SAME"),
    conv("nn.conv2d", (1, 7, 7, 2), (3, 3, 2, 2), 1, "SAME", diff=(), dilations=[2, 1]),
    conv(
        "nn.conv2d",
        (1, 7, 7, 2),
        (2, 2, 2, 2),
        [1, 2, 2, 1],
        "VALID",
        diff=(),
        dilations=[1, 2, 2, 1],
    ),
    conv("nn.conv2d", (1, 5, 5, 2), (3, 3, 2, 2), 1, [[0, 0], [1, 2], [0, 1], [0, 0]]),
    conv("nn.conv2d", (1, 5, 5, 4), (3, 3, 2, 6), 1, "SAME", diff=()),  # two groups
    conv("nn.conv2d", (2, 1, 4, 4, 2), (2, 2, 2, 3), 1, "SAME"),  # extra batch dimension
    conv("nn.conv2d", (1, 4, 4, 2), (2, 2, 2, 2), 1, "VALID", dtypes=("int32",), diff=()),
    conv("nn.conv3d", (1, 4, 5, 4, 2), (2, 3, 2, 2, 3), [1, 1, 1, 1, 1], "SAME"),
    conv("nn.conv3d", (2, 5, 5, 5, 1), (3, 3, 3, 1, 2), [1, 2, 1, 2, 1], "VALID"),
    conv("nn.convolution", (1, 7, 7, 2), (3, 3, 2, 3), padding="SAME", dilations=2),
    conv("nn.convolution", (2, 7, 2), (3, 2, 3), 2, "VALID"),
    conv("nn.convolution", (2, 6, 2), (2, 2, 1), 1, "SAME", data_format="NWC"),
    conv("nn.convolution", (1, 4, 4, 4, 2), (2, 2, 2, 2, 2), [1, 1, 1], "SAME", diff=()),
    # TF's 3-D gradients need data_format spelled out (None fails inside TF's gradient).
    conv(
        "nn.convolution", (1, 4, 4, 4, 2), (2, 2, 2, 2, 2), [1, 1, 1], "SAME", data_format="NDHWC"
    ),
    conv(
        "nn.convolution",
        (1, 7, 7, 2),
        (3, 3, 2, 3),
        1,
        [[0, 0], [1, 1], [2, 0], [0, 0]],
        dilations=2,
    ),
    conv("nn.atrous_conv2d", (1, 7, 7, 2), (3, 3, 2, 2), 2, "SAME"),
    conv("nn.depthwise_conv2d", (1, 5, 5, 2), (3, 3, 2, 3), [1, 1, 1, 1], "SAME"),
    conv("nn.depthwise_conv2d", (2, 6, 5, 3), (2, 2, 3, 1), [1, 2, 2, 1], "VALID"),
    conv("nn.depthwise_conv2d", (1, 7, 7, 2), (3, 3, 2, 2), [1, 1, 1, 1], "SAME", dilations=[2, 2]),
    conv(
        "nn.depthwise_conv2d",
        (1, 5, 5, 2),
        (3, 3, 2, 2),
        [1, 1, 1, 1],
        [[0, 0], [1, 1], [0, 2], [0, 0]],
    ),
    fixed_case(
        "nn.separable_conv2d",
        lambda dt: (
            (
                arr(dt, (1, 5, 5, 2)),
                arr(dt, (3, 3, 2, 2), seed=1),
                arr(dt, (1, 1, 4, 3), seed=2),
                [1, 1, 1, 1],
                "SAME",
            ),
            {},
        ),
        diff=(0, 1, 2),
        rtol=1e-4,
        atol=1e-5,
    ),
    transpose("nn.conv2d_transpose", (2, 3, 3, 4), (3, 3, 2, 4), [2, 6, 6, 2], 2),
    transpose("nn.conv2d_transpose", (1, 3, 2, 2), (3, 2, 1, 2), [1, 7, 5, 1], [2, 2], "VALID"),
    transpose(
        "nn.conv2d_transpose",
        (1, 4, 4, 2),
        (2, 2, 2, 2),
        np.array([1, 4, 4, 2], np.int32),
        1,
        [[0, 0], [1, 0], [0, 1], [0, 0]],
    ),
    transpose(
        "nn.conv2d_transpose",
        (1, 2, 2, 2),
        (2, 2, 1, 2),
        [1, 3, 3, 1],
        1,
        "VALID",
        dtypes=("int32",),
        diff=(),
    ),
    transpose("nn.conv1d_transpose", (2, 4, 3), (3, 2, 3), [2, 8, 2], 2),
    transpose(
        "nn.conv3d_transpose", (1, 2, 2, 2, 2), (2, 2, 2, 3, 2), [1, 4, 4, 4, 3], [1, 2, 2, 2, 1]
    ),
    transpose("nn.conv_transpose", (1, 3, 3, 2), (3, 3, 1, 2), [1, 5, 5, 1], 2, "SAME"),
    transpose("nn.conv_transpose", (1, 3, 2), (2, 1, 2), [1, 6, 1], 2, "SAME"),
    # -- pooling
    pooling("nn.max_pool2d", (2, 5, 5, 2), 2, 2, "SAME", dtypes=F64, x64=True),
    pooling("nn.max_pool2d", (1, 6, 5, 2), [3, 2], [1, 2], "VALID"),
    pooling("nn.max_pool2d", (1, 4, 4, 1), 3, 1, [[0, 0], [1, 2], [2, 0], [0, 0]]),
    pooling("nn.max_pool2d", (1, 4, 4, 2), 2, 1, "SAME", dtypes=("int32",), diff=()),
    # across channels: TF's MaxPoolGrad refuses it (tested in PURE_ONLY)
    pooling("nn.max_pool2d", (1, 3, 3, 6), [1, 1, 1, 3], [1, 1, 1, 3], "SAME", diff=()),
    pooling("nn.max_pool1d", (2, 7, 2), 3, 2, "SAME"),
    pooling("nn.max_pool3d", (1, 4, 5, 4, 2), 2, [1, 2, 2, 1, 1], "SAME"),
    pooling("nn.max_pool3d", (1, 4, 4, 4, 1), [2, 3, 2], 2, "VALID"),
    pooling("nn.max_pool", (1, 5, 5, 2), 3, 2, "SAME"),
    pooling("nn.max_pool", (1, 6, 2), [2], [2], "VALID"),
    pooling("nn.max_pool", (1, 4, 4, 4, 1), 2, 2, "SAME", diff=()),
    MAX_POOL_3D := pooling("nn.max_pool", (1, 4, 4, 4, 1), 2, 2, "SAME", data_format="NDHWC"),
    pooling("nn.avg_pool2d", (2, 5, 5, 2), 2, 2, "SAME", dtypes=F64, x64=True),
    pooling("nn.avg_pool2d", (1, 5, 6, 2), [3, 2], 1, "SAME"),
    pooling("nn.avg_pool2d", (1, 6, 5, 2), 3, [2, 1], "VALID"),
    pooling("nn.avg_pool1d", (2, 7, 2), 3, 2, "SAME"),
    pooling("nn.avg_pool2d", (1, 5, 5, 2), 3, 2, "SAME", dtypes=("float16",)),
    pooling("nn.max_pool2d", (1, 5, 5, 2), 3, 2, "SAME", dtypes=("float16",)),
    pooling("nn.avg_pool3d", (1, 4, 5, 4, 2), 3, 2, "SAME"),
    pooling("nn.avg_pool", (1, 5, 5, 2), 3, 1, "VALID"),
    pooling("nn.avg_pool", (1, 7, 2), 2, 2, "SAME"),
    pooling("nn.pool", (1, 5, 5, 2), [2, 2], "MAX", strides=[2, 2], padding="SAME"),
    pooling("nn.pool", (1, 6, 2), [3], "AVG"),
    pooling("nn.pool", (1, 7, 6, 2), [2, 2], "MAX", dilations=[2, 1]),
    pooling("nn.pool", (1, 7, 2), [3], "AVG", dilations=[2]),
]

# Ops TF registers without a gradient here: none (integer Cases have no ``diff``).
NOT_DIFFERENTIABLE: set = set()
# TF's kernels for these have no float64: their pure gradients are checked in float32.
FLOAT32_ONLY = {
    "nn.local_response_normalization",
    "nn.lrn",
    "nn.max_pool3d",
    "nn.avg_pool3d",
}

# Gradients TF's CPU kernels cannot compute (dilated or grouped Conv2D, 3-D dilations)
# or give as IndexedSlices (embedding_lookup): checked numerically, and against TF by
# other routes below.
PURE_ONLY = [
    conv("nn.conv1d", (1, 9, 2), (3, 2, 2), [1], "SAME", dilations=2),
    conv("nn.conv2d", (1, 7, 7, 2), (3, 3, 2, 2), 1, "SAME", dilations=[2, 1]),
    conv("nn.conv2d", (1, 7, 7, 2), (2, 2, 2, 2), [1, 2, 2, 1], "VALID", dilations=[1, 2, 2, 1]),
    conv("nn.conv2d", (1, 5, 5, 4), (3, 3, 2, 6), 1, "SAME"),
    conv(
        "nn.conv3d",
        (1, 5, 5, 5, 1),
        (2, 2, 2, 1, 2),
        [1, 1, 1, 1, 1],
        "SAME",
        dilations=[1, 2, 2, 2, 1],
    ),
    pooling("nn.max_pool2d", (1, 3, 3, 6), [1, 1, 1, 3], [1, 1, 1, 3], "SAME"),
    fixed_case(
        "nn.embedding_lookup",
        lambda dt: ((arr(dt, (5, 3)), np.array([[0, 4], [2, 2]], np.int32)), {}),
        diff=(0,),
    ),
    fixed_case(
        "nn.embedding_lookup",
        lambda dt: (
            (np.array([[3.0, 4.0], [0.1, 0.2], [0.3, 0.4]], dt), np.array([0, 1, 2, 0], np.int32)),
            {"max_norm": 1.0},
        ),
        diff=(0,),
    ),
]


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
    "case", first_of_each_op(CASES, NOT_DIFFERENTIABLE | FLOAT32_ONLY) + PURE_ONLY, ids=case_id
)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case", pure_grad_cases(CASES, NOT_DIFFERENTIABLE | FLOAT32_ONLY) + PURE_ONLY, ids=case_id
)
def test_pure_function_second_order_gradients_are_numerically_right(case, x64):
    if case is MAX_POOL_3D:
        pytest.skip("TF's MaxPool3D has no float64 (checked in float32 below)")
    if case is WEIGHTED_AVERAGE_LOSS:
        pytest.skip("TF weights losses in float32 even for float64 losses: too coarse")
    if case is CTC_SPARSE:
        pytest.skip("the dense-label Cases' pure function (second order: about 20 s each)")
    if case.name in ("nn.embedding_lookup_sparse", "nn.safe_embedding_lookup_sparse"):
        pytest.skip("compositions of gathers, segment sums and divisions (first order checked)")
    if case.name == "nn.moments":
        pytest.skip(
            "TF's variance holds the mean constant (stop_gradient): exact to first order only"
        )
    check_pure_gradients(case, order=2)


@pytest.mark.parametrize(
    "case", [c for c in first_of_each_op(CASES) if c.name in FLOAT32_ONLY], ids=case_id
)
def test_float32_only_ops_gradients_are_numerically_right(case):
    """``check_grads`` in float32 (TF's kernels have no float64), with float32 tolerances."""
    from jax.test_util import check_grads

    args, kwargs = case.make("float32", case.shapes[-1])

    def f(x):
        return case.op(tapejax)(tapejax.convert_to_tensor(x), *args[1:], **kwargs)._value

    check_grads(f, (args[0],), order=1, modes=["rev"], eps=1e-2, atol=2e-2, rtol=2e-2)


def _dense(g):
    return None if g is None else np.asarray(tensorflow.convert_to_tensor(g))


def _dense_grad(fw, fn, value):
    """``d fn(fw, x) / dx`` through ``fw.GradientTape``, TF's IndexedSlices made dense."""
    x = fw.constant(value)
    with fw.GradientTape() as tape:
        tape.watch(x)
        y = fn(fw, x)
    return _dense(tape.gradient(y, x))


# -- gradients at ties and kinks: TF's conventions ---------------------------------------------

TIES = np.array([[1, 3, 3, 2], [3, 0, 1, 3], [0, 3, 3, 1], [2, 1, 3, 3]], np.float32)
EDGE_GRADIENTS = [
    ("max_pool ties, VALID 2x2/2", lambda tf, x: tf.nn.max_pool2d(x, 2, 2, "VALID"), TIES),
    ("max_pool ties, VALID 3x3/1", lambda tf, x: tf.nn.max_pool2d(x, 3, 1, "VALID"), TIES),
    ("max_pool ties, SAME 2x2/1", lambda tf, x: tf.nn.max_pool2d(x, 2, 1, "SAME"), TIES),
    ("max_pool ties, SAME 3x3/2", lambda tf, x: tf.nn.max_pool2d(x, 3, 2, "SAME"), TIES),
    (
        "max_pool of constants",
        lambda tf, x: tf.nn.max_pool2d(x, 3, 1, "SAME"),
        np.ones((4, 4), np.float32),
    ),
    ("max_pool1d ties", lambda tf, x: tf.nn.max_pool1d(x, 2, 1, "SAME"), TIES[0]),
    (
        "max_pool3d ties",
        lambda tf, x: tf.nn.max_pool3d(x, 2, 1, "SAME"),
        np.stack([TIES, TIES[::-1]]),
    ),
    (
        "leaky_relu at 0",
        lambda tf, x: tf.nn.leaky_relu(x, 0.3),
        np.array([[0.0, 1.0, -1.0]], np.float32),
    ),
    ("crelu at 0", lambda tf, x: tf.nn.crelu(x), np.array([[0.0, 1.0, -1.0]], np.float32)),
    ("embedding_lookup repeats", lambda tf, x: tf.nn.embedding_lookup(x, [0, 0, 3]), TIES),
    (
        "moments of constants",
        lambda tf, x: tf.nn.moments(x, [0, 1])[1],
        np.ones((4, 4), np.float32),
    ),
]


@pytest.mark.parametrize("what, fn, x", EDGE_GRADIENTS, ids=[e[0] for e in EDGE_GRADIENTS])
def test_edge_gradients_are_tfs(what, fn, x):
    def channels_last(f):
        if "pool" not in what:
            return f
        return lambda tf, v: f(tf, tf.reshape(v, (1,) + x.shape + (1,)))

    want = _dense_grad(tensorflow, channels_last(fn), x)
    got = _dense_grad(tapejax, channels_last(fn), x)
    np.testing.assert_array_equal(got, want, err_msg=what)


DILATED = [
    ("conv1d", lambda tf, x, w: tf.nn.conv1d(x, w, 1, "SAME", dilations=2), (1, 9, 2), (3, 2, 2)),
    (
        "conv2d",
        lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME", dilations=2),
        (1, 7, 7, 2),
        (3, 3, 2, 2),
    ),
    (
        "conv2d VALID",
        lambda tf, x, w: tf.nn.conv2d(x, w, 1, "VALID", dilations=2),
        (1, 7, 7, 2),
        (2, 2, 2, 3),
    ),
    (
        "conv3d",
        lambda tf, x, w: tf.nn.conv3d(x, w, [1] * 5, "SAME", dilations=[1, 2, 2, 2, 1]),
        (1, 5, 5, 5, 1),
        (2, 2, 2, 1, 2),
    ),
    (
        "conv2d_transpose",
        lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [1, 7, 7, 2], 1, "SAME", dilations=2),
        (1, 7, 7, 3),
        (3, 3, 2, 3),
    ),
]


@pytest.mark.parametrize("what, fn, xs, ws", DILATED, ids=[d[0] for d in DILATED])
def test_dilated_conv_matches_tfs_convolution(what, fn, xs, ws):
    """TF's CPU kernels refuse dilated 3-D and transposed convolutions and dilated
    gradients; tapejax computes them, equal (values and gradients) to the route TF's CPU
    does take: ``tf.nn.convolution`` (space-to-batch) and its gradient."""
    x, w = arr("float32", xs), arr("float32", ws, seed=1)
    pad = "VALID" if "VALID" in what else "SAME"

    def reference(tf, a, b):
        if "transpose" not in what:
            return tf.nn.convolution(a, b, 1, pad, dilations=2)
        # The transpose is the input-gradient of the dilated convolution.
        z = tf.zeros(list(xs[:-1]) + [ws[-2]])
        with tf.GradientTape() as inner:
            inner.watch(z)
            y = tf.nn.convolution(z, b, 1, pad, dilations=2)
        return inner.gradient(y, z, output_gradients=a)

    def grads(tf, op):
        xt, wt = tf.constant(x), tf.constant(w)
        with tf.GradientTape() as tape:
            tape.watch([xt, wt])
            y = op(tf, xt, wt)
            loss = tf.reduce_sum(y * tf.constant(arr("float32", tuple(y.shape), seed=5)))
        return [_dense(g) for g in tape.gradient(loss, [xt, wt])], np.asarray(y)

    got, got_y = grads(tapejax, fn)
    want, want_y = grads(tensorflow, reference)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-4, atol=1e-5)
    for g, wv in zip(got, want, strict=True):
        np.testing.assert_allclose(g, wv, rtol=1e-4, atol=1e-5)


def test_embedding_lookup_gradients_match_tf():
    """TF's gradients are IndexedSlices; their dense values equal tapejax's."""
    ids = np.array([[6, 0], [3, 3], [5, 1]], np.int32)

    def grads(tf, max_norm):
        shards = [tf.constant(arr("float32", (n, 2), seed=n)) for n in (3, 2, 2)]
        with tf.GradientTape() as tape:
            tape.watch(shards)
            y = tf.nn.embedding_lookup(shards, ids, max_norm=max_norm)
            loss = tf.reduce_sum(y * tf.constant(arr("float32", y.shape, seed=5)))
        return [_dense(g) for g in tape.gradient(loss, shards)]

    for max_norm in (None, 1.0):
        for g, w in zip(grads(tapejax, max_norm), grads(tensorflow, max_norm), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_conv_filter_gradient_through_a_variable():
    """A Keras-style step: the filter is a Variable, the loss a mean of a conv and pools."""

    def step(tf):
        w = tf.Variable(arr("float32", (3, 3, 2, 4), seed=1))
        x = tf.constant(arr("float32", (2, 6, 6, 2)))
        with tf.GradientTape() as tape:
            y = tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME"))
            loss = tf.reduce_mean(tf.nn.avg_pool2d(tf.nn.max_pool2d(y, 2, 2, "SAME"), 3, 1, "SAME"))
        return tape.gradient(loss, w).numpy()

    np.testing.assert_allclose(step(tapejax), step(tensorflow), rtol=1e-4, atol=1e-6)


def test_eager_calls_reuse_one_compiled_program():
    """Repeated eager calls at one shape and one set of arguments compile once."""
    from tapejax._src.ops import conv_ops, pool_ops

    x, w = arr("float32", (1, 5, 5, 2)), arr("float32", (3, 3, 2, 2), seed=1)
    tapejax.nn.conv2d(x, w, 2, "SAME")
    tapejax.nn.max_pool2d(x, 3, 1, "VALID")
    convs, pools = len(conv_ops._conv_ops[2]._compiled), len(pool_ops._max_pool_ops[2]._compiled)
    for _ in range(3):
        tapejax.nn.conv2d(x + 1, w, [2, 2], "SAME")
        tapejax.nn.max_pool2d(x * 2, [3, 3], 1, "VALID")
    assert len(conv_ops._conv_ops[2]._compiled) == convs
    assert len(pool_ops._max_pool_ops[2]._compiled) == pools


def test_conv_and_pool_run_inside_tapejax_function():
    x, w = arr("float32", (1, 5, 5, 2)), arr("float32", (3, 3, 2, 2), seed=1)
    f = tapejax.function(
        lambda a, b: tapejax.nn.max_pool2d(tapejax.nn.conv2d(a, b, 1, "SAME"), 2, 2, "VALID")
    )
    got = f(tapejax.constant(x), tapejax.constant(w))
    want = tensorflow.nn.max_pool2d(tensorflow.nn.conv2d(x, w, 1, "SAME"), 2, 2, "VALID")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)


def test_sufficient_statistics_without_shift_return_none_as_tf():
    x = arr("float32", (2, 3))
    got = tapejax.nn.sufficient_statistics(x, [0])
    want = tensorflow.nn.sufficient_statistics(x, [0])
    assert got[3] is None and want[3] is None
    for g, w in zip(got[:3], want[:3], strict=True):
        assert g.dtype.name == w.dtype.name
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


def test_ctc_loss_of_an_empty_label_is_the_all_blank_path():
    """TF's dense CTC gives log(2) less for an empty label; tapejax gives -log p(all blank)."""
    logits = arr("float32", (5, 2, 3))
    got = tapejax.nn.ctc_loss(np.zeros((2, 0), np.int32), logits, [0, 0], [5, 3]).numpy()
    log_p = np.asarray(tensorflow.nn.log_softmax(logits))[..., 0]
    np.testing.assert_allclose(got, [-log_p[:5, 0].sum(), -log_p[:3, 1].sum()], rtol=1e-5)


def test_ctc_loss_of_an_impossible_alignment_is_inf():
    """Too few frames for the label: -log(0). TF's kernel gives a large finite number."""
    got = tapejax.nn.ctc_loss(np.array([[1, 1, 1]], np.int32), arr("float32", (2, 1, 3)), [3], [2])
    assert np.isinf(got.numpy()).all()


def test_depthwise_conv2d_with_strides_and_dilations_is_not_implemented():
    """TF warns that this is invalid and computes a space-to-batch result of another shape."""
    with pytest.raises(
        NotImplementedError, match="depthwise_conv2d with both strides > 1 and dilations > 1"
    ):
        tapejax.nn.depthwise_conv2d(
            np.ones((1, 7, 7, 2), np.float32),
            np.ones((3, 3, 2, 2), np.float32),
            [1, 2, 2, 1],
            "SAME",
            dilations=[2, 2],
        )


# -- errors: the same expression raises the same error under both frameworks --------------

IAE = "InvalidArgumentError"
X4 = np.ones((1, 5, 5, 2), np.float32)
W4 = np.ones((3, 3, 2, 4), np.float32)
ERRORS = [
    # activations and losses
    (
        lambda tf: tf.nn.gelu(tf.constant([1, 2])),
        "ValueError",
        r"`features.dtype` must be a floating point tensor.",
    ),
    (
        lambda tf: tf.nn.silu(tf.constant([1, 2])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double, complex64, complex128",
    ),
    (
        lambda tf: tf.nn.leaky_relu(tf.constant([1.0]), tf.constant(0.3)),
        "TypeError",
        r"Expected float for argument 'alpha' not",
    ),
    (
        lambda tf: tf.nn.leaky_relu(tf.constant([True])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.nn.crelu(tf.constant([1.0]), axis=1),
        IAE,
        r"ConcatOp : Expected concatenating dimensions in the range \[-1, 1\), but got 1",
    ),
    (
        lambda tf: tf.nn.weighted_cross_entropy_with_logits(tf.ones([2]), tf.ones([3]), 2.0),
        "ValueError",
        r"`logits` and `labels` must have the same shape, received \(\(3,\) vs \(2,\)\).",
    ),
    (
        lambda tf: tf.nn.weighted_cross_entropy_with_logits(
            tf.ones([2], tf.int32), tf.ones([2]), 2.0
        ),
        "TypeError",
        r"Cannot convert 1.0 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.nn.moments(tf.ones([2, 3]), [2]),
        IAE,
        r"Invalid reduction dimension \(2 for input with 2 dimension\(s\)",
    ),
    (
        lambda tf: tf.nn.batch_normalization(
            tf.ones([2, 3]), tf.constant(1), 2.0, None, None, 1e-3
        ),
        IAE,
        r"cannot compute Mul as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor",
    ),
    (
        lambda tf: tf.nn.batch_normalization(
            tf.ones([2, 3]), 0.0, 2.0, None, tf.constant([1, 2, 3]), 1e-3
        ),
        IAE,
        r"cannot compute Mul as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.nn.log_poisson_loss(tf.ones([2]), tf.ones([3])),
        "ValueError",
        r"`log_input` and `targets` must have the same shape, received \(\(3,\) vs \(2,\)\).",
    ),
    (
        lambda tf: tf.nn.compute_average_loss(tf.constant(1.0)),
        "ValueError",
        r"Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1.",
    ),
    (
        lambda tf: tf.nn.local_response_normalization(tf.ones([2, 3, 4])),
        IAE,
        r"in must be 4-dimensional",
    ),
    (
        lambda tf: tf.nn.lrn(tf.ones([1, 2, 3, 4], tf.int32)),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float",
    ),
    (
        lambda tf: tf.nn.bias_add(tf.ones([2, 3, 4]), tf.ones([4]), data_format="NCHW"),
        IAE,
        r"Must provide as many biases as the last dimension of the input tensor: \[4\] vs. \[2,3,4\]",
    ),
    (
        lambda tf: tf.nn.bias_add(tf.ones([2, 3, 4]), tf.ones([4]), data_format="HWC"),
        "ValueError",
        r"`data_format` must be of the form `N...C` or `NC...`. Received: data_format=HWC",
    ),
    # embeddings
    (
        lambda tf: tf.nn.embedding_lookup(tf.ones([3, 2]), [3]),
        IAE,
        r"indices\[0\] = 3 is not in \[0, 3\)",
    ),
    (
        lambda tf: tf.nn.embedding_lookup(tf.ones([3, 2]), [0.0]),
        IAE,
        r"Value for attr 'Tindices' of float is not in the list of allowed values: int16, int32, int64",
    ),
    (
        lambda tf: tf.nn.embedding_lookup([], [0]),
        "ValueError",
        r"Length of params is currently 0. Need at least one param.",
    ),
    (
        lambda tf: tf.nn.embedding_lookup([tf.ones([3, 2]), tf.ones([2, 2])], [5]),
        IAE,
        r"partitions\[0\] = 2 is not in \[0, 2\)",
    ),
    (
        lambda tf: tf.nn.embedding_lookup([tf.ones([4, 2]), tf.ones([2, 2])], [0, 1, 2, 3, 4, 5]),
        IAE,
        r"indices\[2\] = 2 is not in \[0, 2\)",
    ),
    # convolutions
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, "FOO"),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\", \"EXPLICIT\"",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, "same"),
        IAE,
        r"Value for attr 'padding' of \"same\" is not in the list of allowed values",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, "EXPLICIT"),
        "ValueError",
        r"'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must be a list.",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, [[1, 1], [2, 0]]),
        "ValueError",
        r"When padding is a list, it must be of size 4. Received: padding=\[\[1, 1\], \[2, 0\]\] of size 2",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, [[0, 0], [1, 1], [2, 0], 0]),
        "ValueError",
        r"When `padding` is a list, each element of `padding` must be a list/tuple of size 2.",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, [[1, 0], [1, 1], [2, 0], [0, 0]]),
        IAE,
        r"Nonzero explicit padding in the batch or depth dimensions is not supported",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, [[0, 0], [-1, 1], [2, 0], [0, 0]]),
        IAE,
        r"All elements of explicit_paddings must be nonnegative",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, np.ones((3, 3, 3, 4), np.float32), 1, "SAME"),
        IAE,
        r"input depth must be evenly divisible by filter depth: 2 vs 3",
    ),
    (
        lambda tf: tf.nn.conv2d(
            np.ones((1, 5, 5, 4), np.float32), np.ones((3, 3, 2, 3), np.float32), 1, "SAME"
        ),
        IAE,
        r"output depth must be evenly divisible by number of groups: 3 vs 2",
    ),
    (
        lambda tf: tf.nn.conv2d(X4[0], W4, 1, "SAME"),
        IAE,
        r"convolution input must be 4-dimensional: \[5,5,2\]",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4[0], 1, "SAME"),
        IAE,
        r"convolution filter must be 4-dimensional: \[3,2,4\]",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, [1, 1, 1], "SAME"),
        "ValueError",
        r"strides should be of length 1, 2 or 4. Received: strides=\[1, 1, 1\] of length 3",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, [2, 1, 1, 1], "SAME"),
        "UnimplementedError",
        r"Current implementation does not yet support strides in the batch and depth dimensions.",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 0, "SAME"),
        IAE,
        r"Row and column strides should be larger than 0.",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, "SAME", dilations=[2, 1, 1, 1]),
        "UnimplementedError",
        r"Current implementation does not yet support dilations in the batch and depth dimensions.",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, "SAME", dilations=0),
        IAE,
        r"Dilated rates should be larger than 0.",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, np.ones((7, 7, 2, 4), np.float32), 1, "VALID"),
        IAE,
        r"Computed output size would be negative: -1 \[input_size: 5, effective_filter_size: 7, stride: 1\]",
    ),
    (
        lambda tf: tf.nn.conv2d(tf.constant(X4), tf.constant(W4.astype(np.int32)), 1, "SAME"),
        IAE,
        r"cannot compute Conv2D as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.nn.conv2d(X4.astype(np.uint8), W4.astype(np.uint8), 1, "SAME"),
        IAE,
        r"Value for attr 'T' of uint8 is not in the list of allowed values: half, bfloat16, float, double, int32",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, np.ones((3, 3, 0, 4), np.float32), 1, "SAME"),
        IAE,
        r"filter depth must be stricly positive, got 0",
    ),
    (
        lambda tf: tf.nn.conv2d(
            np.ones((1, 2, 5, 5), np.float32), W4, 1, "SAME", data_format="NCHW"
        ),
        "UnimplementedError",
        r"The Conv2D op currently only supports the NHWC tensor format on the CPU. The op was given the format: NCHW",
    ),
    (
        lambda tf: tf.nn.conv2d(X4, W4, 1, "SAME", data_format="NWHC"),
        IAE,
        r"Value for attr 'data_format' of \"NWHC\" is not in the list of allowed values: \"NHWC\", \"NCHW\"",
    ),
    (
        lambda tf: tf.nn.conv1d(
            np.ones((1, 5, 4), np.float32), np.ones((3, 3, 4), np.float32), 1, "SAME"
        ),
        IAE,
        r"input depth must be evenly divisible by filter depth: 4 vs 3",
    ),
    (
        lambda tf: tf.nn.conv1d(
            np.ones((5, 2), np.float32), np.ones((3, 2, 4), np.float32), 1, "SAME"
        ),
        IAE,
        r"convolution input must be 4-dimensional: \[1,5,2\]",
    ),
    (
        lambda tf: tf.nn.conv1d(
            np.ones((1, 5, 2), np.float32),
            np.ones((3, 2, 4), np.float32),
            1,
            "SAME",
            data_format="XYZ",
        ),
        "ValueError",
        r"`data_format` must be 'NWC' or 'NCW'. Received: data_format=XYZ",
    ),
    (
        lambda tf: tf.nn.conv1d(
            np.ones((1, 2, 5), np.float32),
            np.ones((3, 2, 4), np.float32),
            1,
            "SAME",
            data_format="NCW",
        ),
        "UnimplementedError",
        r"The Conv2D op currently only supports the NHWC tensor format on the CPU",
    ),
    (
        lambda tf: tf.nn.conv1d(
            np.ones((1, 5, 2), np.float32),
            np.ones((3, 2, 4), np.float32),
            1,
            [[0, 0], [1, 1], [0, 0]],
        ),
        "TypeError",
        r"Expected string for argument 'padding' not",
    ),
    (
        lambda tf: tf.nn.conv3d(
            np.ones((5, 5, 5, 2), np.float32),
            np.ones((3, 3, 3, 2, 4), np.float32),
            [1, 1, 1, 1, 1],
            "SAME",
        ),
        IAE,
        r"input must be 5-dimensional",
    ),
    (
        lambda tf: tf.nn.conv3d(
            np.ones((1, 5, 5, 5, 4), np.float32),
            np.ones((3, 3, 3, 3, 4), np.float32),
            [1, 1, 1, 1, 1],
            "SAME",
        ),
        IAE,
        r"Input depth must be evenly divisible by filter depth: 4 vs 3",
    ),
    (
        lambda tf: tf.nn.conv3d(
            np.ones((1, 5, 5, 5, 4), np.float32),
            np.ones((3, 3, 3, 2, 4), np.float32),
            [1, 1, 1, 1, 1],
            "SAME",
        ),
        IAE,
        r"Number of channels in filter \(2\) must match last dimension of input \(4\)",
    ),
    (
        lambda tf: tf.nn.conv3d(
            np.ones((1, 5, 5, 5, 2), np.float32), np.ones((3, 3, 3, 2, 4), np.float32), 1, "SAME"
        ),
        "TypeError",
        r"Expected list for 'strides' argument to 'conv3d' Op, not 1.",
    ),
    (
        lambda tf: tf.nn.conv3d(
            np.ones((1, 5, 5, 5, 2), np.float32),
            np.ones((3, 3, 3, 2, 4), np.float32),
            [1, 2, 1],
            "SAME",
        ),
        IAE,
        r"Length for attr 'strides' of 3 must be at least minimum 5",
    ),
    (
        lambda tf: tf.nn.conv3d(
            np.ones((1, 2, 5, 5, 5), np.float32),
            np.ones((3, 3, 3, 2, 4), np.float32),
            [1, 1, 1, 1, 1],
            "SAME",
            data_format="NCDHW",
        ),
        IAE,
        r"CPU implementation of Conv3D currently only supports the NHWC tensor format.",
    ),
    (
        lambda tf: tf.nn.conv3d(
            np.ones((1, 5, 5, 5, 2), np.int32),
            np.ones((3, 3, 3, 2, 4), np.int32),
            [1, 1, 1, 1, 1],
            "SAME",
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.nn.convolution(
            np.ones((1, 2, 2, 2, 2, 2), np.float32),
            np.ones((1, 1, 1, 1, 2, 2), np.float32),
            1,
            "SAME",
        ),
        "ValueError",
        r"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims=4.",
    ),
    (
        lambda tf: tf.nn.convolution(X4, W4, 2, "SAME", dilations=2),
        "ValueError",
        r"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: strides=\[2 2\] and dilation_rate=\[2 2\]",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d(
            X4, np.ones((3, 3, 3, 2), np.float32), [1, 1, 1, 1], "SAME"
        ),
        IAE,
        r"input and filter must have the same depth: 2 vs 3",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d(
            np.ones((1, 2, 5, 5), np.float32),
            np.ones((3, 3, 2, 2), np.float32),
            [1, 1, 1, 1],
            "SAME",
            data_format="NCHW",
        ),
        "UnimplementedError",
        r"Depthwise convolution on CPU is only supported for NHWC format",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d(
            X4[0], np.ones((3, 3, 2, 2), np.float32), [1, 1, 1, 1], "SAME"
        ),
        IAE,
        r"input must be 4-dimensional\[5,5,2\]",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d(X4, np.ones((3, 3, 2, 2), np.float32), 1, "SAME"),
        "TypeError",
        r"Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, not 1.",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d(X4, np.ones((3, 3, 2, 2), np.float32), [2, 2], "SAME"),
        IAE,
        r"Sliding window strides field must specify 4 dimensions",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d(
            X4.astype(np.int32), np.ones((3, 3, 2, 2), np.int32), [1, 1, 1, 1], "SAME"
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.nn.separable_conv2d(
            X4,
            np.ones((3, 3, 2, 2), np.float32),
            np.ones((2, 2, 4, 3), np.float32),
            [1, 1, 1, 1],
            "SAME",
        ),
        "ValueError",
        r"Dimensions 2 and 1 are not compatible",
    ),
    (
        lambda tf: tf.nn.separable_conv2d(
            X4,
            np.ones((3, 3, 2, 2), np.float32),
            np.ones((1, 1, 3, 3), np.float32),
            [1, 1, 1, 1],
            "SAME",
        ),
        IAE,
        r"input depth must be evenly divisible by filter depth: 4 vs 3",
    ),
    # transposed convolutions
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((1, 3, 3, 4), np.float32),
            np.ones((3, 3, 2, 4), np.float32),
            [1, 5, 5, 2],
            1,
            "SAME",
        ),
        IAE,
        r"Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 3, computed = 5 spatial_dim: 1 input: 5 filter: 3 output: 3 stride: 1 dilation: 1",
    ),
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((1, 3, 3, 4), np.float32),
            np.ones((3, 3, 2, 3), np.float32),
            [1, 6, 6, 2],
            2,
            "SAME",
        ),
        IAE,
        r"Conv2DCustomBackpropInput: filter and out_backprop must have the same out_depth",
    ),
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((1, 3, 3, 4), np.float32),
            np.ones((3, 3, 2, 4), np.float32),
            [1, 6, 6, 3],
            2,
            "SAME",
        ),
        IAE,
        r"Conv2DCustomBackpropInput: input depth must be evenly divisible by filter depth",
    ),
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((1, 3, 3, 4), np.float32), np.ones((3, 3, 1, 4), np.float32), [1, 6, 6, 2], 2
        ),
        IAE,
        r"Gradients for grouped convolutions are not supported on CPU. Please file a feature request if you run into this issue. Computed input depth 2 doesn't match filter input depth 1",
    ),
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((1, 3, 3, 4), np.float32), np.ones((3, 3, 2, 4), np.float32), [2, 6, 6, 2], 2
        ),
        IAE,
        r"Conv2DCustomBackpropInput: input and out_backprop must have the same batch size. Input batch: 2, outbackprop batch: 1, batch_dim: 0",
    ),
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((1, 3, 3, 4), np.float32), np.ones((3, 3, 2, 4), np.float32), [6, 6, 2], 2
        ),
        IAE,
        r"Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: 3",
    ),
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((3, 3, 4), np.float32), np.ones((3, 3, 2, 4), np.float32), [1, 6, 6, 2], 2
        ),
        IAE,
        r"input_sizes must be 4-dimensional, got: 3",
    ),
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((1, 3, 3, 4), np.float32), np.ones((3, 2, 4), np.float32), [1, 6, 6, 2], 2
        ),
        IAE,
        r"Conv2DCustomBackpropInput: filter must be 4-dimensional",
    ),
    (
        lambda tf: tf.nn.conv2d_transpose(
            np.ones((1, 3, 3, 4), np.float32),
            np.ones((3, 3, 2, 4), np.float32),
            [1, 6, 6, 2],
            2,
            "SAME",
            data_format="NCHW",
        ),
        IAE,
        r"Conv2DCustomBackpropInputOp only supports NHWC.",
    ),
    (
        lambda tf: tf.nn.conv1d_transpose(
            np.ones((1, 2, 2), np.float32), np.ones((2, 3, 2), np.float32), [1, 5, 3], 2
        ),
        IAE,
        r"Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 2, computed = 3 spatial_dim: 2 input: 5 filter: 2 output: 2 stride: 2 dilation: 1",
    ),
    (
        lambda tf: tf.nn.conv3d_transpose(
            np.ones((1, 2, 2, 2, 2), np.float32),
            np.ones((2, 2, 2, 3, 2), np.float32),
            [1, 5, 5, 5, 3],
            [1, 2, 2, 2, 1],
        ),
        IAE,
        r"Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = 2, computed = 3 spatial_dim: 1 input: 5 filter: 2 output: 2 stride: 2 dilation: 1",
    ),
    (
        lambda tf: tf.nn.conv3d_transpose(
            np.ones((1, 2, 2, 2, 2), np.float32),
            np.ones((2, 2, 2, 3, 2), np.float32),
            [1, 4, 4, 4, 2],
            [1, 2, 2, 2, 1],
        ),
        IAE,
        r"input and filter_sizes must have the same number of channels. Got 2 for input and 3 for filter_sizes",
    ),
    (
        lambda tf: tf.nn.conv3d_transpose(
            np.ones((1, 2, 2, 2, 3), np.float32),
            np.ones((2, 2, 2, 3, 2), np.float32),
            [1, 4, 4, 4, 3],
            [1, 2, 2, 2, 1],
        ),
        IAE,
        r"out_backprop and filter_sizes must have the same number of channels. Got 3 for out_backprop and 2 for filter_sizes",
    ),
    (
        lambda tf: tf.nn.conv_transpose(
            np.ones((1, 3, 3, 4), np.float32), np.ones((3, 3, 2, 4), np.float32), [1, 6], 2
        ),
        "ValueError",
        r"`output_shape` must be of length 3, 4 or 5. Received: output_shape=\[1, 6\] of length 2.",
    ),
    # pooling
    (
        lambda tf: tf.nn.max_pool2d(X4, 2, 1, "FOO"),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\", \"EXPLICIT\"",
    ),
    (
        lambda tf: tf.nn.avg_pool2d(X4, 2, 1, "FOO"),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\"",
    ),
    (
        lambda tf: tf.nn.max_pool2d(X4[0], 2, 1, "SAME"),
        IAE,
        r"tensor_in_shape must have 2 spatial dimensions. 3 0",
    ),
    (
        lambda tf: tf.nn.max_pool1d(np.ones((7, 2), np.float32), 2, 1, "SAME"),
        IAE,
        r"tensor_in_shape must have 2 spatial dimensions. 3 0",
    ),
    (
        lambda tf: tf.nn.avg_pool3d(np.ones((7, 2, 2, 2), np.float32), 2, 1, "SAME"),
        IAE,
        r"tensor_in must be 5-dimensional",
    ),
    (
        lambda tf: tf.nn.max_pool2d(X4, [2, 2, 2, 1], 1, "SAME"),
        "UnimplementedError",
        r"Pooling is not yet supported on the batch dimension.",
    ),
    (
        lambda tf: tf.nn.max_pool2d(X4, [1, 2, 2], 1, "SAME"),
        "ValueError",
        r"ksize should be of length 1, 2 or 4. Received: ksize=\[1, 2, 2\] of length 3",
    ),
    (
        lambda tf: tf.nn.max_pool2d(X4, 7, 1, "VALID"),
        IAE,
        r"Computed output size would be negative: -1 \[input_size: 5, effective_filter_size: 7, stride: 1\]",
    ),
    (
        lambda tf: tf.nn.max_pool2d(X4, 2, 1, [[0, 0], [1, 1], [2, 0], [0, 0]]),
        IAE,
        r"Left padding 2 needs to be smaller than the window size 2",
    ),
    (
        lambda tf: tf.nn.avg_pool2d(X4, 2, 1, [[0, 0], [1, 1], [1, 0], [0, 0]]),
        "TypeError",
        r"Expected string for argument 'padding' not",
    ),
    (
        lambda tf: tf.nn.avg_pool2d(np.ones((1, 3, 3, 1), np.int32), 2, 1, "SAME"),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.nn.max_pool3d(np.ones((1, 4, 4, 4, 2), np.int32), 2, 1, "SAME"),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float",
    ),
    (
        lambda tf: tf.nn.max_pool2d(X4, 2, 1, "SAME", data_format="NCHW"),
        IAE,
        r"Default MaxPoolingOp only supports NHWC on device type CPU",
    ),
    (
        lambda tf: tf.nn.avg_pool2d(X4, 2, 1, "SAME", data_format="NCHW"),
        IAE,
        r"Default AvgPoolingOp only supports NHWC on device type CPU",
    ),
    (
        lambda tf: tf.nn.max_pool3d(
            np.ones((1, 2, 4, 4, 4), np.float32), 2, 1, "SAME", data_format="NCDHW"
        ),
        IAE,
        r"Default Pooling3DOp only supports NDHWC on device type CPU",
    ),
    (
        lambda tf: tf.nn.max_pool2d(
            np.ones((1, 4, 4, 4), np.float32), [1, 1, 1, 2], [1, 1, 1, 1], "VALID"
        ),
        "UnimplementedError",
        r"Depthwise max pooling requires the depth window to equal the depth stride",
    ),
    (
        lambda tf: tf.nn.max_pool2d(
            np.ones((1, 4, 4, 4), np.float32), [1, 2, 1, 2], [1, 1, 1, 2], "VALID"
        ),
        "UnimplementedError",
        r"MaxPooling supports exactly one of pooling across depth or pooling across width/height.",
    ),
    (
        lambda tf: tf.nn.max_pool2d(
            np.ones((1, 4, 4, 4), np.float32), [1, 1, 1, 3], [1, 1, 1, 3], "VALID"
        ),
        "UnimplementedError",
        r"Depthwise max pooling requires the depth window to evenly divide the input depth",
    ),
    (
        lambda tf: tf.nn.avg_pool2d(
            np.ones((1, 4, 4, 4), np.float32), [1, 1, 1, 2], [1, 1, 1, 2], "VALID"
        ),
        "UnimplementedError",
        r"Non-spatial pooling is not yet supported. Volunteers\? :\)",
    ),
    (
        lambda tf: tf.nn.max_pool3d(
            np.ones((1, 4, 4, 4, 4), np.float32), [1, 1, 1, 1, 2], [1, 1, 1, 1, 2], "VALID"
        ),
        "UnimplementedError",
        r"Pooling is not yet supported on the depth dimension.",
    ),
    (
        lambda tf: tf.nn.max_pool(np.ones((1, 2, 2, 2, 2, 2), np.float32), 2, 1, "SAME"),
        "ValueError",
        r"`input.shape.rank` must be 3, 4 or 5. Received: input.shape=\(1, 2, 2, 2, 2, 2\) of rank 6.",
    ),
    (
        lambda tf: tf.nn.pool(X4, [2, 2], "MAX", padding="SAME", dilations=[2, 2]),
        "ValueError",
        r"pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: padding=SAME and dilation_rate=\[2 2\]",
    ),
    (
        lambda tf: tf.nn.pool(X4, [2, 2], "MAX", strides=[2, 2], dilations=[2, 2]),
        "ValueError",
        r"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: strides=\[2 2\] and dilation_rate=\[2 2\]",
    ),
    (lambda tf: tf.nn.pool(X4, [2, 2], "MIN"), "ValueError", r"2-D MIN pooling is not supported."),
    (lambda tf: tf.nn.pool(X4, [2], "MAX"), "ValueError", r"Shape \(1, 5, 5, 2\) must have rank 3"),
    # TF's CPU build has no bfloat16 LRN kernel: NotFoundError, before the rank check.
    no_kernel_case(
        lambda tf: tf.nn.lrn(tf.ones([2, 3], tf.bfloat16)),
        "LRN[T=DT_BFLOAT16, alpha=1, beta=0.5, bias=1, depth_radius=5]",
    ),
    no_kernel_case(
        lambda tf: tf.nn.local_response_normalization(
            tf.ones([1, 2, 2, 3], tf.bfloat16), depth_radius=2, bias=1e-5, alpha=0.3, beta=0.75
        ),
        "LRN[T=DT_BFLOAT16, alpha=0.3, beta=0.75, bias=1e-05, depth_radius=2]",
    ),
    # No half 3-D pooling kernels on TF's CPU (nor double AvgPool3D): NotFoundError.
    no_kernel_case(
        lambda tf: tf.nn.avg_pool3d(tf.ones([1, 2, 2, 2, 1], tf.float16), [1, 2, 1], 1, "SAME"),
        'AvgPool3D[T=DT_HALF, data_format="NDHWC", ksize=[1, 1, 2, 1, 1], padding="SAME", '
        "strides=[1, 1, 1, 1, 1]]",
    ),
    no_kernel_case(
        lambda tf: tf.nn.max_pool3d(tf.ones([1, 2, 2, 2, 1], tf.float16), 1, [1, 2, 1], "VALID"),
        'MaxPool3D[T=DT_HALF, data_format="NDHWC", ksize=[1, 1, 1, 1, 1], padding="VALID", '
        "strides=[1, 1, 2, 1, 1]]",
    ),
    no_kernel_case(
        lambda tf: tf.nn.pool(tf.ones([1, 2, 2, 2, 1], tf.float16), [1, 1, 1], "MAX"),
        'MaxPool3D[T=DT_HALF, data_format="NDHWC", ksize=[1, 1, 1, 1, 1], padding="VALID", '
        "strides=[1, 1, 1, 1, 1]]",
    ),
]


# crelu negates first: TF's Neg has no unsigned kernel.
ERRORS += [
    (
        lambda tf: tf.nn.crelu(tf.constant([1, 2], tf.uint8)),
        IAE,
        r"Value for attr 'T' of uint8 is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128",
    ),
    (
        lambda tf: tf.nn.crelu(tf.constant([1, 2], tf.uint16)),
        IAE,
        r"Value for attr 'T' of uint16 is not in the list of allowed values",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


def test_tf_allowed_entries_are_tfs():
    """The op-def type lists this module adds to ``_helpers.TF_ALLOWED`` are TF's, verbatim."""
    check_tf_allowed(
        (
            "Conv2D",
            "Conv3D",
            "DepthwiseConv2dNative",
            "Conv2DBackpropInput",
            "Conv3DBackpropInputV2",
            "MaxPool",
            "MaxPool3D",
            "AvgPool",
            "AvgPool3D",
            "LeakyRelu",
            "LRN",
        )
    )


def test_compute_average_loss_of_ints_is_float32_without_x64():
    """TF's float64 mean of an int32 loss is float32 without JAX's x64 mode (docs/compat.md)."""
    if jax.config.jax_enable_x64:
        pytest.skip("needs JAX's x64 mode off")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the float64-as-float32 notice
        out = tapejax.nn.compute_average_loss(tapejax.constant([3, 4]), global_batch_size=4)
    assert out.dtype == tapejax.float32
    assert out.numpy() == 1.75
