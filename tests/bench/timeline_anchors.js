#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// The anchors of the timeline benchmark (issue 19; tests/bench/bench_timeline.py runs them beside Fathom's
// bench_timeline_view): how long Chromium's DevTools Performance panel and speedscope take from being asked to open
// a Chrome trace to the first frame that shows its flame chart. One measurement per run, in a fresh Chromium
// (headful: run it under xvfb-run), printed as one JSON line.
//
//   NODE_PATH=build/npm/node_modules xvfb-run -a -s "-screen 0 1920x1080x24" \
//     node tests/bench/timeline_anchors.js --viewer devtools|speedscope TRACE.json [--shot OUT.png] [--timeout-s 600]
//     [--sweep]
//
// The trace is served over HTTP on 127.0.0.1 from memory (read before the clock starts, as Fathom's bench reads a
// file the page cache holds). Both clocks are the page's own performance.now():
// - devtools: the Performance panel's TimelinePanel.loadFromURL (what "Load profile…" does with a file) from the
//   call to the end of the first frame after loadingComplete (a requestAnimationFrame, then a task: DevTools' own
//   "TraceLoad" metric ends the same way, and the flame chart's draw is queued before that frame). DevTools' own
//   measure (from its traceLoadStart) is reported beside it, and the number of flame chart draws seen, to show one
//   happened.
// - speedscope: its offline build (the npm package's dist/release, served from the same origin) opened at
//   index.html#profileURL=...; from the navigation's start (performance.timeOrigin) to the end of the first frame
//   in which its flame graph canvas is shown and the loading message is gone (polled every animation frame).
// --sweep (devtools): after the first paint, 60 wheel notches each zooming in, panning right, zooming out and panning
// left on the flame chart (the cursor 45 % across; the panel's classic mode: wheel zooms, horizontal wheel pans),
// and the time of every flame chart draw (FlameChart.draw, the panel's own paint of a frame): "sweep": {draws,
// draw_p50_ms, draw_p99_ms, draw_max_ms}. A draw is only the canvas work, not a whole frame.
// Output: {"viewer":..., "first_paint_ms":..., "browser":..., ...}; exit 1 with {"error":...} when the viewer
// fails or times out.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { chromium } = require('playwright-core');
const { getJson, devtoolsSession } = require('../tools/devtools_session');

function usage(message) {
  if (message) console.error(`timeline_anchors: ${message}`);
  console.error('usage: timeline_anchors.js --viewer devtools|speedscope TRACE.json [--shot OUT.png] [--timeout-s S] '
                + '[--sweep]');
  process.exit(2);
}

const args = { viewer: '', trace: '', shot: '', timeoutS: 600, width: 1920, height: 1080, sweep: false };
for (let i = 2; i < process.argv.length; ++i) {
  const a = process.argv[i];
  if (a === '--viewer') args.viewer = process.argv[++i];
  else if (a === '--shot') args.shot = process.argv[++i];
  else if (a === '--sweep') args.sweep = true;
  else if (a === '--timeout-s') args.timeoutS = Number(process.argv[++i]);
  else if (a === '--size') [args.width, args.height] = process.argv[++i].split('x').map(Number);
  else if (!a.startsWith('--') && !args.trace) args.trace = a;
  else usage(`unknown argument '${a}'`);
}
if (!['devtools', 'speedscope'].includes(args.viewer)) usage(`--viewer must be devtools or speedscope, not '${args.viewer}'`);
if (!args.trace) usage('no trace given');
if (args.trace.endsWith('.gz')) usage(`${args.trace}: give the uncompressed .json (both viewers read it as served)`);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/// Evaluates `expression` in a DevTools session; returns its value or throws with the exception's text.
async function evaluate(session, expression) {
  const reply = await session.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  if (!reply.result) throw new Error(`DevTools protocol error: ${JSON.stringify(reply.error || reply)}`);
  if (reply.result.exceptionDetails) {
    const d = reply.result.exceptionDetails;
    throw new Error(`in the page: ${(d.exception && d.exception.description) || d.text}`);
  }
  return reply.result.result.value;
}

/// Serves the trace at /trace.json and speedscope's offline build at /speedscope/.
async function startServer(trace) {
  const speedscopeDir = path.dirname(require.resolve('speedscope/dist/release/index.html'));
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
                  '.png': 'image/png', '.woff2': 'font/woff2', '.json': 'application/json' };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url.split('?')[0].split('#')[0]);
    if (url === '/trace.json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
      res.end(trace);
      return;
    }
    const file = path.join(speedscopeDir, path.normalize(url.replace(/^\/speedscope\//, '/')));
    if (url.startsWith('/speedscope/') && file.startsWith(speedscopeDir) && fs.existsSync(file)) {
      res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
      res.end(fs.readFileSync(file));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function launch(extraArgs) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: false,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', `--window-size=${args.width},${args.height}`,
           ...extraArgs] });
}

