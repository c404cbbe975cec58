"""Installs Python operators (``+``, ``@``, ``[]``, ``==`` ...) on Tensor and Variable.

Kept apart from ``tensor.py`` so that values never import ops; imported once by the
package.
"""

from .ops import indexing, operator_table
from .tensor import Tensor
from .variables import Variable

for _cls in (Tensor, Variable):
    operator_table.install_operators(_cls)
    _cls.__getitem__ = indexing.getitem
