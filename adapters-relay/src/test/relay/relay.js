#!/usr/bin/env node
// A small but real Nostr relay for the adapters-relay tests, built on @nostr-relay/* 0.0.40 and ws.
//
//   node relay.js [--port N] [--host H] [--auth] [--data FILE] [--max-results N] [--plugin FILE]...
//
// Environment equivalents: TEST_RELAY_PORT, TEST_RELAY_HOST, TEST_RELAY_AUTH=on, TEST_RELAY_DATA,
// TEST_RELAY_MAX_RESULTS, TEST_RELAY_PLUGINS (comma-separated files). Port 0 (the default) lets the OS pick a free
// port.
//
// When it listens it prints exactly one line to stdout, which tests wait for:
//   READY port=<port> url=ws://<host>:<port> auth=<on|off>
//
// --auth  NIP-42: every connection gets ["AUTH", <challenge>] and EVENT answers
//         ["OK", id, false, "auth-required: ..."] until the connection has authenticated.
// --data  events are appended to FILE (one JSON line each) and read back at start, so a relay that is
//         stopped and started again on the same port still answers "duplicate:" for what it stored.
// --max-results N  every filter of a REQ returns at most N stored events (the newest), whatever its "limit", and
//         EOSE says nothing about the cut, as strfry does with its per-filter cap (500 by default).
// --plugin FILE  a CommonJS module exporting a @nostr-relay plugin (handleMessage / beforeHandleEvent /
//         broadcast) or a function (options, relay) => plugin; registered after the built-in ones. This is where
//         access-policy tests put their rules (e.g. answer "restricted: ..." for some pubkeys). A plugin's
//         `info` object is merged into the NIP-11 document; the relay listens only once a plugin's `ready`
//         promise (if it has one) has settled.
//
// Modes that recreate what real relays do to a publishing client:
// --auth-hostname H   NIP-42 as --auth, but the AUTH event's relay tag must name host H (strfry and khatru
//         compare it with their own public URL), so a client that connects by another address is refused.
// --max-message-length N   a message longer than N bytes closes the connection (1009 Message Too Big), as ws,
//         gorilla/websocket and uWebSockets relays do with their message size limit.
// --limitation JSON   the NIP-11 document's "limitation" object, e.g. '{"max_message_length":131072}'.
// --lose-first-ok     stores each event but never sends the OK to the first EVENT carrying it (a lost answer).
// --silent-duplicates never answers an EVENT it already stored (no "duplicate:" OK at all).
// --stall-after N --stall-ms M   after N EVENT messages on a connection, stops reading it for M ms (a relay
//         that stopped reading: the client's socket buffers fill up).
// --drop-first-after N   the first connection is terminated (TCP closed, no close frame) right after the relay has
//         read N messages on it, as a relay that crashes or a proxy that cuts idle sockets does; later connections
//         are left alone.
// --max-subscriptions N   at most N open subscriptions per connection, as strfry and khatru limit them: a REQ
//                    beyond that is answered ["CLOSED", <id>, "error: too many subscriptions"] and not run.
// --log-received FILE appends {"id","at","bytes","connection"} for every EVENT message it reads, "at" in Unix ms.
//
// NIP-09: a kind-5 deletion removes the events it names by the same author, and is itself stored and broadcast.
//
// NIP-11: an HTTP GET with "Accept: application/nostr+json" on the same port answers the relay information
// document (name, supported_nips, and whatever plugins add, e.g. the relay's "pubkey").
//
// The relay exits when stdin closes, so it never outlives the JVM that started it.
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');
const { WebSocketServer } = require('ws');
const { NostrRelay } = require('@nostr-relay/core');
const { Validator } = require('@nostr-relay/validator');
const {
  EventRepository,
  EventType,
  EventUtils,
  LogLevel,
  MessageType,
  createOutgoingNoticeMessage,
  createOutgoingOkMessage,
} = require('@nostr-relay/common');

function parseOptions(argv, env) {
  const options = {
    port: Number(env.TEST_RELAY_PORT ?? 0),
    host: env.TEST_RELAY_HOST ?? '127.0.0.1',
    auth: ['on', 'true', '1'].includes(String(env.TEST_RELAY_AUTH ?? '').toLowerCase()),
    data: env.TEST_RELAY_DATA || null,
    maxResults: env.TEST_RELAY_MAX_RESULTS ? Number(env.TEST_RELAY_MAX_RESULTS) : null,
    plugins: (env.TEST_RELAY_PLUGINS ?? '').split(',').filter(p => p.length > 0),
    authHostname: null,
    maxMessageLength: null,
    limitation: null,
    loseFirstOk: false,
    silentDuplicates: false,
    stallAfter: null,
    stallMs: 0,
    logReceived: null,
    dropFirstAfter: null,
    maxSubscriptions: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--port') options.port = Number(value());
    else if (arg === '--host') options.host = value();
    else if (arg === '--auth') options.auth = true;
    else if (arg === '--data') options.data = value();
    else if (arg === '--max-results') options.maxResults = Number(value());
    else if (arg === '--plugin') options.plugins.push(value());
    else if (arg === '--auth-hostname') { options.auth = true; options.authHostname = value(); }
    else if (arg === '--max-message-length') options.maxMessageLength = Number(value());
    else if (arg === '--limitation') options.limitation = JSON.parse(value());
    else if (arg === '--lose-first-ok') options.loseFirstOk = true;
    else if (arg === '--silent-duplicates') options.silentDuplicates = true;
    else if (arg === '--stall-after') options.stallAfter = Number(value());
    else if (arg === '--stall-ms') options.stallMs = Number(value());
    else if (arg === '--log-received') options.logReceived = value();
    else if (arg === '--drop-first-after') options.dropFirstAfter = Number(value());
    else if (arg === '--max-subscriptions') options.maxSubscriptions = Number(value());
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`port must be an integer 0..65535, got ${options.port}`);
  }
  if (options.maxResults !== null && (!Number.isInteger(options.maxResults) || options.maxResults < 1)) {
    throw new Error(`max results must be a positive integer, got ${options.maxResults}`);
  }
  return options;
}

