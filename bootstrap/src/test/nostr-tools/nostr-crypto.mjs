#!/usr/bin/env node
// nostr-tools' own NIP-44, NIP-04, NIP-59 and NIP-17 functions, for the bootstrap tests that check the sidecar's
// encryption against them.
//
//   node nostr-crypto.mjs '<request JSON>'
//
// request: {"op": ..., "secret_key": hex, ...}
//   nip44-encrypt  {"peer": hex pubkey, "plaintext": "..."}  -> {"payload"} (nip44.v2.encrypt with a fresh nonce)
//   nip44-decrypt  {"peer": hex pubkey, "payload": "..."}    -> {"plaintext"} or {"error"}
//   nip04-encrypt  {"peer": hex pubkey, "plaintext": "..."}  -> {"payload"}
//   unwrap         {"wraps": [event, ...]}                   -> {"rumors": [rumor, ...], "errors": [...]}
//                  nip17.unwrapEvent (nip59's unwrapEvent: checks the kinds, the seal's signature, the authors)
//   wrap           {"peer": hex pubkey, "plaintext": "..."}  -> {"wrap": event} (nip17.wrapEvent)
// Prints one JSON line.
import * as nip44 from 'nostr-tools/nip44';
import * as nip04 from 'nostr-tools/nip04';
import * as nip17 from 'nostr-tools/nip17';
import { hexToBytes } from '@noble/hashes/utils.js';

const request = JSON.parse(process.argv[2] ?? '{}');
const secret = hexToBytes(request.secret_key);
const print = value => process.stdout.write(JSON.stringify(value) + '\n');

switch (request.op) {
  case 'nip44-encrypt':
    print({ payload: nip44.v2.encrypt(request.plaintext, nip44.v2.utils.getConversationKey(secret, request.peer)) });
    break;
  case 'nip44-decrypt':
    try {
      print({ plaintext: nip44.v2.decrypt(request.payload, nip44.v2.utils.getConversationKey(secret, request.peer)) });
    } catch (e) {
      print({ error: String(e.message ?? e) });
    }
    break;
  case 'nip04-encrypt':
    print({ payload: await nip04.encrypt(secret, request.peer, request.plaintext) });
    break;
  case 'unwrap': {
    const rumors = [];
    const errors = [];
    for (const wrap of request.wraps) {
      try {
        rumors.push(nip17.unwrapEvent(wrap, secret));
      } catch (e) {
        errors.push(String(e.message ?? e));
      }
    }
    print({ rumors, errors });
    break;
  }
  case 'wrap':
    print({ wrap: nip17.wrapEvent(secret, { publicKey: request.peer }, request.plaintext) });
    break;
  default:
    throw new Error(`unknown op ${request.op}`);
}
