/**
 * The words a line of Markdown shows, without its syntax: for one-line quotes of a message (a button's label, a
 * title) where "**Fail** the `search`" should read as it renders, "Fail the search".
 */
export function markdownToPlain(md: string): string {
  return (
    md
      // Fenced code: its code, without the fences.
      .replace(/```[^\n]*\n?([\s\S]*?)(```|$)/g, '$1')
      // Images and links: their text.
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      // Headings, quotes, list markers and rules at the start of a line.
      .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/gm, '')
      .replace(/^\s*([-*_]\s*){3,}$/gm, '')
      // Emphasis, strong, strike and inline code marks around words.
      .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/\*(?=\S)([^*\n]*?\S)\*/g, '$1')
      // An underscore inside a word (snake_case) is not emphasis.
      .replace(/(^|[^\w])_(?=\S)([^_\n]*?\S)_(?!\w)/g, '$1$2')
      .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
      .replace(/`([^`\n]*)`/g, '$1')
  )
}