/** Events in memory (optionally mirrored to a JSON-lines file), with NIP-01 filters. */
class MemoryEventRepository extends EventRepository {
  constructor(file, maxResults) {
    super();
    this.events = new Map();
    this.file = file;
    this.maxResults = maxResults ?? Infinity;
    if (file && fs.existsSync(file)) {
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        if (line.length > 0) this.store(JSON.parse(line));
      }
    }
  }

  isSearchSupported() {
    return false;
  }

  upsert(event) {
    if (this.events.has(event.id)) return { isDuplicate: true };
    this.store(event);
    if (this.file) fs.appendFileSync(this.file, JSON.stringify(event) + '\n');
    return { isDuplicate: false };
  }

  store(event) {
    const type = EventUtils.getType(event.kind);
    if (type === EventType.REPLACEABLE || type === EventType.PARAMETERIZED_REPLACEABLE) {
      const d = EventUtils.extractDTagValue(event);
      for (const [id, old] of this.events) {
        if (old.pubkey === event.pubkey && old.kind === event.kind && EventUtils.extractDTagValue(old) === d) {
          this.events.delete(id);
        }
      }
    }
    this.events.set(event.id, event);
  }

  /**
   * NIP-09, as strfry and khatru do it: the events the deletion names with "e" tags are removed when they have the
   * deletion's author, and the deletion itself is stored and sent to subscribers (the core only calls this and
   * neither stores nor broadcasts a kind 5).
   */
  async deleteByDeletionRequest(event) {
    for (const tag of event.tags) {
      const old = tag[0] === 'e' ? this.events.get(tag[1]) : undefined;
      if (old && old.pubkey === event.pubkey && old.kind !== 5) this.events.delete(tag[1]);
    }
    if (this.upsert(event).isDuplicate === false && this.afterDeletion) await this.afterDeletion(event);
  }

  find(filter) {
    const matching = [...this.events.values()]
      .filter(event => matches(event, filter))
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1));
    return matching.slice(0, Math.min(filter.limit ?? Infinity, this.maxResults));
  }

  async destroy() {}
}

function matches(event, filter) {
  if (filter.ids && !filter.ids.includes(event.id)) return false;
  if (filter.authors && !filter.authors.includes(event.pubkey)) return false;
  if (filter.kinds && !filter.kinds.includes(event.kind)) return false;
  if (filter.since !== undefined && event.created_at < filter.since) return false;
  if (filter.until !== undefined && event.created_at > filter.until) return false;
  for (const [key, values] of Object.entries(filter)) {
    if (!key.startsWith('#') || !Array.isArray(values)) continue;
    const name = key.slice(1);
    if (!event.tags.some(tag => tag[0] === name && values.includes(tag[1]))) return false;
  }
  return true;
}

/** NIP-42: refuse EVENT from a connection that has not authenticated (the core only issues challenges). */
function requireAuthPlugin() {
  return {
    async handleMessage(ctx, message, next) {
      if (message[0] === MessageType.EVENT && !ctx.pubkey) {
        const reason = 'auth-required: this relay accepts events from authenticated connections only';
        ctx.sendMessage(createOutgoingOkMessage(message[1].id, false, reason));
        return { messageType: MessageType.EVENT, success: false, message: reason };
      }
      return next();
    },
  };
}

function loadPlugin(file, options, relay) {
  const exported = require(path.resolve(file));
  return typeof exported === 'function' ? exported(options, relay) : exported;
}

