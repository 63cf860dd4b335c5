/**
 * Collapsible, syntax-highlighted JSON tree that stays cheap on multi-megabyte payloads:
 * - only expanded nodes render their children (collapsed nodes show a one-line preview);
 * - nodes open by default only near the root and only when they are small;
 * - large objects/arrays render their members in pages of PAGE entries ("show N more");
 * - long strings are clipped with a "show all" toggle;
 * - invisible characters in keys and strings show as badges (VisibleText.tsx);
 * - containers MAX_TREE_DEPTH levels down are not drawn as a tree but offered as text, written
 *   without recursion: a message nested thousands of levels deep would otherwise overflow the
 *   stack (React's, JSON.stringify's) and take the page down.
 * - parts named by JSON pointers (`highlight`: a spec violation's path) are opened and marked;
 *   a pointer to a member that is not there marks its nearest ancestor.
 * Nothing here stringifies the whole value.
 */
import './JsonView.css';
import { memo, useMemo, useState, type ReactNode } from 'react';
import { boundedJsonText } from '../../../proxy/core/parse/json-depth.js';
import { MAX_TREE_DEPTH, formatBytes } from '../state/format.js';
import { Vis } from './VisibleText.js';
import { escapeInvisible } from '../state/visible-text.js';
import { pointerToken, resolvePointer } from '../state/violations.js';

const PAGE = 100;
const STRING_CLIP = 400;
/** Children above this count start collapsed even near the root. */
const OPEN_MAX_CHILDREN = 60;
/** Characters of a too-deep part's text shown before "show all". */
const DEEP_TEXT_CLIP = 20_000;
/** Pixels of indent per level, and the level past which lines indent no further. */
const INDENT = 14;
const MAX_INDENT_LEVEL = 8;

/** A line's left padding: deep lines stop moving right, or at 64 levels (~900 px) they would leave the pane. */
const indent = (depth: number) => ({ paddingLeft: Math.min(depth, MAX_INDENT_LEVEL) * INDENT });

export interface JsonViewProps {
  value: unknown;
  /** Levels opened by default (root = 0). */
  openDepth?: number;
  /** Root label (e.g. "request"). */
  label?: string;
  className?: string;
  /** JSON pointers to mark (`/result/content/0`): their parts open and highlighted. */
  highlight?: readonly string[];
}

export function JsonView({ value, openDepth = 2, label, className, highlight }: JsonViewProps) {
  const hl = useMemo(() => highlightOf(value, highlight), [value, highlight]);
  return (
    <div className={`json-view${className ? ` ${className}` : ''}`} data-testid="json-view">
      {/* Drawn afresh when the marked parts change (a violation came later): the way to them opens. */}
      <JsonNode key={hl ? [...hl.at].join('\n') : ''} name={label} value={value} depth={0} openDepth={openDepth} last path="" hl={hl} />
    </div>
  );
}

/** The parts to mark (`at`) and the parts on the way to them, opened (`on`), as JSON pointers. */
interface Highlight {
  on: ReadonlySet<string>;
  at: ReadonlySet<string>;
}

function highlightOf(value: unknown, pointers: readonly string[] | undefined): Highlight | undefined {
  if (!pointers || pointers.length === 0) return undefined;
  const on = new Set<string>();
  const at = new Set<string>();
  for (const p of pointers) {
    const r = resolvePointer(value, p);
    if (!r) continue;
    at.add(r.found);
    let prefix = r.found;
    for (;;) {
      on.add(prefix);
      if (prefix === '') break;
      prefix = prefix.slice(0, prefix.lastIndexOf('/'));
    }
  }
  return at.size > 0 ? { on, at } : undefined;
}

/** A marked line's class and test attributes. */
function mark(hl: Highlight | undefined, path: string): { className: string; attrs: Record<string, string> } {
  if (!hl?.at.has(path)) return { className: '', attrs: {} };
  return { className: ' jv-hl', attrs: { 'data-testid': 'jv-hl', 'data-path': path } };
}

/** How many members of a container to show so that the marked parts under it are shown (at least a page). */
function pageReaching(value: Record<string, unknown> | unknown[], path: string, hl: Highlight | undefined): number {
  if (!hl?.on.has(path)) return PAGE;
  let need = 0;
  const prefix = `${path}/`;
  for (const p of hl.on) {
    if (!p.startsWith(prefix) || p.indexOf('/', prefix.length) !== -1) continue;
    // A member on the way to a marked part: its position among its siblings.
    const token = p.slice(prefix.length);
    let index = -1;
    if (Array.isArray(value)) index = Number(token);
    else {
      let i = 0;
      for (const k in value) {
        if (pointerToken(k) === token) {
          index = i;
          break;
        }
        i++;
      }
    }
    need = Math.max(need, index + 1);
  }
  return need <= PAGE ? PAGE : Math.ceil(need / PAGE) * PAGE;
}

