#!/usr/bin/env bash
# The Python package's tests (issue 12): installs ./python into a virtual environment exactly as a user would
# (`pip install ./python`: maturin builds the extension with the installed cargo), then runs its pytest suite
# (python/tests: NumPy property tests with hypothesis, the DirectML doc examples, every error path).
#
# The environment lives in ${STRIDEKIT_PY_VENV:-$CARGO_TARGET_DIR/python-venv} (default target/python-venv; never
# committed) and is reused between runs; the package is rebuilt every time. Needs python3 (>= 3.9, with venv and
# pip) and network access for pip (maturin, numpy, pytest, hypothesis). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
venv=${STRIDEKIT_PY_VENV:-$target/python-venv}
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
venv=$(cd "$venv" && pwd)
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet numpy pytest hypothesis
# The package itself, with the same target directory as the rest of the build (maturin honours CARGO_TARGET_DIR).
CARGO_TARGET_DIR=$target "$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps ./python
# Run from the tests directory so that `import stridekit` finds the installed package, not the source tree.
cd python/tests
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
