// One raw HTTP request, the path sent exactly as given (no URL
// normalisation, so "../" reaches the server):
//   node http-get.mjs PORT PATH [METHOD]
// Prints "STATUS CONTENT-TYPE BODY-BYTES"; exits 1 when the connection fails.
import { connect } from 'node:net';

const [port, path, method = 'GET'] = process.argv.slice(2);
const s = connect(Number(port), '127.0.0.1', () =>
    s.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
const parts = [];
s.on('data', (d) => parts.push(d));
s.on('error', (e) => { console.log(`error ${e.message}`); process.exit(1); });
s.on('end', () => {
    const all = Buffer.concat(parts);
    const end = all.indexOf('\r\n\r\n');
    const head = all.subarray(0, end).toString('latin1').split('\r\n');
    const status = head[0].split(' ')[1];
    const type = (head.find((h) => /^content-type:/i.test(h)) || 'content-type: none').replace(/^[^:]*:\s*/, '');
    console.log(`${status} ${type} ${all.length - end - 4}`);
});
