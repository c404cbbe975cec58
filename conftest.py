"""pytest setup shared by ``tests/`` and ``compat_tests/``: one compilation cache on disk for
every test process, and a long test process must not run out of memory mappings.

Most of the suite's time is XLA compiling small programs (over half of a typical test
module's). The pytest-xdist workers each compile what they run, and many programs (an op
on a small shape, a tape's gradient of it) come up in both: JAX's persistent compilation
cache, one directory under ``.pytest_cache`` shared by the workers, lets the second read
what the first compiled, and a second run of the suite read everything. The cache holds
XLA executables keyed by the program, the compile options, the jaxlib version and the
device, so it never changes what a test computes (``pytest --cache-clear`` empties it);
``JAX_COMPILATION_CACHE_DIR`` set by the user wins. (JAX reports a program read from the
cache as a compilation, so tests that count compilations still count it.)

Every XLA CPU executable that stays alive holds about three memory mappings (its JIT-ed
code and data), and JAX's and tapejax's compile caches keep thousands of them alive in a
process that runs thousands of tests. Linux caps a process at ``vm.max_map_count``
mappings (65530 by default); a full-suite pytest-xdist worker gets there near the end of
its run. At the cap, LLVM cannot map the next executable ("LLVM compilation error: Cannot
allocate memory"), and the error path then crashes the process with a segfault inside
the C++ unwinder instead of raising. So after each test module, and every
``_CHECK_EVERY`` tests (one module can add over 20000 mappings), once the process holds
more than half the allowed mappings the compile caches are dropped (programs compile
again on their next call).
"""

import gc
import os
import pathlib

import jax
import pytest

_DEFAULT_MAX_MAP_COUNT = 65530  # Linux's default vm.max_map_count
_CHECK_EVERY = 50  # tests; counting the mappings reads /proc/self/maps (milliseconds)


def _map_count() -> int | None:
    """The number of memory mappings of this process, or None where /proc has no maps."""
    try:
        with open("/proc/self/maps", "rb") as maps:
            return maps.read().count(b"\n")
    except OSError:
        return None


def _max_map_count() -> int:
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except (OSError, ValueError):
        return _DEFAULT_MAX_MAP_COUNT


def _share_compiled_programs() -> None:
    if os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return  # the user's own cache
    cache = pathlib.Path(__file__).parent / ".pytest_cache" / "jax-compilation-cache"
    jax.config.update("jax_compilation_cache_dir", str(cache))
    # Every program, however small or quick to compile (the default skips those under 1 s).
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


_share_compiled_programs()

_RELEASE_ABOVE = _max_map_count() // 2
_tests_done = 0


def _release_compiled_programs() -> None:
    """Drops JAX's and tapejax's compiled programs once the process holds more than half
    of the memory mappings Linux allows it."""
    count = _map_count()
    if count is None or count < _RELEASE_ABOVE:
        return
    from tapejax._src import lowering

    lowering.clear_cache()
    jax.clear_caches()
    gc.collect()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    result = yield
    global _tests_done
    _tests_done += 1
    if (
        nextitem is None
        or getattr(nextitem, "module", None) is not getattr(item, "module", None)
        or _tests_done % _CHECK_EVERY == 0
    ):
        _release_compiled_programs()
    return result
