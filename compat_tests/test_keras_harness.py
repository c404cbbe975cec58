"""Keras cases: the TensorFlow side runs in a subprocess, with Keras on its TF backend.

Keras picks one backend per process, and tapejax.keras needs the JAX one, so a Keras
case cannot run under real TensorFlow in the test process. ``keras_case`` marks a
case like ``harness.case`` does; under TensorFlow the case is not run here: the first
such call runs every Keras case of its module in one subprocess
(``python -m compat_tests.test_keras_harness MODULE OUT`` with ``KERAS_BACKEND=tensorflow``)
and replays the outcomes, so each module pays for one TensorFlow import. Results are
compared as NumPy arrays (``to_numpy``): cases return tensors, variables, lists and
dicts of them, or Python scalars. Exceptions come back with their class name and text.

The tests at the bottom check the subprocess path itself.
"""

from __future__ import annotations

import functools
import os
import pathlib
import pickle
import subprocess
import sys
import tempfile

import numpy as np

from compat_tests import harness

REFERENCE_ENV = "TAPEJAX_KERAS_REFERENCE"
ROOT = pathlib.Path(__file__).resolve().parent.parent

if os.environ.get(REFERENCE_ENV) != "1":
    # Keras must come up on JAX in this process, before anything imports TensorFlow.
    os.environ.setdefault("KERAS_BACKEND", "jax")

_outcomes: dict = {}  # module name -> {case name: ("ok", result) | ("raised", name, text)}


def in_reference_process() -> bool:
    """True inside the subprocess that runs the cases under TensorFlow's Keras."""
    return os.environ.get(REFERENCE_ENV) == "1"


def to_numpy(tree):
    """Tensors and Variables (any framework's) as NumPy arrays, in the same structure."""
    if isinstance(tree, dict):
        return {k: to_numpy(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(to_numpy(x) for x in tree)
    if tree is None or isinstance(tree, (bool, int, float, str)):
        return tree
    if hasattr(tree, "numpy"):
        return np.asarray(tree.numpy())
    return np.asarray(tree)


def _exception(name: str, message: str) -> Exception:
    return type(name, (Exception,), {})(message)


def keras_case(error=False, **options):
    """``harness.case`` for a case using ``tf.keras``: TensorFlow's side in a subprocess.

    ``error=True`` marks a case whose outcome is an exception. Any other case that
    raises under TensorFlow fails as a RuntimeError, so that a case both frameworks
    trip over the same way can never pass unnoticed.
    """

    def attach(fn):
        @functools.wraps(fn)
        def run(tf):
            if getattr(tf, "__name__", "") == "tensorflow" and not in_reference_process():
                outcome = _reference_outcome(fn)
                if outcome[0] == "raised":
                    if not error:
                        raise RuntimeError(
                            f"TensorFlow's Keras raised {outcome[1]}: {outcome[2]} (a case "
                            "expected to raise must say keras_case(error=True))"
                        )
                    raise _exception(outcome[1], outcome[2])
                return outcome[1]
            if getattr(tf, "__name__", "") != "tensorflow":
                import tapejax.keras  # noqa: F401 - makes tf.keras exist

            return to_numpy(fn(tf))

        run.keras_case = True
        return harness.case(**options)(run)

    return attach


def _reference_outcome(fn):
    module = fn.__module__
    if module not in _outcomes:
        _outcomes[module] = run_reference(module)
    outcomes = _outcomes[module]
    if fn.__name__ not in outcomes:
        raise RuntimeError(f"the reference run of {module} has no outcome for {fn.__name__}")
    return outcomes[fn.__name__]


def run_reference(module: str, timeout: float = 600) -> dict:
    """Runs every Keras case of ``module`` under TensorFlow's Keras in a subprocess."""
    env = dict(os.environ)
    env.update(
        {
            "KERAS_BACKEND": "tensorflow",
            REFERENCE_ENV: "1",
            "TF_CPP_MIN_LOG_LEVEL": "2",
            "TF_ENABLE_ONEDNN_OPTS": "0",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "outcomes.pkl"
        proc = subprocess.run(
            [sys.executable, "-m", "compat_tests.test_keras_harness", module, str(out)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(
                f"the TensorFlow reference run of {module} failed (exit {proc.returncode}):\n"
                f"{proc.stderr[-4000:]}"
            )
        return pickle.loads(out.read_bytes())


def _main(module_name: str, out_path: str) -> None:
    import importlib

    import tensorflow as tf

    assert tf.keras.backend.backend() == "tensorflow", tf.keras.backend.backend()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    module = importlib.import_module(module_name)
    outcomes = {}
    for fn in harness.collect_cases(vars(module)):
        if not getattr(fn, "keras_case", False):
            continue
        try:
            outcomes[fn.__name__] = ("ok", fn(tf))
        except Exception as e:  # noqa: BLE001 - the exception is the outcome
            outcomes[fn.__name__] = ("raised", type(e).__name__, str(e))
    pathlib.Path(out_path).write_bytes(pickle.dumps(outcomes))


# ------------------------------------------------------------------ the helper's own tests


@keras_case()
def case_reference_backend(tf):
    """Under TF the case sees TF's Keras on the TF backend; under tapejax, the JAX one."""
    return tf.keras.backend.backend()


def test_reference_runs_tensorflow_keras_in_a_subprocess():
    import pytest

    if harness.import_tensorflow() is None:
        pytest.skip("TensorFlow is not installed")
    outcomes = run_reference(__name__)
    assert outcomes["case_reference_backend"] == ("ok", "tensorflow")


def test_a_difference_between_the_frameworks_is_reported():
    import pytest

    import tapejax

    if harness.import_tensorflow() is None:
        pytest.skip("TensorFlow is not installed")
    with pytest.raises(harness.Mismatch, match="tensorflow"):
        harness.compare(
            harness.live_tf_record(case_reference_backend),
            harness.run(case_reference_backend, tapejax),
        )


def test_keras_case_runs_tapejax_in_process():
    import tapejax

    assert case_reference_backend(tapejax) == "jax"


def test_reference_exceptions_keep_class_name_and_text():
    e = _exception("ValueError", "No gradients provided for any variable.")
    record = harness.run(lambda tf: (_ for _ in ()).throw(e), None)
    assert record["raises"] == "ValueError"
    assert record["message"] == "No gradients provided for any variable."


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2])
