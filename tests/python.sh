#!/bin/sh
# The Python module's tests (python/tests, pytest) against the library and
# program just built.  Run by `make check` with STRATA, SRCDIR, CC and
# PYTHON (configure: Debian's /usr/bin/python3 first) set.  Python, cffi,
# NumPy and pytest are required, not optional: ./bootstrap --tests
# installs them (python3-cffi python3-numpy python3-pytest), so a missing
# one fails this suite instead of skipping it.  pytest prints the closing
# "N passed" line.
: "${SRCDIR:=.}" "${PYTHON:=python3}" "${STRATA:=apps/strata}"
case $SRCDIR in /*) ;; *) SRCDIR=$(pwd)/$SRCDIR ;; esac
case $STRATA in /*) ;; *) STRATA=$(pwd)/$STRATA ;; esac
lib=$(pwd)/.libs/libstrata.so
if [ ! -f "$lib" ]; then
    echo "FAIL: $lib was not built (configure --enable-shared: the module opens the shared library)"
    echo "0 passed, 1 failed"
    exit 1
fi
if ! missing=$("$PYTHON" -c 'import sys
m = []
for n in ("cffi", "numpy", "pytest"):
    try:
        __import__(n)
    except ImportError:
        m.append("python3-" + n)
print(" ".join(m)); sys.exit(1 if m else 0)' 2>&1); then
    echo "FAIL: $PYTHON lacks ${missing:-python} (Debian: apt-get install $missing, or ./bootstrap --tests)"
    echo "0 passed, 1 failed"
    exit 1
fi
export STRATA SRCDIR STRATA_LIBRARY="$lib" PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH="$SRCDIR/python${PYTHONPATH:+:$PYTHONPATH}"
unset STRATA_SIMD
exec "$PYTHON" -m pytest -q -p no:cacheprovider "$SRCDIR/python/tests"
