"""``tf.experimental.dlpack``: zero-copy exchange with other frameworks through DLPack."""

from tapejax._src.dlpack import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
