#!/bin/sh
# The Debian packages (debian/): built from the distributed files (make
# distdir) with dpkg-buildpackage -us -uc -b, checked by lintian (no error,
# no warning), unpacked with dpkg-deb -x into a scratch root and used from
# there: the program, the manual page, the Blender add-on, the README's C
# example built with pkg-config against libstrata-dev (shared and static),
# the Python module's tests in /usr/bin/python3.  Run by make check from
# the build directory, with STRATA (the program just built, whose output
# the packaged one must match byte for byte), SRCDIR and CC set.
#
# The packages are unpacked, not installed (dpkg -i): this machine is
# shared, and an installed libstrata.so.0 would sit in the loader path of
# every other build and test here (the Python module falls back to it).
# What dpkg -i adds over dpkg -x is checked apart: that the dependencies
# resolve (apt-get -s), and that the maintainer scripts are debhelper's.
#
# The build runs with DEB_BUILD_OPTIONS=nocheck (make check, which runs
# this, runs every suite on the same sources) and fails on a symbol the
# library gains or loses against debian/libstrata0.symbols
# (DPKG_GENSYMBOLS_CHECK_LEVEL=2).  Skipped (77) without dpkg-buildpackage
# or lintian (not Debian); a missing build dependency fails:
# ./bootstrap --tests installs them.
. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD STRATA_LIBRARY OMP_NUM_THREADS

for tool in dpkg-buildpackage dpkg-checkbuilddeps dpkg-deb lintian pkg-config; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: no $tool (Debian: apt-get install dpkg-dev debhelper lintian, or ./bootstrap --tests)"
        exit 77
    fi
done
version=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
test_dir deb
log=$tmp/build.log

# The packages' version is configure's (AC_INIT): a release bumps both.
deb_version=$(dpkg-parsechangelog -l "$SRCDIR/debian/changelog" -S Version)
check "debian/changelog's version $deb_version is configure's $version" '[ "$deb_version" = "$version" ]'
if ! missing=$(cd "$SRCDIR" && dpkg-checkbuilddeps 2>&1); then
    bad "build dependencies missing (./bootstrap --tests installs them): $missing"
    finish
    exit
fi

# The tree of a release tarball: what make dist would pack (so debian/ must
# be in EXTRA_DIST), writable (make distcheck's sources are read-only).  The
# make variables of the make check running this are no business of
# dpkg-buildpackage's (compiler flags come from dpkg-buildflags).
src=$tmp/strata-$version
clean_env="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CC -u CFLAGS -u CPPFLAGS -u LDFLAGS -u LIBTOOL -u PYTHON"
if ! $clean_env make -C "$builddir" distdir distdir="$src" >"$log" 2>&1; then
    bad "make distdir failed: $(tail -n 20 "$log")"
    finish
    exit
fi
chmod -R u+w "$src"
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
if (cd "$src" && $clean_env DEB_BUILD_OPTIONS="nocheck parallel=$jobs" DPKG_GENSYMBOLS_CHECK_LEVEL=2 \
    nice dpkg-buildpackage -us -uc -b >>"$log" 2>&1); then
    ok
    echo "dpkg-buildpackage -us -uc -b: $(($(date +%s) - start)) s"
else
    hint=
    grep -q '^dpkg-gensymbols: [a-z]*: some .*symbols' "$log" &&
        hint=" (the library's functions are not those of debian/libstrata0.symbols: see the diff)"
    bad "dpkg-buildpackage failed$hint:
$(tail -n 40 "$log")"
    finish
    exit
fi

# The library package is named after the SONAME (libstrata.so.N: libstrataN).
for p in libstrata0_${version}_*.deb libstrata-dev_${version}_*.deb strata_${version}_*.deb \
    python3-strata_${version}_all.deb; do
    check "no package $p was built: $(ls)" '[ -f $p ]'
done
root=$tmp/root
for deb in *.deb; do
    case $deb in *-dbgsym_*) continue ;; esac
    dpkg-deb -x "$deb" "$root" || bad "dpkg-deb -x $deb failed"
