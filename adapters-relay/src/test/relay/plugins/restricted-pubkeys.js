// Example access-policy plugin for the test relay: refuses events whose author is listed in
// TEST_RELAY_RESTRICTED_PUBKEYS (comma-separated hex pubkeys) with "restricted: ...", the answer a
// relay gives a non-member posting to a closed channel. Load it with --plugin plugins/restricted-pubkeys.js.
// TEST_RELAY_RESTRICTED_PUBKEYS_FILE names a file holding such a list instead, read again for every event, so a test
// can lift the restriction while the relay runs (the operator fixed the cause). TEST_RELAY_RETRY_ONCE_PUBKEYS lists
// authors whose each event is answered "error: try again" the first time and accepted after: a transient refusal the
// relay client hands back to the dispatcher, which records a retried attempt (a "rate-limited:" answer the client
// paces and sends again itself, so no attempt would be retried).
'use strict';

const fs = require('fs');

function list(text) {
  return new Set((text ?? '').split(',').map(s => s.trim()).filter(s => s.length > 0));
}

module.exports = () => {
  const fixed = list(process.env.TEST_RELAY_RESTRICTED_PUBKEYS);
  const file = process.env.TEST_RELAY_RESTRICTED_PUBKEYS_FILE;
  const retryOnce = list(process.env.TEST_RELAY_RETRY_ONCE_PUBKEYS);
  const seen = new Set();
  const restricted = () => {
    if (!file) return fixed;
    try {
      return list(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      return new Set();
    }
  };
  return {
    beforeHandleEvent(event) {
      if (restricted().has(event.pubkey)) {
        return { canHandle: false, message: 'restricted: not a member of this channel' };
      }
      if (retryOnce.has(event.pubkey) && !seen.has(event.id)) {
        seen.add(event.id);
        return { canHandle: false, message: 'error: try again' };
      }
      return { canHandle: true };
    },
  };
};
