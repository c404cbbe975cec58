"""The stored TensorFlow records must equal what live TensorFlow produces.

Without this check the JSON used on machines without TensorFlow could silently go
stale when a case is edited. Skipped where TensorFlow is not installed.
"""

import pytest

from compat_tests import harness

# Up to float32 rounding: the stored record came from the same TF through the same JSON
# round trip, but TF's CPU kernels (oneDNN) pick their code by the processor, so a few
# Keras cases differ in the last bits between an AMD and an Intel machine. An edited case
# changes far more than that; structures, dtypes, texts and warnings stay exact.
_UP_TO_ROUNDING = harness.CaseOptions(rtol=1e-5, atol=1e-6, match_message=True, match_warnings=True)


@pytest.mark.parametrize("module_name", harness.CASE_MODULES)
def test_stored_records_equal_live_tensorflow(module_name):
    if harness.import_tensorflow() is None:
        pytest.skip("TensorFlow is not installed; the stored records are the reference")
    module = next(m for m in harness.all_case_modules() if m.__name__.endswith(module_name))
    cases = harness.collect_cases(vars(module))
    stored = harness.stored_records(module_name)
    names = [fn.__name__ for fn in cases]
    missing = [n for n in names if n not in stored]
    stale = [n for n in stored if n not in names]
    assert not missing and not stale, (
        f"{harness.expected_path(module_name)} is out of date ({len(missing)} missing, e.g. "
        f"{missing[:5]}; {len(stale)} stale, e.g. {stale[:5]}); run `python -m compat_tests.record`"
    )
    drifted = []
    for fn in cases:
        try:
            harness.compare(
                stored[fn.__name__],
                harness.live_tf_record(fn),
                _UP_TO_ROUNDING,
                labels=("stored", "live TF"),
            )
        except harness.Mismatch as exc:
            drifted.append(f"{fn.__name__}: {exc}")
    assert not drifted, (
        "stored records drifted; run `python -m compat_tests.record`:\n" + "\n".join(drifted)
    )
