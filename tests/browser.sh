# Headless Chromium for the browser suites (tests/viewer.sh,
# tests/cesium.sh, tests/sculpt-page.sh, perf/skirts.sh,
# perf/sculpt-frame.sh): sourced, POSIX sh.
#
#   browser_find      sets chromium (STRATA_CHROMIUM or the first of
#                     chromium, chromium-browser, google-chrome on PATH);
#                     returns 1 when there is none
#   browser_start DIR starts it headless with software WebGL (SwiftShader)
#                     and its profile in DIR; sets browser (its pid) and ws
#                     (the DevTools URL the drivers' tests/cdp.mjs
#                     connects to); returns 1 when it did
#                     not start (the last lines of its stderr printed)
# The caller kills $browser when done.
browser_find() {
    chromium=${STRATA_CHROMIUM:-}
    if [ -z "$chromium" ]; then
        for c in chromium chromium-browser google-chrome; do
            if command -v $c >/dev/null 2>&1; then chromium=$c; break; fi
        done
    fi
    [ -n "$chromium" ]
}

browser_start() {
    "$chromium" --headless=new --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader \
        --remote-debugging-port=0 --user-data-dir="$1/profile" --no-first-run \
        --no-default-browser-check --disable-extensions --mute-audio about:blank 2>"$1/chrome.err" &
    browser=$!
    ws=
    _i=0
    while [ $_i -lt 300 ]; do
        ws=$(sed -n 's/^DevTools listening on \(ws:.*\)$/\1/p' "$1/chrome.err" | head -n 1)
        [ -n "$ws" ] && return 0
        kill -0 "$browser" 2>/dev/null || break
        sleep 0.1
        _i=$((_i + 1))
    done
    echo "Chromium ($chromium) did not start:"
    tail -n 5 "$1/chrome.err"
    return 1
}
