#!/bin/sh
# 'strata planet/terrain --sculpt', the editor's server (tests/sculpt.py):
# every security refusal, dabs, undo and redo against the log's and the
# chunks' bytes, exports against the command line's output for 1 and 2
# threads, a restart continuing from the log.  Loopback only.  Needs
# python3 (skipped without).  Run by `make check` with STRATA and SRCDIR
# set.  POSIX sh.

: "${STRATA:?STRATA must name the strata program}"
: "${SRCDIR:=.}"
case $STRATA in /*) ;; *) STRATA=$(pwd)/$STRATA ;; esac
case $SRCDIR in /*) ;; *) SRCDIR=$(pwd)/$SRCDIR ;; esac
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: needs python3"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-sculpt.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
timeout 600 python3 "$SRCDIR/tests/sculpt.py" "$STRATA" "$tmp"
