// NIP-29 groups for the test relay: the relay keeps each group's state and publishes it as events it signs
// itself with TEST_RELAY_NIP29_SECRET (64 hex characters), the way a NIP-29 relay does:
//   kind 39000 metadata  ["d", id], ["name", ...], ["private"|"public"], ["closed"|"open"], ["archived"] when archived
//   kind 39001 admins    ["d", id], ["p", pubkey, "admin"]...
//   kind 39002 members   ["d", id], ["p", pubkey]...
// Moderation events from clients (each with ["h", id]) change the state; all but 9007 need a group admin:
//   9007 create-group (the author becomes admin and member), 9000 put-user (["p", pubkey]...),
//   9001 remove-user (["p", pubkey]...), 9002 edit-metadata (["name", ...], ["closed"]/["open"],
//   ["private"]/["public"], ["archived"]/["unarchived"]), 9008 delete-group.
// Any other event with an "h" tag is a post to that group: refused "invalid: group not found" for an unknown or
// deleted group, "restricted: group is archived", and "restricted: not a member" for a non-member of a group that
// is closed or private. Client events of kinds 39000-39009 are refused: only the relay writes group state.
// TEST_RELAY_NIP29_GROUPS may seed groups at start: JSON [{"id","admins":[..],"members":[..],"closed":bool,...}].
// TEST_RELAY_NIP29_GROUP_COUNT=N seeds N more closed groups g0001..gN whose members are the comma-separated
// pubkeys of TEST_RELAY_NIP29_GROUP_MEMBERS, with their state signed over the last N seconds (group i at
// now - N + i, as groups made over time), so a relay that caps results per filter has to be paged by "until".
//
// NIP-11: "self" is the relay's own key, the one that signs group state; "pubkey" is the operator's contact key,
// TEST_RELAY_NIP29_CONTACT_PUBKEY when set (a real NIP-29 relay's two keys differ), else the relay's key too.
// TEST_RELAY_NIP29_SELF=off leaves "self" out, as older relays do. Load with --plugin plugins/nip29-groups.js.
'use strict';

// Transitive dependencies of @nostr-relay/common, pinned by package-lock.json.
const { schnorr } = require('@noble/curves/secp256k1');
const { sha256 } = require('@noble/hashes/sha256');
const { bytesToHex, hexToBytes } = require('@noble/hashes/utils');

const MODERATION = new Set([9000, 9001, 9002, 9007, 9008]);

