/**
 * mcpscope's own answers: requests the proxy answered itself, in the server's place — the 502/504
 * when the upstream could not be reached (proxy/wire/forwarder/forwarder.ts, header `x-mcpscope-error`),
 * fault injection's answers (proxy/addons/faults/wire/fault-actions.ts, header `x-mcpscope-fault`) and the
 * requests it refuses to forward (proxy/wire/forwarder/request-head.ts, header `x-mcpscope-refused`), and
 * requests held at a breakpoint and answered by the user or dropped (proxy/addons/breakpoints/wire/http-holds.ts,
 * header `x-mcpscope-breakpoint`). All
 * are recorded as the exchange's response, so their JSON-RPC error pairs with the request like a
 * server's would; the hint says, on the exchange and on that message, who really answered.
 */
import type { Hint } from '../core/model/events.js';
import { firstHeader, type HeaderMap } from '../wire/capture/wire-records.js';
import { causeOfCode } from '../wire/forwarder/upstream-errors.js';
import { REFUSAL_WORDS, REFUSED_HEADER, type HeadRefusal } from '../wire/forwarder/request-head.js';

const OWN_ANSWER_HINT = 'answered-by-mcpscope';

/** The hint for a response mcpscope sent itself (from its headers), or undefined for the server's. */
export function ownAnswerHint(headers: HeaderMap): Hint | undefined {
  const code = firstHeader(headers, 'x-mcpscope-error');
  if (code !== undefined) {
    return {
      level: 'warn',
      code: OWN_ANSWER_HINT,
      text: `Answered by mcpscope, not by the server: the server was not reachable (${causeOfCode(code)}). The request never reached it; the client got this error in its place.`,
    };
  }
  const refused = firstHeader(headers, REFUSED_HEADER);
  if (refused !== undefined) {
    const why = REFUSAL_WORDS[refused as HeadRefusal] ?? refused;
    return {
      level: 'warn',
      code: OWN_ANSWER_HINT,
      text: `Answered by mcpscope, not by the server: ${why}. The request was not forwarded.`,
    };
  }
  const breakpoint = firstHeader(headers, 'x-mcpscope-breakpoint');
  if (breakpoint !== undefined) {
    return {
      level: 'warn',
      code: OWN_ANSWER_HINT,
      text:
        breakpoint === 'dropped'
          ? 'Answered by mcpscope, not by the server: the message was dropped at a breakpoint and never forwarded; mcpscope answered 202 Accepted as the server would.'
          : 'Answered by you at a breakpoint, not by the server: the request was held and never forwarded; this is the answer you gave.',
    };
  }
  if (firstHeader(headers, 'x-mcpscope-fault') !== undefined) {
    return {
      level: 'warn',
      code: OWN_ANSWER_HINT,
      text: 'Answered by mcpscope, not by the server (fault injection): the request was not forwarded.',
    };
  }
  return undefined;
}
