#!/bin/sh
# strata bench (apps/bench.c, apps/bench_report.c): one quick run in JSON
# with its chart, checked against itself (every scaling line and every
# polyline of the chart is the ratio of the run's own seconds); the
# summary and the lines; bad arguments refused with exit status 2 and a
# message naming them, leaving no chart.  No figure is judged for speed:
# they are measured, not asserted.  Run by `make check` with STRATA set.
# POSIX sh.

. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
test_dir bench

quick="--quick --stage fbm2,write --threads 1,2 --isa scalar --reps 1"
# shellcheck disable=SC2086
run bench $quick --json --chart c.svg
check "bench --json --chart exits 0" '[ "$rc" = 0 ]'
check "bench --json and its chart agree with the run's own seconds" \
    '"$PY" - out c.svg <<"PY"
import json, sys, xml.etree.ElementTree as ET
d = json.load(open(sys.argv[1]))["strata_bench"]
tags = {l["tag"] for l in d}
assert {"machine", "topology", "bench", "scaling", "memory"} <= tags, tags
bench = [l for l in d if l["tag"] == "bench"]
for l in bench:
    assert isinstance(l["seconds"], float) and l["seconds"] > 0, l
    assert isinstance(l["threads"], int), l
stages = {l["stage"] for l in bench}
assert {"bandwidth", "fbm2", "write"} <= stages, stages
for st in ("fbm2", "write"):
    assert {l["threads"] for l in bench if l["stage"] == st} == {1, 2}, st
scal = [l for l in d if l["tag"] == "scaling" and l["stage"] in ("fbm2", "write")]
assert len(scal) == 2, scal
def at(l, threads):  # the bench line a scaling line speaks of
    case = {k: v for k, v in l.items()
            if k not in ("tag", "threads", "base_threads", "speedup", "efficiency")}
    m = [b for b in bench if b["threads"] == threads and
         all(b.get(k) == v for k, v in case.items())]
    assert len(m) == 1, (l, m)
    return m[0]["seconds"]
for l in scal:
    want = at(l, 1) / at(l, 2)
    assert abs(l["speedup"] - want) <= 0.006, (l, want)
svg = ET.parse(sys.argv[2]).getroot()
ns = "{http://www.w3.org/2000/svg}"
lines = [p for p in svg.iter(ns + "polyline") if p.get("class") == "stage"]
assert sorted(p.get("data-stage") for p in lines) == ["fbm2", "write"], lines
for p in lines:
    want = at({"stage": p.get("data-stage"), "isa": "scalar"}, 1) / \
        at({"stage": p.get("data-stage"), "isa": "scalar"}, 2)
    sp = [float(x) for x in p.get("data-speedups").split(",")]
    assert p.get("data-threads") == "1,2" and sp[0] == 1.0, p.attrib
    assert abs(sp[1] - want) <= 1e-4 * max(1, want), (sp, want)
    assert len(p.get("points").split()) == 2
PY'

run bench --quick --stage fbm2 --threads 1 --isa scalar --reps 1
check "bench: a summary by default" \
    '[ "$rc" = 0 ] && grep -q "^strata bench .*online CPUs" out &&
     grep -q "^stage  *isa  *unit  *1 thr" out &&
     grep -Eq "^fbm2  *scalar  *Mpts/s  *[0-9.e+]+ .*input=grid octaves=6$" out &&
     grep -q "^memory write bandwidth, 1 thread(s): [0-9.]* GB/s" out'
run bench --quick --stage fbm2 --threads 1 --isa scalar --reps 1 --lines
check "bench --lines: tagged key=value lines" \
    '[ "$rc" = 0 ] && [ -s out ] &&
     [ -z "$(grep -Ev "^(machine|topology|bench|ratio|scaling|memory)( [a-z0-9_]+=[^ ]*)+\$" out)" ] &&
     grep -q "^bench stage=fbm2 isa=scalar threads=1 " out'
check "perf/strata-bench prints the same kind of lines" \
    '"$builddir/perf/strata-bench" --quick --stage fbm2 --threads 1 --isa scalar --reps 1 >p.out &&
     grep -q "^bench stage=fbm2 isa=scalar threads=1 " p.out'

refused() { # DESC WORD ARGS...: exit 2, WORD in the message, no chart
    desc=$1 word=$2
    shift 2
    rm -f nochart.svg
    run bench "$@"
    check "$desc" '[ "$rc" = 2 ] && grep -q -- "$word" err && [ ! -e nochart.svg ] && [ ! -s out ]'
}
refused "bench: unknown option" "'--bogus'" --bogus
refused "bench: --threads 0" "--threads" --threads 0 --chart nochart.svg
refused "bench: --reps 0" "--reps" --reps 0 --chart nochart.svg
refused "bench: unknown stage" "unknown stage 'nope'" --stage fbm2,nope --chart nochart.svg
refused "bench: --isa unknown" "--isa" --isa sse9 --chart nochart.svg
refused "bench: --chart in a missing folder" "/nonexistent/c.svg" --chart /nonexistent/c.svg
refused "bench: --chart a folder" "--chart '.'" --chart .
refused "bench: --stage without its value" "'--stage'" --stage
run bench --help
check "bench --help lists the reports" '[ "$rc" = 0 ] && grep -q -- "--chart FILE" out && grep -q -- "--json" out'
run --help
check "strata --help lists bench" '[ "$rc" = 0 ] && grep -q "^  bench " out'
finish