module.exports = (options, relay) => {
  const secret = process.env.TEST_RELAY_NIP29_SECRET ?? '';
  if (!/^[0-9a-f]{64}$/.test(secret)) {
    throw new Error('TEST_RELAY_NIP29_SECRET must be 64 lowercase hex characters');
  }
  if (!relay) {
    throw new Error('the nip29-groups plugin needs the relay (relay.js passes it to plugin factories)');
  }
  const relayPubkey = bytesToHex(schnorr.getPublicKey(hexToBytes(secret)));
  const groups = new Map();
  const lastCreatedAt = new Map();

  function group(id) {
    const found = groups.get(id);
    return found && !found.deleted ? found : null;
  }

  function tagValue(event, name) {
    const tag = event.tags.find(t => t[0] === name && t.length > 1);
    return tag ? tag[1] : null;
  }

  function sign(kind, tags, at = Math.floor(Date.now() / 1000)) {
    // Strictly increasing created_at per (kind, group), so a replaceable update is never a tie.
    const key = `${kind}:${tags[0][1]}`;
    const createdAt = Math.max(at, (lastCreatedAt.get(key) ?? 0) + 1);
    lastCreatedAt.set(key, createdAt);
    const unsigned = [0, relayPubkey, createdAt, kind, tags, ''];
    const id = bytesToHex(sha256(new TextEncoder().encode(JSON.stringify(unsigned))));
    const sig = bytesToHex(schnorr.sign(id, hexToBytes(secret)));
    return { id, pubkey: relayPubkey, created_at: createdAt, kind, tags, content: '', sig };
  }

  async function publishState(g, kinds, at) {
    for (const kind of kinds) {
      let tags;
      if (kind === 39000) {
        tags = [['d', g.id], ['name', g.name], [g.private ? 'private' : 'public'], [g.closed ? 'closed' : 'open']];
        if (g.archived) tags.push(['archived']);
      } else if (kind === 39001) {
        tags = [['d', g.id], ...[...g.admins].map(p => ['p', p, 'admin'])];
      } else {
        tags = [['d', g.id], ...[...g.members].map(p => ['p', p])];
      }
      const result = await relay.handleEvent(sign(kind, tags, at));
      if (!result.success) throw new Error(`the relay refused its own kind ${kind}: ${result.message}`);
    }
  }

  function create(id, admin, seed = {}) {
    const g = {
      id,
      name: seed.name ?? id,
      private: !!seed.private,
      closed: seed.closed ?? true,
      archived: !!seed.archived,
      deleted: false,
      admins: new Set([admin, ...(seed.admins ?? [])]),
      members: new Set([admin, ...(seed.admins ?? []), ...(seed.members ?? [])]),
    };
    groups.set(id, g);
    return g;
  }

  const seeded = JSON.parse(process.env.TEST_RELAY_NIP29_GROUPS ?? '[]');
  const count = Number(process.env.TEST_RELAY_NIP29_GROUP_COUNT ?? 0);
  const members = (process.env.TEST_RELAY_NIP29_GROUP_MEMBERS ?? '').split(',').filter(p => p.length > 0);
  const start = Math.floor(Date.now() / 1000) - count;
  const ready = Promise.all(seeded.map(seed => {
    const g = create(seed.id, (seed.admins ?? [relayPubkey])[0], seed);
    return publishState(g, [39000, 39001, 39002]);
  })).then(async () => {
    for (let i = 1; i <= count; i++) {
      const g = create(`g${String(i).padStart(4, '0')}`, relayPubkey, { members });
      await publishState(g, [39000, 39001, 39002], start + i);
    }
  });
  ready.catch(error => process.stderr.write(`nip29-groups: seeding failed: ${error.message}\n`));

  async function apply(event) {
    const id = tagValue(event, 'h');
    const targets = event.tags.filter(t => t[0] === 'p' && t.length > 1).map(t => t[1]);
    if (event.kind === 9007) {
      await publishState(create(id, event.pubkey), [39000, 39001, 39002]);
      return;
    }
    const g = group(id);
    if (!g) return;
    if (event.kind === 9000) {
      targets.forEach(p => g.members.add(p));
      await publishState(g, [39002]);
    } else if (event.kind === 9001) {
      targets.forEach(p => { g.members.delete(p); g.admins.delete(p); });
      await publishState(g, [39001, 39002]);
    } else if (event.kind === 9002) {
      for (const [name, value] of event.tags) {
        if (name === 'name' && value) g.name = value;
        if (name === 'closed') g.closed = true;
        if (name === 'open') g.closed = false;
        if (name === 'private') g.private = true;
        if (name === 'public') g.private = false;
        if (name === 'archived') g.archived = true;
        if (name === 'unarchived') g.archived = false;
      }
      await publishState(g, [39000]);
    } else if (event.kind === 9008) {
      g.deleted = true;
    }
  }

  return {
    // relay.js waits for this before it listens, so every seeded group is stored when READY is printed.
    ready,

    info: Object.assign(
      { pubkey: process.env.TEST_RELAY_NIP29_CONTACT_PUBKEY || relayPubkey, supported_nips: [1, 11, 29, 42] },
      process.env.TEST_RELAY_NIP29_SELF === 'off' ? {} : { self: relayPubkey }),

    async beforeHandleEvent(event) {
      // The relay's own state events are what seeding publishes: they must not wait for it.
      if (event.kind >= 39000 && event.kind <= 39009) {
        return event.pubkey === relayPubkey
          ? { canHandle: true }
          : { canHandle: false, message: 'restricted: only the relay publishes group state' };
      }
      await ready;
      const id = tagValue(event, 'h');
      if (id === null) return { canHandle: true };
      if (MODERATION.has(event.kind)) {
        if (event.kind === 9007) {
          return groups.has(id)
            ? { canHandle: false, message: 'duplicate: group already exists' }
            : { canHandle: true };
        }
        const g = group(id);
        if (!g) return { canHandle: false, message: 'invalid: group not found' };
        return g.admins.has(event.pubkey) || event.pubkey === relayPubkey
          ? { canHandle: true }
          : { canHandle: false, message: 'restricted: not a group admin' };
      }
      const g = group(id);
      if (!g) return { canHandle: false, message: 'invalid: group not found' };
      if (g.archived) return { canHandle: false, message: 'restricted: group is archived' };
      if ((g.closed || g.private) && !g.members.has(event.pubkey)) {
        return { canHandle: false, message: 'restricted: not a member of this group' };
      }
      return { canHandle: true };
    },

    // Runs once a new event is stored: the moderation event goes out first, then the state it changed.
    async broadcast(event, next) {
      await next(event);
      if (MODERATION.has(event.kind) && tagValue(event, 'h') !== null) {
        await apply(event);
      }
    },
  };
};
