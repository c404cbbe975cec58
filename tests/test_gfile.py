"""tapejax.io.gfile does to local files what TF 2.21's tf.io.gfile does.

Each scenario runs the same file operations under live TF and under tapejax, each in its
own temporary directory, and records every step's outcome: the return value (``stat``
results as their fields but times, ``GFile`` objects by type) or the exception's class
name, error code and text, with the directory's path replaced by ``ROOT``. The two
records must be equal. Listings (``listdir``, ``glob``, ``walk``) keep the filesystem's
order in TF, so those scenarios run TF and tapejax on one shared tree, read-only.
"""

import os
import pathlib

import pytest

import tapejax

tf_real = pytest.importorskip("tensorflow")

TF = tf_real.io.gfile
TJ = tapejax.io.gfile

# Called through ``TJ`` in the scenarios below (for tools/tf_coverage.py).
OTHERWISE_TESTED = {f"io.gfile.{name}" for name in TJ.__all__}


def _normalize(value, root: str):
    if isinstance(value, str):
        return value.replace(root, "ROOT")
    if isinstance(value, (list, tuple)):
        return type(value)(_normalize(v, root) for v in value)
    if isinstance(value, (bytes, bool, int, type(None))):
        return value
    if hasattr(value, "is_directory"):
        return ("stat", value.length, value.is_directory, type(value.mtime_nsec).__name__)
    if hasattr(value, "readline"):
        return "GFile"
    raise AssertionError(f"no normal form for {type(value).__name__}")


def _record(scenario, gfile, root: str) -> list:
    """Runs ``scenario(step, gfile, root)``; ``step(fn)`` logs ``fn()``'s outcome."""
    log = []

    def step(fn):
        try:
            result = fn()
        except Exception as err:  # noqa: BLE001 - the exception is the outcome compared
            code = getattr(err, "error_code", None)
            log.append(("raised", type(err).__name__, code, str(err).replace(root, "ROOT")))
            return None
        log.append(_normalize(result, root))
        return result

    scenario(step, gfile, root)
    return log


def _compare(scenario, tmp_path, shared: bool = False):
    roots = [tmp_path / "tree"] * 2 if shared else [tmp_path / "tf", tmp_path / "tj"]
    for root in roots:
        root.mkdir(exist_ok=True)
    theirs = _record(scenario, TF, str(roots[0]))
    ours = _record(scenario, TJ, str(roots[1]))
    assert ours == theirs
    return ours


def _files(g, root, names):
    for name in names:
        with g.GFile(os.path.join(root, name), "w") as f:
            f.write(name)


def test_public_names_are_tfs():
    public = sorted(n for n in dir(TF) if not n.startswith("_"))
    assert sorted(n for n in dir(TJ) if not n.startswith("_")) == public
    assert sorted(TJ.__all__) == public
    assert tapejax.io.gfile is TJ
    assert not hasattr(tapejax.io, "read_file") and not hasattr(tapejax.io, "write_file")


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_write_read_modes(tmp_path, binary):
    b = "b" if binary else ""

    def scenario(step, g, root):
        p = os.path.join(root, "f.txt")
        f = step(lambda: g.GFile(p, "w" + b))
        step(lambda: (f.name.replace(root, "ROOT"), f.mode))
        step(lambda: f.tell())
        step(lambda: f.write("héllo\nwörld ☃\n"))
        step(lambda: f.write(b"bytes\n"))
        step(lambda: f.write(bytearray(b"last")))
        step(lambda: f.tell())
        step(lambda: f.read())
        step(lambda: f.seek(0))
        step(lambda: f.write(None))
        step(lambda: f.flush())
        step(lambda: f.size())
        step(lambda: f.close())
        r = g.GFile(p, "r" + b)
        step(lambda: r.write("x"))
        step(lambda: r.read())
        step(lambda: r.read())
        step(lambda: r.seek(0))
        step(lambda: r.read(3))
        step(lambda: r.tell())
        step(lambda: r.read(0))
        step(lambda: r.readline())
        step(lambda: r.readlines())
        step(lambda: r.readline())
        step(lambda: r.seekable())
        step(lambda: r.size())
        step(lambda: r.close())
        step(lambda: g.GFile(p, "r" + b).read(2))  # splits the é: text mode cannot decode

    _compare(scenario, tmp_path)


