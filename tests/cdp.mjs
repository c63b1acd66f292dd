// A tab of headless Chromium driven through the DevTools protocol (CDP,
// over the npm package "ws"), for tests/viewer.mjs and tests/cesium.mjs.
//
//   const tab = await openTab(WS_MODULE, BROWSER_WS_URL, PAGE_URL, WIDTH, HEIGHT)
//
// opens PAGE_URL in a new tab of WIDTH x HEIGHT pixels.  tab.cmd(method,
// params) sends a CDP command to it, tab.evaluate(expr) returns an
// expression's value (throwing the page's exception), tab.errors() counts
// the console errors and uncaught exceptions so far (the first 10 also
// printed), tab.close() closes the tab and the connection.
import { pathToFileURL } from 'node:url';

export async function openTab(wsModule, browserUrl, pageUrl, width, height) {
    const { default: WebSocket } = await import(pathToFileURL(wsModule).href);
    const ws = new WebSocket(browserUrl, { perMessageDeflate: false });
    await new Promise((ok, fail) => { ws.once('open', ok); ws.once('error', fail); });
    let nextId = 1, errors = 0;
    const waiting = new Map();
    ws.on('message', (data) => {
        const m = JSON.parse(data);
        if (m.id && waiting.has(m.id)) {
            const { ok, fail } = waiting.get(m.id);
            waiting.delete(m.id);
            m.error ? fail(new Error(`${m.error.message} (${m.error.code})`)) : ok(m.result);
            return;
        }
        let text = null;
        if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error')
            text = m.params.args.map((a) => a.value ?? a.description ?? a.type).join(' ');
        else if (m.method === 'Runtime.exceptionThrown')
            text = m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text;
        else if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error')
            text = `${m.params.entry.text} ${m.params.entry.url ?? ''}`;
        if (text !== null && ++errors <= 10)
            console.log(`console error: ${text}`);
    });
    function send(method, params = {}, sessionId) {
        const id = nextId++;
        ws.send(JSON.stringify({ id, method, params, sessionId }));
        return new Promise((ok, fail) => waiting.set(id, { ok, fail }));
    }
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    const cmd = (method, params) => send(method, params, sessionId);
    await cmd('Runtime.enable');
    await cmd('Log.enable');
    await cmd('Page.enable');
    await cmd('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    await cmd('Page.navigate', { url: pageUrl });
    return {
        cmd,
        async evaluate(expr) {
            const r = await cmd('Runtime.evaluate', { expression: expr, returnByValue: true });
            if (r.exceptionDetails)
                throw new Error(`${expr}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
            return r.result.value;
        },
        errors: () => errors,
        async close() {
            await send('Target.closeTarget', { targetId });
            ws.close();
        },
    };
}
