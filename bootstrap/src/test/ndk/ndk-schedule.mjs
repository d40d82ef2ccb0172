#!/usr/bin/env node
// NDK's own NIP-90 client code as an app uses it, for the bootstrap tests of the sidecar's kind-5905 front door.
//
//   node ndk-schedule.mjs '<request JSON>'
//
// request: {"op": "schedule" | "delete" | "result", "relay": "ws://...", "secret_key": hex, ...}
//   schedule  {"dvm": hex, "channel": "general", "created_at": unix, "content": "...", "wait_ms": 30000}
//             signs a kind-9 event {h: channel} with the author's key and calls NDK's dvmSchedule(event, dvm,
//             [relay], true, wait_ms): the request goes NIP-44 encrypted, and NDK reads the first answer.
//             Prints {"event_id", "feedback": {"id", "request_id", "status", "info", "schedule", "tags"}}
//             or {"event_id", "error": <what dvmSchedule rejected with>}.
//   delete    {"request_id": hex}
//             NDK's own NDKEvent.delete() of the request (kind 5 with ["e", id] and ["k", "5905"]).
//             Prints {"deletion_id"}.
//   result    {"dvm": hex, "request_id": hex, "wait_ms": 30000}
//             waits for the kind-6905 result to the request and decrypts it with NIP-44 as the requester.
//             Prints {"id", "content", "tags"} or {"error"}.
import WebSocket from 'ws';
import NDK, { NDKEvent, NDKPrivateKeySigner, dvmSchedule } from '@nostr-dev-kit/ndk';

// Node 20 has no global WebSocket; NDK uses the global one.
globalThis.WebSocket ??= WebSocket;

const request = JSON.parse(process.argv[2] ?? '{}');
const signer = new NDKPrivateKeySigner(request.secret_key);
const ndk = new NDK({ explicitRelayUrls: [request.relay], signer, enableOutboxModel: false });
await ndk.connect(5000);
const print = value => process.stdout.write(JSON.stringify(value) + '\n');

const tagValue = (tags, name, index = 1) => tags.find(tag => tag[0] === name)?.[index];

async function schedule() {
  const event = new NDKEvent(ndk, {
    kind: 9, created_at: request.created_at, content: request.content, tags: [['h', request.channel]],
  });
  await event.sign();
  const dvm = ndk.getUser({ pubkey: request.dvm });
  try {
    const answer = await dvmSchedule(event, dvm, [request.relay], true, request.wait_ms ?? 30000);
    if (typeof answer === 'string' || answer === undefined) {
      print({ event_id: event.id, error: answer ?? 'no answer' });
      return;
    }
    print({
      event_id: event.id,
      feedback: {
        id: answer.id, kind: answer.kind, request_id: tagValue(answer.tags, 'e'),
        status: tagValue(answer.tags, 'status'), info: tagValue(answer.tags, 'status', 2),
        schedule: tagValue(answer.tags, 'schedule'), tags: answer.tags,
      },
    });
  } catch (rejected) {
    // dvmSchedule rejects an "error" feedback with statusTag?.[2] of getMatchingTags("status") — a list of tags, so
    // in NDK 3.0.3 it is the feedback event itself; its status tag holds the words.
    const error = typeof rejected === 'string' ? rejected
      : Array.isArray(rejected?.tags) ? tagValue(rejected.tags, 'status', 2) : String(rejected?.message ?? rejected);
    print({ event_id: event.id, error, status: Array.isArray(rejected?.tags) ? tagValue(rejected.tags, 'status') : null });
  }
}

async function remove() {
  const me = await signer.user();
  const job = new NDKEvent(ndk, { id: request.request_id, kind: 5905, pubkey: me.pubkey, created_at: 0, tags: [], content: '' });
  const deletion = await job.delete('changed my mind', true);
  print({ deletion_id: deletion.id, tags: deletion.tags });
}

async function result() {
  const found = await new Promise(resolve => {
    const timer = setTimeout(() => resolve(undefined), request.wait_ms ?? 30000);
    const sub = ndk.subscribe({ kinds: [6905], '#e': [request.request_id] }, {
      closeOnEose: false, groupable: false,
      onEvent: event => { clearTimeout(timer); sub.stop(); resolve(event); },
    });
  });
  if (!found) {
    print({ error: 'no kind-6905 result' });
    return;
  }
  if (found.tags.some(tag => tag[0] === 'encrypted')) {
    await found.decrypt(ndk.getUser({ pubkey: request.dvm }), signer, 'nip44');
  }
  print({ id: found.id, pubkey: found.pubkey, content: found.content, tags: found.tags });
}

try {
  if (request.op === 'schedule') await schedule();
  else if (request.op === 'delete') await remove();
  else if (request.op === 'result') await result();
  else throw new Error(`unknown op ${request.op}`);
} finally {
  for (const relay of ndk.pool.relays.values()) relay.disconnect();
  process.exit(0);
}
