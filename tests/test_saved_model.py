"""tapejax.saved_model: round trips of Variables and compiled functions, against live TF."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tapejax as tf


def _module(tf_):
    """The same module code for tapejax and TF."""

    class M(tf_.Module):
        def __init__(self):
            super().__init__()
            self.v = tf_.Variable(2.0)
            self.count = tf_.Variable(0)
            self.layers = [tf_.Variable([1.0, 2.0])]

        @tf_.function(input_signature=[tf_.TensorSpec([None], tf_.float32)])
        def f(self, x):
            self.count.assign_add(1)
            return x * self.v

        @tf_.function
        def g(self, x, y=1.0):
            return {"a": x + y, "b": x * self.layers[0]}

        @tf_.function
        def h(self, x):
            return x, x * 2.0

        @tf_.function
        def never(self, x):
            return x

    m = M()
    m.g(tf_.constant([1.0, 1.0]))
    m.h(tf_.constant(1.0))
    return m


@pytest.fixture
def loaded(tmp_path):
    m = _module(tf)
    tf.saved_model.save(m, str(tmp_path))
    return m, tf.saved_model.load(str(tmp_path))


def test_round_trip_values_equal_the_original(loaded):
    m, l = loaded
    x = tf.constant([1.0, 3.0])
    np.testing.assert_allclose(l.g(x)["a"].numpy(), m.g(x)["a"].numpy())
    np.testing.assert_allclose(l.g(x)["b"].numpy(), m.g(x)["b"].numpy())
    a, b = l.h(tf.constant(3.0))
    assert (float(a), float(b)) == (3.0, 6.0)
    assert float(l.v.numpy()) == 2.0 and l.layers[0].numpy().tolist() == [1.0, 2.0]
    assert isinstance(l.v, tf.Variable) and l.v.trainable


def test_none_dimension_serves_every_batch_size(loaded):
    _, l = loaded
    for n in (1, 3, 7):
        assert l.f(tf.ones([n])).numpy().tolist() == [2.0] * n


def test_assigning_a_loaded_variable_changes_the_result(loaded):
    _, l = loaded
    l.v.assign(5.0)
    assert l.f(tf.constant([1.0])).numpy().tolist() == [5.0]


def test_variable_writes_inside_a_loaded_function_are_kept(loaded):
    _, l = loaded
    start = int(l.count.numpy())
    l.f(tf.constant([1.0]))
    l.f(tf.constant([1.0, 2.0]))
    assert int(l.count.numpy()) == start + 2


def test_unmatched_signature_raises_tfs_error(loaded):
    tf_ = pytest.importorskip("tensorflow")
    _, l = loaded
    with pytest.raises(ValueError) as ours:
        l.g(tf.constant([1, 2]))
    tm = _module(tf_)
    import tempfile

    d = tempfile.mkdtemp()
    tf_.saved_model.save(tm, d)
    with pytest.raises(ValueError) as theirs:
        tf_.saved_model.load(d).g(tf_.constant([1, 2]))
    assert str(ours.value) == str(theirs.value)


def test_function_never_traced_raises_tfs_error(loaded):
    _, l = loaded
    with pytest.raises(ValueError, match="Found zero restored functions for caller function."):
        l.never(tf.constant(1.0))


def test_signature_output_keys_match_tf(tmp_path):
    tf_ = pytest.importorskip("tensorflow")
    keys = {}
    for lib, name in ((tf, "ours"), (tf_, "tf")):
        m = _module(lib)
        d = str(tmp_path / name)
        lib.saved_model.save(
            m,
            d,
            signatures={
                "a": m.f,
                "b": m.h.get_concrete_function(lib.constant(1.0)),
                "c": m.g.get_concrete_function(lib.constant([1.0, 1.0])),
            },
        )
        sig = lib.saved_model.load(d).signatures
        keys[name] = {
            "a": sorted(sig["a"](x=lib.constant([1.0, 2.0]))),
            "b": sorted(sig["b"](x=lib.constant(1.0))),
            "c": sorted(sig["c"](x=lib.constant([1.0, 2.0]))),
            "names": sorted(sig),
        }
        out = sig["b"](x=lib.constant(2.0))
        assert float(out["output_1"].numpy()) == 4.0
    assert keys["ours"] == keys["tf"]


def test_default_signature_is_serving_default(loaded):
    _, l = loaded
    assert list(l.signatures) == [tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
    out = l.signatures["serving_default"](x=tf.constant([1.0, 2.0]))
    assert list(out) == ["output_0"] and out["output_0"].numpy().tolist() == [2.0, 4.0]


def test_gradients_through_a_loaded_function_match_tf(loaded):
    tf_ = pytest.importorskip("tensorflow")
    _, l = loaded
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(l.f(x) ** 2)
    gx, gv = tape.gradient(y, [x, l.v])
    tm = _module(tf_)
    xt = tf_.constant([1.0, 2.0])
    with tf_.GradientTape() as tape:
        tape.watch(xt)
        yt = tf_.reduce_sum(tm.f(xt) ** 2)
    gxt, gvt = tape.gradient(yt, [xt, tm.v])
    np.testing.assert_allclose(gx.numpy(), gxt.numpy())
    np.testing.assert_allclose(gv.numpy(), gvt.numpy())


def test_loads_in_a_fresh_process(tmp_path):
    m = _module(tf)
    tf.saved_model.save(m, str(tmp_path))
    code = textwrap.dedent(
        f"""
        import tapejax as tf
        l = tf.saved_model.load({str(tmp_path)!r})
        print(l.f(tf.constant([1.0, 2.0, 3.0])).numpy().tolist(), int(l.count.numpy()))
        print(l.signatures["serving_default"](x=tf.constant([4.0]))["output_0"].numpy().tolist())
        """
    )
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__)))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.split("\n")[:2] == ["[2.0, 4.0, 6.0] 1", "[8.0]"]


def test_tf_saved_model_directory_is_refused(tmp_path):
    (tmp_path / "saved_model.pb").write_bytes(b"")
    with pytest.raises(OSError, match="is a TensorFlow SavedModel"):
        tf.saved_model.load(str(tmp_path))
    assert not tf.saved_model.contains_saved_model(str(tmp_path))


def test_missing_directory_raises_tfs_error(tmp_path):
    with pytest.raises(OSError, match=r"SavedModel file does not exist at: .*saved_model.pb\}"):
        tf.saved_model.load(str(tmp_path / "nothing"))


def test_contains_saved_model_and_constants(loaded, tmp_path):
    m = _module(tf)
    tf.saved_model.save(m, str(tmp_path / "m"))
    assert tf.saved_model.contains_saved_model(str(tmp_path / "m"))
    assert (tf.saved_model.SERVING, tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY) == (
        "serve",
        "serving_default",
    )


def test_options_that_cannot_apply_raise():
    tf.saved_model.SaveOptions(experimental_custom_gradients=True)
    with pytest.raises(NotImplementedError, match="experimental_io_device"):
        tf.saved_model.SaveOptions(experimental_io_device="/job:localhost")
    with pytest.raises(NotImplementedError, match="allow_partial_checkpoint"):
        tf.saved_model.LoadOptions(allow_partial_checkpoint=True)


def test_wrong_tags_raise_tfs_type(tmp_path):
    tf.saved_model.save(_module(tf), str(tmp_path))
    tf.saved_model.load(str(tmp_path), tags=["serve"])
    with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
        tf.saved_model.load(str(tmp_path), tags=["train"])


def test_untracked_variable_raises_tfs_text(tmp_path):
    outside = tf.Variable(1.0)

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return x * outside

    with pytest.raises(ValueError, match="references an 'untracked' resource"):
        tf.saved_model.save(M(), str(tmp_path))


def test_keras_model_points_to_keras_format(tmp_path):
    import tapejax.keras as keras

    model = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(NotImplementedError, match=r'model.save\("x.keras"\)'):
        tf.saved_model.save(model, str(tmp_path))


_CONSTANTS = (
    "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES",
    "CLASSIFY_OUTPUT_SCORES",
    "GPU",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME",
    "REGRESS_OUTPUTS",
    "TPU",
    "TRAINING",
)
OTHERWISE_TESTED = {f"saved_model.{name}" for name in _CONSTANTS}


def test_signature_and_tag_constants_are_tfs():
    tf_ = pytest.importorskip("tensorflow")
    for name in _CONSTANTS:
        assert getattr(tf.saved_model, name) == getattr(tf_.saved_model, name), name
    # The names of TF's file layout are absent, with the reason.
    with pytest.raises(NotImplementedError, match="SavedModel format"):
        tf.saved_model.SAVED_MODEL_FILENAME_PB  # noqa: B018
