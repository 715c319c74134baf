/**
 * Safe Markdown: no raw HTML, no remote images (a link instead), external links in a new window
 * (Electron hands those to the system browser), code highlighted, and decision / proposal / task
 * references as live chips.
 */
import type { Components } from 'hast-util-to-jsx-runtime'
import { memo } from 'react'
import { RefChip } from '../features/decisions/RefChip'
import { renderMarkdown, splitBlocks } from './markdown-render'

function isExternal(href: unknown): href is string {
  return typeof href === 'string' && /^(https?:|mailto:)/i.test(href)
}

const components = {
  a: ({ href, children }: { href?: string; children?: React.ReactNode }) =>
    isExternal(href) ? (
      <a href={href} target="_blank" rel="noopener noreferrer" title={href}>
        {children}
      </a>
    ) : (
      <span className="md-link-disabled" title={href}>
        {children}
      </span>
    ),
  img: ({ src, alt }: { src?: string; alt?: string }) => {
    const url = typeof src === 'string' ? src : ''
    if (url.startsWith('data:image/')) return <img src={url} alt={alt ?? ''} />
    return (
      <a className="md-image-blocked" href={isExternal(url) ? url : undefined} target="_blank" rel="noopener noreferrer" title="Remote images are not loaded">
        🖼 {alt || 'image'}
      </a>
    )
  },
  'concord-ref': ({ node }: { node?: { properties?: { dataRef?: string } } }) => <RefChip refKey={String(node?.properties?.dataRef ?? '')} />,
} as unknown as Partial<Components>

const Block = memo(function Block({ text }: { text: string }) {
  return <>{renderMarkdown(text, components)}</>
})

/**
 * Rendered block by block (split at blank lines outside code fences): while a reply streams only its
 * last block changes, and when it ends every block is already parsed and cached.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const blocks = splitBlocks(text)
  return (
    <div className="md">
      {blocks.map((b, i) => (
        <Block key={i} text={b} />
      ))}
    </div>
  )
})