def test_iteration_and_context_manager(tmp_path):
    def scenario(step, g, root):
        p = os.path.join(root, "lines.txt")
        with g.GFile(p, "w") as f:
            f.write("a\n\nb\r\nc")
        with g.GFile(p) as f:
            step(lambda: list(f))
            step(lambda: next(f))
        with g.GFile(p, "rb") as f:
            step(lambda: f.next())
            step(lambda: [line for line in f])
        step(lambda: g.GFile(p).readlines())
        step(lambda: g.GFile(p).read())  # read keeps the '\r' that line reads drop
        with g.GFile(p, "wb") as f:
            f.write(b"a\rb\r\n\r")
        step(lambda: g.GFile(p, "rb").readlines())
        step(lambda: list(g.GFile(os.path.join(root, "none.txt"))))

    _compare(scenario, tmp_path)


def test_large_reads_in_chunks(tmp_path):
    payload = bytes(range(256)) * 9000  # 2.3 MB: past TF's 512 KiB read buffer

    def scenario(step, g, root):
        p = os.path.join(root, "big.bin")
        with g.GFile(p, "wb") as f:
            for i in range(0, len(payload), 100_000):
                f.write(payload[i : i + 100_000])
        f = g.GFile(p, "rb")
        chunks = []
        while chunk := f.read(700_001):
            chunks.append(chunk)
        step(lambda: [len(c) for c in chunks])
        step(lambda: b"".join(chunks) == payload)
        step(lambda: f.tell())
        step(lambda: f.seek(-5, whence=2))
        step(lambda: f.read())
        step(lambda: f.seek(600_000))
        step(lambda: f.seek(1000, 1))
        step(lambda: f.read(4))
        step(lambda: g.stat(p).length)

    _compare(scenario, tmp_path)


def test_seek_and_tell(tmp_path):
    def scenario(step, g, root):
        p = os.path.join(root, "s.txt")
        with g.GFile(p, "w") as f:
            f.write("0123456789")
        f = g.GFile(p)
        step(lambda: f.seek(3))
        step(lambda: f.tell())
        step(lambda: f.seek(2, 1))
        step(lambda: f.read(1))
        step(lambda: f.seek(-3, 2))
        step(lambda: f.read())
        step(lambda: f.seek(offset=1))
        step(lambda: f.read(2))
        step(lambda: f.seek(position=7))
        step(lambda: f.read())
        step(lambda: f.seek(10))
        step(lambda: f.read())
        step(lambda: f.seek(11))
        step(lambda: f.tell())
        step(lambda: f.seek(-1))
        step(lambda: f.seek(-20, 2))
        step(lambda: f.seek(0, 3))
        step(lambda: f.seek())
        step(lambda: f.seek(1, position=2))
        w = g.GFile(os.path.join(root, "w.txt"), "w")
        step(lambda: w.seek(0))
        step(lambda: w.read())

    _compare(scenario, tmp_path)


