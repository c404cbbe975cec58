"""The harness must catch every kind of difference it claims to, or the suite is green
for the wrong reason. Needs neither TensorFlow nor tapejax."""

import collections
import logging
import types
import warnings

import numpy as np
import pytest

from compat_tests import harness

Point = collections.namedtuple("Point", ["x", "y"])


def _record(result):
    return {"result": harness.normalize(result), "warnings": []}


def _mismatch(want, got, **options):
    with pytest.raises(harness.Mismatch) as info:
        harness.compare(want, got, harness.CaseOptions(**options))
    return str(info.value)


def test_equal_records_pass():
    rec = _record([np.float32(1.0), (None, {"a": np.array([1, 2], np.int32)})])
    harness.compare(rec, rec)


@pytest.mark.parametrize(
    "want, got, expected",
    [
        (np.array([1.0], np.float32), np.array([1.0], np.float64), "dtype differs"),
        (np.array([1.0], np.float32), np.array([[1.0]], np.float32), "shape differs"),
        (np.array([1.0], np.float32), np.array([1.1], np.float32), "values differ"),
        (np.array([1, 2], np.int32), np.array([1, 3], np.int32), "values differ"),
        (np.array([np.nan], np.float32), np.array([0.0], np.float32), "values differ"),
        (np.array([np.inf], np.float32), np.array([-np.inf], np.float32), "values differ"),
        (np.array([1 + 2j], np.complex64), np.array([1 - 2j], np.complex64), "values differ"),
        (None, np.float32(0.0), "kind differs"),
        ([1.0], (1.0,), "kind differs"),
        ([1.0], [1.0, 2.0], "list length differs"),
        ({"a": 1.0}, {"b": 1.0}, "keys differ"),
        (Point(1.0, 2.0), (1.0, 2.0), "kind differs"),
        (1.0, np.float64(1.0), "kind differs"),
        ("abc", "abd", "str value differs"),
    ],
)
def test_each_kind_of_difference_is_reported(want, got, expected):
    assert expected in _mismatch(_record(want), _record(got))


def test_path_names_the_leaf():
    message = _mismatch(_record([{"k": np.float32(1.0)}]), _record([{"k": np.float32(2.0)}]))
    assert "at result[0]['k']" in message


def test_tolerance_is_per_case():
    want, got = _record(np.float32(1.0)), _record(np.float32(1.001))
    assert "values differ" in _mismatch(want, got)
    harness.compare(want, got, harness.CaseOptions(rtol=1e-2))


def test_nan_equals_nan():
    rec = _record(np.array([np.nan, np.inf], np.float32))
    harness.compare(rec, rec)


def test_exceptions_compare_by_class_name_then_message():
    want = {"raises": "ValueError", "message": "Tape is not recording.", "warnings": []}
    other_class = {"raises": "RuntimeError", "message": "Tape is not recording.", "warnings": []}
    other_text = {"raises": "ValueError", "message": "tape not recording", "warnings": []}
    assert "exception class differs" in _mismatch(want, other_class)
    harness.compare(want, other_text)  # class name only by default
    assert "exception message differs" in _mismatch(want, other_text, match_message=True)
    assert "does not match" in _mismatch(want, other_text, match_message=r"Tape is not")
    assert "fix the case" in _mismatch(want, want, match_message=r"no such text")
    returned = _record(np.float32(1.0))
    assert "one raised, the other did not" in _mismatch(want, returned)


def test_caught_exception_leaves():
    want = _record([harness.Raised("KeyError", "'a'"), np.float32(1.0)])
    got = _record([harness.Raised("IndexError", "'a'"), np.float32(1.0)])
    assert "exception class differs" in _mismatch(want, got)


def test_warnings_only_compared_when_asked():
    want = {"result": None, "warnings": ["The dtype of the watched tensor must be floating"]}
    got = {"result": None, "warnings": []}
    harness.compare(want, got)
    assert "logged warnings differ" in _mismatch(want, got, match_warnings=True)


def test_run_records_result_exception_and_warnings():
    fake = types.SimpleNamespace(name="fake")

    def case_logs(tf):
        logging.getLogger("tapejax").warning("The dtype of %s", "x")
        warnings.warn("from warnings.warn", UserWarning, stacklevel=1)
        warnings.warn("ignored deprecation", DeprecationWarning, stacklevel=1)
        return [np.float32(2.0), tf.name]

    rec = harness.run(case_logs, fake)
    assert rec["warnings"] == ["The dtype of x", "from warnings.warn"]
    assert rec["result"]["list"][1] == {"kind": "str", "value": "fake"}

    def case_raises(tf):
        raise ValueError("object at 0xdeadbeef")

    rec = harness.run(case_raises, fake)
    assert rec == {"raises": "ValueError", "message": "object at 0x?", "warnings": []}


def test_catch_returns_raised_leaf():
    assert harness.catch(lambda: 1 / 0).name == "ZeroDivisionError"
    assert harness.catch(lambda: 3) == 3


def test_x64_context_restores_previous_value():
    jax = pytest.importorskip("jax")
    before = jax.config.read("jax_enable_x64")
    with harness.jax_x64(True):
        assert jax.config.read("jax_enable_x64")
    assert jax.config.read("jax_enable_x64") == before


def test_options_validation():
    with pytest.raises(ValueError, match="tf_adapt or expect"):
        harness.CaseOptions(deviation="reason")
    with pytest.raises(ValueError, match="only for deviation"):
        harness.CaseOptions(expect=harness.raises("ValueError"))
    with pytest.raises(TypeError, match="tuple of names"):
        harness.CaseOptions(requires="custom_gradient")


def test_deviation_reason_is_in_docstring_and_listed():
    @harness.case(deviation="no strings", expect=harness.raises("NotImplementedError"))
    def case_x(tf):
        """Body."""

    assert case_x.__doc__.startswith("DEVIATION: no strings")
    rows = dict(harness.deviations())
    assert rows and all(reason for reason in rows.values())


def test_every_case_module_has_cases_and_unique_names():
    for module in harness.all_case_modules():
        cases = harness.collect_cases(vars(module))
        assert cases, module.__name__
        assert len({c.__name__ for c in cases}) == len(cases)
