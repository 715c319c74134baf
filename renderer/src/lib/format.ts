// Intl formatters are costly to create: one of each, reused.
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' })

const timeCache = new Map<string, string>()

export function shortTime(iso: string | null | undefined): string {
  if (!iso) return ''
  const hit = timeCache.get(iso)
  if (hit !== undefined) return hit
  const text = formatTime(iso)
  if (timeCache.size > 2000) timeCache.clear()
  timeCache.set(iso, text)
  return text
}

function formatTime(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const today = new Date()
  const sameDay =
    d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate()
  return sameDay ? timeFormat.format(d) : dayFormat.format(d)
}

export function compactNumber(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

export function excerpt(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim()
  return one.length > max ? one.slice(0, max - 1) + '…' : one
}

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean)
  return ((parts[0]?.[0] ?? '?') + (parts[1]?.[0] ?? '')).toUpperCase()
}

/** A stable hue per member id, for avatars. */
export function hueOf(id: string): number {
  // FNV-1a, then golden-angle spacing so ids differing in one digit get far-apart hues.
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0
  return Math.round((h % 1000) * 137.508) % 360
}

/** The end of a long path, which is the part that tells folders apart. */
export function tailOfPath(path: string, max = 36): string {
  return path.length > max ? '…' + path.slice(path.length - max + 1) : path
}
