/**
 * Safe Markdown: no raw HTML, no remote images (a link instead), external links in a new window
 * (Electron hands those to the system browser), code highlighted, and decision / proposal / task
 * references as live chips.
 */
import type { Components } from 'hast-util-to-jsx-runtime'
import { memo, useRef, useSyncExternalStore, type ReactNode } from 'react'
import type { StepRef } from '../../../shared/schemas'
import { PinsContext } from './pins'
import { RefChip } from './RefChip'
import { CodeBlock } from './CodeBlock'
import { highlighterVersion, openFence, renderMarkdown, splitBlocks, subscribeHighlighter } from './markdown-render'

function isExternal(href: unknown): href is string {
  return typeof href === 'string' && /^(https?:|mailto:)/i.test(href)
}

const components = {
  pre: CodeBlock,
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
      <a
        className="md-image-blocked"
        href={isExternal(url) ? url : undefined}
        target="_blank"
        rel="noopener noreferrer"
        title="Remote images are not loaded"
      >
        🖼 {alt || 'image'}
      </a>
    )
  },
  'concord-ref': ({ node }: { node?: { properties?: { dataRef?: string; dataVersion?: string } } }) => (
    <RefChip
      refKey={node?.properties?.dataRef ?? ''}
      writtenVersion={node?.properties?.dataVersion ? Number(node.properties.dataVersion) : undefined}
    />
  ),
} as unknown as Partial<Components>

const Block = memo(function Block({ text }: { text: string }) {
  // Renders again, highlighted, when the highlighter arrives.
  useSyncExternalStore(subscribeHighlighter, highlighterVersion)
  return <>{renderMarkdown(text, components)}</>
})

/** Up to this size a growing block is parsed again on every update; past it, when it has grown by a tenth. */
const PARSE_EVERY_UPDATE = 3000

/** The growing block of a streaming reply, rendered as Markdown while it grows. */
const GrowingBlock = memo(function GrowingBlock({ text }: { text: string }) {
  const last = useRef<{ text: string; node: ReactNode } | null>(null)
  const fence = openFence(text)
  if (fence) {
    return (
      <>
        {fence.before.trim() !== '' && renderMarkdown(fence.before, components)}
        <pre className="md-growing-code">
          <code className={fence.lang ? `language-${fence.lang}` : undefined}>{fence.code}</code>
        </pre>
      </>
    )
  }
  // A very long block (a big table, say) lags by at most a tenth instead of being parsed every frame.
  const prev = last.current
  if (
    prev &&
    text.length > PARSE_EVERY_UPDATE &&
    text.length - prev.text.length < prev.text.length / 10 &&
    text.startsWith(prev.text)
  )
    return <>{prev.node}</>
  const node = renderMarkdown(text, components, false)
  last.current = { text, node }
  return <>{node}</>
})

/**
 * Rendered block by block (split at blank lines outside code fences): each finished block is parsed
 * once and cached. While a reply streams, only its last, growing block is parsed again (and not kept in
 * the cache); an open code fence in it is shown as plain code until it closes.
 */
export const Markdown = memo(function Markdown({
  text,
  streaming,
  refs,
}: {
  text: string
  streaming?: boolean
  refs?: readonly StepRef[]
}) {
  const blocks = splitBlocks(text)
  const growing = streaming ? blocks.pop() : undefined
  // The step's pins reach its chips through context: the cached trees stay keyed by text alone.
  return (
    <PinsContext.Provider value={refs ?? null}>
      <div className="md">
        {blocks.map((b, i) => (
          <Block key={i} text={b} />
        ))}
        {growing !== undefined && <GrowingBlock text={growing} />}
      </div>
    </PinsContext.Provider>
  )
})
