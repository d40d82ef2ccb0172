// NIP-11 limitation for the test relay: TEST_RELAY_LIMITATION is a JSON object, e.g.
//   {"max_message_length":2048,"max_content_length":512,"max_limit":500,
//    "created_at_lower_limit":900,"created_at_upper_limit":60}
// published as the "limitation" of the relay's NIP-11 document, and enforced on EVENT the way relays do, with
// ["OK", <id>, false, "invalid: ..."]:
//   max_message_length      the ["EVENT", <event>] message, in UTF-8 bytes (measured on the parsed message written
//                           back with JSON.stringify, which for the events the tests send is the text they sent)
//   max_content_length      the event's content, in UTF-8 bytes
//   created_at_lower_limit  how far in the past created_at may be, in seconds
//   created_at_upper_limit  how far in the future created_at may be, in seconds
// max_limit is only published (use --max-results to cap REQ results). Load with --plugin plugins/limitation.js.
'use strict';

const { MessageType, createOutgoingOkMessage } = require('@nostr-relay/common');

module.exports = () => {
  const limitation = JSON.parse(process.env.TEST_RELAY_LIMITATION ?? '{}');
  if (typeof limitation !== 'object' || limitation === null || Array.isArray(limitation)) {
    throw new Error('TEST_RELAY_LIMITATION must be a JSON object');
  }

  function refusal(message) {
    const event = message[1];
    const bytes = Buffer.byteLength(JSON.stringify(message), 'utf8');
    if (limitation.max_message_length !== undefined && bytes > limitation.max_message_length) {
      return `invalid: message is ${bytes} bytes, more than max_message_length ${limitation.max_message_length}`;
    }
    const content = Buffer.byteLength(event.content ?? '', 'utf8');
    if (limitation.max_content_length !== undefined && content > limitation.max_content_length) {
      return `invalid: content is ${content} bytes, more than max_content_length ${limitation.max_content_length}`;
    }
    const now = Math.floor(Date.now() / 1000);
    if (limitation.created_at_upper_limit !== undefined && event.created_at > now + limitation.created_at_upper_limit) {
      return 'invalid: created_at is too far in the future';
    }
    if (limitation.created_at_lower_limit !== undefined && event.created_at < now - limitation.created_at_lower_limit) {
      return 'invalid: created_at is too old';
    }
    return null;
  }

  return {
    info: { limitation },

    async handleMessage(ctx, message, next) {
      if (message[0] !== MessageType.EVENT) return next();
      const reason = refusal(message);
      if (reason === null) return next();
      ctx.sendMessage(createOutgoingOkMessage(message[1].id, false, reason));
      return { messageType: MessageType.EVENT, success: false, message: reason };
    },
  };
};
