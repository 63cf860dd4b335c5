/** A config the helper cannot work with (client-config.ts, jsonc.ts); the message is for the user, in plain words. */
export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientConfigError';
  }
}
