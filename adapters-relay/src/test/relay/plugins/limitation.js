// NIP-11 limitation for the test relay: TEST_RELAY_LIMITATION is a JSON object, e.g.
//   {"max_message_length":2048,"max_content_length":512,"max_limit":500,"max_event_tags":20,
//    "created_at_lower_limit":900,"created_at_upper_limit":60,"min_pow_difficulty":8}
// published as the "limitation" of the relay's NIP-11 document, and enforced on EVENT the way relays do, with
// ["OK", <id>, false, "invalid: ..."] (or "pow: ..."); a limit of 0 is no limit, as relays publish it:
//   max_message_length      the ["EVENT", <event>] message, in UTF-8 bytes (measured on the parsed message written
//                           back with JSON.stringify, which for the events the tests send is the text they sent)
//   max_content_length      the event's content, in UTF-8 bytes
//   max_event_tags          the event's number of tags
//   created_at_lower_limit  how far in the past created_at may be, in seconds
//   created_at_upper_limit  how far in the future created_at may be, in seconds
//   min_pow_difficulty      NIP-13: leading zero bits of the id, and a committed target (the nonce tag's third
//                           entry) not below it
// max_limit, auth_required and restricted_writes are only published (use --max-results to cap REQ results, --auth
// for NIP-42). Load with --plugin plugins/limitation.js.
'use strict';

const { MessageType, createOutgoingOkMessage } = require('@nostr-relay/common');

module.exports = () => {
  const limitation = JSON.parse(process.env.TEST_RELAY_LIMITATION ?? '{}');
  if (typeof limitation !== 'object' || limitation === null || Array.isArray(limitation)) {
    throw new Error('TEST_RELAY_LIMITATION must be a JSON object');
  }

  /** The field when it is a positive number: 0 (and absent) is no limit. */
  const limit = name => (typeof limitation[name] === 'number' && limitation[name] > 0 ? limitation[name] : null);

  /** NIP-13: the leading zero bits of a 64-hex id. */
  function difficulty(id) {
    let bits = 0;
    for (const nibble of id) {
      const value = parseInt(nibble, 16);
      if (value === 0) {
        bits += 4;
        continue;
      }
      return bits + Math.clz32(value) - 28;
    }
    return bits;
  }

  function refusal(message) {
    const event = message[1];
    const bytes = Buffer.byteLength(JSON.stringify(message), 'utf8');
    if (limit('max_message_length') !== null && bytes > limit('max_message_length')) {
      return `invalid: message is ${bytes} bytes, more than max_message_length ${limit('max_message_length')}`;
    }
    const content = Buffer.byteLength(event.content ?? '', 'utf8');
    if (limit('max_content_length') !== null && content > limit('max_content_length')) {
      return `invalid: content is ${content} bytes, more than max_content_length ${limit('max_content_length')}`;
    }
    if (limit('max_event_tags') !== null && event.tags.length > limit('max_event_tags')) {
      return `invalid: ${event.tags.length} tags, more than max_event_tags ${limit('max_event_tags')}`;
    }
    const now = Math.floor(Date.now() / 1000);
    if (limit('created_at_upper_limit') !== null && event.created_at > now + limit('created_at_upper_limit')) {
      return 'invalid: created_at is too far in the future';
    }
    if (limit('created_at_lower_limit') !== null && event.created_at < now - limit('created_at_lower_limit')) {
      return 'invalid: created_at is too old';
    }
    const pow = limit('min_pow_difficulty');
    if (pow !== null) {
      const bits = difficulty(event.id);
      const nonce = event.tags.find(tag => tag[0] === 'nonce');
      const target = nonce && nonce.length > 2 ? Number(nonce[2]) : null;
      if (bits < pow) return `pow: difficulty ${bits} is less than ${pow}`;
      if (target !== null && !(target >= pow)) return `pow: committed target ${nonce[2]} is less than ${pow}`;
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