def test_append_and_plus_modes(tmp_path):
    def scenario(step, g, root):
        p = os.path.join(root, "a.txt")
        f = g.GFile(p, "a")
        step(lambda: f.write("one\n"))
        step(lambda: f.tell())
        f.close()
        with g.GFile(p, "ab") as f:
            f.write(b"two\n")
        step(lambda: g.GFile(p).read())
        step(lambda: g.GFile(p, "a").read())
        f = g.GFile(p, "a+")
        step(lambda: f.read())
        f.write("three\n")
        f.close()
        step(lambda: g.GFile(p).read())
        f = g.GFile(p, "r+")
        step(lambda: f.readline())
        f.write("X")  # r+ writes truncate, as TF's WritableFile does
        f.close()
        step(lambda: g.GFile(p).read())
        f = g.GFile(p, "w+")
        step(lambda: f.read())  # the truncation waits for the first write
        f.write("Y")
        f.close()
        step(lambda: g.GFile(p, "rb").read())
        step(lambda: g.GFile(p, "x"))
        step(lambda: g.GFile(p, "rw"))

    _compare(scenario, tmp_path)


def test_open_errors(tmp_path):
    def scenario(step, g, root):
        missing = os.path.join(root, "missing.txt")
        f = step(lambda: g.GFile(missing))
        step(lambda: f.read())
        step(lambda: f.tell())
        step(lambda: f.size())
        step(lambda: g.GFile(root).read())
        step(lambda: g.GFile(root, "w").write("x"))
        step(lambda: g.GFile(os.path.join(root, "no", "x"), "w").write("x"))
        step(lambda: g.GFile(missing, "w").read())
        step(lambda: g.exists(missing))

    _compare(scenario, tmp_path)


def test_file_operations(tmp_path):
    def scenario(step, g, root):
        def p(*names):
            return os.path.join(root, *names)

        _files(g, root, ["a.txt", "b.txt"])
        step(lambda: g.exists(p("a.txt")))
        step(lambda: g.exists(root))
        step(lambda: g.exists(p("nope")))
        step(lambda: g.exists(p("a.txt", "x")))
        step(lambda: g.isdir(root))
        step(lambda: g.isdir(p("a.txt")))
        step(lambda: g.isdir(p("nope")))
        step(lambda: g.stat(p("a.txt")))
        step(lambda: g.stat(p("nope")))
        step(lambda: g.stat(root).is_directory)
        step(lambda: g.copy(p("a.txt"), p("c.txt")))
        step(lambda: g.GFile(p("c.txt")).read())
        step(lambda: g.copy(p("b.txt"), p("c.txt")))
        step(lambda: g.copy(p("b.txt"), p("c.txt"), overwrite=True))
        step(lambda: g.GFile(p("c.txt")).read())
        step(lambda: g.copy(p("nope"), p("d.txt")))
        step(lambda: g.copy(p("a.txt"), root))
        step(lambda: g.copy(p("a.txt"), p("no", "d.txt")))
        step(lambda: g.mkdir(p("dir")))
        step(lambda: g.copy(p("a.txt"), p("dir"), overwrite=True))
        step(lambda: g.mkdir(p("dir")))
        step(lambda: g.mkdir(p("b.txt")))
        step(lambda: g.mkdir(p("x", "y")))
        step(lambda: g.makedirs(p("x", "y", "z")))
        step(lambda: g.makedirs(p("x", "y")))
        step(lambda: g.makedirs(p("a.txt", "q")))
        step(lambda: g.makedirs(p("a.txt")))
        step(lambda: g.listdir(p("a.txt")))
        step(lambda: g.listdir(p("nope")))
        step(lambda: g.remove(p("dir")))
        step(lambda: g.remove(p("nope")))
        step(lambda: g.remove(p("c.txt")))
        step(lambda: g.exists(p("c.txt")))
        step(lambda: g.rename(p("a.txt"), p("b.txt")))
        step(lambda: g.rename(p("a.txt"), p("b.txt"), overwrite=True))
        step(lambda: g.GFile(p("b.txt")).read())
        step(lambda: g.exists(p("a.txt")))
        step(lambda: g.rename(p("nope"), p("e.txt")))
        step(lambda: g.rename(p("b.txt"), p("no", "e.txt")))
        step(lambda: g.rename(p("b.txt"), p("dir"), overwrite=True))
        step(lambda: g.rename(p("dir"), p("b.txt"), overwrite=True))
        step(lambda: g.rename(p("dir"), p("moved")))
        step(lambda: g.isdir(p("moved")))
        step(lambda: g.rmtree(p("nope")))
        step(lambda: g.rmtree(p("x")))
        step(lambda: g.exists(p("x")))
        step(lambda: g.rmtree(p("b.txt")))
        step(lambda: sorted(g.listdir(root)))

    _compare(scenario, tmp_path)


