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


def _tapejax_namespace(ns):
    import tapejax

    module = tapejax
    for part in ns.split(".") if ns else ():
        module = getattr(module, part)
    return module


def test_every_tf_name_tapejax_lacks_says_why():
    """Reading a TF name tapejax lacks raises its reason, and ``hasattr`` says False."""
    import tensorflow as tf

    from tapejax._src.compat import NamespaceNotProvidedError
    from tools import tf_coverage

    unexplained = []
    for ns in tf_coverage.NAMESPACES:
        theirs, ours = tf_coverage._module(tf, ns), _tapejax_namespace(ns)
        for name in dir(theirs):
            if name.startswith("_") or hasattr(ours, name):
                continue
            try:
                getattr(ours, name)
            except NamespaceNotProvidedError as error:
                assert name in str(error) and "tapejax" in str(error)
            except AttributeError:
                unexplained.append(f"tf.{ns}.{name}" if ns else f"tf.{name}")
    assert not unexplained, (
        "TF names tapejax lacks without a reason in tapejax/_src/not_provided.py: "
        + ", ".join(unexplained)
    )


def test_names_listed_as_not_provided_are_tfs_and_absent():
    import tensorflow as tf

    from tapejax._src.not_provided import NOT_PROVIDED
    from tools import tf_coverage

    for ns, names in NOT_PROVIDED.items():
        theirs, ours = tf_coverage._module(tf, ns), _tapejax_namespace(ns)
        for name in names:
            assert hasattr(theirs, name), f"tf.{ns}.{name} is not TF's"
            assert not hasattr(ours, name), f"tapejax provides {ns}.{name}: unlist it"


def test_a_name_not_provided_is_a_not_implemented_and_an_attribute_error():
    import tapejax

    with pytest.raises(NotImplementedError, match=r"tf\.strings is not provided.*string tensors"):
        tapejax.strings  # noqa: B018 - the access is the test
    with pytest.raises(AttributeError, match=r"tf\.io\.decode_png is not provided.*Pillow"):
        tapejax.io.decode_png  # noqa: B018
    assert getattr(tapejax, "RaggedTensor", None) is None
    # A typo stays Python's plain AttributeError.
    with pytest.raises(AttributeError, match="has no attribute 'reduce_summ'") as info:
        tapejax.reduce_summ  # noqa: B018
    assert not isinstance(info.value, NotImplementedError)
    # tf.keras and its aliases still load lazily through the same hook.
    assert tapejax.optimizers.SGD is tapejax.keras.optimizers.SGD
