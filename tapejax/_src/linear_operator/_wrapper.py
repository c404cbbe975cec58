"""What ``LinearOperatorAdjoint`` and ``LinearOperatorInversion`` share: an operator
defined by another one, whose hints it takes (a contradicting hint is an error)."""

from __future__ import annotations

from . import _util
from .linear_operator import LinearOperator

_WORDS = {
    "is_square": "square",
    "is_non_singular": "non-singular",
    "is_self_adjoint": "self-adjoint",
    "is_positive_definite": "positive-definite",
}


class OperatorWrapper(LinearOperator):
    """A ``LinearOperator`` of ``operator``; ``_relation`` names it in the hint errors."""

    _relation = ""
    _name_suffix = ""

    def __init__(self, operator, parameters, name, hints):
        self._operator = operator
        combine = _util.use_operator_or_provided_hint_unless_contradicting
        hints = {
            hint: combine(
                operator,
                hint,
                hints[hint],
                f"An operator is {word} if and only if its {self._relation} is {word}.",
            )
            for hint, word in _WORDS.items()
        }
        if name is None:
            name = operator.name + self._name_suffix
        super().__init__(dtype=operator.dtype, parameters=parameters, name=name, **hints)

    @property
    def operator(self):
        return self._operator

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _cond(self):
        return self.operator.cond()

    @property
    def _composite_tensor_fields(self):
        return ("operator",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operator": 0}
