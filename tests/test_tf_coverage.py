"""The coverage table in docs/compat.md is the one ``tools/tf_coverage.py`` computes now."""

import pathlib
import sys

import pytest

pytest.importorskip("tensorflow")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # tools/


def test_docs_coverage_table_is_current():
    import tensorflow as tf

    from tools import tf_coverage

    text = tf_coverage.table(tf_coverage.coverage(tf))
    doc = tf_coverage.DOC.read_text()
    start = doc.index(tf_coverage.BEGIN) + len(tf_coverage.BEGIN)
    stored = doc[start : doc.index(tf_coverage.END)].strip()
    assert stored == text, (
        "docs/compat.md's coverage table is stale: python -m tools.tf_coverage --write"
    )
