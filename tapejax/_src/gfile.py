"""TensorFlow's file API (``tf.io.gfile``) on the local filesystem.

Paths are local paths or ``file://`` URLs. Every failure raises the ``tf.errors`` class
TF raises, with TF's text (``"<path>; No such file or directory"``, ``"file already
exists"``, ``"File isn't open for writing"``, …). Listings keep the operating system's
order, as TF's do: nothing here sorts. This module must never touch a remote filesystem:
other schemes raise TF's ``UnimplementedError`` for an unregistered scheme.
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import shutil
from collections.abc import Callable, Iterable, Iterator

from tapejax._src import errors, tf_logging

_SCHEME = re.compile(r"([a-zA-Z][0-9a-zA-Z.]*)://(.*)", re.DOTALL)

# TF's errno -> error code table (``tsl/platform/errors.cc``, ``ErrnoToCode``).
_ERRNO_CLASSES = {
    errno.ENOENT: errors.NotFoundError,
    errno.ENXIO: errors.NotFoundError,
    errno.ENODEV: errors.NotFoundError,
    errno.ESRCH: errors.NotFoundError,
    errno.EEXIST: errors.AlreadyExistsError,
    errno.EACCES: errors.PermissionDeniedError,
    errno.EPERM: errors.PermissionDeniedError,
    errno.EROFS: errors.PermissionDeniedError,
    errno.ENOTDIR: errors.FailedPreconditionError,
    errno.EISDIR: errors.FailedPreconditionError,
    errno.ENOTEMPTY: errors.FailedPreconditionError,
    errno.EBUSY: errors.FailedPreconditionError,
    errno.ETXTBSY: errors.FailedPreconditionError,
    errno.EINVAL: errors.InvalidArgumentError,
    errno.ENAMETOOLONG: errors.InvalidArgumentError,
    errno.ESPIPE: errors.InvalidArgumentError,
    errno.ELOOP: errors.FailedPreconditionError,
    errno.ENOSPC: errors.ResourceExhaustedError,
    errno.EMFILE: errors.ResourceExhaustedError,
    errno.ENFILE: errors.ResourceExhaustedError,
    errno.EFBIG: errors.ResourceExhaustedError,
    errno.ENOMEM: errors.ResourceExhaustedError,
    errno.EDQUOT: errors.ResourceExhaustedError,
    errno.ENOSYS: errors.UnimplementedError,
    errno.ENOTSUP: errors.UnimplementedError,
}


def _path_str(path) -> str:
    """``path`` (str, bytes or os.PathLike) as str; TF's ``TypeError`` for anything else."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if isinstance(path, (bytes, bytearray)):
        return bytes(path).decode("utf-8")
    if isinstance(path, str):
        return path
    raise TypeError(f"Expected binary or unicode string, got {path!r}")


def _local(path) -> str:
    """The local path that ``path`` names; TF's error for a scheme other than ``file``."""
    path = _path_str(path)
    m = _SCHEME.fullmatch(path)
    if m is None:
        return path
    if m.group(1) != "file":
        raise errors.UnimplementedError(
            None, None, f"File system scheme '{m.group(1)}' not implemented (file: '{path}')"
        )
    return m.group(2)


def _os_error(err: OSError, context: str) -> errors.OpError:
    """TF's error for a failed system call on ``context``: ``"<context>; <strerror>"``."""
    cls = _ERRNO_CLASSES.get(err.errno, errors.UnknownError)
    return cls(None, None, f"{context}; {os.strerror(err.errno)}")


def _as_bytes(value) -> bytes:
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


class FileStatistics:
    """What ``stat`` returns: ``length`` in bytes, ``mtime_nsec``, ``is_directory``.

    ``mtime_nsec`` has whole-second resolution, as TF's (it is ``st_mtime * 1e9``).
    """

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory

    def __repr__(self) -> str:
        return (
            f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
            f"is_directory={self.is_directory})"
        )


