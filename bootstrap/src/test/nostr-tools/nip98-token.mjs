#!/usr/bin/env node
// nostr-tools' own NIP-98 helper as a client app uses it, for the bootstrap tests of the sidecar's HTTP API.
//
//   node nip98-token.mjs '<request JSON>'
//
// request: {"secret_key": hex, "url": "...", "method": "POST", "event": {kind, created_at, tags, content} | absent,
//           "count": 1, "uppercase_payload": false, "created_at_shift": 0}
//   url                the URL as the app has it; the u tag is new URL(url).href, as apps pass it to getToken
//   method             passed to getToken as it is (nostr-tools' own example uses 'post')
//   event              an event template the app signs with finalizeEvent; the body is then {"event": <signed>}
//   count              how many headers to make for the same request; all of them signed in the same second
//                      (the same event id, each with its own BIP-340 signature), as a double-click makes them
//   uppercase_payload  the app's sign callback writes the payload tag's hex in uppercase (some clients do)
//   created_at_shift   seconds added to the auth event's created_at by the sign callback (a skewed clock)
//
// Prints one JSON line: {"u": <href>, "body": <exact body text> | null, "headers": ["Nostr ...", ...]}.
import { finalizeEvent } from 'nostr-tools/pure';
import { getToken } from 'nostr-tools/nip98';
import { hexToBytes } from '@noble/hashes/utils.js';

const request = JSON.parse(process.argv[2] ?? '{}');
const secret = hexToBytes(request.secret_key);
const u = new URL(request.url).href;
const payload = request.event ? { event: finalizeEvent({ ...request.event }, secret) } : undefined;
const count = request.count ?? 1;

const sign = template => {
  const event = { ...template, created_at: template.created_at + (request.created_at_shift ?? 0) };
  if (request.uppercase_payload) {
    event.tags = event.tags.map(tag => (tag[0] === 'payload' ? ['payload', tag[1].toUpperCase()] : tag));
  }
  return finalizeEvent(event, secret);
};

const createdAt = header => JSON.parse(Buffer.from(header.slice('Nostr '.length), 'base64').toString('utf8')).created_at;

let headers = [];
for (let attempt = 0; attempt < 20; attempt++) {
  headers = [];
  for (let i = 0; i < count; i++) {
    headers.push(await getToken(u, request.method, sign, true, payload));
  }
  // A second boundary between the calls would give different ids; sign the set again until it falls in one second.
  if (new Set(headers.map(createdAt)).size === 1) break;
}
process.stdout.write(JSON.stringify({ u, body: payload === undefined ? null : JSON.stringify(payload), headers }) + '\n');