def test_paths_of_every_kind(tmp_path):
    def scenario(step, g, root):
        _files(g, root, ["u-ünï ☃.txt"])
        step(lambda: g.exists(pathlib.Path(root) / "u-ünï ☃.txt"))
        step(lambda: g.exists(root.encode()))
        step(lambda: g.listdir(root.encode()))
        step(lambda: g.GFile(pathlib.Path(root) / "u-ünï ☃.txt").read())
        step(lambda: g.exists(3))
        step(lambda: g.exists(None))
        step(lambda: g.copy(None, "x"))
        step(lambda: g.join(None))
        step(lambda: g.join("a", "b", "c"))
        step(lambda: g.join("a", "/b"))
        step(lambda: g.join("a"))
        step(lambda: g.join(pathlib.Path("a"), "b"))
        step(lambda: g.join("gs://bucket", "d", "f"))
        step(lambda: g.join("file:///x", "y/"))

    _compare(scenario, tmp_path)


def test_file_urls(tmp_path):
    def scenario(step, g, root):
        url = "file://" + root
        step(lambda: g.makedirs(url + "/d/e"))
        with g.GFile(url + "/d/f.txt", "w") as f:
            f.write("via url")
        step(lambda: g.GFile(url + "/d/f.txt").read())
        step(lambda: g.exists(url + "/d/f.txt"))
        step(lambda: g.isdir(url + "/d"))
        step(lambda: g.stat(url + "/d/f.txt"))
        step(lambda: sorted(g.listdir(url + "/d")))
        step(lambda: g.glob(url + "/d/*.txt"))
        step(lambda: g.glob(url + "/d"))
        step(lambda: g.copy(url + "/d/f.txt", url + "/d/g.txt"))
        step(lambda: g.rename(url + "/d/g.txt", url + "/d/h.txt"))
        step(lambda: list(g.walk(url + "/d/e")))
        step(lambda: g.remove(url + "/d/h.txt"))
        step(lambda: g.stat(url + "/nope"))
        step(lambda: g.listdir(url + "/nope"))
        step(lambda: g.rmtree(url + "/nope"))
        step(lambda: g.GFile(url + "/nope").read())
        step(lambda: g.makedirs(url + "/d/f.txt/g"))
        step(lambda: g.copy(url + "/d/f.txt", url + "/no/x"))
        step(lambda: g.rmtree(url + "/d"))
        step(lambda: g.exists(url + "/d"))

    _compare(scenario, tmp_path)


@pytest.mark.parametrize("scheme", ["s3", "hdfs", "foo"])
def test_unregistered_scheme(tmp_path, scheme):
    def scenario(step, g, root):
        url = f"{scheme}://bucket/dir/x"
        step(lambda: g.exists(url))
        step(lambda: g.stat(url))
        step(lambda: g.isdir(url))
        step(lambda: g.listdir(url))
        step(lambda: g.glob(url + "*"))
        step(lambda: g.glob(url))
        step(lambda: g.remove(url))
        step(lambda: g.mkdir(url))
        step(lambda: g.makedirs(url))
        step(lambda: g.rmtree(url))
        step(lambda: g.copy(url, url + "2"))
        step(lambda: g.rename(url, url + "2"))
        step(lambda: list(g.walk(url)))
        f = step(lambda: g.GFile(url, "w"))
        step(lambda: f.write("a"))
        step(lambda: g.GFile(url).read())

    _compare(scenario, tmp_path)


