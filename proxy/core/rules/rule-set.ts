/**
 * One mirrored rule set: what fault rules (fault-rules.ts) and breakpoint rules
 * (breakpoint-rules.ts) share. Each kind keeps its own validation and matching; this keeps the
 * rules, their serials and the `once` bookkeeping between an owner and its mirrors.
 *
 * The owner (main thread, edited through the API) tells its listeners of every change
 * (`onChange` → `entries()`); each mirror (the proxy thread, a stdio wrapper) adopts the list
 * (`mirror`) and reports every `once` rule it used (`onTaken`), which the owner then removes
 * (`removeTaken`). The serial tells two additions of one id apart: a late report does not remove
 * the rule added anew, and a mirror never re-adopts a `once` rule it already used, even if the
 * owner's next list (sent before it heard) still has it.
 *
 * Pure: no Node builtin (the browser build imports proxy/core).
 */

/** What every rule has: an id, and `once` when it is used up by the first message it applies to. */
export interface Rule {
  id: string;
  once?: boolean;
}

/** A rule as the owner hands it to a mirror. */
export interface RuleEntry<R extends Rule = Rule> {
  rule: R;
  serial: number;
}

export interface RuleSetOptions<R extends Rule> {
  /** Validates an untrusted definition (from the API); throws an Error saying what is wrong. */
  parse: (input: unknown, fallbackId: string) => R;
  /** A definition without an id gets `${idPrefix}${n}`, n counting every `add`. */
  idPrefix: string;
  /** Rules at most (a new id past it is refused with `tooMany`; replacing an id is not a new rule). None by default. */
  max?: number;
  /** The Error message past `max`. */
  tooMany?: string;
  /** Puts a rule in at most one named count (`count`), so that a holder can skip what no rule asks for. */
  tally?: (rule: R) => string | undefined;
}

/**
 * `E` is the entry a mirror gets: `RuleEntry<R>`, or one with more fields, all optional, that the
 * owner's `entries()` fills in (an `add` stores `{ rule, serial }`).
 */
export class RuleSet<R extends Rule, E extends RuleEntry<R> = RuleEntry<R>> {
  private readonly byId = new Map<string, E>();
  private readonly counts = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  /**
   * Mirror side: `${id}#${serial}` of the `once` rules this set used and the owner may still list
   * (it has not heard yet). Forgotten once a list comes without it: the owner removed it, and lists
   * arrive in order, so none will name it again. At most as many as the owner's rules.
   */
  private readonly used = new Set<string>();
  private counter = 0;
  private serial = 0;
  /** Called when a `once` rule is taken (a mirror tells the owner). */
  onTaken?: (id: string, serial: number) => void;

  constructor(private readonly options: RuleSetOptions<R>) {}

  /** 0 when the rules are off: a holder's whole check. */
  get size(): number {
    return this.byId.size;
  }

  /** The rules in the count `key` (see `tally`). */
  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  list(): R[] {
    return [...this.byId.values()].map((e) => e.rule);
  }

  get(id: string): R | undefined {
    return this.byId.get(id)?.rule;
  }

  /** The rules as mirrors get them. */
  entries(): E[] {
    return [...this.byId.values()].map((e) => ({ rule: e.rule, serial: e.serial }) as E);
  }

  /** Calls `listener` after every change to the set; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Owner side: validates and adds a rule (an existing id is replaced, and goes last). */
  add(input: unknown): R {
    this.counter += 1;
    const rule = this.options.parse(input, `${this.options.idPrefix}${this.counter}`);
    const { max } = this.options;
    if (max !== undefined && this.size >= max && !this.byId.has(rule.id))
      throw new Error(this.options.tooMany ?? `at most ${max} rules at a time`);
    this.put({ rule, serial: ++this.serial } as E);
    this.changed();
    return rule;
  }

  remove(id: string): boolean {
    const removed = this.drop(id);
    if (removed) this.changed();
    return removed;
  }

  /** Owner side: a mirror used this `once` rule; remove it unless the id was added anew since. */
  removeTaken(id: string, serial: number): void {
    if (this.byId.get(id)?.serial === serial) this.remove(id);
  }

  clear(): void {
    this.byId.clear();
    this.counts.clear();
    this.changed();
  }

  /** Mirror side: adopt the owner's rule set (less the `once` rules this set already used). */
  mirror(entries: readonly E[]): void {
    this.byId.clear();
    this.counts.clear();
    const listed = new Set(entries.map((e) => `${e.rule.id}#${e.serial}`));
    for (const u of this.used) if (!listed.has(u)) this.used.delete(u);
    for (const e of entries) if (!this.used.has(`${e.rule.id}#${e.serial}`)) this.put(e);
    this.changed();
  }

  /** The first rule whose entry `matches`, used up when `once` (removed and reported), or undefined. */
  takeFirst(matches: (entry: E) => boolean): R | undefined {
    for (const e of this.byId.values()) {
      if (!matches(e)) continue;
      if (e.rule.once) {
        this.used.add(`${e.rule.id}#${e.serial}`);
        this.remove(e.rule.id);
        this.onTaken?.(e.rule.id, e.serial);
      }
      return e.rule;
    }
    return undefined;
  }

  /** Tells the listeners. */
  protected changed(): void {
    for (const l of this.listeners) l();
  }

  private put(e: E): void {
    this.drop(e.rule.id);
    this.byId.set(e.rule.id, e);
    this.tally(e.rule, 1);
  }

  private drop(id: string): boolean {
    const e = this.byId.get(id);
    if (!e) return false;
    this.byId.delete(id);
    this.tally(e.rule, -1);
    return true;
  }

  private tally(rule: R, by: 1 | -1): void {
    const key = this.options.tally?.(rule);
    if (key !== undefined) this.counts.set(key, this.count(key) + by);
  }
}
