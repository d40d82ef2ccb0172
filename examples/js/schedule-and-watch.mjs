#!/usr/bin/env node
// The steps a web or mobile client takes with buzz-scheduled-delivery, on nostr-tools' own functions:
//
//   1. GET /v1/info: is the feature on here (buzz-scheduled-messages-v1)?
//   2. sign a kind-9 channel message whose created_at is the due time (finalizeEvent) and POST it;
//   3. edit it: GET for its ETag, sign the next revision, PUT it with If-Match;
//   4. watch the relay until the edited event arrives (the first revision never does);
//   5. schedule another message and cancel it (DELETE).
//
// Every request carries a NIP-98 header from nip98.getToken(url, method, sign, true, body): u is the sidecar's
// PUBLIC_BASE_URL + path + query, and the payload tag is the SHA-256 of JSON.stringify(body), so the body sent must
// be exactly that string.
//
//   BUZZ_URL=http://127.0.0.1:8088 RELAY_URL=ws://127.0.0.1:7777 node schedule-and-watch.mjs
//
// Environment: BUZZ_URL (default http://127.0.0.1:8088), RELAY_URL (default ws://127.0.0.1:7777), BUZZ_CHANNEL
// (default general), BUZZ_AUTHOR_SECRET (64 hex characters; default a new key), BUZZ_DUE_IN_SECONDS (default 5,
// at least 2). Install its dependencies first: npm ci (in examples/js).
// Prints what it does, then one JSON line {"published":item,"superseded_event_id":…,"cancelled":item}. On a failure
// it prints one line on stderr saying why (the sidecar or the relay cannot be reached, the sidecar refused, an answer
// that is not the API's) and exits 1; BUZZ_DEBUG=1 adds the stack trace.
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import * as nip98 from 'nostr-tools/nip98';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import { hexToBytes } from 'nostr-tools/utils';
import WebSocket from 'ws';

useWebSocketImplementation(WebSocket); // Node 20 has no WebSocket of its own

const base = (process.env.BUZZ_URL ?? 'http://127.0.0.1:8088').replace(/\/$/, '');
const relayUrl = process.env.RELAY_URL ?? 'ws://127.0.0.1:7777';
const channel = process.env.BUZZ_CHANNEL ?? 'general';
const secret = process.env.BUZZ_AUTHOR_SECRET ? hexToBytes(process.env.BUZZ_AUTHOR_SECRET) : generateSecretKey();
const dueIn = Number(process.env.BUZZ_DUE_IN_SECONDS ?? 5);
const now = () => Math.floor(Date.now() / 1000);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failure this script expects and explains in one line (no stack trace). */
class Failure extends Error {}

/** fetch, with a connection failure said as such: fetch itself only says "fetch failed". */
async function request(method, url, init) {
  try {
    return await fetch(url, { method, ...init });
  } catch (e) {
    throw new Failure(`cannot reach the sidecar at ${base} (${e.cause?.code ?? e.cause?.message ?? e.message}):`
      + ' is serve running there? (BUZZ_URL)');
  }
}

/** The answer's JSON body; an answer that is not JSON is not the API's (a proxy's page, another server). */
async function body(method, path, response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Failure(`${method} ${path}: HTTP ${response.status} ${response.headers.get('content-type') ?? ''}`
      + ' is not the API\'s answer: is BUZZ_URL the sidecar?');
  }
}

