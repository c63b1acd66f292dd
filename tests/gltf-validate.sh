#!/bin/sh
# Validate the .glb files the strata program writes with the Khronos
# glTF-Validator (npm package "gltf-validator", run by node), and, when
# assimp(1) is installed, check that another importer reads the same
# primitive and triangle counts.  Run by `make check` with STRATA (the
# program) and SRCDIR set.  Exits 77 (skipped) without node or the package.
#
# The package is looked up as tests/lib.sh's find_validator says.
# POSIX sh only.

. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD

if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node is not installed (apt-get install nodejs npm)"
    exit 77
fi
find_validator
if [ -z "$module" ]; then
    echo "SKIP: npm package gltf-validator not found; install it with"
    echo "  npm install --prefix \"\$HOME/.cache/strata-npm\" gltf-validator"
    exit 77
fi
echo "validator: $module"

test_dir gltf

# glb NAME ARGS...: write NAME.glb with the program, then validate it.
glb() {
    name=$1
    shift
    if ! "$STRATA" "$@" --quiet -o "$name.glb" 2>err; then
        bad "$name: strata $*: $(cat err)"
        return 1
    fi
    if node "$SRCDIR/tests/gltf-validate.mjs" "$module" "$name.glb" >report 2>&1; then
        ok
    else
        bad "$name: the validator reports errors or warnings"
    fi
    sed 's/^/  /' report
}

# The JSON chunk of a .glb (its length is the uint32 at byte 12).
json() {
    n=$(od -An -tu4 -j12 -N4 "$1" | tr -d ' ')
    dd if="$1" bs=1 skip=20 count="$n" 2>/dev/null
}
# How many times a string occurs in the JSON chunk.
count() { json "$1" | grep -o -- "$2" | wc -l | tr -d ' '; }

glb planet planet --level 3
check "planet: 16 primitives, 16 materials" \
    '[ "$(count planet.glb "\"mode\":4")" = 16 ] && [ "$(count planet.glb "\"pbrMetallicRoughness\"")" = 16 ]'

glb separate terrain --cells 32 --walls separate --normals
check "separate walls: wall materials" '[ "$(count separate.glb "\"name\":\"wall_")" -gt 0 ]'

glb normals planet --level 2 --normals --palette ice
# walls of no area (heights within rounding of a plane) still get unit normals
glb flatwalls terrain --cells 150 --terraces 10 --normals
check "normals: NORMAL attribute" '[ "$(count normals.glb "\"NORMAL\":1")" -gt 0 ]'

glb polygon terrain --shape polygon --sides 5 --depth 2 --terraces 4 --walls lower --palette mono
check "polygon: unsigned short indices only" \
    '[ "$(count polygon.glb "\"componentType\":5123")" -gt 0 ] && [ "$(count polygon.glb "\"componentType\":5125")" = 0 ]'

glb grid terrain --cells 256 --terraces 6 --palette desert
check "big grid: some unsigned int indices" '[ "$(count grid.glb "\"componentType\":5125")" -gt 0 ]'

glb props planet --level 4 --terraces 8 --props 300 --props-noise 2
check "props: trees and rocks, each a node with EXT_mesh_gpu_instancing, used and required" \
    '[ "$(count props.glb "EXT_mesh_gpu_instancing")" = 4 ] && [ "$(count props.glb "\"TRANSLATION\"")" = 2 ] &&
     [ "$(count props.glb "\"extensionsRequired\":\[\"EXT_mesh_gpu_instancing\"\]")" = 1 ]'

glb water planet --level 4 --terraces 8 --sea-level 0 --water --normals
check "water: a translucent material water" \
    '[ "$(count water.glb "\"name\":\"water\",\"alphaMode\":\"BLEND\"")" = 1 ]'
glb water-terrain terrain --shape polygon --sides 6 --depth 3 --sea-level 0.05 --water
glb shore planet --level 5 --terraces 8 --sea-level 0 --water --shoreline 0.02 --normals
check "shoreline: a primitive with TEXCOORD_0, material shoreline" \
    '[ "$(count shore.glb "\"TEXCOORD_0\"")" = 1 ] && [ "$(count shore.glb "\"name\":\"shoreline\"")" = 1 ]'