async function measureDevtools(base) {
  const port = 9300 + Math.floor(Math.random() * 500);
  const browser = await launch([`--remote-debugging-port=${port}`, '--auto-open-devtools-for-tabs']);
  const version = browser.version();
  const page = await browser.newPage();
  await page.goto('about:blank');
  let target;
  for (let i = 0; i < 100 && !target; ++i) {  // the DevTools window appears a moment after the tab
    await sleep(100);
    target = (await getJson(`http://127.0.0.1:${port}/json/list`)).find((t) => t.url.startsWith('devtools://'));
  }
  if (!target) throw new Error('no DevTools window appeared');
  const devtools = await devtoolsSession(target.webSocketDebuggerUrl);
  // DevTools fully up (its main view built: before that, its singletons throw, e.g. "No locale data registered"),
  // then the panel shown and undocked to the whole window, before the clock starts.
  let up = false;
  for (let i = 0; i < 300 && !up; ++i) {
    up = await evaluate(devtools, `(async () => {
      try {
        const UI = await import('./ui/legacy/legacy.js');
        await import('./panels/timeline/timeline.js');
        return !!UI.InspectorView.InspectorView.maybeGetInspectorViewInstance();
      } catch (e) { return false; } })()`);
    if (!up) await sleep(100);
  }
  if (!up) throw new Error('DevTools did not finish starting within 30 s');
  await evaluate(devtools, `(async () => {
    const UI = await import('./ui/legacy/legacy.js');
    UI.DockController.DockController.instance().setDockSide('undocked');
    await UI.ViewManager.ViewManager.instance().showView('timeline');
    const PerfUI = await import('./ui/legacy/components/perf_ui/perf_ui.js');
    const T = await import('./panels/timeline/timeline.js');
    const panel = T.TimelinePanel.TimelinePanel.instance();
    window.__bench = { draws: 0, drawsAfterLoad: 0, loaded: false, done: 0, error: '' };
    const draw = PerfUI.FlameChart.FlameChart.prototype.draw;
    window.__bench.drawMs = [];
    PerfUI.FlameChart.FlameChart.prototype.draw = function (...a) {
      const t = performance.now();
      const r = draw.apply(this, a);
      ++window.__bench.draws;
      if (window.__bench.loaded) {
        ++window.__bench.drawsAfterLoad;
        window.__bench.drawMs.push(performance.now() - t);
      }
      return r;
    };
    const complete = panel.loadingComplete;
    panel.loadingComplete = async function (...a) {
      const r = await complete.apply(this, a);
      window.__bench.loaded = true;
      if (!a[0] || a[0].length === 0) window.__bench.error = 'the panel loaded no events';
      // The frame after loadingComplete: the flame chart's update was queued (requestAnimationFrame) before it.
      requestAnimationFrame(() => setTimeout(() => { window.__bench.done = performance.now(); }, 0));
      return r;
    };
    const failed = panel.recordingFailed;
    panel.recordingFailed = function (...a) { window.__bench.error = String(a[0]); return failed.apply(this, a); };
    return true; })()`);
  await devtools.send('Emulation.setDeviceMetricsOverride', { width: args.width, height: args.height,
                                                              deviceScaleFactor: 1, mobile: false });
  await sleep(500);
  await evaluate(devtools, `(async () => {
    const T = await import('./panels/timeline/timeline.js');
    window.__bench.start = performance.now();
    T.TimelinePanel.TimelinePanel.instance().loadFromURL(${JSON.stringify(`${base}/trace.json`)});
    return true; })()`);
  const deadline = Date.now() + args.timeoutS * 1000;
  let state;
  for (;;) {
    await sleep(50);
    state = await evaluate(devtools, 'JSON.stringify(window.__bench)').then(JSON.parse);
    if (state.error) throw new Error(`DevTools failed to load the trace: ${state.error}`);
    if (state.done) break;
    if (Date.now() > deadline) throw new Error(`no flame chart within ${args.timeoutS} s`);
  }
  await sleep(300);  // any draws of the frames right after, for the count
  state = await evaluate(devtools, 'JSON.stringify(window.__bench)').then(JSON.parse);
  const own = await evaluate(devtools, `(() => { const m = performance.getEntriesByName('TraceLoad');
    return m.length ? m[m.length - 1].duration : null; })()`);
  if (state.drawsAfterLoad === 0) throw new Error('the flame chart was never drawn after the load');
  // A sweep over the flame chart with the wheel (zoom at the cursor, pan): the time of every flame chart draw.
  let sweep = null;
  if (args.sweep) {
    await evaluate(devtools, 'window.__bench.drawMs = []; true');
    const x = Math.round(args.width * 0.45);
    const y = Math.round(args.height * 0.3);
    await devtools.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
    await devtools.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', clickCount: 1 });
    await devtools.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 });
    // The panel's classic mode: the wheel zooms at the cursor, a horizontal wheel pans (its keys W/S/A/D animate).
    const wheel = async (deltaX, deltaY, times) => {
      for (let i = 0; i < times; ++i) {
        await devtools.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX, deltaY });
        await sleep(40);
      }
    };
    const started = Date.now();
    await wheel(0, -120, 60);  // zoom in
    await wheel(200, 0, 60);   // pan right
    await wheel(0, 120, 60);   // zoom out
    await wheel(-200, 0, 60);  // pan left
    await sleep(500);
    const ms = (await evaluate(devtools, 'JSON.stringify(window.__bench.drawMs)').then(JSON.parse)).sort((a, b) => a - b);
    const at = (p) => (ms.length ? ms[Math.min(ms.length - 1, Math.max(0, Math.ceil(p * ms.length) - 1))] : null);
    sweep = { draws: ms.length, draw_p50_ms: at(0.5), draw_p99_ms: at(0.99), draw_max_ms: at(1),
              sweep_s: (Date.now() - started) / 1000 };
  }
  if (args.shot) {
    const shot = await devtools.send('Page.captureScreenshot', { format: 'png' });
    fs.writeFileSync(args.shot, Buffer.from(shot.result.data, 'base64'));
  }
  devtools.close();
  await browser.close();
  return { first_paint_ms: state.done - state.start, devtools_trace_load_ms: own,
           flame_chart_draws_after_load: state.drawsAfterLoad, ...(sweep ? { sweep } : {}), browser: await version };
}

