/**
 * A JSON text editor (a monospace textarea) that says, in plain words, what is wrong with what it
 * holds as you type: JSON that does not parse, or what `check` finds in the parsed value.
 */
import './JsonEditor.css';

/** The parsed value of `text`, or why it is not JSON. */
export function parseJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: `Not valid JSON: ${(err as Error).message}` };
  }
}

/** What is wrong with `text` as JSON, then as `check` sees its value (undefined: nothing). */
export function jsonProblem(text: string, check?: (value: unknown) => string | undefined): string | undefined {
  const parsed = parseJson(text);
  if ('error' in parsed) return parsed.error;
  return check?.(parsed.value);
}

export interface JsonEditorProps {
  value: string;
  onChange(text: string): void;
  /** What is wrong with it now (shown under it), or undefined. */
  problem?: string;
  /** Shown instead when there is no problem. */
  note?: string;
  rows?: number;
  testId: string;
  label: string;
}

export function JsonEditor({ value, onChange, problem, note, rows = 10, testId, label }: JsonEditorProps) {
  return (
    <div className={`json-editor${problem ? ' invalid' : ''}`}>
      <textarea
        className="json-editor-text mono"
        aria-label={label}
        aria-invalid={problem !== undefined}
        spellCheck={false}
        rows={rows}
        value={value}
        data-testid={testId}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
      {problem ? (
        <p className="json-editor-problem" data-testid={`${testId}-problem`} role="status">
          {problem}
        </p>
      ) : note ? (
        <p className="json-editor-note">{note}</p>
      ) : null}
    </div>
  );
}
