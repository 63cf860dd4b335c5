/** One rule broken by one message, as the linter's parts report it (linter.ts adds the specRef). */
export interface Violation {
  /** A rule id of rules.ts. */
  rule: string;
  /** The spec section, when it is more precise than the rule's own (a schema rule: the method's). */
  section?: string;
  /** A JSON pointer into the message. */
  path?: string;
  /** What was expected, in plain words: field names and types, never a value that was sent. */
  expected?: string;
  /** What is wrong and what a peer does with it. */
  text: string;
  /**
   * Not a rule the peer broke but something the linter could not check (a `lint/…` note of rules.ts'
   * NOTES: a schema too large or too slow to check, a pattern RE2 cannot run). Never counted as a violation.
   */
  note?: boolean;
}
