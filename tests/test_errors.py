"""``tapejax.errors`` side by side with ``tf.errors``: classes, codes, constructors,
properties, pickling, and the errors ops raise."""

from __future__ import annotations

import inspect
import pickle

import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

TF_NAMES = sorted(n for n in dir(tensorflow.errors) if not n.startswith("_"))
CLASSES = [n for n in TF_NAMES if n.endswith("Error") and n not in ("OpError",)]
OP_ERRORS = [n for n in CLASSES if n != "OperatorNotAllowedInGraphError"]
CODES = [n for n in TF_NAMES if n.isupper()]


def test_every_name_of_tf_errors_is_there():
    assert sorted(tapejax.errors.__all__) == TF_NAMES


@pytest.mark.parametrize("name", CODES)
def test_error_codes_are_tfs(name):
    assert getattr(tapejax.errors, name) == getattr(tensorflow.errors, name)


@pytest.mark.parametrize("name", OP_ERRORS)
def test_each_class_has_tfs_code_base_and_constructor(name):
    ours, theirs = getattr(tapejax.errors, name), getattr(tensorflow.errors, name)
    assert issubclass(ours, tapejax.errors.OpError) and issubclass(ours, Exception)
    e, t = ours(None, None, "went wrong"), theirs(None, None, "went wrong")
    assert e.error_code == t.error_code
    assert (e.message, e.op, e.node_def, str(e)) == (t.message, t.op, t.node_def, str(t))
    assert e.experimental_payloads == t.experimental_payloads == {}
    assert list(inspect.signature(ours).parameters) == list(inspect.signature(theirs).parameters)


def test_op_error_takes_the_code():
    assert list(inspect.signature(tapejax.errors.OpError).parameters) == list(
        inspect.signature(tensorflow.errors.OpError).parameters
    )
    e = tapejax.errors.OpError(None, None, "m", tapejax.errors.ABORTED, {"k": b"v"})
    assert e.error_code == 10 and e.message == "m" and e.experimental_payloads == {"k": b"v"}
    with pytest.raises(TypeError):
        tapejax.errors.OpError(None, None, "m")  # TF's OpError needs the code too
    assert issubclass(tapejax.errors.OperatorNotAllowedInGraphError, TypeError)


@pytest.mark.parametrize("name", [*OP_ERRORS, "OpError"])
def test_errors_pickle(name):
    cls = getattr(tapejax.errors, name)
    args = (None, None, "lost it") + ((tapejax.errors.DATA_LOSS,) if name == "OpError" else ())
    e = pickle.loads(pickle.dumps(cls(*args, {"detail": "x"})))
    assert type(e) is cls and e.message == "lost it" and str(e) == "lost it"
    assert e.error_code == cls(*args).error_code and e.experimental_payloads == {"detail": "x"}
    # TF's own __reduce__ drops the payloads (docs/compat.md, "tapejax.errors").
    t = getattr(tensorflow.errors, name)(*args, {"detail": "x"})
    assert pickle.loads(pickle.dumps(t)).experimental_payloads == {}


def test_an_op_raises_a_coded_error_that_survives_pickling():
    with pytest.raises(tapejax.errors.InvalidArgumentError) as info:
        tapejax.gather(tapejax.constant([1, 2]), [5])
    e = pickle.loads(pickle.dumps(info.value))
    assert e.error_code == tensorflow.errors.INVALID_ARGUMENT and "is not in [0, 2)" in str(e)
    with pytest.raises(tapejax.errors.OpError):
        raise e


def test_code_to_class_tables():
    from tapejax._src import errors

    for name in OP_ERRORS:
        cls = getattr(errors, name)
        code = cls(None, None, "").error_code
        assert errors.exception_type_from_error_code(code) is cls
        assert errors.error_code_from_exception_type(cls) == code
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(errors.OK)


# Every name of tf.errors, checked above by loops over TF's names (tools/tf_coverage.py).
OTHERWISE_TESTED = {f"errors.{n}" for n in TF_NAMES}