def _tree(root):
    for name in ["zz", "a1", "b2", "ab", "c", "m.txt", "n.txt", "a.txt", ".hidden", "[ab"]:
        with open(os.path.join(root, name), "w") as f:
            f.write(name)
    os.makedirs(os.path.join(root, "sub", "deep", "deeper"))
    os.makedirs(os.path.join(root, "sub2"))
    for name in ["sub/x.txt", "sub/deep/y.txt", "sub2/z.txt", "sub2/a.txt"]:
        with open(os.path.join(root, name), "w") as f:
            f.write(name)


@pytest.mark.parametrize(
    "pattern",
    [
        "*", "?2", "[ab]?", "[^a]*", "[a-b]*", "[!a]*", "*.txt", "a*", "*b*", "sub*",
        "**", "**/*.txt", "*/*.txt", "*/*", "sub/**", "sub/*/*", "*/", "sub", "sub/",
        "nope", "nope/*", "\\a1", "[ab", "[]a]*", "[^]a]*", "[a\\]]*", "[z-a]*", "[^z-a]*", "[a-]*", "a\\", "", ".*", "?", "sub/deep/deeper/*",
    ],
    ids=lambda p: repr(p),
)  # fmt: skip
def test_glob_patterns(tmp_path, pattern):
    # TF lists the directories of one level in parallel: across parents its order varies.
    levels = pattern.rstrip("/").split("/")[:-1]
    across_parents = any(c in level for level in levels for c in "*?[\\")

    def scenario(step, g, root):
        if not across_parents:
            step(lambda: g.glob(os.path.join(root, pattern)))
        else:
            step(lambda: sorted(g.glob(os.path.join(root, pattern))))

    (tmp_path / "tree").mkdir()
    _tree(tmp_path / "tree")
    _compare(scenario, tmp_path, shared=True)


def test_glob_lists_and_relative_patterns(tmp_path, monkeypatch):
    (tmp_path / "tree").mkdir()
    _tree(tmp_path / "tree")
    monkeypatch.chdir(tmp_path / "tree")

    def scenario(step, g, root):
        step(lambda: g.glob([os.path.join(root, "a*"), os.path.join(root, "z*")]))
        step(lambda: g.glob(("sub/*", "*.txt")))
        step(lambda: g.glob("sub/*"))
        step(lambda: g.glob("*"))
        step(lambda: g.glob(pathlib.Path(root) / "s*"))
        step(lambda: g.glob(3))
        step(lambda: g.glob(b"ab"))
        step(lambda: g.glob(None))
        step(lambda: g.glob(""))

    _compare(scenario, tmp_path, shared=True)


def test_listdir_and_walk_orders(tmp_path):
    (tmp_path / "tree").mkdir()
    _tree(tmp_path / "tree")

    def scenario(step, g, root):
        step(lambda: g.listdir(root))
        step(lambda: g.listdir(root + "/sub/"))
        step(lambda: list(g.walk(root)))
        step(lambda: list(g.walk(root, topdown=False)))
        step(lambda: list(g.walk(root + "/sub/")))
        step(lambda: list(g.walk(root + "/m.txt")))
        step(lambda: list(g.walk(root + "/nope")))
        step(lambda: list(g.walk(pathlib.Path(root) / "sub2")))

        def reraise(err):
            raise err

        step(lambda: list(g.walk(root + "/nope", onerror=reraise)))

    ours = _compare(scenario, tmp_path, shared=True)
    assert len(ours[2]) == 5 and ours[2][0][0] == "ROOT"
    assert ours[3][-1][0] == "ROOT"


