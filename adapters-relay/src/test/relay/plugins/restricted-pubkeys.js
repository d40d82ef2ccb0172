// Example access-policy plugin for the test relay: refuses events whose author is listed in
// TEST_RELAY_RESTRICTED_PUBKEYS (comma-separated hex pubkeys) with "restricted: ...", the answer a
// relay gives a non-member posting to a closed channel. Load it with --plugin plugins/restricted-pubkeys.js.
'use strict';

module.exports = () => {
  const restricted = new Set(
    (process.env.TEST_RELAY_RESTRICTED_PUBKEYS ?? '').split(',').map(s => s.trim()).filter(s => s.length > 0));
  return {
    beforeHandleEvent(event) {
      return restricted.has(event.pubkey)
        ? { canHandle: false, message: 'restricted: not a member of this channel' }
        : { canHandle: true };
    },
  };
};
