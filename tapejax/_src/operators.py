"""Installs Python operators (``+``, ``@``, ``[]``, ``==`` ...) on Tensor and Variable.

Kept apart from ``tensor.py`` so that values never import ops; imported once by the
package.
"""

from .ops import array_ops, math_ops
from .tensor import Tensor
from .variables import Variable

for _cls in (Tensor, Variable):
    math_ops.install_operators(_cls)
    _cls.__getitem__ = array_ops.getitem