glb shore-terrain terrain --cells 300 --sea-level 0.1 --water --shoreline 0.05
check "shoreline on a big terrain: its indices from its first vertex, unsigned short" \
    '[ "$(count shore-terrain.glb "\"componentType\":5125")" -gt 0 ] && json shore-terrain.glb | grep -q "\"TEXCOORD_0\""'

# --ao: COLOR_0 (VEC4 normalized unsigned bytes) on every terrain
# primitive, also beside a shoreline's own accessors, water and normals
glb ao planet --level 4 --terraces 8 --ao
check "ao: COLOR_0 on every primitive" \
    '[ "$(count ao.glb "\"COLOR_0\"")" = "$(count ao.glb "\"mode\":4")" ] && [ "$(count ao.glb "\"normalized\":true")" = 1 ]'
glb ao-shore planet --level 5 --terraces 8 --sea-level 0 --water --shoreline 0.02 --normals --props 300 --ao=0.05
check "ao with a shoreline: none on its primitive nor on the props' three parts" \
    '[ "$(count ao-shore.glb "\"COLOR_0\"")" = $(($(count ao-shore.glb "\"mode\":4") - 4)) ]'
glb ao-terrain terrain --cells 100 --walls separate --ao=0.5
if "$STRATA" terrain --cells 64 --tile-cells 32 --ao --quiet -o aoworld 2>err; then
    if node "$SRCDIR/tests/gltf-validate.mjs" "$module" aoworld/tiles/1/*.glb >report 2>&1; then
        ok
    else
        bad "ao world tiles: the validator reports errors or warnings"
    fi
else
    bad "ao world: strata terrain --tile-cells 32 --ao: $(cat err)"
fi
# --uv: TEXCOORD_0 (VEC2 floats) on every terrace primitive, with normals,
# separate walls, occlusion, props
glb uv terrain --cells 100 --uv
check "uv: TEXCOORD_0 on every primitive, one VEC2 accessor" \
    '[ "$(count uv.glb "\"TEXCOORD_0\"")" = "$(count uv.glb "\"mode\":4")" ] && [ "$(count uv.glb "\"VEC2\"")" = 1 ]'
glb uv-separate terrain --cells 100 --walls separate --no-normals --uv=0.3
glb uv-ao terrain --cells 100 --uv --ao --props 2
check "uv with occlusion and props: TEXCOORD_0 and COLOR_0 on the terrain's primitives only" \
    '[ "$(count uv-ao.glb "\"TEXCOORD_0\"")" = "$(count uv-ao.glb "\"COLOR_0\"")" ] && [ "$(count uv-ao.glb "\"TEXCOORD_0\"")" = $(($(count uv-ao.glb "\"mode\":4") - 3)) ]'
# --style / --colours: COLOR_0 carries the colours (times the occlusion),
# the terrace materials white; with water, a shoreline and props too
glb style planet --level 4 --terraces 8 --sea-level 0 --style cartoon
check "style: COLOR_0 on every primitive, white terrace materials" \
    '[ "$(count style.glb "\"COLOR_0\"")" = "$(count style.glb "\"mode\":4")" ] && [ "$(count style.glb "\"baseColorFactor\":\[1.000000,1.000000,1.000000,1\]")" = "$(count style.glb "\"mode\":4")" ]'
glb style-ao-shore planet --level 5 --terraces 8 --sea-level 0 --water --shoreline 0.02 --normals --props 300 --ao=0.05 --style cartoon
glb style-terrain terrain --cells 100 --walls separate --sea-level 0.1 --ao --style desert
if "$STRATA" info | grep -q '^meshoptimizer: yes'; then
    glb style-compressed planet --level 5 --terraces 8 --sea-level 0 --water --normals --compress --ao --style snow
fi
# --uv and --style together: TEXCOORD_0 and COLOR_0 on the terrain's
# primitives, plain and compressed (the views of both counted right)
glb uv-style terrain --cells 100 --uv --ao --style desert --sea-level 0.1
check "uv and style: TEXCOORD_0 and COLOR_0 on every primitive" \
    '[ "$(count uv-style.glb "\"TEXCOORD_0\"")" = "$(count uv-style.glb "\"mode\":4")" ] && [ "$(count uv-style.glb "\"COLOR_0\"")" = "$(count uv-style.glb "\"mode\":4")" ]'
if "$STRATA" info | grep -q '^meshoptimizer: yes'; then
    glb uv-style-compressed terrain --cells 100 --uv --ao --style desert --sea-level 0.1 --compress
fi
glb unsliced terrain --cells 8 --terraces 0
check "unsliced: one primitive" '[ "$(count unsliced.glb "\"mode\":4")" = 1 ]'

# --compress (when the program has meshoptimizer): EXT_meshopt_compression
# required, and clean.  The validator cannot decode the extension (it says
# so as an info); tests/check_gltf decodes the streams.
if "$STRATA" info | grep -q '^meshoptimizer: yes'; then
    glb compressed terrain --cells 256 --terraces 6 --walls separate --normals --compress
    check "compressed: the extension is required" \
        '[ "$(count compressed.glb "\"extensionsRequired\":\[\"EXT_meshopt_compression\"\]")" = 1 ]'
    glb compressed-shore planet --level 5 --terraces 8 --sea-level 0 --water --shoreline 0.02 --props 300 --normals --compress
    check "compressed shoreline and props: TEXCOORD_0 and instancing in a compressed file" \
        '[ "$(count compressed-shore.glb "\"TEXCOORD_0\"")" = 1 ] && [ "$(count compressed-shore.glb "\"TRANSLATION\"")" = 2 ]'
    glb compressed-shore-terrain terrain --cells 300 --sea-level 0.1 --water --shoreline 0.05 --props 2 --compress
    glb compressed-uv terrain --cells 100 --uv --ao --props 2 --compress
    glb compressed-ao planet --level 5 --terraces 8 --sea-level 0 --water --shoreline 0.02 --normals --props 300 --compress --ao
    if "$STRATA" planet --level 5 --chunk-level 1 --compress --quiet -o world 2>err; then
        ok
        if node "$SRCDIR/tests/gltf-validate.mjs" "$module" world/tiles/1/*.glb >report 2>&1; then
            ok
        else
            bad "compressed world tiles: the validator reports errors or warnings"
        fi
        sed 's/^/  /' report | grep -v 'UNSUPPORTED_EXTENSION\|UNUSED_OBJECT' | head -n 30
        check "compressed world tiles: the extension is required" \
            '[ "$(count world/tiles/1/0.glb EXT_meshopt_compression)" -ge 2 ]'
    else
        bad "compressed world: strata planet --chunk-level 1 --compress: $(cat err)"
    fi
else
    echo "no meshoptimizer in this strata: --compress not validated"
fi

# ------------------------------------------------------------ assimp
# 'assimp info' prints the number of meshes (one per glTF primitive) and
# faces; compare with the JSON and the program's own counts.
if command -v assimp >/dev/null 2>&1; then
    for name in planet separate polygon grid; do
        want_prims=$(count $name.glb '"mode":4')
        tris=$(json $name.glb | grep -o '"componentType":51[0-9][0-9],"count":[0-9]*,"type":"SCALAR"' |
            sed 's/.*"count":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s / 3 }')
        if ! assimp info "$name.glb" >ainfo 2>&1; then
            bad "assimp cannot read $name.glb: $(tail -n 3 ainfo)"
            continue
        fi
        meshes=$(sed -n 's/^Meshes: *\([0-9]*\).*/\1/p' ainfo | head -n 1)
        faces=$(sed -n 's/^Faces: *\([0-9]*\).*/\1/p' ainfo | head -n 1)
        echo "  assimp $name.glb: meshes=$meshes faces=$faces (want $want_prims, $tris)"
        check "assimp $name: primitive count" '[ "$meshes" = "$want_prims" ]'
        check "assimp $name: triangle count" '[ "$faces" = "$tris" ]'
    done
else
    echo "assimp not installed: importer cross-check skipped (Debian: assimp-utils)"
fi

finish