class GFile:
    """A file, opened lazily on the first read or write (``tf.io.gfile.GFile``).

    Args:
      name: a local path or ``file://`` URL.
      mode: one of ``r``, ``w``, ``a``, ``r+``, ``w+``, ``a+``, with ``b`` for bytes.
        In text mode reads return ``str`` decoded as UTF-8; in bytes mode ``bytes``.

    Reading and writing use two separate handles, as in TF: ``read(n)`` reads ``n``
    *bytes*, and in ``w``, ``w+`` and ``r+`` modes the file is truncated by the first
    ``write``, not by the constructor.

    >>> import tapejax as tf
    >>> with tf.io.gfile.GFile("/tmp/tapejax_gfile_doc.txt", "w") as f:
    ...     f.write("one\\ntwo\\n")
    >>> tf.io.gfile.GFile("/tmp/tapejax_gfile_doc.txt").readlines()
    ['one\\n', 'two\\n']
    """

    def __init__(self, name, mode: str = "r"):
        self._name = name
        self._mode = mode
        self._binary = "b" in mode
        bare = mode.replace("b", "")
        if bare not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"
            )
        self._can_read = bare in ("r", "r+", "a+", "w+")
        self._can_write = bare in ("a", "w", "r+", "a+", "w+")
        self._append = "a" in bare
        self._reader = None
        self._writer = None

    @property
    def name(self):
        """The file name, as given."""
        return self._name

    @property
    def mode(self) -> str:
        """The mode the file was opened in."""
        return self._mode

    def _open(self, how: str):
        path = _local(self._name)
        try:
            return open(path, how)  # noqa: SIM115 - closed by close()
        except OSError as err:
            raise _os_error(err, _path_str(self._name)) from None

    def _read_handle(self):
        if self._reader is None:
            if not self._can_read:
                raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
            self._reader = self._open("rb")
        return self._reader

    def _write_handle(self):
        if self._writer is None:
            if not self._can_write:
                raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
            self._writer = self._open("ab" if self._append else "wb")
        return self._writer

    def _value(self, data: bytes):
        return data if self._binary else data.decode("utf-8")

    def size(self) -> int:
        """The size of the file in bytes."""
        return stat(self._name).length

    def write(self, file_content) -> None:
        """Appends ``file_content`` (str or bytes, in either mode) to the file."""
        handle = self._write_handle()
        handle.write(_as_bytes(file_content))

    def read(self, n: int = -1):
        """Reads ``n`` bytes from the current position, or to the end when ``n == -1``."""
        handle = self._read_handle()
        return self._value(handle.read() if n == -1 else handle.read(n))

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None):
        """Moves the read position to ``offset`` bytes from ``whence``.

        Args:
          offset: the byte count relative to ``whence``.
          whence: 0 the start of the file, 1 the current position, 2 the end.
          position: deprecated name of ``offset``.

        Raises:
          InvalidArgumentError: a negative position or a ``whence`` not 0, 1 or 2.
          OutOfRangeError: a position past the end (the position is then the end).
        """
        handle = self._read_handle()
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        if position is not None:
            tf_logging.warn_first_n(
                "calling GFile.seek with position is deprecated and will be removed in a "
                "future version.\nInstructions for updating:\nposition is deprecated in "
                "favor of the offset argument.",
                1,
            )
            offset = position
        if whence == 1:
            offset += handle.tell()
        elif whence == 2:
            offset += self.size()
        elif whence != 0:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2."
            )
        if offset < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Seeking to a negative position: {offset}"
            )
        end = os.fstat(handle.fileno()).st_size
        if offset > end:
            handle.seek(end)
            raise errors.OutOfRangeError(None, None, "reached end of file")
        handle.seek(offset)

    def readline(self):
        """Reads the next line, keeping its ``\\n``; ``''`` (or ``b''``) at the end.

        Every ``\\r`` is dropped from the line, as TF's line reader drops it.
        """
        return self._value(self._read_handle().readline().replace(b"\r", b""))

    def readlines(self) -> list:
        """All the lines from the current position."""
        lines = []
        while line := self.readline():
            lines.append(line)
        return lines

    def tell(self) -> int:
        """The read position, or in a write-only mode the number of bytes written."""
        if self._can_read:
            return self._read_handle().tell()
        return self._write_handle().tell()

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __iter__(self) -> GFile:
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    def next(self):
        """The next line (``__next__``)."""
        return self.__next__()

    def flush(self) -> None:
        """Pushes written data out of the process (not necessarily to disk)."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flushes what was written and closes the file."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def seekable(self) -> bool:
        """True: ``seek`` and ``tell`` are supported."""
        return True


def exists(path) -> bool:
    """Whether ``path`` exists, as a file or a directory.

    Raises:
      UnimplementedError: a scheme other than ``file``.
    """
    return os.path.exists(_local(path))


def isdir(path) -> bool:
    """Whether ``path`` is a directory; False for any error, an unknown scheme included."""
    try:
        return os.path.isdir(_local(path))
    except errors.OpError:
        return False


def stat(path) -> FileStatistics:
    """The length, modification time and kind of ``path``.

    Raises:
      NotFoundError: ``path`` does not exist.
    """
    local = _local(path)
    try:
        st = os.stat(local)
    except OSError as err:
        raise _os_error(err, _path_str(path)) from None
    return FileStatistics(st.st_size, int(st.st_mtime) * 1_000_000_000, os.path.isdir(local))


def remove(path) -> None:
    """Deletes the file ``path``.

    Raises:
      NotFoundError: ``path`` does not exist.
      FailedPreconditionError: ``path`` is a directory.
    """
    local = _local(path)
    try:
        os.unlink(local)
    except OSError as err:
        raise _os_error(err, _path_str(path)) from None


def mkdir(path) -> None:
    """Creates the directory ``path``; its parent must exist.

    Nothing happens when ``path`` exists, even as a file, as in TF.

    Raises:
      NotFoundError: the parent is missing.
    """
    local = _local(path)
    try:
        os.mkdir(local)
    except FileExistsError:
        pass
    except OSError as err:
        raise _os_error(err, _path_str(path)) from None


def makedirs(path) -> None:
    """Creates ``path`` and its missing parents; an existing directory is fine.

    Raises:
      FailedPreconditionError: ``path`` or one of its parents is a file.
    """
    local = _local(path)
    parts = local.split("/")
    for i in range(1, len(parts) + 1):
        prefix = "/".join(parts[:i])
        if not prefix or not parts[i - 1]:
            continue
        if os.path.exists(prefix):
            if not os.path.isdir(prefix):
                raise errors.FailedPreconditionError(None, None, f"{prefix} is not a directory")
            continue
        try:
            os.mkdir(prefix)
        except OSError as err:
            raise _os_error(err, prefix) from None


def rmtree(path) -> None:
    """Deletes ``path`` and everything under it (``path`` may be a file).

    Raises:
      NotFoundError: ``path`` does not exist.
    """
    local = _local(path)
    if not os.path.lexists(local):
        raise errors.NotFoundError(None, None, f"{_path_str(path)} not found")
    if os.path.isdir(local) and not os.path.islink(local):
        try:
            shutil.rmtree(local)
        except OSError as err:
            raise _os_error(err, err.filename or local) from None
    else:
        remove(local)


def copy(src, dst, overwrite: bool = False) -> None:
    """Copies the file ``src`` to ``dst``.

    Raises:
      AlreadyExistsError: ``dst`` exists and ``overwrite`` is False.
      NotFoundError: ``src`` is missing, or the parent of ``dst``.
    """
    src_local, dst_local = _local(src), _local(dst)
    if not overwrite and os.path.exists(dst_local):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        source = open(src_local, "rb")  # noqa: SIM115 - closed below
    except OSError as err:
        raise _os_error(err, _path_str(src)) from None
    with source:
        try:
            target = open(dst_local, "wb")  # noqa: SIM115 - closed below
        except OSError as err:
            raise _os_error(err, _path_str(dst)) from None
        with target:
            if os.path.isdir(src_local):
                # TF's copy of a directory creates an empty target, then fails to send.
                raise _os_error(OSError(errno.EINVAL, ""), _path_str(dst))
            shutil.copyfileobj(source, target)


def rename(src, dst, overwrite: bool = False) -> None:
    """Renames (moves) ``src`` to ``dst``.

    Raises:
      AlreadyExistsError: ``dst`` exists and ``overwrite`` is False.
      NotFoundError: ``src`` is missing.
    """
    src_local, dst_local = _local(src), _local(dst)
    if not overwrite and os.path.exists(dst_local):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.rename(src_local, dst_local)
    except OSError as err:
        raise _os_error(err, _path_str(src)) from None


def listdir(path) -> list[str]:
    """The names in directory ``path``, in the filesystem's order (not sorted).

    Raises:
      NotFoundError: ``path`` is not a directory.
    """
    if not isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {_path_str(path)}")
    local = _local(path)
    try:
        return os.listdir(local)
    except OSError as err:
        raise _os_error(err, _path_str(path)) from None


def join(path, *paths) -> str:
    """Joins path components: like a URL (``/``) for ``scheme://`` paths, else ``os.path.join``.

    >>> import tapejax as tf
    >>> tf.io.gfile.join("gs://bucket", "dir", "file")
    'gs://bucket/dir/file'
    """
    text = os.fspath(path) if isinstance(path, os.PathLike) else path
    text = text.decode("utf-8") if isinstance(text, bytes) else str(text)
    if "://" in text[1:]:
        return posixpath.join(path, *paths)
    return os.path.join(path, *paths)


def walk(
    top, topdown: bool = True, onerror: Callable | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """Yields ``(dirname, subdirnames, filenames)`` for ``top`` and each directory below it.

    Args:
      top: the directory to walk.
      topdown: a directory before its subdirectories if True, after them if False.
      onerror: called with the ``NotFoundError`` of a directory that cannot be listed.

    .. warning::
       TF crashes with ``UnboundLocalError`` when ``onerror`` returns instead of raising;
       here the walk of that directory yields nothing.
    """

    def full_path(parent: str, item: str) -> str:
        if item[0] == os.sep:
            return "".join([join(parent, ""), item])
        return join(parent, item)

    top = _path_str(top)
    try:
        listing = listdir(top)
    except errors.NotFoundError as err:
        if onerror:
            onerror(err)
        return
    files, subdirs = [], []
    for item in listing:
        (subdirs if isdir(full_path(top, item)) else files).append(item)
    here = (top, subdirs, files)
    if topdown:
        yield here
    for subdir in subdirs:
        yield from walk(full_path(top, subdir), topdown, onerror=onerror)
    if not topdown:
        yield here


def _component_regex(pattern: str) -> re.Pattern | None:
    """TF's glob syntax for one path component as a regex; None if it is malformed."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\":
            if i == n:
                return None
            out.append(re.escape(pattern[i]))
            i += 1
        elif c == "[":
            start = i
            negate = i < n and pattern[i] in "^!"
            i += negate
            items = []
            if i < n and pattern[i] == "]":  # a leading ']' is a member, not the end
                items.append(re.escape("]"))
                i += 1
            while i < n and pattern[i] != "]":
                lo = pattern[i]
                if lo == "\\":
                    i += 1
                    if i == n:
                        return None
                    lo = pattern[i]
                i += 1
                if i + 1 < n and pattern[i] == "-" and pattern[i + 1] != "]":
                    hi = pattern[i + 1]
                    i += 2
                    if lo <= hi:  # a reversed range matches nothing, as in TF
                        items.append(f"{re.escape(lo)}-{re.escape(hi)}")
                else:
                    items.append(re.escape(lo))
            if i == n:  # an unclosed '[' is itself, as in glibc's fnmatch
                out.append(re.escape("["))
                i = start
                continue
            i += 1
            if items:
                out.append(("[^" if negate else "[") + "".join(items) + "]")
            else:
                out.append("[^/]" if negate else "(?!)")
        else:
            out.append(re.escape(c))
    return re.compile("".join(out), re.DOTALL)


