#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// Opens a Chrome/Kineto trace in Chromium's own trace viewer and saves a screenshot: the check that Fathom's traces
// load in Chromium (docs/profiler.md, "Checked in Chromium"). chrome://tracing is gone from current Chromium (it
// answers ERR_FAILED), so the viewer is the DevTools Performance panel, which loads Chrome trace JSON: the script
// starts Chromium (headful, run it under xvfb-run) with DevTools open, serves the trace on 127.0.0.1, asks the
// Performance panel to load it (TimelinePanel.loadFromURL, what "Load profile…" does), clicks the given points
// (to expand track groups) and captures the DevTools window.
//
//   installer/install-deps.sh --groups bench           # once: chromium, nodejs, playwright-core into build/npm
//   NODE_PATH=build/npm/node_modules xvfb-run -a -s "-screen 0 1600x1000x24" \
//     node tests/tools/trace_in_chromium.js traces/profile_0.json shot.png "16,39;60,128;20,146"
//
// Arguments: the trace (.json), the PNG to write, and optional "x,y;x,y" clicks in a 1600x1000 window.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { chromium } = require('playwright-core');
const { getJson, devtoolsSession } = require('./devtools_session');

const [tracePath, pngPath, clicks = ''] = process.argv.slice(2);
if (!tracePath || !pngPath) {
  console.error('usage: trace_in_chromium.js TRACE.json OUT.png ["x,y;x,y"]');
  process.exit(2);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
(async () => {
  const trace = fs.readFileSync(tracePath);
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
    res.end(trace);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const traceUrl = `http://127.0.0.1:${server.address().port}/${path.basename(tracePath)}`;
  const port = 9300 + Math.floor(Math.random() * 500);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: false,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', `--remote-debugging-port=${port}`,
           '--auto-open-devtools-for-tabs', '--window-size=1600,1000'] });
  const page = await browser.newPage();
  await page.goto('about:blank');
  await sleep(4000);
  const target = (await getJson(`http://127.0.0.1:${port}/json/list`)).find((t) => t.url.startsWith('devtools://'));
  if (!target) throw new Error('no DevTools window appeared');
  const devtools = await devtoolsSession(target.webSocketDebuggerUrl);
  const loaded = await devtools.send('Runtime.evaluate', { awaitPromise: true, returnByValue: true, expression: `
    (async () => {
      const UI = await import('./ui/legacy/legacy.js');
      UI.DockController.DockController.instance().setDockSide('undocked');
      await UI.ViewManager.ViewManager.instance().showView('timeline');
      const T = await import('./panels/timeline/timeline.js');
      T.TimelinePanel.TimelinePanel.instance().loadFromURL(${JSON.stringify(traceUrl)});
      return 'loading';
    })()` });
  if (loaded.result.exceptionDetails) throw new Error(JSON.stringify(loaded.result.exceptionDetails));
  await sleep(15000);
  await devtools.send('Emulation.setDeviceMetricsOverride', { width: 1600, height: 1000, deviceScaleFactor: 1,
                                                              mobile: false });
  await sleep(1000);
  for (const [x, y] of clicks.split(';').filter(Boolean).map((p) => p.split(',').map(Number))) {
    await devtools.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', clickCount: 1 });
    await devtools.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 });
    await sleep(1500);
  }
  const shot = await devtools.send('Page.captureScreenshot', { format: 'png' });
  fs.writeFileSync(pngPath, Buffer.from(shot.result.data, 'base64'));
  console.log(`trace_in_chromium: ${tracePath} loaded into ${await browser.version()}'s Performance panel; ${pngPath}`);
  devtools.close();
  await browser.close();
  server.close();
})().catch((e) => {
  console.error(`trace_in_chromium: ${e.stack || e}`);
  process.exit(1);
});
