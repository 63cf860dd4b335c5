/** A config the helper cannot work with (client-config.ts, client-config-text.ts); the message is for the user, in plain words. */
export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientConfigError';
  }
}
