// SPDX-License-Identifier: Apache-2.0
// The Chrome DevTools Protocol over a page's debugging WebSocket, shared by trace_in_chromium.js and
// tests/bench/timeline_anchors.js: getJson(url) reads Chromium's /json/list; devtoolsSession(url) opens a target's
// webSocketDebuggerUrl and returns { send(method, params) -> the reply, close() }.
const http = require('http');
const { ws: WebSocket } = require('playwright-core/lib/utilsBundle');

const getJson = (url) => new Promise((resolve, reject) => http.get(url, (r) => {
  let body = '';
  r.on('data', (c) => (body += c));
  r.on('end', () => resolve(JSON.parse(body)));
}).on('error', reject));

// maxPayload: DevTools' replies for a big trace exceed the ws default of 100 MiB.
async function devtoolsSession(url) {
  const socket = new WebSocket(url, { maxPayload: 1 << 30 });
  await new Promise((resolve) => socket.on('open', resolve));
  let id = 0;
  const pending = new Map();
  socket.on('message', (m) => {
    const message = JSON.parse(m);
    if (pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  });
  return {
    close: () => socket.close(),
    send: (method, params = {}) => new Promise((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    }),
  };
}

module.exports = { getJson, devtoolsSession };
