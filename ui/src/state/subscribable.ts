/**
 * The store's version and its subscribers (ui/src/state/store.ts extends it): every change bumps
 * `version`, which is what `useSyncExternalStore` watches (use-store.ts); `notify` calls the
 * subscribers once per version, so a quiet ingest can leave it to a later call.
 */
export class Subscribable {
  /** Bumped by the subclass on every change. */
  protected _version = 0;
  /** The version the subscribers were last called for. */
  private notifiedVersion = 0;
  private readonly listeners = new Set<() => void>();

  /** Increments on every change. */
  get version(): number {
    return this._version;
  }

  /** Calls `fn` after every change; returns the unsubscribe function. (Bound: safe to pass around.) */
  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  };

  /** For `useSyncExternalStore`'s getSnapshot. (Bound.) */
  readonly getVersion = (): number => this._version;

  /** Whether the store changed since its subscribers were last called (after a quiet `ingest`). */
  get notifyPending(): boolean {
    return this.notifiedVersion !== this._version;
  }

  /** Calls the subscribers if the store changed since they were last called. */
  notify(): void {
    if (this.notifiedVersion === this._version) return;
    this.notifiedVersion = this._version;
    for (const fn of [...this.listeners]) {
      try {
        fn();
      } catch (err) {
        // A failing listener must not break ingestion or the other listeners.
        console.error('mcpscope: a store listener failed', err);
      }
    }
  }
}
