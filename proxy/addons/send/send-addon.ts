/**
 * Sending a message into a session as its client would, through the proxy
 * (POST /api/sessions/:id/send). Its dependencies are read when the UI's routes are
 * made, once the proxy ports are known.
 */
import type { McpscopeAddon } from '../addon.js';
import { sendRoutes } from './send-routes.js';
import type { SessionSendDeps } from './session-send.js';

export function sendAddon(deps: () => SessionSendDeps): McpscopeAddon {
  return { name: 'send', routes: () => sendRoutes(deps()) };
}
