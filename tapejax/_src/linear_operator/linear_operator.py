"""``LinearOperator`` (``tf.linalg.LinearOperator``): the abstract base of the family.

A subclass implements the underscore hooks (``_shape``, ``_matmul``, optionally
``_shape_tensor``, ``_solve``, ``_determinant``, ...), as in TF; the public methods check
their arguments, then call the hook, whose TF default (through ``to_dense`` where nothing
better is known) is in ``_defaults.py``. Operator-valued results (``adjoint``, ``inverse``,
``cholesky``, ``matmul``/``solve`` of two operators) go through the ``_linop_*`` hooks,
which subclasses override with TF's structure-preserving rules.

The class is a ``tapejax.Module`` (TF's is a ``tf.Module``): ``trainable_variables`` lists
the Variables it was built from, and operators inside it are its submodules.
"""

from __future__ import annotations

import abc
import contextlib

from .. import dtypes
from ..conversion import convert_to_tensor
from ..module import Module
from ..ops import (
    array_ops,
)
from ..tensor import Tensor
from ..variables import name_scope
from . import _composite, _util
from ._defaults import DenseDefaults

__all__ = ["LinearOperator"]


class LinearOperator(DenseDefaults, Module, metaclass=abc.ABCMeta):
    """Base class of a [batch of] linear operator[s] (``tf.linalg.LinearOperator``).

    An operator acts like a batch matrix ``A`` of shape ``[B1, ..., Bb, M, N]`` without
    necessarily storing it. Subclasses implement ``_shape`` and ``_matmul`` (and, for
    speed, ``_solve``, ``_determinant``, ``_to_dense``, ...), and pass the arguments they
    were built from as ``parameters``.

    Args:
        dtype: the dtype of the tensors this operator acts on.
        graph_parents: deprecated, as in TF: a list of Tensors, kept and otherwise unused.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints
            (``True``/``False``/``None``), checked for consistency as TF does.
        name: the operator's name (default: the class name).
        parameters: the constructor's arguments, returned by ``parameters``.

    Example:
        >>> import tapejax as tf
        >>> class Scale(tf.linalg.LinearOperator):
        ...     def __init__(self, s):
        ...         self.s = tf.convert_to_tensor(s)
        ...         super().__init__(dtype=self.s.dtype, is_square=True, parameters={"s": s})
        ...     def _shape(self):
        ...         return tf.TensorShape([2, 2])
        ...     def _matmul(self, x, adjoint=False, adjoint_arg=False):
        ...         return self.s * (tf.linalg.adjoint(x) if adjoint_arg else x)
        >>> Scale(3.0).to_dense().numpy()
        array([[3., 0.],
               [0., 3.]], dtype=float32)
    """

    def __init__(
        self,
        dtype,
        graph_parents=None,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
        parameters=None,
    ):
        if is_positive_definite:
            is_non_singular = _util.settled(
                is_non_singular, True, "A positive definite matrix is always non-singular."
            )
        if is_non_singular:
            is_square = _util.settled(is_square, True, "A non-singular matrix is always square.")
        if is_self_adjoint:
            is_square = _util.settled(is_square, True, "A self-adjoint matrix is always square.")
        self._is_square_set_or_implied_by_hints = is_square
        if graph_parents is not None:
            self._set_graph_parents(graph_parents)
        else:
            self._graph_parents = []
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype else dtype
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._parameters = parameters
        self._parameters_sanitized = False
        self._name = name or type(self).__name__
        # tf.Module's attribute; TF's LinearOperator does not run Module's __init__ (its
        # names need not be identifiers), and neither does this one.
        self._scope_name = self._name + "/"

    @contextlib.contextmanager
    def _name_scope(self, name=None):
        full_name = self.name if name is None else self.name + "/" + name
        with name_scope(full_name) as scope:
            yield scope

    # -- properties -------------------------------------------------------------------------------

    @property
    def variables(self) -> tuple:
        """The Variables this operator holds, in TF's order (see ``trainable_variables``)."""
        return _composite.operator_variables(self, lambda v: True)

    @property
    def trainable_variables(self) -> tuple:
        """The trainable Variables this operator (and the operators it holds) was built from.

        In TF's order: attributes by name, an operator held in one expanded in place.
        """
        return _composite.operator_variables(self, lambda v: v.trainable)

    @property
    def non_trainable_variables(self) -> tuple:
        return _composite.operator_variables(self, lambda v: not v.trainable)

    @property
    def parameters(self) -> dict:
        """The arguments this operator was built with."""
        return dict(self._parameters)

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def graph_parents(self) -> list:
        return self._graph_parents

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        """Whether the operator is square: the hint, else whether its two dimensions agree."""
        auto_square_check = self.domain_dimension == self.range_dimension
        if self._is_square_set_or_implied_by_hints is False and auto_square_check:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_set_or_implied_by_hints is None:
            return auto_square_check
        return self._is_square_set_or_implied_by_hints

    # -- shapes ---------------------------------------------------------------------------------

    @abc.abstractmethod
    def _shape(self):
        raise NotImplementedError("_shape is not implemented.")

    @property
    def shape(self):
        """``TensorShape([B1, ..., Bb, M, N])``."""
        return self._shape()

    def _shape_tensor(self):
        raise NotImplementedError("_shape_tensor is not implemented.")

    def shape_tensor(self, name="shape_tensor"):
        """The shape as an int32 Tensor."""
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return _util.shape_tensor(self.shape.as_list())
            return self._shape_tensor()

    @property
    def batch_shape(self):
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._name_scope(name):
            return self._batch_shape_tensor()

    def _batch_shape_tensor(self, shape=None):
        if self.batch_shape.is_fully_defined():
            return _util.shape_tensor(self.batch_shape.as_list(), name="batch_shape")
        shape = self.shape_tensor() if shape is None else shape
        return shape[:-2]

    @property
    def tensor_rank(self, name="tensor_rank"):
        """``b + 2`` for an operator of shape ``[B1, ..., Bb, M, N]``."""
        return self.shape.rank

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        with self._name_scope(name):
            return self._tensor_rank_tensor()

    def _tensor_rank_tensor(self, shape=None):
        if self.tensor_rank is not None:
            return convert_to_tensor(self.tensor_rank)
        shape = self.shape_tensor() if shape is None else shape
        return array_ops.size(shape)

    @property
    def domain_dimension(self):
        """``N`` (an int; TF gives a ``Dimension``)."""
        if self.shape.rank is None:
            return None
        return self.shape.dims[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        with self._name_scope(name):
            return self._domain_dimension_tensor()

    def _domain_dimension_tensor(self, shape=None):
        if self.domain_dimension is not None:
            return convert_to_tensor(self.domain_dimension)
        shape = self.shape_tensor() if shape is None else shape
        return shape[-1]

    @property
    def range_dimension(self):
        """``M`` (an int; TF gives a ``Dimension``)."""
        if self.shape.dims:
            return self.shape.dims[-2]
        return None

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        with self._name_scope(name):
            return self._range_dimension_tensor()

    def _range_dimension_tensor(self, shape=None):
        if self.range_dimension is not None:
            return convert_to_tensor(self.range_dimension)
        shape = self.shape_tensor() if shape is None else shape
        return shape[-2]

    # -- assertions -------------------------------------------------------------------------------

    def assert_non_singular(self, name="assert_non_singular"):
        """Raises ``InvalidArgumentError`` unless the condition number is below
        ``1 / (max(100, M, N) * eps)``; returns None."""
        with self._name_scope(name):
            return self._assert_non_singular()

    def assert_positive_definite(self, name="assert_positive_definite"):
        """Raises ``InvalidArgumentError`` unless ``x^H A x`` has a positive real part."""
        with self._name_scope(name):
            return self._assert_positive_definite()

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """Raises ``InvalidArgumentError`` unless the operator equals its adjoint exactly."""
        with self._name_scope(name):
            return self._assert_self_adjoint()

    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(
                f"Expected argument to have dtype {self.dtype!s}.  Found: {arg.dtype!s} in "
                f"tensor {arg}"
            )

    # -- products and solves --------------------------------------------------------------------

    @abc.abstractmethod
    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError("_matmul is not implemented.")

    def _operator_pair(self, x, adjoint, adjoint_arg, what):
        left = self.adjoint() if adjoint else self
        right = x.adjoint() if adjoint_arg else x
        if (
            right.range_dimension is not None
            and left.domain_dimension is not None
            and right.range_dimension != left.domain_dimension
        ):
            raise ValueError(
                f"Operators are incompatible. Expected `{what}` to have dimension"
                f" {left.domain_dimension} but got {right.range_dimension}."
            )
        return left, right

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x`` for a [batch] matrix ``x`` (or an operator: then an operator).

        Args:
            x: a Tensor ``[..., N, R]`` of this dtype, or a ``LinearOperator``.
            adjoint: multiply by ``A^H`` instead.
            adjoint_arg: multiply ``x^H`` instead.
            name: a name scope.
        """
        if isinstance(x, LinearOperator):
            left, right = self._operator_pair(x, adjoint, adjoint_arg, "x")
            with self._name_scope(name):
                return self._linop_matmul(left, right)
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            arg_dim = -1 if adjoint_arg else -2
            _util.assert_dims_compatible(_util.dim_at(self.shape, self_dim), x.shape[arg_dim])
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A @ x`` for a [batch] vector ``x`` ``[..., N]``."""
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            _util.assert_dims_compatible(_util.dim_at(self.shape, self_dim), x.shape[-1])
            return self._matvec(x, adjoint=adjoint)

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to be singular."
            )
        if self.is_square is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to not be square."
            )

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``A X = rhs`` for a [batch] matrix ``rhs`` ``[..., M, R]`` (or an
        operator: then an operator).

        Raises:
            NotImplementedError: the hints say the operator is singular or not square.
        """
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left, right = self._operator_pair(rhs, adjoint, adjoint_arg, "rhs")
            with self._name_scope(name):
                return self._linop_solve(left, right)
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            arg_dim = -1 if adjoint_arg else -2
            _util.assert_dims_compatible(_util.dim_at(self.shape, self_dim), rhs.shape[arg_dim])
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``x`` with ``A x = rhs`` for a [batch] vector ``rhs`` ``[..., M]``."""
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            _util.assert_dims_compatible(_util.dim_at(self.shape, self_dim), rhs.shape[-1])
            return self._solvevec(rhs, adjoint=adjoint)

    # -- determinants ---------------------------------------------------------------------------

    def _check_square_for_determinant(self):
        if self.is_square is False:
            raise NotImplementedError(
                "Determinant not implemented for an operator that is expected to not be square."
            )

    def determinant(self, name="det"):
        """``det(A)`` per batch member."""
        self._check_square_for_determinant()
        with self._name_scope(name):
            return self._determinant()

    def log_abs_determinant(self, name="log_abs_det"):
        """``log |det(A)|`` per batch member."""
        self._check_square_for_determinant()
        with self._name_scope(name):
            return self._log_abs_determinant()

    # -- derived operators ----------------------------------------------------------------------

    def adjoint(self, name: str = "adjoint") -> LinearOperator:
        """``A^H`` as an operator (``self`` when hinted self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name):
            return self._linop_adjoint()

    H = property(adjoint, None)

    def inverse(self, name: str = "inverse") -> LinearOperator:
        """``A^-1`` as an operator.

        Raises:
            ValueError: the hints say the operator is not square or singular.
        """
        if self.is_square is False:
            raise ValueError(
                "Cannot take the Inverse: This operator represents a non square matrix."
            )
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        with self._name_scope(name):
            return self._linop_inverse()

    def cholesky(self, name: str = "cholesky") -> LinearOperator:
        """The lower-triangular ``L`` with ``A = L L^H``, as an operator.

        Raises:
            ValueError: the operator is not hinted self-adjoint and positive definite.
        """
        if not self._can_use_cholesky():
            raise ValueError(
                "Cannot take the Cholesky decomposition: "
                "Not a positive definite self adjoint matrix."
            )
        with self._name_scope(name):
            return self._linop_cholesky()

    # -- dense views ----------------------------------------------------------------------------

    def to_dense(self, name="to_dense"):
        """The operator as a dense [batch] matrix."""
        with self._name_scope(name):
            return self._to_dense()

    def diag_part(self, name="diag_part"):
        """The [batch] diagonal ``[..., min(M, N)]``."""
        with self._name_scope(name):
            return self._diag_part()

    def trace(self, name="trace"):
        """The sum of the diagonal, per batch member."""
        with self._name_scope(name):
            return self._trace()

    def add_to_tensor(self, x, name="add_to_tensor"):
        """``A + x`` as a dense Tensor."""
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def eigvals(self, name="eigvals"):
        """The eigenvalues ``[..., N]``; only for operators hinted self-adjoint."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._eigvals()

    def cond(self, name="cond"):
        """The condition number: largest over smallest singular value."""
        with self._name_scope(name):
            return self._cond()

    def _set_graph_parents(self, graph_parents):
        graph_parents = [] if graph_parents is None else graph_parents
        for i, t in enumerate(graph_parents):
            if t is None or not (_util.is_ref(t) or isinstance(t, Tensor)):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        self._graph_parents = graph_parents

    # -- structure, for rebuilding (slicing, tapejax.function arguments) --------------------------

    @property
    def _composite_tensor_fields(self):
        """The constructor arguments that rebuild the operator (hints aside)."""
        return ()

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ()

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        """Per tensor parameter, how many of its trailing dimensions are not batch ones."""
        return ()

    def __getitem__(self, slices):
        from .slicing import batch_slice

        return batch_slice(self, params_overrides={}, slices=slices)
