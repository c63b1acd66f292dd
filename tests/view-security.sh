#!/bin/sh
# 'strata view' against hostile clients (tests/view-security.py): a Host
# that is not the server's (DNS rebinding) is refused, dotfiles and
# symbolic links (out of the directory or not, a directory swapped for
# one) are not served, a FIFO does not hang the server, and hundreds of
# connections trickling a byte every half second neither starve a normal
# client nor take a thread each, and are closed at the head's deadline;
# the same again under 'ulimit -n 64'.  Loopback only, about 20 s.
# Needs python3 (skipped without).  Run by `make check` with STRATA and
# SRCDIR set.  POSIX sh.

: "${STRATA:?STRATA must name the strata program}"
: "${SRCDIR:=.}"
case $STRATA in /*) ;; *) STRATA=$(pwd)/$STRATA ;; esac
case $SRCDIR in /*) ;; *) SRCDIR=$(pwd)/$SRCDIR ;; esac
if ! command -v python3 >/dev/null 2>&1 || [ ! -d /proc/self/fd ]; then
    echo "SKIP: needs python3 and /proc"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-view-security.XXXXXX") || exit 99
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 99

if ! "$STRATA" planet --level 3 --chunk-level 1 --terraces 4 --quiet -o world 2>err; then
    echo "FAIL: cannot make the world: $(cat err)"
    exit 1
fi
# the viewer's npm packages: only their presence is checked at start
mkdir -p modules/three/build modules/3d-tiles-renderer/build outside
echo 'export {};' >modules/three/build/three.module.js
echo 'export {};' >modules/3d-tiles-renderer/build/index.js
echo SECRET >modules/three/.npmrc
echo SECRET >outside/secret.txt
echo '{"SECRET": 1}' >outside.json
echo SECRET=1 >world/.env
mkdir world/.git world/swapped
echo SECRET >world/.git/config
echo SECRET >world/tiles/.hidden
echo SECRET >world/%2eenv
echo '{}' >world/swapped/secret.txt
ln -s "$tmp/outside" world/outside
ln -s ../outside.json world/leak.json
ln -s tileset.json world/inner.json
mkfifo world/fifo

# serve N: start 'strata view world --port 0' with at most N descriptors;
# sets server (its pid) and port
serve() {
    rm -f url
    STRATA_VIEWER=$SRCDIR/docs/viewer STRATA_NODE_MODULES=$tmp/modules \
        sh -c 'ulimit -n "$1" && exec "$2" view world --port 0 --quiet' sh "$1" "$STRATA" \
        >url 2>serve.err &
    server=$!
    i=0
    while [ $i -lt 100 ] && [ ! -s url ]; do
        sleep 0.1
        i=$((i + 1))
    done
    port=$(sed -n 's|^http://127.0.0.1:\([0-9]*\)/$|\1|p' url)
    if [ -z "$port" ]; then
        echo "FAIL: strata view printed no URL: $(cat serve.err)"
        exit 1
    fi
}
status=0
serve 1024
# the directory is swapped for a link once the server runs
rm -r world/swapped && ln -s "$tmp/outside" world/swapped
timeout 60 python3 "$SRCDIR/tests/view-security.py" "$port" "$server" "$tmp/world" || status=1
kill -0 "$server" 2>/dev/null || { echo "FAIL: the server died"; status=1; }
kill "$server"; wait "$server" 2>/dev/null; server=

echo "under ulimit -n 64:"
serve 64
timeout 60 python3 "$SRCDIR/tests/view-security.py" "$port" "$server" "$tmp/world" || status=1
kill -0 "$server" 2>/dev/null || { echo "FAIL: the server died"; status=1; }
exit $status
