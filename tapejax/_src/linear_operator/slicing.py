"""``operator[slices]``: an operator of the same class over a slice of the batch dimensions
(TF's ``linalg/slicing.py``).

Each parameter is broadcast to the operator's batch rank (leading 1s), then sliced on its
batch dimensions, with a size-1 (broadcast) dimension kept at index 0.
"""

from __future__ import annotations

import collections.abc

from ..ops import array_ops
from .linear_operator import LinearOperator


def _map_up_to(fn, param, ndims):
    if param is None:
        return None
    if isinstance(param, (list, tuple)):
        return type(param)(_map_up_to(fn, p, n) for p, n in zip(param, ndims))
    return fn(param, ndims)


def _broadcast_to_rank(param, ndims, batch_rank):
    """``param`` with leading 1s up to ``batch_rank`` batch dimensions."""
    if isinstance(param, LinearOperator):
        overrides = {
            name: _map_up_to(
                lambda p, n: _broadcast_to_rank(p, n, batch_rank), getattr(param, name), sub
            )
            for name, sub in param._experimental_parameter_ndims_to_matrix_ndims.items()
        }
        return type(param)(**dict(param.parameters, **overrides))
    shape = param.shape.as_list()
    missing = batch_rank + ndims - len(shape)
    if missing <= 0:
        return param
    return array_ops.broadcast_to(param, [1] * missing + shape)


def _sanitize_slices(slices, intended_shape, deficient_shape):
    """``slices`` with the indices of dimensions the parameter broadcasts set to 0."""
    sanitized, idx = [], 0
    for slc in slices:
        if slc is Ellipsis:
            if idx < 0:
                raise ValueError(f"Found multiple `...` in slices {slices}")
            after = slices[slices.index(Ellipsis) + 1 :]
            idx = -sum(s is not None for s in after)
        elif slc is not None:
            is_broadcast = intended_shape[idx] > deficient_shape[idx]
            if isinstance(slc, slice):
                if is_broadcast:
                    start, stop, step = slc.start, slc.stop, slc.step
                    slc = slice(
                        None if start is None else 0,
                        None if stop is None else 1,
                        None if step is None else 1,
                    )
            elif is_broadcast:
                slc = 0
            idx += 1
        sanitized.append(slc)
    return sanitized


def _slice_single_param(param, ndims, slices, batch_shape):
    param = _broadcast_to_rank(param, ndims, len(batch_shape))
    if isinstance(param, LinearOperator):
        param_batch_shape = param.batch_shape.as_list()
    else:
        shape = param.shape.as_list()
        param_batch_shape = shape[: len(shape) - ndims]
    if batch_shape and not param_batch_shape:
        return param
    param_slices = _sanitize_slices(slices, batch_shape, param_batch_shape)
    if ndims > 0:
        if not any(s is Ellipsis for s in slices):
            param_slices.append(Ellipsis)
        param_slices += [slice(None)] * ndims
    return param[tuple(param_slices)]


def batch_slice(linop, params_overrides, slices):
    """``linop`` sliced along its batch dimensions, ``params_overrides`` replacing
    parameters of the result."""
    if not isinstance(slices, collections.abc.Sequence):
        slices = (slices,)
    slices = tuple(slices)
    overrides = {}
    if not (len(slices) == 1 and slices[0] is Ellipsis):
        batch_shape = linop.batch_shape.as_list()
        for name, ndims in linop._experimental_parameter_ndims_to_matrix_ndims.items():
            param = getattr(linop, name)
            if param is not None:
                overrides[name] = _map_up_to(
                    lambda p, n: _slice_single_param(p, n, slices, batch_shape), param, ndims
                )
    overrides.update(params_overrides)
    return type(linop)(**dict(linop.parameters, **overrides))
