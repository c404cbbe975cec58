"""Which of TensorFlow's public symbols tapejax provides, and tests.

Usage (needs TensorFlow installed)::

    python -m tools.tf_coverage              # the counts table per namespace
    python -m tools.tf_coverage --missing    # also list every symbol tapejax lacks
    python -m tools.tf_coverage --write      # refresh the table in docs/compat.md

A symbol is *provided* when ``tapejax.<namespace>.<name>`` exists. It is *tested* when a
test names it: an op with a ``Case`` in ``tests/test_ops*.py`` (values and gradients
against live TF), a name in some test file's ``OTHERWISE_TESTED``, or any other use as
``tf.<namespace>.<name>`` / ``tapejax.<namespace>.<name>`` in ``tests/`` or ``compat_tests/``.
Submodules (``tf.math`` inside ``tf``) are not counted.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAMESPACES = (
    "",
    "math",
    "nn.experimental",  # before "nn", as "io.gfile"
    "nn",
    "linalg.experimental",  # before "linalg", as "io.gfile"
    "linalg",
    "random.experimental",  # before "random", as "io.gfile"
    "random",
    "image",
    "signal",
    "sparse",
    "debugging",
    "dtypes",
    "errors",
    "io.gfile",  # before "io": the test-name regex tries namespaces in this order
    "io",
    "config",
    "compat",
    "bitwise",
    "nest",
    "sets",
    "train.experimental",  # before "train", as "io.gfile"
    "train",
    "quantization",
    "data.experimental",  # before "data", as "io.gfile"
    "data",
    "distribute.experimental",  # before "distribute", as "io.gfile"
    "distribute",
    "lookup.experimental",  # before "lookup", as "io.gfile"
    "lookup",
    "queue",
    "summary",
    "autograph",
    "profiler.experimental",
    "saved_model",
    "experimental.dlpack",  # before "experimental", as "io.gfile"
    "experimental",
)
DOC = ROOT / "docs" / "compat.md"
BEGIN, END = "<!-- tf_coverage:begin -->", "<!-- tf_coverage:end -->"


def _module(root, ns):
    for part in ns.split(".") if ns else ():
        root = getattr(root, part, None)
    return root


def tf_symbols(tf) -> dict[str, list[str]]:
    """Public, non-module names of each TF namespace."""
    out = {}
    for ns in NAMESPACES:
        m = _module(tf, ns)
        out[ns] = sorted(
            n for n in dir(m) if not n.startswith("_") and not inspect.ismodule(getattr(m, n))
        )
    return out


def _tested_names() -> set[str]:
    """``ns.name`` strings that the tests exercise (see the module docstring)."""
    sys.path.insert(0, str(ROOT / "tests"))
    tested = set()
    for path in sorted((ROOT / "tests").glob("test_ops*.py")):
        module = importlib.import_module(path.stem)
        tested |= {c.name for c in getattr(module, "CASES", [])}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        text = path.read_text()
        if "OTHERWISE_TESTED" in text:
            module = importlib.import_module(path.stem)
            tested |= set(getattr(module, "OTHERWISE_TESTED", ()))
    namespaces = "|".join(ns for ns in NAMESPACES if ns)
    pattern = re.compile(rf"\b(?:tf|tapejax)\.((?:(?:{namespaces})\.)?\w+)")
    for folder in ("tests", "compat_tests"):
        for path in (ROOT / folder).rglob("*.py"):
            tested |= set(pattern.findall(path.read_text()))
    return tested


def coverage(tf) -> list[tuple[str, int, int, int, list[str]]]:
    """``(namespace, TF symbols, provided, tested, missing, untested)`` per namespace."""
    import tapejax

    tested_ids = set()
    names_used = _tested_names()
    for name in names_used:  # the same function under any of its names counts
        obj = tapejax
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if obj is not None:
            tested_ids.add(id(obj))
    rows = []
    for ns, names in tf_symbols(tf).items():
        ours = _module(tapejax, ns)
        have = [n for n in names if ours is not None and hasattr(ours, n)]
        prefix = f"{ns}." if ns else ""

        def is_tested(n, ours=ours, prefix=prefix):
            # By name too: a constant such as ``newaxis`` (None) has no identity of its own.
            return id(getattr(ours, n)) in tested_ids or prefix + n in names_used

        n_tested = sum(map(is_tested, have))
        missing = [n for n in names if n not in have]
        untested = [n for n in have if not is_tested(n)]
        rows.append(
            (f"tf.{ns}" if ns else "tf", len(names), len(have), n_tested, missing, untested)
        )
    return rows


def table(rows) -> str:
    lines = [
        "| namespace | TF symbols | tapejax provides | tested |",
        "| --- | ---: | ---: | ---: |",
    ]
    for ns, total, have, tested, *_ in rows:
        lines.append(f"| `{ns}` | {total} | {have} | {tested} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--missing", action="store_true", help="list the missing symbols")
    parser.add_argument("--write", action="store_true", help="refresh docs/compat.md's table")
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    # `import tensorflow` imports Keras, which picks its backend once: tapejax.keras (which
    # the tests name) needs JAX.
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import tensorflow as tf

    rows = coverage(tf)
    text = table(rows)
    print(f"TensorFlow {tf.__version__}\n\n{text}")
    if args.missing:
        for ns, *_, missing, untested in rows:
            print(f"\n{ns} ({len(missing)} missing): {', '.join(missing)}")
            if untested:
                print(f"{ns} provided but untested: {', '.join(untested)}")
    if args.write:
        doc = DOC.read_text()
        start, stop = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        DOC.write_text(f"{doc[:start]}\n{text}\n{doc[stop:]}")
        print(f"\nwrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
