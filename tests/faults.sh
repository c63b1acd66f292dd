#!/bin/sh
# I/O faults of the strata program: a full disk, an output path that is a
# directory, a read-only directory, an output that is a device (/dev/full)
# or a FIFO.  Each must give a message naming the file and the cause, exit
# 1, and leave no file behind: no output, no temporary (NAME.tmpXXXXXX),
# for single files, world directories and tileset.json alike (a world run
# stopped by a full disk keeps its whole tiles for --resume, and only
# those).  Then signals during a write (SIGINT, SIGTERM, SIGHUP, a second
# SIGINT, SIGKILL and the next run), two writers of one path at once, and
# a name as long as a file name may be.
#
# A full disk is a small tmpfs mounted here when running as root (and
# allowed to mount), else `ulimit -f` (EFBIG instead of ENOSPC).  A
# read-only directory is a read-only tmpfs when root (root ignores
# permissions), else a directory without write permission.
set -u
: "${STRATA:=apps/strata}"
tmp=$(mktemp -d) || exit 99
mnt=""
cleanup() {
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
. "$(dirname "$0")/lib.sh"
pass=0 fail=0 skip=0
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }

# expect_failure WHAT DIR PATTERN CMD...: CMD exits 1 with a message
# matching PATTERN, and leaves no temporary anywhere under DIR.
expect_failure() {
    what=$1 dir=$2 pattern=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ $st -ne 1 ]; then
        bad "$what: exit $st, expected 1 ($(cat "$tmp/err"))"
        return 1
    fi
    if ! grep -Eq "$pattern" "$tmp/err"; then
        bad "$what: message '$(cat "$tmp/err")' does not match '$pattern'"
        return 1
    fi
    left=$(find "$dir" -name '*.tmp??????' 2>/dev/null)
    if [ -n "$left" ]; then
        bad "$what: temporaries left: $left"
        return 1
    fi
    return 0
}

