"""Record TensorFlow's outcome of every case into ``compat_tests/expected/*.json``.

Usage (needs TensorFlow installed)::

    python -m compat_tests.record               # re-record every case module
    python -m compat_tests.record test_keras    # re-record the named modules only
    python -m compat_tests.record --check       # exit 1 if stored records drifted
    python -m compat_tests.record --deviations  # markdown table for docs/compat.md

Each case runs exactly once in this process, like in the test run, so warnings that
TF rate-limits per call site are recorded the way the tests see them.
"""

from __future__ import annotations

import argparse
import json
import sys

from compat_tests import harness


def _records(module) -> dict:
    return {fn.__name__: harness.live_tf_record(fn) for fn in harness.collect_cases(vars(module))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument(
        "--deviations", action="store_true", help="print the deviation table and exit"
    )
    parser.add_argument(
        "modules", nargs="*", help="case modules to record (test_keras ...); default: all"
    )
    args = parser.parse_args(argv)

    if args.deviations:
        print("| case | deviation |\n| --- | --- |")
        for name, reason in harness.deviations():
            print(f"| `{name}` | {reason} |")
        return 0

    tf = harness.import_tensorflow()
    if tf is None:
        print("TensorFlow is not installed; cannot record expectations.", file=sys.stderr)
        return 2
    harness.EXPECTED_DIR.mkdir(exist_ok=True)
    drifted = 0
    for module in harness.all_case_modules():
        name = module.__name__.rsplit(".", 1)[-1]
        if args.modules and name not in args.modules:
            continue
        payload = {"tensorflow_version": tf.__version__, "cases": _records(module)}
        path = harness.expected_path(name)
        text = json.dumps(payload, indent=1, sort_keys=False) + "\n"
        if args.check:
            old = path.read_text() if path.exists() else ""
            if old != text:
                drifted += 1
                print(f"{path}: differs from live TensorFlow {tf.__version__}")
        else:
            path.write_text(text)
            print(f"wrote {path} ({len(payload['cases'])} cases)")
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