async function measureSpeedscope(base) {
  // speedscope draws with WebGL; without a GPU Chromium needs SwiftShader allowed explicitly.
  const browser = await launch(['--enable-unsafe-swiftshader', '--use-angle=swiftshader']);
  const page = await browser.newPage({ viewport: { width: args.width, height: args.height } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => { errors.push(`dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
  // Before any of speedscope's code runs: poll every frame for its flame graph, then time the end of that frame.
  await page.addInitScript(() => {
    window.__bench = { done: 0, frames: 0 };
    const poll = () => {
      ++window.__bench.frames;
      const canvas = document.querySelector('canvas');
      const text = document.body ? document.body.innerText : '';
      const shown = canvas && canvas.width > 0 && canvas.height > 0 && !/Loading|Importing/i.test(text)
                    && document.body.querySelectorAll('*').length > 20;
      if (shown) {
        setTimeout(() => { window.__bench.done = performance.now(); }, 0);
        return;
      }
      requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
  });
  await page.goto(`${base}/speedscope/index.html#profileURL=${encodeURIComponent(`${base}/trace.json`)}`);
  const deadline = Date.now() + args.timeoutS * 1000;
  let done = 0;
  while (!done) {
    await sleep(50);
    if (errors.length) throw new Error(`speedscope failed: ${errors.join('; ')}`);
    done = await page.evaluate(() => window.__bench.done);
    if (Date.now() > deadline) throw new Error(`no flame graph within ${args.timeoutS} s`);
  }
  const text = await page.evaluate(() => document.body.innerText.slice(0, 300));
  if (/error|could not|failed/i.test(text)) throw new Error(`speedscope shows: ${text}`);
  if (args.shot) await page.screenshot({ path: args.shot });
  const version = browser.version();
  await browser.close();
  return { first_paint_ms: done, toolbar: text.split('\n').slice(0, 3).join(' | '), browser: version };
}

(async () => {
  const trace = fs.readFileSync(args.trace);
  const server = await startServer(trace);
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    const result = args.viewer === 'devtools' ? await measureDevtools(base) : await measureSpeedscope(base);
    console.log(JSON.stringify({ viewer: args.viewer, trace: args.trace, bytes: trace.length, ...result }));
  } finally {
    server.close();
  }
  process.exit(0);
})().catch((e) => {
  console.log(JSON.stringify({ viewer: args.viewer, trace: args.trace, error: String(e.message || e) }));
  process.exit(1);
});
