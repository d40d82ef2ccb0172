// NIP-42 for reading: a REQ from a connection that has not authenticated is answered
//   ["CLOSED", <subscription>, "auth-required: this relay serves authenticated connections only"]
// as relays with private groups do. Needs --auth (the relay then sends every connection its challenge).
// Load with --plugin plugins/auth-reads.js.
'use strict';

const { MessageType, createOutgoingClosedMessage } = require('@nostr-relay/common');

module.exports = {
  async handleMessage(ctx, message, next) {
    if (message[0] === MessageType.REQ && !ctx.pubkey) {
      const reason = 'auth-required: this relay serves authenticated connections only';
      ctx.sendMessage(createOutgoingClosedMessage(message[1], reason));
      return { messageType: MessageType.REQ, success: false, message: reason };
    }
    return next();
  },
};
