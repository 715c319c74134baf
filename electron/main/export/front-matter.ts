/** The little YAML front matter Concord writes and reads back in its MADR files. */

/** A YAML double-quoted scalar (JSON string syntax is valid YAML; line/paragraph separators escaped too). */
export function yamlString(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

/** The flat `key: value` lines of a file's front matter, or null when it has none. */
export function frontMatter(text: string): Map<string, string> | null {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text)
  if (!m) return null
  const fields = new Map<string, string>()
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line)
    if (kv) fields.set(kv[1]!, kv[2]!.trim()) // both groups always take part in a match
  }
  return fields
}
