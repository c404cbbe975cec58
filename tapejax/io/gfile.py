"""TensorFlow's file API (``tf.io.gfile``) for local paths and ``file://`` URLs."""

from tapejax._src.gfile import (
    GFile,
    copy,
    exists,
    get_registered_schemes,
    glob,
    isdir,
    join,
    listdir,
    makedirs,
    mkdir,
    remove,
    rename,
    rmtree,
    stat,
    walk,
)

__all__ = [
    "GFile",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]
