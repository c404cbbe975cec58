"""Installs Python operators (``+``, ``@``, ``[]``, ``==`` ...) on Tensor and Variable.

Kept apart from ``tensor.py`` so that values never import ops; imported once by the
package.
"""

from .ops import indexing, operator_table
from .sparse_tensor import SparseTensor
from .tensor import Tensor
from .variables import Variable

for _cls in (Tensor, Variable):
    operator_table.install_operators(_cls)
    _cls.__getitem__ = indexing.getitem
for _name, _fn in operator_table.SPARSE_OPERATORS.items():
    setattr(SparseTensor, _name, _fn)
