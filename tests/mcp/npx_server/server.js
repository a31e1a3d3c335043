#!/usr/bin/env node
// A minimal MCP server over stdio with no dependencies (tests/mcp/test_npx_sandbox.py): npx must
// unpack it into its cache before it runs, which needs a writable cache under the sandbox.
// One tool, `whereami`, answers the cache folder npm used and whether HOME is writable.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function canWrite(folder) {
  try {
    const probe = path.join(folder, `.probe-${process.pid}`);
    fs.writeFileSync(probe, 'x');
    fs.unlinkSync(probe);
    return true;
  } catch {
    return false;
  }
}

const TOOL = {
  name: 'whereami',
  description: 'Where this server runs from.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
};

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = request;
  if (id === undefined) return; // a notification
  if (method === 'initialize') {
    send({ jsonrpc: '2.0', id, result: {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'npx-test', version: '1.0.0' },
    } });
  } else if (method === 'tools/list') {
    send({ jsonrpc: '2.0', id, result: { tools: [TOOL] } });
  } else if (method === 'tools/call') {
    const text = JSON.stringify({
      script: __filename,
      npm_cache: process.env.npm_config_cache || '',
      home_writable: canWrite(process.env.HOME || '/'),
    });
    send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
  } else {
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: `no method ${method}` } });
  }
});