def test_stat_fields(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(b"x" * 1234)
    theirs, ours = TF.stat(str(p)), TJ.stat(str(p))
    assert (ours.length, ours.is_directory) == (theirs.length, theirs.is_directory) == (1234, False)
    assert ours.mtime_nsec == theirs.mtime_nsec
    assert TJ.stat(str(tmp_path)).length == TF.stat(str(tmp_path)).length


def test_registered_schemes():
    """Deviation: TF also registers ``ram`` and ``gs``; tapejax only local files."""
    assert set(TJ.get_registered_schemes()) == {"file", ""}
    assert set(TJ.get_registered_schemes()) < set(TF.get_registered_schemes())


@pytest.mark.parametrize("scheme", ["gs", "ram"])
def test_schemes_tf_registers_are_unimplemented(tmp_path, scheme):
    """Deviation: TF's ``gs`` and ``ram`` filesystems are not provided."""
    url = f"{scheme}://bucket/x"
    with pytest.raises(tapejax.errors.UnimplementedError) as info:
        TJ.exists(url)
    assert str(info.value) == f"File system scheme '{scheme}' not implemented (file: '{url}')"
    with pytest.raises(tapejax.errors.UnimplementedError):
        TJ.GFile(url, "w").write("x")
    assert TJ.isdir(url) is False


def test_walk_onerror_that_returns(tmp_path):
    """Deviation: TF raises UnboundLocalError when ``onerror`` returns; tapejax yields
    nothing for that directory."""
    seen = []
    missing = str(tmp_path / "nope")
    with pytest.raises(UnboundLocalError):
        list(TF.walk(missing, onerror=seen.append))
    assert list(TJ.walk(missing, onerror=seen.append)) == []
    assert [type(e).__name__ for e in seen] == ["NotFoundError", "NotFoundError"]
    assert str(seen[1]) == str(seen[0]) == f"Could not find directory {missing}"


def test_seek_position_is_deprecated(tmp_path, caplog):
    p = tmp_path / "f.txt"
    p.write_text("abcdef")
    f = TJ.GFile(str(p))
    with caplog.at_level("WARNING", logger="tapejax"):
        f.seek(position=2)
    assert f.read() == "cdef"
    assert "position is deprecated in favor of the offset argument" in caplog.text


def test_non_path_arguments_are_type_errors():
    """Deviation: TF's ``stat`` and ``GFile`` reads of a non-path raise pybind11's
    TypeError ("incompatible function arguments"); tapejax raises the TypeError TF's other
    functions raise."""
    for call in (lambda g: g.stat(None), lambda g: g.GFile(None).read()):
        with pytest.raises(TypeError, match="incompatible"):
            call(TF)
        with pytest.raises(TypeError, match="^Expected binary or unicode string, got None$"):
            call(TJ)


def test_glob_order_across_parents(tmp_path):
    """TF lists the directories of one level in a thread pool, so across parents its
    order varies; tapejax's is parent by parent, each in the filesystem's order."""
    root = tmp_path / "tree"
    root.mkdir()
    _tree(root)
    expected = [
        f"{root}/{parent}/{child}"
        for parent in os.listdir(root)
        if os.path.isdir(root / parent)
        for child in os.listdir(root / parent)
        if child.endswith(".txt")
    ]
    assert TJ.glob(f"{root}/*/*.txt") == expected
    assert sorted(TF.glob(f"{root}/*/*.txt")) == sorted(expected)


def test_size_while_writing(tmp_path):
    """Deviation: before ``flush``, TF's stdio buffer holds back the tail of a large write
    that Python's buffered file writes out whole; small writes and flushed sizes agree."""
    sizes = {}
    for name, g in (("tf", TF), ("tj", TJ)):
        f = g.GFile(str(tmp_path / name), "w")
        f.write("x" * 10)
        small = f.size()
        f.write("y" * 100_000)
        large = f.size()
        f.flush()
        sizes[name] = (small, large, f.size(), f.tell())
        f.close()
    assert sizes["tj"] == (0, 100_010, 100_010, 100_010)
    assert sizes["tf"][0] == 0 and sizes["tf"][2:] == (100_010, 100_010)
    assert sizes["tf"][1] < 100_010
