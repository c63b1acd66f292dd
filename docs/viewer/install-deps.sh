#!/bin/sh
# Install the npm packages of strata's viewer, pinned, into PREFIX
# (default $HOME/.cache/strata-npm, where 'strata view' and tests/viewer.sh
# look; the glTF validator of tests/gltf-validate.sh lives there too):
#   three               three.js, with its GLTFLoader, OrbitControls and
#                       MeshoptDecoder (EXT_meshopt_compression tiles)
#   3d-tiles-renderer   streams the 3D Tiles tileset
#   ws                  the WebSocket client tests/viewer.sh drives
#                       Chromium with (not needed by the page)
# Nothing is fetched at run time: 'strata view' serves these files.
#
#   install-deps.sh [PREFIX]
set -eu
prefix=${1:-${HOME:?}/.cache/strata-npm}
if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps.sh: npm is not installed (Debian: apt-get install npm)" >&2
    exit 1
fi
mkdir -p "$prefix"
npm install --no-audit --no-fund --prefix "$prefix" \
    three@0.187.0 3d-tiles-renderer@0.5.3 ws@8.18.3
echo "installed into $prefix/node_modules"