function childCount(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  if (v !== null && typeof v === 'object') {
    let n = 0;
    for (const _ in v as Record<string, unknown>) n++;
    return n;
  }
  return 0;
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return v !== null && typeof v === 'object';
}

/** A short single-line preview of a collapsed container: `{ name: "x", arguments: {…} }`. */
function preview(v: unknown, budget = 60): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const parts: string[] = [];
    let used = 2;
    for (let i = 0; i < v.length && i < 20; i++) {
      const p = scalarPreview(v[i]);
      used += p.length + 2;
      if (used > budget) {
        parts.push('…');
        break;
      }
      parts.push(p);
    }
    return `[${parts.join(', ')}]`;
  }
  if (v !== null && typeof v === 'object') {
    const parts: string[] = [];
    let used = 2;
    let i = 0;
    for (const k in v as Record<string, unknown>) {
      if (i++ >= 20) {
        parts.push('…');
        break;
      }
      const p = `${escapeInvisible(k)}: ${scalarPreview((v as Record<string, unknown>)[k])}`;
      used += p.length + 2;
      if (used > budget) {
        parts.push('…');
        break;
      }
      parts.push(p);
    }
    return parts.length ? `{ ${parts.join(', ')} }` : '{}';
  }
  return scalarPreview(v);
}

function scalarPreview(v: unknown): string {
  if (Array.isArray(v)) return v.length ? `[…${v.length}]` : '[]';
  if (v !== null && typeof v === 'object') return '{…}';
  if (typeof v === 'string') return escapeInvisible(JSON.stringify(v.length > 24 ? `${v.slice(0, 23)}…` : v));
  return String(v);
}

interface NodeProps {
  name?: string | number;
  value: unknown;
  depth: number;
  openDepth: number;
  last: boolean;
  /** This part's JSON pointer ('' for the root). */
  path: string;
  hl?: Highlight;
}

const JsonNode = memo(function JsonNode({ name, value, depth, openDepth, last, path, hl }: NodeProps) {
  const container = isContainer(value);
  const count = container ? childCount(value) : 0;
  const [open, setOpen] = useState(
    () => container && ((depth < openDepth && count <= OPEN_MAX_CHILDREN) || (hl !== undefined && hl.on.has(path) && !hl.at.has(path))),
  );
  const marked = mark(hl, path);
  // Members shown: a page, or as many as it takes to show a marked part further down.
  const [shown, setShown] = useState(() => (container ? pageReaching(value, path, hl) : PAGE));
  const keyLabel =
    name === undefined ? null : typeof name === 'number' ? (
      <span className="jv-index">{name}: </span>
    ) : (
      <span className="jv-key">
        <Vis text={JSON.stringify(name)} />:{' '}
      </span>
    );
  const comma = last ? null : <span className="jv-punct">,</span>;

  if (!container) {
    return (
      <div className={`jv-line${marked.className}`} style={indent(depth)} {...marked.attrs}>
        <span className="jv-gutter" />
        {keyLabel}
        <Scalar value={value} />
        {comma}
      </div>
    );
  }

  const isArray = Array.isArray(value);
  const [openB, closeB] = isArray ? ['[', ']'] : ['{', '}'];
  if (count === 0) {
    return (
      <div className={`jv-line${marked.className}`} style={indent(depth)} {...marked.attrs}>
        <span className="jv-gutter" />
        {keyLabel}
        <span className="jv-punct">
          {openB}
          {closeB}
        </span>
        {comma}
      </div>
    );
  }

  if (depth >= MAX_TREE_DEPTH) return <DeepNode keyLabel={keyLabel} value={value} depth={depth} comma={comma} />;

  const toggle = () => setOpen((o) => !o);
  if (!open) {
    return (
      <div
        className={`jv-line jv-collapsed${marked.className}`}
        style={indent(depth)}
        onClick={toggle}
        title="Click to expand"
        {...marked.attrs}
      >
        <span className="jv-gutter jv-caret">▸</span>
        {keyLabel}
        <span className="jv-preview">{preview(value)}</span>
        <span className="jv-count">{isArray ? `${count} items` : `${count} keys`}</span>
        {comma}
      </div>
    );
  }

  const children: ReactNode[] = [];
  if (isArray) {
    const arr = value as unknown[];
    const n = Math.min(arr.length, shown);
    for (let i = 0; i < n; i++) {
      children.push(
        <JsonNode
          key={i}
          name={i}
          value={arr[i]}
          depth={depth + 1}
          openDepth={openDepth}
          last={i === arr.length - 1}
          path={`${path}/${i}`}
          hl={hl}
        />,
      );
    }
  } else {
    const obj = value as Record<string, unknown>;
    let i = 0;
    for (const k in obj) {
      if (i >= shown) break;
      children.push(
        <JsonNode
          key={k}
          name={k}
          value={obj[k]}
          depth={depth + 1}
          openDepth={openDepth}
          last={i === count - 1}
          path={`${path}/${pointerToken(k)}`}
          hl={hl}
        />,
      );
      i++;
    }
  }
  const remaining = count - Math.min(count, shown);

  return (
    <>
      <div
        className={`jv-line jv-open${marked.className}`}
        style={indent(depth)}
        onClick={toggle}
        title="Click to collapse"
        {...marked.attrs}
      >
        <span className="jv-gutter jv-caret">▾</span>
        {keyLabel}
        <span className="jv-punct">{openB}</span>
        {count > 3 ? <span className="jv-count">{isArray ? `${count} items` : `${count} keys`}</span> : null}
      </div>
      {children}
      {remaining > 0 ? (
        <div className="jv-line" style={indent(depth + 1)}>
          <span className="jv-gutter" />
          <button type="button" className="link-button jv-more" onClick={() => setShown((s) => s + PAGE * 5)}>
            show {Math.min(remaining, PAGE * 5)} more of {remaining}
          </button>
        </div>
      ) : null}
      <div className="jv-line" style={indent(depth)}>
        <span className="jv-gutter" />
        <span className="jv-punct">{closeB}</span>
        {comma}
      </div>
    </>
  );
});