def _glob_one(pattern) -> list[str]:
    pattern = _path_str(pattern)
    local = _local(pattern)
    prefix = pattern[: len(pattern) - len(local)]
    first = next((k for k, ch in enumerate(local) if ch in "*?[\\"), None)
    if first is None:
        return [pattern] if os.path.exists(local) else []
    cut = local.rfind("/", 0, first)
    base = local[:cut] if cut > 0 else ("/" if cut == 0 else ".")
    rest = [c for c in local[cut + 1 :].split("/") if c]
    level = [base]
    for component in rest:
        regex = _component_regex(component)
        if regex is None:
            return []
        matched = []
        for parent in level:
            try:
                children = os.listdir(parent)
            except OSError:  # TF skips a directory it cannot list
                continue
            for child in children:
                if regex.fullmatch(child):
                    matched.append(parent.rstrip("/") + "/" + child)
        level = matched
    return [prefix + p for p in level]


def glob(pattern) -> list[str]:
    """The paths that match ``pattern`` (or each pattern of an iterable), unsorted.

    Matches in one directory come in the filesystem's order; where a pattern has
    wildcards at several levels, tapejax lists the matches parent by parent, while TF's
    order across parents depends on its thread pool.

    ``*`` matches any run of characters but ``/``, ``?`` one such character, ``[ab]``,
    ``[a-z]``, ``[^a]`` and ``[!a]`` one character (not) in the set, ``\\c`` the character ``c``.
    ``**`` is ``*``: matching does not recurse.

    Raises:
      UnimplementedError: a scheme other than ``file``.
    """
    if isinstance(pattern, str):
        return _glob_one(pattern)
    # As in TF, anything else (bytes and paths included) is taken for an iterable.
    patterns: Iterable = pattern
    return [path for p in patterns for path in _glob_one(p)]


def get_registered_schemes() -> list[str]:
    """The schemes this module opens: ``file`` and ``''`` (plain local paths).

    .. warning::
       TF also lists ``ram`` and ``gs``; tapejax reads and writes only local files.
    """
    return ["file", ""]