async function main() {
  const options = parseOptions(process.argv.slice(2), process.env);
  const repository = new MemoryEventRepository(options.data, options.maxResults);
  const relay = new NostrRelay(repository, {
    // NIP-42 is on exactly when a hostname is set; AUTH events must name ws://<this host>:...
    hostname: options.auth ? (options.authHostname ?? options.host) : undefined,
    logLevel: LogLevel.ERROR,
    // Without these the core answers a repeated EVENT from a cache ("true" without "duplicate:")
    // and serves REQ results up to 1 s stale.
    eventHandlingResultCacheTtl: 0,
    filterResultCacheTtl: 0,
  });
  repository.afterDeletion = event => relay.broadcast(event);
  if (options.auth) relay.register(requireAuthPlugin());
  const plugins = options.plugins.map(file => loadPlugin(file, options, relay));
  for (const plugin of plugins) relay.register(plugin);
  const info = Object.assign({ name: 'buzz-scheduled test relay', supported_nips: [1, 11, 42] },
    options.limitation ? { limitation: options.limitation } : {},
    ...plugins.map(plugin => plugin.info ?? {}));

  const validator = new Validator({ maxContentLength: 256 * 1024 });
  const httpServer = http.createServer((request, response) => {
    if ((request.headers.accept ?? '').includes('application/nostr+json')) {
      response.writeHead(200, { 'Content-Type': 'application/nostr+json', 'Access-Control-Allow-Origin': '*' });
      response.end(JSON.stringify(info));
    } else {
      response.writeHead(426, { 'Content-Type': 'text/plain' });
      response.end('a Nostr relay: connect with a WebSocket, or ask for application/nostr+json (NIP-11)\n');
    }
  });
  const server = new WebSocketServer(options.maxMessageLength
    ? { server: httpServer, maxPayload: options.maxMessageLength } : { server: httpServer });
  const okLost = new Set();
  let connections = 0;

  server.on('connection', (ws, request) => {
    const connection = ++connections;
    let events = 0;
    if (options.loseFirstOk || options.silentDuplicates) {
      const send = ws.send.bind(ws);
      ws.send = (data, ...rest) => {
        const text = typeof data === 'string' ? data : data.toString();
        if (text.startsWith('["OK"')) {
          const [, id, , message] = JSON.parse(text);
          if (options.silentDuplicates && String(message ?? '').startsWith('duplicate:')) return;
          if (options.loseFirstOk && !okLost.has(id)) {
            okLost.add(id);
            return;
          }
        }
        return send(data, ...rest);
      };
    }
    relay.handleConnection(ws, request.socket.remoteAddress);
    let messages = 0;
    const open = new Set();
    ws.on('message', async data => {
      if (options.dropFirstAfter !== null && connection === 1 && ++messages >= options.dropFirstAfter) {
        ws.terminate();
        return;
      }
      if (options.logReceived || options.stallAfter !== null) {
        const text = data.toString();
        if (text.startsWith('["EVENT"')) {
          events++;
          if (options.logReceived) {
            const id = /"id":"([0-9a-f]{64})"/.exec(text)?.[1] ?? null;
            fs.appendFileSync(options.logReceived,
              JSON.stringify({ id, at: Date.now(), bytes: Buffer.byteLength(text), connection }) + '\n');
          }
          if (options.stallAfter !== null && events === options.stallAfter) {
            ws.pause();
            setTimeout(() => ws.resume(), options.stallMs);
          }
        }
      }
      let raw;
      try {
        raw = JSON.parse(data.toString());
      } catch {
        ws.send(JSON.stringify(createOutgoingNoticeMessage('invalid: message is not JSON')));
        return;
      }
      if (options.maxSubscriptions !== null && Array.isArray(raw)) {
        if (raw[0] === 'CLOSE') open.delete(raw[1]);
        if (raw[0] === 'REQ' && !open.has(raw[1])) {
          if (open.size >= options.maxSubscriptions) {
            ws.send(JSON.stringify(['CLOSED', raw[1], 'error: too many subscriptions']));
            return;
          }
          open.add(raw[1]);
        }
      }
      let message;
      try {
        message = await validator.validateIncomingMessage(raw);
      } catch (error) {
        // NIP-01: an EVENT gets an OK even when it is malformed, as long as it names an id.
        const id = Array.isArray(raw) && raw[0] === 'EVENT' && typeof raw[1]?.id === 'string' ? raw[1].id : null;
        const text = error.message.startsWith('invalid') ? error.message : `invalid: ${error.message}`;
        ws.send(JSON.stringify(id ? createOutgoingOkMessage(id, false, text) : createOutgoingNoticeMessage(text)));
        return;
      }
      try {
        await relay.handleMessage(ws, message);
      } catch (error) {
        ws.send(JSON.stringify(createOutgoingNoticeMessage(`error: ${error.message}`)));
      }
    });
    ws.on('close', () => relay.handleDisconnect(ws));
    ws.on('error', () => relay.handleDisconnect(ws));
  });

  httpServer.on('listening', () => {
    const port = httpServer.address().port;
    process.stdout.write(`READY port=${port} url=ws://${options.host}:${port} auth=${options.auth ? 'on' : 'off'}\n`);
  });
  httpServer.on('error', error => {
    process.stderr.write(`test relay failed: ${error.message}\n`);
    process.exit(1);
  });
  await Promise.all(plugins.map(plugin => plugin.ready).filter(Boolean).map(ready => ready.catch(() => {})));
  httpServer.listen(options.port, options.host);

  const stop = () => {
    for (const client of server.clients) client.terminate();
    server.close();
    httpServer.close(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

main().catch(error => {
  process.stderr.write(`test relay failed: ${error.message}\n`);
  process.exit(2);
});