/** A container too deep to draw as a tree: a line that opens its JSON text. */
function DeepNode({ keyLabel, value, depth, comma }: { keyLabel: ReactNode; value: unknown; depth: number; comma: ReactNode }) {
  const [text, setText] = useState<{ text: string; total: number } | undefined>(undefined);
  const [all, setAll] = useState(false);
  const toggle = () => setText((t) => (t ? undefined : boundedJsonText(value, Infinity)));
  return (
    <>
      <div
        className="jv-line jv-collapsed jv-deep"
        style={indent(depth)}
        onClick={toggle}
        title={text ? 'Click to hide the text' : 'Click to show this part as JSON text'}
        data-testid="jv-deep"
      >
        <span className="jv-gutter jv-caret">{text ? '▾' : '▸'}</span>
        {keyLabel}
        <span className="jv-punct">{Array.isArray(value) ? '[…]' : '{…}'}</span>
        <span className="jv-deep-note">
          nested deeper than {MAX_TREE_DEPTH} levels — {text ? 'shown as text' : 'show as text'}
        </span>
        {comma}
      </div>
      {text ? (
        <pre className="jv-deep-text" style={{ marginLeft: indent(depth + 1).paddingLeft }} data-testid="jv-deep-text">
          <Vis text={all || text.text.length <= DEEP_TEXT_CLIP ? text.text : text.text.slice(0, DEEP_TEXT_CLIP)} />
          {!all && text.text.length > DEEP_TEXT_CLIP ? (
            <button type="button" className="link-button jv-more" onClick={() => setAll(true)}>
              … show the remaining {formatBytes(text.text.length - DEEP_TEXT_CLIP)}
            </button>
          ) : null}
        </pre>
      ) : null}
    </>
  );
}

function Scalar({ value }: { value: unknown }) {
  const [full, setFull] = useState(false);
  if (typeof value === 'string') {
    if (value.length > STRING_CLIP && !full) {
      return (
        <span className="jv-string">
          <Vis text={JSON.stringify(value.slice(0, STRING_CLIP)).slice(0, -1)} />
          <button type="button" className="link-button jv-more" onClick={() => setFull(true)}>
            … {value.length - STRING_CLIP} more chars
          </button>
          &quot;
        </span>
      );
    }
    return (
      <span className="jv-string">
        <Vis text={JSON.stringify(value)} />
      </span>
    );
  }
  if (typeof value === 'number') return <span className="jv-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="jv-boolean">{String(value)}</span>;
  if (value === null) return <span className="jv-null">null</span>;
  if (value === undefined) return <span className="jv-null">undefined</span>;
  return <span className="jv-string">{String(value)}</span>;
}
