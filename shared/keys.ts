/**
 * The one home of the key format people and members write: `D-12` (decision), `T-3` (task), `R-5`
 * (report), `P-2` (proposal) — a prefix letter, a dash and the row number in the workspace. Built,
 * parsed and found in text only through these functions, on both sides.
 */

export const keyPrefix = { decision: 'D', task: 'T', report: 'R', proposal: 'P' } as const
export type KeyKind = keyof typeof keyPrefix

const kindOfPrefix: Record<string, KeyKind> = { D: 'decision', T: 'task', R: 'report', P: 'proposal' }

/** Row numbers are SQLite integers; more digits than this is not a key we ever made. */
const MAX_DIGITS = 15

export function makeKey(kind: KeyKind, n: number | bigint): string {
  return `${keyPrefix[kind]}-${n}`
}

export interface ParsedKey {
  kind: KeyKind
  n: number
}

/**
 * `D-3` → {decision, 3}; null for anything else. `ignoreCase` accepts `d-3` (what a model may type in a
 * tool argument); text mentions are always upper case.
 */
export function parseKey(text: string, opts: { ignoreCase?: boolean } = {}): ParsedKey | null {
  const [, raw, digits] = new RegExp(`^([A-Za-z])-(\\d{1,${MAX_DIGITS}})$`).exec(text.trim()) ?? []
  if (raw === undefined || digits === undefined) return null
  const kind = kindOfPrefix[opts.ignoreCase ? raw.toUpperCase() : raw]
  return kind ? { kind, n: Number(digits) } : null
}

/** True when `text` is a key of `kind` (`isKey('D-3', 'decision')`). */
export function isKey(text: string, kind: KeyKind): boolean {
  return parseKey(text)?.kind === kind
}

/** The kind a key's prefix letter names (`D-3` → decision), or undefined. */
export function keyKind(key: string): KeyKind | undefined {
  return kindOfPrefix[key[0] ?? '']
}

/** The row number of a key (`T-12` → 12), NaN when it is not one. */
export function keyNumber(key: string): number {
  return parseKey(key)?.n ?? NaN
}

/** The source of a regexp that matches one key of the given prefixes inside text (capturing letter and number). */
export function keySource(prefixes: string = 'DPTR'): string {
  return `\\b([${prefixes}])-(\\d+)\\b`
}

/** A fresh global regexp for mentions of keys with the given prefixes (default all) in text. */
export function mentionPattern(prefixes: string = 'DPTR'): RegExp {
  return new RegExp(keySource(prefixes), 'g')
}

/** Text with code fences and code spans blanked: a key inside code is not a mention. */
export function proseOf(text: string): string {
  return text.replace(/```[\s\S]*?(```|$)/g, ' ').replace(/`[^`\n]*`/g, ' ')
}

/** Distinct keys (of the given prefixes) mentioned in text, outside code spans and fences, in order. */
export function mentionedKeys(text: string, prefixes: string = 'DPTR'): string[] {
  const seen = new Set<string>()
  for (const m of proseOf(text).matchAll(mentionPattern(prefixes)))
    if ((m[2] ?? '').length <= MAX_DIGITS) seen.add(m[0])
  return [...seen]
}

/**
 * The decision versions a notice announces: `D-1 "title" changed (now v2)` → D-1 → 2 (the last one
 * when a step carries several notices about the same decision).
 */
export function announcedVersions(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const m of text.matchAll(new RegExp(`${keySource('D')}[^\\n]*?\\bchanged \\(now v(\\d+)\\)`, 'g')))
    out.set(`${m[1]}-${m[2]}`, Number(m[3]))
  return out
}
