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

/** Past this size a still-growing block (a long code block, say) shows as plain text until it ends. */
const GROWING_PARSE_LIMIT = 800

const GrowingBlock = memo(function GrowingBlock({ text }: { text: string }) {
  if (text.length > GROWING_PARSE_LIMIT) return <p className="md-growing">{text}</p>
  return <>{renderMarkdown(text, components, false)}</>
})

/**
 * Rendered block by block (split at blank lines outside code fences): each finished block is parsed
 * once and cached. While a reply streams, only its last, growing block is parsed again each frame (and
 * not kept in the cache); a long one shows as plain text until it is complete.
 */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  const blocks = splitBlocks(text)
  const growing = streaming ? blocks.pop() : undefined
  return (
    <div className="md">
      {blocks.map((b, i) => (
        <Block key={i} text={b} />
      ))}
      {growing !== undefined && <GrowingBlock text={growing} />}
    </div>
  )
})
