"""``tf.linalg``: matrix products, decompositions, solvers and norms."""

import sys as _sys

from tapejax import linalg_experimental as experimental
from tapejax._src.linear_operator.adjoint import LinearOperatorAdjoint
from tapejax._src.linear_operator.block_diag import LinearOperatorBlockDiag
from tapejax._src.linear_operator.block_lower_triangular import (
    LinearOperatorBlockLowerTriangular,
)
from tapejax._src.linear_operator.circulant import (
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
)
from tapejax._src.linear_operator.composition import LinearOperatorComposition
from tapejax._src.linear_operator.diag import LinearOperatorDiag
from tapejax._src.linear_operator.full_matrix import LinearOperatorFullMatrix
from tapejax._src.linear_operator.householder import LinearOperatorHouseholder
from tapejax._src.linear_operator.identity import (
    LinearOperatorIdentity,
    LinearOperatorScaledIdentity,
)
from tapejax._src.linear_operator.inversion import LinearOperatorInversion
from tapejax._src.linear_operator.kronecker import LinearOperatorKronecker
from tapejax._src.linear_operator.linear_operator import LinearOperator
from tapejax._src.linear_operator.low_rank_update import LinearOperatorLowRankUpdate
from tapejax._src.linear_operator.lower_triangular import LinearOperatorLowerTriangular
from tapejax._src.linear_operator.permutation import LinearOperatorPermutation
from tapejax._src.linear_operator.toeplitz import LinearOperatorToeplitz
from tapejax._src.linear_operator.tridiag import LinearOperatorTridiag
from tapejax._src.linear_operator.zeros import LinearOperatorZeros
from tapejax._src.ops.creation_ops import eye
from tapejax._src.ops.decomposition_ops import cholesky, eigh, eigvalsh, qr, svd
from tapejax._src.ops.linalg_ops import (
    adjoint,
    band_part,
    cross,
    diag,
    diag_part,
    einsum,
    matmul,
    matrix_transpose,
    matvec,
    set_diag,
    tensordot,
    trace,
)
from tapejax._src.ops.lu_ops import lu, lu_matrix_inverse, lu_reconstruct, lu_solve
from tapejax._src.ops.norm_ops import global_norm, norm, normalize
from tapejax._src.ops.reduction_ops import l2_normalize  # tf.linalg's is tf.math's
from tapejax._src.ops.solver_ops import (
    cholesky_solve,
    det,
    expm,
    inv,
    logdet,
    lstsq,
    pinv,
    slogdet,
    solve,
    triangular_solve,
)
from tapejax._src.ops.spectral_ops import eig, eigvals, logm, matrix_rank, sqrtm
from tapejax._src.ops.structured_ops import (
    banded_triangular_solve,
    tensor_diag,
    tensor_diag_part,
)
from tapejax._src.ops.tridiagonal_eigen_ops import eigh_tridiagonal
from tapejax._src.ops.tridiagonal_ops import tridiagonal_matmul, tridiagonal_solve

__all__ = [
    "LinearOperator",
    "LinearOperatorAdjoint",
    "LinearOperatorBlockDiag",
    "LinearOperatorBlockLowerTriangular",
    "LinearOperatorCirculant",
    "LinearOperatorCirculant2D",
    "LinearOperatorCirculant3D",
    "LinearOperatorComposition",
    "LinearOperatorDiag",
    "LinearOperatorFullMatrix",
    "LinearOperatorHouseholder",
    "LinearOperatorIdentity",
    "LinearOperatorInversion",
    "LinearOperatorKronecker",
    "LinearOperatorLowRankUpdate",
    "LinearOperatorLowerTriangular",
    "LinearOperatorPermutation",
    "LinearOperatorScaledIdentity",
    "LinearOperatorToeplitz",
    "LinearOperatorTridiag",
    "LinearOperatorZeros",
    "adjoint",
    "band_part",
    "banded_triangular_solve",
    "cholesky",
    "cholesky_solve",
    "cross",
    "det",
    "diag",
    "diag_part",
    "eig",
    "eigh",
    "eigh_tridiagonal",
    "eigvals",
    "eigvalsh",
    "einsum",
    "experimental",
    "expm",
    "eye",
    "global_norm",
    "inv",
    "l2_normalize",
    "logdet",
    "logm",
    "lstsq",
    "lu",
    "lu_matrix_inverse",
    "lu_reconstruct",
    "lu_solve",
    "matmul",
    "matrix_rank",
    "matrix_transpose",
    "matvec",
    "norm",
    "normalize",
    "pinv",
    "qr",
    "set_diag",
    "slogdet",
    "solve",
    "sqrtm",
    "svd",
    "tensor_diag",
    "tensor_diag_part",
    "tensordot",
    "trace",
    "triangular_solve",
    "tridiagonal_matmul",
    "tridiagonal_solve",
]

# Names of this namespace that TF also exports at top level as the same function
# (``tf.einsum is tf.linalg.einsum``); ``tapejax``'s ``__init__`` re-exports them. ``matmul``
# and ``eye`` are top-level names of their own already, and ``tf.matrix_square_root`` (TF's
# ``sqrtm`` under another name) is re-exported there by that name.
TOPLEVEL: list[str] = ["eig", "eigvals", "einsum", "norm", "tensordot"]

# tapejax.linalg is a module, not a package: registered so that ``import
# tapejax.linalg.experimental`` works as with TF's submodule.
_sys.modules[f"{__name__}.experimental"] = experimental
