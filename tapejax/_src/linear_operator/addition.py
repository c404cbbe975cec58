"""Sums of operators as one operator of the narrowest type that holds them (TF's private
``linear_operator_addition``, which ``LinearOperatorBlockLowerTriangular.inverse`` uses).

Operators are added in tiers: identities to a scaled identity, diagonal-like ones to a
diagonal, with lower-triangular ones to a lower-triangular, anything else to a full matrix.
"""

from __future__ import annotations

from ..ops import creation_ops
from . import _util
from .diag import LinearOperatorDiag
from .full_matrix import LinearOperatorFullMatrix
from .identity import LinearOperatorIdentity, LinearOperatorScaledIdentity
from .linear_operator import LinearOperator
from .lower_triangular import LinearOperatorLowerTriangular

SUPPORTED_OPERATORS = [
    LinearOperatorDiag,
    LinearOperatorLowerTriangular,
    LinearOperatorFullMatrix,
    LinearOperatorIdentity,
    LinearOperatorScaledIdentity,
]

_IDENTITY, _SCALED_IDENTITY, _DIAG, _TRIL, _MATRIX = (
    "identity",
    "scaled_identity",
    "diag",
    "tril",
    "matrix",
)
_DIAG_LIKE = {_DIAG, _IDENTITY, _SCALED_IDENTITY}
_IDENTITY_FAMILY = {_IDENTITY, _SCALED_IDENTITY}
_EFFICIENT_ADD_TO_TENSOR = _DIAG_LIKE


def _type(operator) -> str:
    for cls, kind in (
        (LinearOperatorDiag, _DIAG),
        (LinearOperatorLowerTriangular, _TRIL),
        (LinearOperatorFullMatrix, _MATRIX),
        (LinearOperatorIdentity, _IDENTITY),
        (LinearOperatorScaledIdentity, _SCALED_IDENTITY),
    ):
        if isinstance(operator, cls):
            return kind
    raise TypeError(
        "Expected operator to be one of [LinearOperatorDiag, LinearOperatorLowerTriangular, "
        "LinearOperatorFullMatrix, LinearOperatorIdentity, LinearOperatorScaledIdentity]. "
        f"Received: {operator}"
    )


def _hints(op1, op2) -> dict:
    """TF's ``_infer_hints_allowing_override`` without overrides."""
    is_self_adjoint = op1.is_self_adjoint and op2.is_self_adjoint
    is_positive_definite = op1.is_positive_definite and op2.is_positive_definite
    return dict(
        is_non_singular=True if is_positive_definite else None,
        is_self_adjoint=is_self_adjoint,
        is_positive_definite=is_positive_definite,
    )


def _multiplier(op):
    if _type(op) == _SCALED_IDENTITY:
        return op.multiplier
    return creation_ops.ones(op.batch_shape.as_list(), dtype=op.dtype)


def _add_scaled_identities(op1, op2, name, hints):
    return LinearOperatorScaledIdentity(
        num_rows=op1.range_dimension_tensor(),
        multiplier=_multiplier(op1) + _multiplier(op2),
        name=name,
        **hints,
    )


def _add_diags(op1, op2, name, hints):
    return LinearOperatorDiag(diag=op1.diag_part() + op2.diag_part(), name=name, **hints)


def _dense_sum(op1, op2):
    if _type(op1) in _EFFICIENT_ADD_TO_TENSOR:
        return op1.add_to_tensor(op2.to_dense())
    return op2.add_to_tensor(op1.to_dense())


def _add_trils(op1, op2, name, hints):
    return LinearOperatorLowerTriangular(tril=_dense_sum(op1, op2), name=name, **hints)


def _add_matrices(op1, op2, name, hints):
    return LinearOperatorFullMatrix(matrix=_dense_sum(op1, op2), name=name, **hints)


# (can it add these two?, how) per tier, narrowest first.
_TIERS = [
    [(lambda a, b: not {_type(a), _type(b)} - _IDENTITY_FAMILY, _add_scaled_identities)],
    [(lambda a, b: not {_type(a), _type(b)} - _DIAG_LIKE, _add_diags)],
    [(lambda a, b: not {_type(a), _type(b)} - (_DIAG_LIKE | {_TRIL}), _add_trils)],
    [(lambda a, b: True, _add_matrices)],
]


def add_operators(operators, operator_name=None):
    """The sum of ``operators`` as a list of as few operators as the tiers allow."""
    operators = list(reversed(operators))
    if len(operators) < 1:
        raise ValueError(
            f"Argument `operators` must contain at least one operator. Received: {operators}."
        )
    if not all(isinstance(op, LinearOperator) for op in operators):
        raise TypeError(
            "Argument `operators` must contain only LinearOperator instances. "
            f"Received: {operators}."
        )
    _static_check_for_same_dimensions(operators)
    _util.broadcast_shapes(*(op.batch_shape for op in operators))
    next_tier = list(operators)
    for tier in _TIERS:
        this_tier, next_tier = next_tier, []
        while this_tier:
            op1 = this_tier.pop()
            op2, adder = _pop_a_match(op1, this_tier, tier)
            if op2 is None:
                next_tier.append(op1)
                continue
            name = operator_name or f"Add/{op1.name}__{op2.name}/"
            this_tier.append(adder(op1, op2, name, _hints(op1, op2)))
    return next_tier


def _pop_a_match(op1, operator_list, tier):
    for i in range(1, len(operator_list) + 1):
        op2 = operator_list[-i]
        for can_add, adder in tier:
            if can_add(op1, op2):
                return operator_list.pop(-i), adder
    return None, None


def _static_check_for_same_dimensions(operators):
    if len(operators) < 2:
        return
    for what, attr in (
        ("`domain_dimension`", "domain_dimension"),
        ("`range_dimension`", "range_dimension"),
    ):
        dims = [(op.name, getattr(op, attr)) for op in operators if getattr(op, attr) is not None]
        if len({value for _, value in dims}) > 1:
            subject = "All `operators`" if attr == "domain_dimension" else "All operators"
            raise ValueError(f"{subject} must have the same {what}. Received: {dims}.")