# No regular file under DIR but those named (relative paths).
only_files() {
    what=$1 dir=$2
    shift 2
    got=$(cd "$dir" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')
    if [ "$got" != "$want" ]; then
        bad "$what: files left: '$got', expected '$want'"
        return 1
    fi
    ok
}

# Fill the file system of DIR to the last block.
fill() {
    dd if=/dev/zero of="$1/filler" bs=4096 >/dev/null 2>&1
    : # ENOSPC ends it
}

# ---------------------------------------------------------------- full disk
full=$tmp/full
mkdir -p "$full"
# STRATA_FAULTS_NO_MOUNT=1: the unprivileged way even as root.
if [ "$(id -u)" = 0 ] && [ -z "${STRATA_FAULTS_NO_MOUNT:-}" ] &&
    mount -t tmpfs -o size=256k tmpfs "$full" 2>"$tmp/mount.err"; then
    mnt=$full
    nospace='No space left on device'
    expect_failure "full disk: .ply" "$full" "cannot write '$full/p.ply': $nospace" \
        "$STRATA" planet --level 6 -o "$full/p.ply" && only_files "full disk: .ply" "$full"
    expect_failure "full disk: .obj" "$full" "cannot write '$full/p.(obj|mtl)': $nospace" \
        "$STRATA" planet --level 6 -o "$full/p.obj" && only_files "full disk: .obj" "$full"
    expect_failure "full disk: .glb" "$full" "cannot write '$full/p.glb': $nospace" \
        "$STRATA" planet --level 6 -o "$full/p.glb" && only_files "full disk: .glb" "$full"
    # The mesh and the loops are written before the preview: a preview
    # that does not fit leaves the old mesh as it was and no loops file
    # (a run's files are renamed into place all together, or none).
    mkdir -p "$tmp/keep"
    printf 'old mesh' >"$tmp/keep/p.ply"
    expect_failure "full disk: preview" "$full" "cannot write '$full/p.png': $nospace" \
        "$STRATA" planet --level 6 --terraces 8 --preview "$full/p.png" --preview-size 2048 \
        -o "$tmp/keep/p.ply" --loops "$tmp/keep/p.geojson" &&
        only_files "full disk: preview" "$full" && only_files "full disk: preview, the mesh" \
        "$tmp/keep" p.ply && [ "$(cat "$tmp/keep/p.ply")" = "old mesh" ] && ok ||
        bad "full disk: preview: the old mesh changed"
    rm -rf "$tmp/keep"
    # A world: the run stops at the first tile that does not fit; the
    # tiles before it are whole (tileset --partial reads every one back).
    expect_failure "full disk: world" "$full" "$nospace" \
        "$STRATA" planet --level 6 --chunk-level 2 -o "$full/w" --threads 1 &&
        if [ -f "$full/w/tileset.json" ]; then
            bad "full disk: world: tileset.json written"
        elif ! "$STRATA" tileset --partial --quiet "$full/w" 2>"$tmp/err" &&
            ! grep --quiet "$nospace" "$tmp/err"; then
            bad "full disk: world: a torn tile ($(cat "$tmp/err"))"
        else
            ok
        fi
    rm -rf "${full:?}"/*
    # tileset.json: the tiles are there, the disk is full.
    mount -o remount,size=4m "$full" || bad "remount the tmpfs"
    "$STRATA" planet --level 3 --chunk-level 1 -o "$full/w" --quiet || bad "world in the tmpfs"
    rm -f "$full/w/tileset.json"
    fill "$full"
    expect_failure "full disk: tileset.json" "$full" \
        "cannot write '$full/w': $nospace" "$STRATA" tileset --quiet "$full/w" &&
        if [ -e "$full/w/tileset.json" ]; then bad "full disk: tileset.json left"; else ok; fi
    umount "$full" && mnt=""
else
    # ulimit -f: writes past the limit fail with EFBIG (SIGXFSZ ignored).
    why=$(cat "$tmp/mount.err" 2>/dev/null)
    skipped "full disk on a small tmpfs: ${why:-not root or STRATA_FAULTS_NO_MOUNT set}; using ulimit -f instead"
    big='File too large'
    for ext in ply obj glb; do
        expect_failure "ulimit -f: .$ext" "$full" "cannot write '$full/p.(ply|obj|mtl|glb)': $big" \
            sh -c 'trap "" XFSZ; ulimit -f 64; exec "$@"' sh \
            "$STRATA" planet --level 6 -o "$full/p.$ext" && only_files "ulimit -f: .$ext" "$full"
    done
    # the loops file is written first, the mesh does not fit: no loops file
    printf 'old mesh' >"$full/p.ply"
    expect_failure "ulimit -f: mesh after loops" "$full" "cannot write '$full/p.ply': $big" \
        sh -c 'trap "" XFSZ; ulimit -f 64; exec "$@"' sh \
        "$STRATA" planet --level 6 --terraces 8 -o "$full/p.ply" --loops "$full/p.geojson" &&
        only_files "ulimit -f: mesh after loops" "$full" p.ply &&
        [ "$(cat "$full/p.ply")" = "old mesh" ] && ok || bad "ulimit -f: the old mesh changed"
    rm -f "$full/p.ply"
    expect_failure "ulimit -f: world" "$full" "$big" \
        sh -c 'trap "" XFSZ; ulimit -f 16; exec "$@"' sh \
        "$STRATA" planet --level 6 --chunk-level 1 -o "$full/w" &&
        if [ -f "$full/w/tileset.json" ]; then bad "ulimit -f: world: tileset.json"; else ok; fi
    rm -rf "${full:?}"/*
fi

# ------------------------------------------------- output is a directory
d=$tmp/isdir
mkdir -p "$d/p.ply" "$d/p.glb" "$d/o.mtl" "$d/w/tileset.json"
expect_failure "directory: .ply" "$d" "cannot write '$d/p.ply': Is a directory" \
    "$STRATA" planet --level 2 -o "$d/p.ply" && only_files "directory: .ply" "$d"
expect_failure "directory: .glb" "$d" "cannot write '$d/p.glb': Is a directory" \
    "$STRATA" planet --level 2 -o "$d/p.glb" && only_files "directory: .glb" "$d"
expect_failure "directory: .mtl" "$d" "cannot write '$d/o.mtl'.*: Is a directory" \
    "$STRATA" planet --level 2 -o "$d/o.obj" && only_files "directory: .mtl" "$d"
# tileset.json a directory: the tiles are made, the tileset refused
expect_failure "directory: tileset.json" "$d" "cannot write '$d/w(/tileset.json)?': Is a directory" \
    "$STRATA" planet --level 3 --chunk-level 1 -o "$d/w" --quiet &&
    [ -d "$d/w/tileset.json" ] && ok
# a world directory that is a file
: >"$d/file"
expect_failure "world dir is a file" "$d" "'$d/file'.*(Not a directory|not a directory)" \
    "$STRATA" planet --level 3 --chunk-level 1 -o "$d/file" --quiet && ok

# ------------------------------------------------------ read-only directory
ro=$tmp/ro
mkdir -p "$ro"
"$STRATA" planet --level 3 --chunk-level 1 -o "$ro/w" --quiet || bad "world for the read-only case"
rm -f "$ro/w/tileset.json"
made_ro=""
if [ "$(id -u)" = 0 ] && [ -n "${STRATA_FAULTS_NO_MOUNT:-}" ]; then
    skipped "read-only directory as root: STRATA_FAULTS_NO_MOUNT set (root ignores permissions)"
elif [ "$(id -u)" = 0 ]; then
    # root ignores permissions: a read-only mount over the directory
    if mount --bind "$ro" "$ro" 2>"$tmp/mount.err" && mount -o remount,bind,ro "$ro" 2>>"$tmp/mount.err"; then
        mnt=$ro made_ro=1
    else
        umount "$ro" 2>/dev/null
        skipped "read-only directory as root: cannot mount read-only ($(tr '\n' ' ' <"$tmp/mount.err"))"
    fi
else
    chmod -R a-w "$ro" && made_ro=1
fi
if [ -n "$made_ro" ]; then
    rofs='Read-only file system|Permission denied'
    expect_failure "read-only: .ply" "$ro" "cannot write '$ro/p.ply': ($rofs)" \
        "$STRATA" planet --level 2 -o "$ro/p.ply" && [ ! -e "$ro/p.ply" ] && ok
    expect_failure "read-only: tileset" "$ro" "cannot write '$ro/w': ($rofs)" \
        "$STRATA" tileset --quiet "$ro/w" && ok
    expect_failure "read-only: world" "$ro" "($rofs)" \
        "$STRATA" planet --level 3 --chunk-level 1 -o "$ro/w2" --quiet && ok
    if [ "$(id -u)" = 0 ]; then umount "$ro" && mnt=""; else chmod -R u+w "$ro"; fi
fi

# ---------------------------------------------------- devices and FIFOs
# Outputs are written whole to a temporary and renamed: a path naming a
# device or a FIFO (here a link to /dev/full) is refused before anything
# is written, never replaced.
d=$tmp/dev
mkdir -p "$d"
ln -s /dev/full "$d/full.ply"
mkfifo "$d/fifo.glb"
expect_failure "/dev/full" "$d" "cannot write '$d/full.ply': not a regular file" \
    "$STRATA" planet --level 2 -o "$d/full.ply" &&
    [ -L "$d/full.ply" ] && [ -c /dev/full ] && ok
expect_failure "FIFO" "$d" "cannot write '$d/fifo.glb': not a regular file" \
    "$STRATA" planet --level 2 -o "$d/fifo.glb" && [ -p "$d/fifo.glb" ] && ok
# the mesh and the loops, written before the preview, are not renamed
# into place: the old mesh keeps its bytes, no loops file is made
printf 'old mesh' >"$d/p.ply"
expect_failure "/dev/full preview" "$d" "cannot write '$d/full.png': not a regular file" \
    sh -c 'ln -s /dev/full "$1/full.png" && exec "$2" planet --level 2 --terraces 4 --preview "$1/full.png" -o "$1/p.ply" --loops "$1/p.geojson"' \
    sh "$d" "$STRATA" && [ "$(cat "$d/p.ply")" = "old mesh" ] && [ ! -e "$d/p.geojson" ] && ok ||
    bad "/dev/full preview: the old mesh changed or a loops file was left: $(ls "$d" | tr '\n' ' ')"
# a directory in the preview's way: refused before anything is written
mkdir "$d/dir.png"
expect_failure "directory preview" "$d" "cannot write '$d/dir.png': Is a directory" \
    "$STRATA" planet --level 2 --terraces 4 --preview "$d/dir.png" -o "$d/p.ply" \
    --loops "$d/p.geojson" && [ "$(cat "$d/p.ply")" = "old mesh" ] && [ ! -e "$d/p.geojson" ] &&
    ok || bad "directory preview: the old mesh changed or a loops file was left"
rm -rf "$d/p.ply" "$d/dir.png"

# ------------------------------------------------------------ signals
# Signals are sent as soon as the temporary file exists, so they land in
# the write; a run that ends before its temporary is seen is not counted.
if command -v python3 >/dev/null 2>&1; then
    d=$tmp/sig
    mkdir -p "$d"
    cat >"$tmp/sig.py" <<'PY'
import os, signal, subprocess, sys, time
strata, d, out, sigs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def default_signals():  # a caller under nohup ignores SIGHUP; strata keeps an ignored one
    for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen([strata, "planet", "--level", "9", "-o", os.path.join(d, out)],
                     stderr=subprocess.PIPE, preexec_fn=default_signals)
seen = False
while p.poll() is None and not seen:
    seen = any(".tmp" in f for f in os.listdir(d))
    if not seen:
        time.sleep(0.0005)
late = False
for i, s in enumerate(sigs):
    if seen and s != "none":
        p.send_signal(getattr(signal, s))
        # the first signal came after the rename (the write was over) when
        # the temporary is gone and the final file is there right after it
        if i == 0:
            late = (not any(".tmp" in f for f in os.listdir(d)) and
                    os.path.exists(os.path.join(d, out)))
        time.sleep(0.001)
err = p.stderr.read().decode()
rc = p.wait()
print("late" if seen and late and rc == 0 else rc if seen else "missed",
      err.strip().replace("\n", " | "))
PY
    # sig_case WHAT WANT_RC WANT_MSG SIGNALS...: the run's status and message
    sig_case() {
        what=$1 want=$2 msg=$3
        shift 3
        rm -f "$d"/*
        set -- $(python3 "$tmp/sig.py" "$STRATA" "$d" p.ply "$@")
        got=$1
        shift
        if [ "$got" = missed ]; then
            skipped "$what: the run ended before its temporary was seen"
        elif [ "$got" = late ]; then
            skipped "$what: the signal came after the file was renamed into place"
        elif ! echo " $want " | grep -q " $got " || ! echo "$*" | grep -q "$msg"; then
            bad "$what: exit $got, '$*' (expected $want, '$msg')"
        elif [ -n "$(ls "$d")" ]; then
            bad "$what: files left: $(ls "$d")"
        else
            ok
        fi
    }
    sig_case "SIGINT while writing" 130 "^strata: interrupted$" SIGINT
    sig_case "SIGTERM while writing" 143 "^strata: terminated (SIGTERM)$" SIGTERM
    sig_case "SIGHUP while writing" 129 "^strata: hung up (SIGHUP)$" SIGHUP
    # The second signal kills at once (its handler removes the temporary
    # first), unless the first one has already ended the run: either way
    # nothing is left.
    sig_case "a second SIGINT while writing" "-2 130" "" SIGINT SIGINT
    sig_case "a second SIGTERM while writing" "-15 143" "" SIGTERM SIGTERM

    # SIGINT between outputs: once the preview's temporary appears, the
    # mesh and the loops are written (under their temporary names).  The
    # run stops with nothing new: the old mesh as it was, no loops file.
    rm -f "$d"/*
    printf 'old mesh' >"$d/p.ply"
    python3 - "$STRATA" "$d" >"$tmp/between" 2>&1 <<'PY'
import os, signal, subprocess, sys
import time
strata, d = sys.argv[1], sys.argv[2]
p = subprocess.Popen([strata, "planet", "--level", "7", "--terraces", "12", "-o",
                      os.path.join(d, "p.ply"), "--loops", os.path.join(d, "p.geojson"),
                      "--preview", os.path.join(d, "p.png"), "--preview-size", "8192"],
                     stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
seen = False
while p.poll() is None and not seen:
    seen = any(f.startswith("p.png.tmp") for f in os.listdir(d))
    if not seen:
        time.sleep(0.0005)
if seen:
    p.send_signal(signal.SIGINT)
err = p.stderr.read().decode().strip()
print(p.wait() if seen else "missed", err)
PY
    set -- $(cat "$tmp/between")
    if [ "$1" = missed ]; then
        skipped "SIGINT between outputs: the run ended before the preview's temporary was seen"
    elif [ "$1" != 130 ] || [ "$(ls "$d" | tr '\n' ' ')" != "p.ply " ] ||
        [ "$(cat "$d/p.ply")" != "old mesh" ]; then
        bad "SIGINT between outputs: $(cat "$tmp/between"), files: $(ls "$d" | tr '\n' ' ')"
    else
        ok
    fi

    # SIGKILL cannot be caught: its temporary stays, unlocked; the next run
    # of the same output removes it (and says so), a live writer's stays.
    rm -f "$d"/*
    set -- $(python3 "$tmp/sig.py" "$STRATA" "$d" k.ply SIGKILL)
    if [ "$1" = missed ]; then
        skipped "SIGKILL: the run ended before its temporary was seen"
    elif [ "$(ls "$d" | grep -c '^k\.ply\.tmp')" -ne 1 ]; then
        bad "SIGKILL: expected one temporary, found: $(ls "$d")"
    else
        python3 -c '
import fcntl, os, subprocess, sys
d = sys.argv[2]
live = os.open(os.path.join(d, "k.ply.tmplive00"), os.O_CREAT | os.O_WRONLY)
fcntl.flock(live, fcntl.LOCK_EX)
r = subprocess.run([sys.argv[1], "planet", "--level", "3", "-o", os.path.join(d, "k.ply")],
                   stderr=subprocess.PIPE)
sys.stdout.write(r.stderr.decode())
sys.exit(r.returncode)' "$STRATA" "$d" >"$tmp/err" 2>&1
        st=$?
        if [ $st -eq 0 ] && grep -q "removed 1 temporary file of '$d/k.ply' a killed run left" "$tmp/err" &&
            [ "$(ls "$d" | tr '\n' ' ')" = "k.ply k.ply.tmplive00 " ]; then
            ok
        else
            bad "the run after SIGKILL: exit $st, '$(cat "$tmp/err")', files: $(ls "$d" | tr '\n' ' ')"
        fi
        # the lock went with the process that held it: stale now
        "$STRATA" planet --level 3 --quiet -o "$d/k.ply" && [ "$(ls "$d")" = k.ply ] && ok ||
            bad "a stale temporary once its writer is gone: $(ls "$d" | tr '\n' ' ')"
    fi
fi

# ------------------------------------------------- two writers, one path
# Each writes its own temporary and renames it: the file is one of the two
# outputs, whole, never a mixture, and no temporary stays.
d=$tmp/race
mkdir -p "$d"
"$STRATA" planet --level 7 --seed 1 --quiet -o "$d/one.ply" &&
    "$STRATA" planet --level 7 --seed 2 --quiet -o "$d/two.ply" || bad "race: reference files"
for round in 1 2 3; do
    "$STRATA" planet --level 7 --seed 1 --quiet -o "$d/both.ply" &
    "$STRATA" planet --level 7 --seed 2 --quiet -o "$d/both.ply"
    wait
    if { cmp -s "$d/both.ply" "$d/one.ply" || cmp -s "$d/both.ply" "$d/two.ply"; } &&
        [ "$(ls "$d" | tr '\n' ' ')" = "both.ply one.ply two.ply " ]; then
        ok
    else
        bad "two writers of one path, round $round: $(ls "$d" | tr '\n' ' ')"
    fi
done

# ------------------------------------------------------- long names
# A name of 251 bytes (a file name may have 255): the temporary name is
# cut to fit, not refused as too long.
d=$tmp/long
mkdir -p "$d"
long=$(printf '%0247d.ply' 0)
"$STRATA" planet --level 3 --quiet -o "$d/$long" && [ -f "$d/$long" ] &&
    [ "$(ls "$d" | wc -l)" -eq 1 ] && ok || bad "a 251-byte output name: $(ls "$d")"

finish | sed "s/\$/, $skip skipped/"
[ "$fail" -eq 0 ]