/** One owner API call with a fresh NIP-98 header; fails with the API's error code and message on a refusal. */
async function api(method, path, payload, headers = {}) {
  const url = base + path;
  const authorization = await nip98.getToken(url, method, (template) => finalizeEvent(template, secret), true,
    payload);
  const response = await request(method, url, {
    headers: { Authorization: authorization, ...(payload ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: payload ? JSON.stringify(payload) : undefined,
  });
  const json = await body(method, path, response);
  if (!response.ok) {
    throw new Failure(`${method} ${path}: refused: HTTP ${response.status} ${json.error}: ${json.message}`);
  }
  return { json, etag: response.headers.get('etag') };
}

/** A kind-9 message for the channel (NIP-29 h tag), due at createdAt. */
function message(content, createdAt) {
  return finalizeEvent({ kind: 9, created_at: createdAt, tags: [['h', channel]], content }, secret);
}

let relay;

async function main() {
  if (!Number.isInteger(dueIn) || dueIn < 2) {
    throw new Failure('BUZZ_DUE_IN_SECONDS must be a whole number of at least 2 (the edit is signed that far'
      + ` ahead), got ${process.env.BUZZ_DUE_IN_SECONDS}`);
  }
  const info = await body('GET', '/v1/info', await request('GET', `${base}/v1/info`));
  if (!info.supported_extensions?.includes('buzz-scheduled-messages-v1')) {
    throw new Failure(`scheduled messages are not on at ${base} (the operator sets BUZZ_SCHEDULED_MESSAGES=on)`);
  }
  // Connect to the relay first: when it cannot be reached, nothing has been scheduled yet.
  try {
    relay = await Relay.connect(relayUrl);
  } catch (e) {
    throw new Failure(`cannot connect to the relay at ${relayUrl} (RELAY_URL): ${e.message ?? e}`);
  }

  // 2. schedule, an hour ahead
  const draft = message('first draft', now() + 3600);
  const created = (await api('POST', '/v1/scheduled-messages', { event: draft })).json;
  console.log(`scheduled ${created.id} for ${new Date(created.due_at * 1000).toISOString()} (event ${draft.id})`);

  // 3. edit: the next revision, due in a few seconds, with If-Match on the revision just read. Should the edit fail,
  // the first draft is cancelled rather than left pending.
  let edited;
  let revision;
  try {
    const current = await api('GET', `/v1/scheduled-messages/${created.id}`);
    revision = message('final text', now() + dueIn);
    edited = (await api('PUT', `/v1/scheduled-messages/${created.id}`, { event: revision },
      { 'If-Match': current.etag })).json;
  } catch (e) {
    await api('DELETE', `/v1/scheduled-messages/${created.id}`).catch(() => {});
    throw e;
  }
  console.log(`edited ${edited.id}: revision ${edited.revision}, due ${new Date(edited.due_at * 1000).toISOString()}`);

  // 4. watch the relay for the author's messages in the channel until the edited event arrives
  const seen = [];
  const arrived = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Failure(`event ${revision.id} did not reach ${relayUrl} in time`)),
      (dueIn + 30) * 1000);
    relay.subscribe([{ authors: [getPublicKey(secret)], kinds: [9], '#h': [channel] }], {
      onevent(event) {
        seen.push(event.id);
        if (event.id === revision.id) {
          clearTimeout(timer);
          resolve(now());
        }
      },
    });
  });
  const arrivedAt = await arrived;
  if (arrivedAt < revision.created_at) throw new Failure('the relay got the event before its due time');
  if (seen.includes(draft.id)) throw new Failure('the superseded first revision reached the relay');
  console.log(`the relay has ${revision.id} (${arrivedAt - revision.created_at} s after its due time)`);

  // The sidecar marks it published once the relay has answered OK. (A GET signed twice in the same second is the same
  // NIP-98 event, which a sidecar that keys its replay cache by event id refuses: poll more slowly than that.)
  let published = edited;
  for (let tries = 0; published.state !== 'published' && tries < 20; tries++) {
    await sleep(1100);
    published = (await api('GET', `/v1/scheduled-messages/${created.id}`)).json;
  }
  if (published.state !== 'published') throw new Failure(`message ${created.id} is ${published.state}, not published`);

  // 5. schedule another and cancel it: its event is deleted and never published
  const spare = (await api('POST', '/v1/scheduled-messages', { event: message('never sent', now() + 3600) })).json;
  const cancelled = (await api('DELETE', `/v1/scheduled-messages/${spare.id}`)).json;
  console.log(`cancelled ${cancelled.id}: state ${cancelled.state}`);

  return { published, superseded_event_id: draft.id, cancelled };
}

try {
  console.log(JSON.stringify(await main()));
} catch (e) {
  // One line for the failures this script expects; anything else is a bug, said as such.
  console.error(`schedule-and-watch: ${e instanceof Failure ? e.message : `unexpected failure: ${e}`}`);
  if (process.env.BUZZ_DEBUG) console.error(e.stack);
  process.exitCode = 1;
} finally {
  relay?.close();
}
