"""``tf.fingerprint``, and the FarmHash functions TF's hashing kernels use: FarmHash's
``Fingerprint64`` (``farmhashna::Hash64``) and TSL's ``FingerprintCat64``.

TF computes these on the CPU over the bytes of a tensor; this module does the same on
the host with NumPy ``uint64`` arithmetic (which wraps modulo 2**64 as C++'s does), one
row per array lane, so every value is TF's bit for bit. Inside a traced program
(``tapejax.function``, a JAX transform) ``fingerprint`` runs through
``jax.pure_callback``: its result shape, ``[rows, 8]``, never depends on the values.
Nothing here is differentiable (TF registers no gradient for ``Fingerprint``), and
nothing here may hash anything but the little-endian bytes TF's kernels hash.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..sparse_tensor import static_value
from ..tensor import wrap
from ._sparse_common import iae

__all__ = ["fingerprint", "fingerprint64_rows", "fingerprint_cat64"]

_OP = "Fingerprint"
_U64 = np.uint64
_K0 = _U64(0xC3A5C85C97CB3127)
_K1 = _U64(0xB492B66FBE98F273)
_K2 = _U64(0x9AE16A3B2F90404F)
_KMUL = _U64(0x9DDFEA08EB382D69)  # Hash128to64's multiplier
_CAT_MUL = _U64(0xC6A4A7935BD1E995)  # FingerprintCat64's multiplier


def _rotate(v, shift: int):
    return (v >> _U64(shift)) | (v << _U64(64 - shift))


def _shift_mix(v):
    return v ^ (v >> _U64(47))


def _hash_len16(u, v, mul=_KMUL):
    # With the default multiplier this is Hash128to64(Uint128(u, v)).
    a = _shift_mix((u ^ v) * mul)
    b = _shift_mix((v ^ a) * mul)
    return b * mul


class _Rows:
    """A ``[rows, length]`` uint8 matrix read as FarmHash reads its input, every row at
    once: little-endian 32- and 64-bit words at byte offsets."""

    def __init__(self, data: np.ndarray):
        self.data = data

    def fetch64(self, offset: int):
        return np.ascontiguousarray(self.data[:, offset : offset + 8]).view("<u8")[:, 0]

    def fetch32(self, offset: int):
        word = np.ascontiguousarray(self.data[:, offset : offset + 4]).view("<u4")[:, 0]
        return word.astype(_U64)

    def byte(self, offset: int):
        return self.data[:, offset].astype(_U64)


def _len0to16(s: _Rows, n: int):
    rows = s.data.shape[0]
    if n >= 8:
        mul = _K2 + _U64(n * 2)
        a = s.fetch64(0) + _K2
        b = s.fetch64(n - 8)
        c = _rotate(b, 37) * mul + a
        d = (_rotate(a, 25) + b) * mul
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + _U64(n * 2)
        a = s.fetch32(0)
        return _hash_len16(_U64(n) + (a << _U64(3)), s.fetch32(n - 4), mul)
    if n > 0:
        # y and z are uint32 in FarmHash; both stay below 2**32 here.
        y = s.byte(0) + (s.byte(n >> 1) << _U64(8))
        z = _U64(n) + (s.byte(n - 1) << _U64(2))
        return _shift_mix(y * _K2 ^ z * _K0) * _K2
    return np.full(rows, _K2, _U64)


def _len17to32(s: _Rows, n: int):
    mul = _K2 + _U64(n * 2)
    a = s.fetch64(0) * _K1
    b = s.fetch64(8)
    c = s.fetch64(n - 8) * mul
    d = s.fetch64(n - 16) * _K2
    return _hash_len16(_rotate(a + b, 43) + _rotate(c, 30) + d, a + _rotate(b + _K2, 18) + c, mul)


def _len33to64(s: _Rows, n: int):
    mul = _K2 + _U64(n * 2)
    a = s.fetch64(0) * _K2
    b = s.fetch64(8)
    c = s.fetch64(n - 8) * mul
    d = s.fetch64(n - 16) * _K2
    y = _rotate(a + b, 43) + _rotate(c, 30) + d
    z = _hash_len16(y, a + _rotate(b + _K2, 18) + c, mul)
    e = s.fetch64(16) * mul
    f = s.fetch64(24)
    g = (y + s.fetch64(n - 32)) * mul
    h = (z + s.fetch64(n - 24)) * mul
    return _hash_len16(_rotate(e + f, 43) + _rotate(g, 30) + h, e + _rotate(f + a, 18) + g, mul)


def _weak_hash_len32_with_seeds(s: _Rows, offset: int, a, b):
    w, x, y, z = (s.fetch64(offset + 8 * i) for i in range(4))
    a = a + w
    b = _rotate(b + a + z, 21)
    c = a
    a = a + x + y
    b = b + _rotate(a, 44)
    return a + z, b + c


def _len_over64(s: _Rows, n: int):
    rows = s.data.shape[0]
    seed = _U64(81)
    x = np.full(rows, seed, _U64)
    y = np.full(rows, seed * _K1 + _U64(113), _U64)
    z = _shift_mix(y * _K2 + _U64(113)) * _K2
    zero = np.zeros(rows, _U64)
    v, w = (zero, zero), (zero, zero)
    x = x * _K2 + s.fetch64(0)
    for start in range(0, ((n - 1) // 64) * 64, 64):
        x = _rotate(x + y + v[0] + s.fetch64(start + 8), 37) * _K1
        y = _rotate(y + v[1] + s.fetch64(start + 48), 42) * _K1
        x = x ^ w[1]
        y = y + v[0] + s.fetch64(start + 40)
        z = _rotate(z + w[0], 33) * _K1
        v = _weak_hash_len32_with_seeds(s, start, v[1] * _K1, x + w[0])
        w = _weak_hash_len32_with_seeds(s, start + 32, z + w[1], y + s.fetch64(start + 16))
        z, x = x, z
    mul = _K1 + ((z & _U64(0xFF)) << _U64(1))
    last = n - 64
    w0 = w[0] + _U64((n - 1) & 63)
    v0 = v[0] + w0
    w0 = w0 + v0
    v, w = (v0, v[1]), (w0, w[1])
    x = _rotate(x + y + v[0] + s.fetch64(last + 8), 37) * mul
    y = _rotate(y + v[1] + s.fetch64(last + 48), 42) * mul
    x = x ^ (w[1] * _U64(9))
    y = y + v[0] * _U64(9) + s.fetch64(last + 40)
    z = _rotate(z + w[0], 33) * mul
    v = _weak_hash_len32_with_seeds(s, last, v[1] * mul, x + w[0])
    w = _weak_hash_len32_with_seeds(s, last + 32, z + w[1], y + s.fetch64(last + 16))
    z, x = x, z
    return _hash_len16(
        _hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z,
        _hash_len16(v[1], w[1], mul) + x,
        mul,
    )


def fingerprint64_rows(data: np.ndarray) -> np.ndarray:
    """FarmHash ``Fingerprint64`` of each row of a ``[rows, length]`` uint8 matrix, as
    uint64 (``farmhashna::Hash64``, which TSL's ``Fingerprint64`` is)."""
    data = np.ascontiguousarray(data, np.uint8)
    n = data.shape[1]
    rows = _Rows(data)
    with np.errstate(over="ignore"):
        if n <= 16:
            return _len0to16(rows, n)
        if n <= 32:
            return _len17to32(rows, n)
        if n <= 64:
            return _len33to64(rows, n)
        return _len_over64(rows, n)


def fingerprint_cat64(fp1, fp2):
    """TSL's ``FingerprintCat64`` of two uint64 arrays (or scalars), elementwise."""
    fp1, fp2 = np.asarray(fp1, _U64), np.asarray(fp2, _U64)
    with np.errstate(over="ignore"):
        result = fp1 ^ _CAT_MUL
        result = result ^ (_shift_mix(fp2 * _CAT_MUL) * _CAT_MUL)
        result = result * _CAT_MUL
        result = _shift_mix(result) * _CAT_MUL
        return _shift_mix(result)


def _fingerprint_host(array: np.ndarray) -> np.ndarray:
    """TF's kernel: row ``i`` is the bytes of ``array[i]``; its fingerprint's 8 bytes are
    written little-endian."""
    rows = array.shape[0]
    if not rows:
        return np.zeros((0, 8), np.uint8)
    data = np.ascontiguousarray(array).reshape(rows, -1).view(np.uint8)
    return fingerprint64_rows(data).astype("<u8").view(np.uint8).reshape(rows, 8)


def _method_name(method) -> str:
    """``method`` as TF reads its string tensor (Python or NumPy strings here)."""
    if isinstance(method, bytes | np.bytes_):
        return method.decode("utf-8", "replace")
    if isinstance(method, str):
        return str(method)
    if method is None:
        raise ValueError(
            "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) "
            "to a Tensor."
        )
    array = np.asarray(method)
    if array.dtype.kind not in "US":
        raise TypeError(f"Cannot convert {method!r} to EagerTensor of dtype string")
    if array.ndim:
        dims = ",".join(str(d) for d in array.shape)
        raise iae(f"`method` should be a scalar string: [{dims}]", _OP)
    return _method_name(array.item())


def fingerprint(data, method="farmhash64", name=None):
    """FarmHash fingerprints of the rows of a tensor (``tf.fingerprint``).

    Row ``i`` is ``data[i]``'s bytes in memory (little-endian, row-major); its 64-bit
    ``Fingerprint64`` is written as 8 little-endian bytes. The values are TF's, bit for
    bit, and stable across platforms and versions.

    Args:
        data: a tensor of rank >= 1, of any numeric or bool dtype.
        method: the hash; ``"farmhash64"`` is the only one (as in TF).
        name: unused (TF's op name).

    Returns:
        A uint8 Tensor of shape ``[data.shape[0], 8]``. Not differentiable: a tape gives
        ``None`` (TF raises ``LookupError``, having no gradient registered).

    Raises:
        InvalidArgumentError: ``method`` is not ``"farmhash64"``, or ``data`` is a scalar
            (TF's texts).
        NotImplementedError: ``data`` holds strings: tapejax has no string tensors.

    .. warning::
        Without JAX's x64 mode a 64-bit tensor is held in 32 bits (``docs/compat.md``),
        so its rows have half TF's bytes and other fingerprints.

    Example:
        >>> import tapejax as tf
        >>> tf.fingerprint(tf.constant([1, 2])).numpy()[0]
        array([ 84,  24,  96,  84, 195,  82, 124, 105], dtype=uint8)
    """
    del name
    data = convert_to_tensor(data)
    if _method_name(method) != "farmhash64":
        raise iae(f"Unsupported fingerprint method: {_method_name(method)}", _OP)
    shape = tuple(data.shape.as_list())
    if not shape:
        raise iae("`data` should have at least one dimension: []", _OP)
    value = static_value(data)
    if value is not None:
        return wrap(jnp.asarray(_fingerprint_host(value)))
    result = jax.ShapeDtypeStruct((shape[0], 8), np.uint8)
    return wrap(
        jax.pure_callback(
            lambda a: _fingerprint_host(np.asarray(a)),
            result,
            jax.lax.stop_gradient(data._value),
            vmap_method="sequential",
        )
    )