done
libdir=$root/usr/lib/$ma
soname=$(objdump -p "$libdir/libstrata.so.0" 2>/dev/null | awk '$1 == "SONAME" {print $2}')
libfile=$(readlink -f "$libdir/libstrata.so.0")
check "libstrata0 ships $soname, not libstrata.so.0 (rename the package after the SONAME)" \
    '[ "$soname" = libstrata.so.0 ] && [ -L "$libdir/libstrata.so.0" ]'
check "libstrata-dev: header, .so link, static library and strata.pc" \
    '[ -f "$root/usr/include/strata.h" ] && [ -L "$libdir/libstrata.so" ] && [ -f "$libdir/libstrata.a" ] && [ -f "$libdir/pkgconfig/strata.pc" ]'

# lintian: every error and warning fails; overrides (debian/*.lintian-overrides)
# carry their reasons.  Info tags are shown.
if lintian -I --pedantic --show-overrides --fail-on error,warning --tag-display-limit 0 \
    "strata_${version}_$(dpkg --print-architecture).changes" >lintian.out 2>lintian.err; then
    ok
else
    bad "lintian: $(cat lintian.out lintian.err)"
fi
sed 's/^/lintian: /' lintian.out
echo "lintian: $(grep -c '^E:' lintian.out) errors, $(grep -c '^W:' lintian.out) warnings, $(grep -c '^[IP]:' lintian.out) info and pedantic tags, $(grep -c '^O:' lintian.out) overridden"

# What dpkg -i would refuse: dependencies this system cannot meet.
if command -v apt-get >/dev/null 2>&1; then
    if apt-get -s -q install ./libstrata0_*.deb ./libstrata-dev_*.deb ./strata_"$version"_*.deb \
        ./python3-strata_*.deb >apt.out 2>&1; then
        ok
    else
        bad "the packages' dependencies cannot be met here: $(tail -n 15 apt.out)"
    fi
fi
# The maintainer scripts dpkg -x does not run: debhelper's sections only
# (python3-strata's byte-compilation; libstrata0 has an ldconfig trigger).
for deb in libstrata0 libstrata-dev strata python3-strata; do
    rm -rf ctl
    dpkg-deb -e ${deb}_"$version"_*.deb ctl
    for f in ctl/preinst ctl/postinst ctl/prerm ctl/postrm; do
        [ -f $f ] || continue
        own=$(awk '/^# Automatically added by/ {skip=1} !skip && !/^(#|set -e$|$)/ {print} /^# End automatically added section/ {skip=0}' $f)
        check "$deb's ${f#ctl/} has lines of its own: $own" '[ -z "$own" ]'
    done
done

# The program: its library is the package's, its planet the same bytes as
# the program just built.
export LD_LIBRARY_PATH="$libdir"
"$root/usr/bin/strata" --version >version.out 2>&1
check "strata --version: $(cat version.out), want 'strata $version'" 'grep -qx "strata $version" version.out'
check "the packaged strata loads the packaged library: $(ldd "$root/usr/bin/strata" | grep libstrata)" \
    'ldd "$root/usr/bin/strata" | grep -q "libstrata.so.0 => $libdir/libstrata.so.0"'
"$root/usr/bin/strata" planet --level 4 --seed 5 --terraces 9 -o pkg.ply --quiet &&
    "$STRATA" planet --level 4 --seed 5 --terraces 9 -o build.ply --quiet
same "a level-4 planet from the packaged program against the build's" pkg.ply build.ply
check "strata's manual page is docs/strata.1" 'zcat "$root/usr/share/man/man1/strata.1.gz" | cmp -s - "$SRCDIR/docs/strata.1"'
check "the viewer's page in /usr/share/strata/viewer" '[ -f "$root/usr/share/strata/viewer/index.html" ] && [ -f "$root/usr/share/strata/viewer/viewer.js" ]'
check "the program looks for its viewer in /usr/share/strata" 'grep -q /usr/share/strata "$root/usr/bin/strata"'
same "the Blender add-on in /usr/share/strata/blender" "$root/usr/share/strata/blender/strata_terrace" \
    "$SRCDIR/blender/strata_terrace"
unset LD_LIBRARY_PATH

# The README's C example against libstrata-dev, found by pkg-config (the
# system's .pc files for strata.pc's Requires.private): strata.pc says
# /usr, its copy in pc/ the scratch root.
check "strata.pc: prefix /usr, libdir /usr/lib/$ma" \
    'grep -qx "prefix=/usr" "$libdir/pkgconfig/strata.pc" && grep -qx "libdir=\${prefix}/lib/$ma" "$libdir/pkgconfig/strata.pc"'
