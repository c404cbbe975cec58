#!/usr/bin/env bash
# The checks that need a GPU, as one short command for a lent GPU machine: versions, the
# benchmarks side by side (tapejax, hand-written JAX, PyTorch on the same GPU; TensorFlow
# where installed), and the device-relevant tests on the GPU.
#
#   OUT=/some/dir bash tools/device_check.sh [BUDGET_S]
#
# Writes bench.md / bench.json / bench.err, tests_gpu.log, tests_fp32.log and versions.txt
# under $OUT, and prints a short summary last. Keras (tapejax.keras) and its dependencies
# are installed from .whl/ when that folder holds wheels (the machine has no network).
#
# Tests run in two groups:
# - tests/test_gpu.py at JAX's default GPU matmul precision (TF32 for float32 dots, as TF's
#   default on GPUs), compared with the CPU at TF32 tolerances;
# - the core unit tests and compat_tests (against TF's stored records when TensorFlow is
#   not installed) with JAX_DEFAULT_MATMUL_PRECISION=highest, so that they check the GPU
#   backend's results at the float32 tolerances they were written for.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tapejax_device_check}
BUDGET=${1:-10}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false KERAS_BACKEND=jax
if compgen -G ".whl/*.whl" >/dev/null; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/tapejax_site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/tapejax_site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

{
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    "$PY" - <<'EOF'
import importlib
import jax
for name in ("jax", "jaxlib", "numpy", "keras", "torch", "tensorflow", "pytest"):
    try:
        print(name, importlib.import_module(name).__version__)
    except Exception as exc:
        print(name, "unavailable:", type(exc).__name__)
print("jax devices:", jax.devices(), "default backend:", jax.default_backend())
import tapejax as tf
with tf.GradientTape() as tape:
    x = tf.Variable([1.0, 2.0])
    y = tf.reduce_sum(x**2)
print("tapejax smoke: gradient", tape.gradient(y, x).numpy(), "on", x.device)
EOF
} >"$OUT/versions.txt" 2>&1
cat "$OUT/versions.txt"

# Benchmarks first: they are what a short lease is for.
timeout -s INT -k 10 270 "$PY" -m benchmarks --budget "$BUDGET" --json "$OUT/bench.json" \
    >"$OUT/bench.md" 2>"$OUT/bench.err"
echo "benchmarks exit $?"

PYTEST=("$PY" -m pytest -q -o addopts=-ra -p no:randomly -p no:cacheprovider -n 8)
timeout -s INT -k 10 80 "${PYTEST[@]}" tests/test_gpu.py >"$OUT/tests_gpu.log" 2>&1
echo "tests/test_gpu.py exit $?"
JAX_DEFAULT_MATMUL_PRECISION=highest timeout -s INT -k 10 150 "${PYTEST[@]}" compat_tests \
    tests/test_tape.py tests/test_function.py tests/test_higher_order.py \
    tests/test_custom_gradient.py tests/test_lazy.py tests/test_interop.py \
    tests/test_lowering.py tests/test_checkpoint.py tests/test_distribute.py \
    tests/test_broadcast_hoist.py tests/test_examples.py tests/test_keras.py \
    >"$OUT/tests_fp32.log" 2>&1
echo "core tests + compat_tests (float32 matmuls) exit $?"

echo "== summary"
tail -n 3 "$OUT/tests_gpu.log"
grep -E "^(FAILED|ERROR)" "$OUT/tests_fp32.log" | head -n 30
tail -n 1 "$OUT/tests_fp32.log"
grep -E "^\| [a-z_]+ \|" "$OUT/bench.md" | grep -v -e skipped -e "| scenario |" |
    awk -F'|' '{printf "%s|%s|%s|%s|%s\n", $3, $4, $5, $6, $8}' | cut -c1-140
