/**
 * File-name slug of a title: lower case, accents dropped, letters and digits of any script kept
 * (a Chinese title stays readable), everything else collapsed to single dashes, at most 60
 * characters cut at a dash. An empty result becomes `decision`.
 */
export function slugify(title: string, max = 60): string {
  const chars = Array.from(
    title
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .normalize('NFC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, ''),
  )
  let slug = chars.join('')
  if (chars.length > max) {
    const cut = chars.slice(0, max).join('')
    const dash = cut.lastIndexOf('-')
    slug = (dash >= max / 2 ? cut.slice(0, dash) : cut).replace(/-+$/, '')
  }
  return slug || 'decision'
}