mkdir pc
sed "s|^prefix=/usr\$|prefix=$root/usr|" "$libdir/pkgconfig/strata.pc" >pc/strata.pc
awk '/<!-- example:/ {grab=1; next} grab && /^```c/ {inside=1; next} inside && /^```/ {exit} inside {print}' \
    "$SRCDIR/README.md" >example.c
pc() { PKG_CONFIG_PATH=$tmp/pc pkg-config "$@" strata; }
cflags=$(pc --cflags) libs=$(pc --libs)
check "pkg-config --cflags --libs strata names the scratch root: $cflags $libs" \
    'echo "$cflags" | grep -q -- "-I$root/usr/include" && echo "$libs" | grep -q -- "-L$libdir .*-lstrata"'
# shellcheck disable=SC2086
if ${CC:-cc} -std=c99 -Wall -Werror $cflags -o example example.c $libs >cc.log 2>&1 &&
    ${CC:-cc} -std=c99 $cflags -M example.c | grep -q "$root/usr/include/strata.h"; then
    LD_LIBRARY_PATH=$libdir ./example >example.out 2>&1
    rc=$?
    check "the README example (shared) exited $rc: $(cat example.out)" \
        '[ $rc -eq 0 ] && grep -Eq "^[0-9]+ vertices, [0-9]+ triangles, 16 terraces$" example.out && [ "$(head -c 3 planet.ply)" = ply ]'
    check "the example links the packaged libstrata.so.0" \
        'LD_LIBRARY_PATH=$libdir ldd ./example | grep -q "libstrata.so.0 => $libdir/"'
else
    bad "the README example does not build against libstrata-dev: $(cat cc.log)"
fi
# Static: libstrata.a, strata.pc's Libs.private and the shared libraries of
# its Requires.private (pkg-config --static would ask for static hwloc,
# udev, GDAL, ...: a fully static program, which Debian does not support).
reqs=$(pc --print-requires-private | awk '{print $1}')
# shellcheck disable=SC2086
static_libs="$libdir/libstrata.a $(sed -n 's/^Libs.private: //p' pc/strata.pc) $(pkg-config --libs $reqs)"
# shellcheck disable=SC2086
if ${CC:-cc} -std=c99 -Wall -Werror $cflags -o example-static example.c $static_libs >cc.log 2>&1; then
    rm -f planet.ply
    ./example-static >example.out 2>&1
    rc=$?
    check "the README example (static) exited $rc: $(cat example.out)" \
        '[ $rc -eq 0 ] && grep -Eq "triangles, 16 terraces$" example.out && [ "$(head -c 3 planet.ply)" = ply ]'
    check "the static example needs no libstrata.so" '! objdump -p example-static | grep -q "NEEDED.*libstrata"'
else
    bad "the README example does not link libstrata.a with pkg-config --static: $(cat cc.log)"
fi

# The Python module in Debian's python3, from the package alone (its tests,
# the packaged program and library), and the library it opened.
pydir=$root/usr/lib/python3/dist-packages
check "python3-strata has no _libpath.py (it opens libstrata.so.0 by the loader)" '[ ! -e "$pydir/strata/_libpath.py" ]'
LD_LIBRARY_PATH=$libdir PYTHONPATH=$pydir /usr/bin/python3 -c '
import strata, sys
lib = [l.split()[-1] for l in open("/proc/self/maps") if "libstrata" in l]
print(strata.__file__)
print(lib[0] if lib else "none")' >py.out 2>&1
check "import strata in /usr/bin/python3 takes the packaged module and library: $(cat py.out)" \
    '[ "$(sed -n 1p py.out)" = "$pydir/strata/__init__.py" ] && [ "$(sed -n 2p py.out)" = "$libfile" ]'
if LD_LIBRARY_PATH=$libdir PYTHONPATH=$pydir STRATA=$root/usr/bin/strata PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider "$SRCDIR/python/tests" >pytest.out 2>&1; then
    ok
else
    bad "the Python module's tests against python3-strata: $(tail -n 30 pytest.out)"
fi
echo "python/tests against the packages: $(tail -n 1 pytest.out)"
finish
