// A tab of headless Chromium driven through the DevTools protocol (CDP,
// over the npm package "ws"), for tests/viewer.mjs, tests/cesium.mjs,
// tests/sculpt-page.mjs and perf/sculpt-frame.mjs:
//
//   const tab = await openTab(wsModule, browserUrl, width, height);
//   await tab.cmd('Page.navigate', {url});  await tab.evaluate('1 + 1');
//
// tab.errors counts console errors and uncaught exceptions, tab.failed
// requests that failed or were answered 400 or more (the first ten of
// each printed as "console error: ..." or "failed request: ...").
import { pathToFileURL } from 'node:url';

export async function openTab(wsModule, browserUrl, width, height) {
    const { default: WebSocket } = await import(pathToFileURL(wsModule).href);
    const ws = new WebSocket(browserUrl, { perMessageDeflate: false });
    await new Promise((ok, fail) => { ws.once('open', ok); ws.once('error', fail); });
    let nextId = 1;
    const waiting = new Map();
    const tab = { errors: 0, failed: 0 };
    ws.on('message', (data) => {
        const m = JSON.parse(data);
        if (m.id && waiting.has(m.id)) {
            const { ok, fail } = waiting.get(m.id);
            waiting.delete(m.id);
            m.error ? fail(new Error(`${m.error.message} (${m.error.code})`)) : ok(m.result);
        } else if (m.method) {
            watch(m);
        }
    });
    const send = (method, params = {}, sessionId) => {
        const id = nextId++;
        ws.send(JSON.stringify({ id, method, params, sessionId }));
        return new Promise((ok, fail) => waiting.set(id, { ok, fail }));
    };
    function watch(m) {
        let text = null, request = null;
        if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error')
            text = m.params.args.map((a) => a.value ?? a.description ?? a.type).join(' ');
        else if (m.method === 'Runtime.exceptionThrown')
            text = m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text;
        else if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error')
            text = `${m.params.entry.text} ${m.params.entry.url ?? ''}`;
        else if (m.method === 'Network.loadingFailed')
            request = `${m.params.errorText} (${m.params.type})`;
        else if (m.method === 'Network.responseReceived' && m.params.response.status >= 400)
            request = `${m.params.response.status} ${m.params.response.url}`;
        if (text !== null && ++tab.errors <= 10)
            console.log(`console error: ${text}`);
        if (request !== null && ++tab.failed <= 10)
            console.log(`failed request: ${request}`);
    }

    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    tab.cmd = (method, params) => send(method, params, sessionId);
    for (const domain of ['Runtime', 'Log', 'Page', 'Network'])
        await tab.cmd(`${domain}.enable`);
    await tab.cmd('Emulation.setDeviceMetricsOverride',
                  { width, height, deviceScaleFactor: 1, mobile: false });
    tab.evaluate = async (expr) => {
        const r = await tab.cmd('Runtime.evaluate',
                                { expression: expr, returnByValue: true, awaitPromise: true });
        if (r.exceptionDetails)
            throw new Error(`${expr}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
        return r.result.value;
    };
    // Poll expr every 50 ms until true; false after ms.
    tab.until = async (expr, ms) => {
        const t0 = Date.now();
        while (Date.now() - t0 < ms) {
            if (await tab.evaluate(expr).catch(() => false))
                return true;
            await new Promise((ok) => setTimeout(ok, 50));
        }
        return false;
    };
    tab.mouse = (type, x, y, pressed = false) => tab.cmd('Input.dispatchMouseEvent', {
        type, x, y, button: type === 'mouseMoved' && !pressed ? 'none' : 'left',
        buttons: pressed ? 1 : 0, clickCount: type === 'mouseMoved' ? 0 : 1 });
    // A key with Ctrl held (as for Ctrl-Z): key 'z', code 'KeyZ'.
    tab.ctrlKey = async (key) => {
        const k = { modifiers: 2, key, code: `Key${key.toUpperCase()}`,
                    windowsVirtualKeyCode: key.toUpperCase().charCodeAt(0) };
        await tab.cmd('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...k });
        await tab.cmd('Input.dispatchKeyEvent', { type: 'keyUp', ...k });
    };
    tab.close = async () => {
        await send('Target.closeTarget', { targetId });
        ws.close();
    };
    return tab;
}
