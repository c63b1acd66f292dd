"""'strata planet/terrain --sculpt' (driven by tests/sculpt.sh):
    python3 sculpt.py STRATA TMPDIR
Starts editors on worlds in TMPDIR and checks: each security refusal
(no token, a wrong token, a foreign Host, a foreign Origin, an oversize
body, paths outside the directory, too many requests); a dab changes the
log and the chunks sent; undo gives the log's and the chunks' bytes back;
the exports equal the command line's output from the same log byte for
byte, for OMP_NUM_THREADS 1 and 2; a restart continues from the log.
Prints one line per failure and "N passed, M failed"; exits 1 on a
failure.  Loopback only; every socket has a timeout."""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

STRATA, TMP = sys.argv[1], sys.argv[2]
passed = failed = 0


def check(desc, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {desc} {detail}")


class Editor:
    """A running editor: its process, port and token."""

    def __init__(self, args, threads):
        # no page files: the server runs without them (the page's own
        # test is tests/sculpt-page.sh)
        env = dict(os.environ, OMP_NUM_THREADS=str(threads),
                   STRATA_VIEWER=os.path.join(TMP, "no-viewer"))
        self.p = subprocess.Popen([STRATA] + args + ["--sculpt", "--port", "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                  cwd=TMP)
        url = self.p.stdout.readline().decode().strip()
        prefix = "http://127.0.0.1:"
        if not url.startswith(prefix):
            raise SystemExit(f"FAIL: no URL printed: {url!r} {self.p.stderr.read()!r}")
        port, _, rest = url[len(prefix):].partition("/")
        self.port = int(port)
        self.token = rest.strip("/")
        self.host = f"127.0.0.1:{self.port}"

    def raw(self, data, timeout=60.0):
        """Send raw bytes; return (status, body)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(data)
            out = b""
            while True:
                k = s.recv(1 << 20)
                if not k:
                    break
                out += k
        head, _, body = out.partition(b"\r\n\r\n")
        status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/1.1 ") else None
        return status, body

    def req(self, method, path, body=b"", headers=None, token=None):
        h = {"Host": self.host}
        h.update(headers or {})
        t = self.token if token is None else token
        lines = [f"{method} /{t}{path} HTTP/1.1" if t else f"{method} {path} HTTP/1.1"]
        lines += [f"{k}: {v}" for k, v in h.items()]
        if method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        return self.raw(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(30)


def chunks(pack):
    """A pack's chunks: {id: bytes of the chunk}."""
    assert pack[:8] == b"STRATAPK", pack[:40]
    version, n = struct.unpack_from("<II", pack, 8)
    assert version == 1
    off, out = 16, {}
    for _ in range(n):
        cid, nv, ni, nr, flags = struct.unpack_from("<QIIII", pack, off)
        size = 24 + 12 * nv * (2 if flags & 1 else 1) + 4 * ni + 16 * nr
        out[cid] = pack[off:off + size]
        off += size
    assert off == len(pack), (off, len(pack))
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def run(args, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    r = subprocess.run([STRATA] + args + ["--quiet"], cwd=TMP, env=env, capture_output=True)
    check(f"strata {' '.join(args)}", r.returncode == 0, r.stderr.decode())


DAB = b'{"brush":"raise","center":[0,1,0],"radius":0.4,"strength":0.05}'


def security(e, d):
    st, _ = e.req("GET", "/api/state", token="")
    check("no token: 403", st == 403, st)
    wrong = ("0" if e.token[0] != "0" else "1") + e.token[1:]
    st, _ = e.req("GET", "/api/state", token=wrong)
    check("a wrong token: 403", st == 403, st)
    st, _ = e.req("POST", "/api/dab", DAB, token=e.token[:31])
    check("a short token: 403", st == 403, st)
    st, _ = e.req("GET", "/api/state", headers={"Host": f"evil.example:{e.port}"})
    check("a foreign Host: 403", st == 403, st)
    st, _ = e.req("POST", "/api/dab", DAB, headers={"Origin": "http://evil.example"})
    check("a foreign Origin: 403", st == 403, st)
    st, _ = e.req("POST", "/api/dab", DAB, headers={"Origin": f"http://127.0.0.1:{e.port + 1}"})
    check("another port's Origin: 403", st == 403, st)
    st, _ = e.req("POST", "/api/dab", b" " * 2000 + DAB)
    check("an oversize body: 413", st == 413, st)
    st, _ = e.raw(f"POST /{e.token}/api/dab HTTP/1.1\r\nHost: {e.host}\r\n"
                  "Transfer-Encoding: chunked\r\n\r\n".encode())
    check("a chunked body: refused", st == 501, st)
    st, _ = e.req("GET", "/../edits.strata")
    check("a path with ..: 403", st == 403, st)
    st, _ = e.req("GET", "/%2e%2e/edits.strata")
    check("a path with an escaped ..: 403", st == 403, st)
    for name in ["../../outside", "/tmp/x", ".hidden", "-o", "a/b"]:
        st, _ = e.req("POST", "/api/export",
                      b'{"format":"glb","name":"%s"}' % name.encode())
        check(f"an export named {name!r}: 400", st == 400, st)
    check("nothing written outside the directory",
          not any(os.path.exists(os.path.join(TMP, x)) for x in ["outside", "../outside"]) and
          not os.path.exists("/tmp/x.glb"))
    check("no export written", not os.path.exists(os.path.join(d, "exports")) or
          os.listdir(os.path.join(d, "exports")) == [])


def flood(e):
    """Requests past the rate get 429; the editor answers again a second later."""
    statuses = set()
    for _ in range(3000):
        st, _ = e.req("GET", "/api/state")
        statuses.add(st)
        if st == 429:
            break
    check("too many requests: 429", 429 in statuses, statuses)
    time.sleep(1.1)
    st, _ = e.req("GET", "/api/state")
    check("answered again after the flood", st == 200, st)


def routes(e):
    st, body = e.req("GET", "/api/palettes")
    try:
        pal = json.loads(body)
    except ValueError:
        pal = {}
    check("palettes: 200, the built-in ones", st == 200 and
          all(len(pal.get(n, [])) > 1 for n in ["earth", "desert", "ice", "mono"]) and
          all(len(c) == 7 and c[0] == "#" for n in pal for c in pal[n]), (st, body[:200]))
    st, body = e.req("GET", "/")
    check("no page files: 404 naming STRATA_VIEWER", st == 404 and b"STRATA_VIEWER" in body,
          (st, body[:200]))
    st, _ = e.req("GET", "/_strata/sculpt.js")
    check("no page files: their scripts 404", st == 404, st)
    check("the editor said the page is missing",
          b"no editor page" in e.p.stderr.read1(4096), "")


def editing(e, d):
    log = os.path.join(d, "edits.strata")
    st, before = e.req("GET", "/api/chunks")
    check("GET chunks: 200", st == 200, st)
    before = chunks(before)
    log0 = read(log) if os.path.exists(log) else None
    st, body = e.req("POST", "/api/dab", DAB)
    check("a dab: 200", st == 200, (st, body[:200]))
    changed = chunks(body)
    check("the dab sends chunks back", len(changed) > 0)
    check("the dab changes the log", read(log) != log0 and b"raise 0 1 0 0.4" in read(log),
          read(log))
    check("the dab changes the chunks' bytes",
          any(changed[i] != before[i] for i in changed))
    check("the chunks sent are those made again",
          chunks(e.req("GET", "/api/chunks")[1]) == {**before, **changed})
    st, body = e.req("POST", "/api/undo", b"{}")
    check("undo: 200", st == 200, st)
    check("undo gives the chunks' bytes back", chunks(body) == {i: before[i] for i in changed})
    check("undo gives the log's bytes back",
          read(log) == (log0 if log0 is not None else b"strata-edits 1\n"), read(log))
    st, body = e.req("POST", "/api/undo", b"{}")
    check("undo with nothing to undo: 409", st == 409, st)
    st, body = e.req("POST", "/api/redo", b"{}")
    check("redo gives the dab's chunks again", st == 200 and chunks(body) == changed, st)
    for bad in [b'{"brush":"dig","center":[0,1,0],"radius":1,"strength":1}',
                b'{"brush":"raise","center":[0,1],"radius":1,"strength":1}',
                b'{"brush":"raise","center":[0,1,0],"radius":-1,"strength":1}',
                b'{"brush":"smooth","center":[0,1,0],"radius":1,"strength":2}',
                b'{"brush":"raise","center":[0,1,nan],"radius":1,"strength":1}', b"garbage"]:
        st, _ = e.req("POST", "/api/dab", bad)
        check(f"a bad dab {bad!r}: 400", st == 400, st)


def exports(e, d, cli, kinds, threads, tag):
    for fmt, suffix, extra in kinds:
        name = f"{fmt}{threads}"
        st, body = e.req("POST", "/api/export",
                         b'{"format":"%s","name":"%s"}' % (fmt.encode(), name.encode()))
        check(f"{tag} export {fmt}: 200", st == 200, (st, body))
        out = os.path.join(d, "exports", name + suffix)
        ref = os.path.join(TMP, f"ref-{name}{suffix}")
        run(cli + extra + ["--edits", os.path.join(d, "edits.strata"), "-o", ref], threads)
        if fmt == "world":
            same = all(read(os.path.join(out, f)) == read(os.path.join(ref, f))
                       for f in ["tileset.json", "world.json"])
            for root, _, files in os.walk(ref):
                for f in files:
                    p = os.path.relpath(os.path.join(root, f), ref)
                    same = same and read(os.path.join(out, p)) == read(os.path.join(ref, p))
            check(f"{tag} exported world == the command line's ({threads} threads)", same)
        else:
            check(f"{tag} exported {fmt} == the command line's ({threads} threads)",
                  os.path.exists(out) and read(out) == read(ref))


def suite(tag, cli, world, kinds):
    d = os.path.join(TMP, tag)
    args = cli + world + ["-o", tag]
    e = Editor(args, 1)
    try:
        security(e, d)
        routes(e)
        editing(e, d)
        exports(e, d, cli, kinds, 1, tag)
        st, body = e.req("POST", "/api/dab",
                         b'{"brush":"noise","center":[0.3,0.9,0.1],"radius":0.5,"strength":0.02}')
        check(f"{tag} a second dab", st == 200, st)
        st, state = e.req("GET", "/api/state")
        _, all1 = e.req("GET", "/api/chunks")
        flood(e)
    finally:
        e.stop()
    e = Editor(args, 2)
    try:
        st, state2 = e.req("GET", "/api/state")
        check(f"{tag} a restart continues from the log", state2 == state, (state, state2))
        _, all2 = e.req("GET", "/api/chunks")
        check(f"{tag} a restart makes the same chunks (2 threads)", all1 == all2)
        exports(e, d, cli, kinds, 2, tag)
    finally:
        e.stop()


planet = ["planet", "--level", "5", "--terraces", "6"]
suite("p", planet, ["--chunk-level", "2"],
      [("glb", ".glb", []), ("world", "", ["--chunk-level", "2"])])
terrain = ["terrain", "--cells", "64", "--terraces", "5"]
suite("t", terrain, ["--tile-cells", "16"],
      [("glb", ".glb", []), ("stl", ".stl", ["--solid"])])
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
