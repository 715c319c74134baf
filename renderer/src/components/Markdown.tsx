/**
 * Safe Markdown: no raw HTML (react-markdown never renders it), no remote images (a link instead),
 * external links in a new window (Electron hands those to the system browser), code highlighted,
 * and decision / proposal / task references as live chips.
 */
import { memo, type ReactNode } from 'react'
import ReactMarkdown, { type Components } from 'react-markdown'
import rehypeHighlight from 'rehype-highlight'
import remarkGfm from 'remark-gfm'
import { RefChip } from '../features/decisions/RefChip'
import remarkRefs from './remark-refs'

const remarkPlugins = [remarkGfm, remarkRefs]
const rehypePlugins: Parameters<typeof ReactMarkdown>[0]['rehypePlugins'] = [[rehypeHighlight, { detect: false }]]

function isExternal(href: string | undefined): boolean {
  return !!href && /^(https?:|mailto:)/i.test(href)
}

const components: Components & Record<string, unknown> = {
  a: ({ href, children }) =>
    isExternal(href) ? (
      <a href={href} target="_blank" rel="noopener noreferrer" title={href}>
        {children}
      </a>
    ) : (
      <span className="md-link-disabled" title={href}>
        {children}
      </span>
    ),
  img: ({ src, alt }) => {
    const url = typeof src === 'string' ? src : ''
    if (url.startsWith('data:image/')) return <img src={url} alt={alt ?? ''} />
    return (
      <a className="md-image-blocked" href={isExternal(url) ? url : undefined} target="_blank" rel="noopener noreferrer" title="Remote images are not loaded">
        🖼 {alt || 'image'}
      </a>
    )
  },
  'concord-ref': ({ node }: { node?: { properties?: { dataRef?: string } }; children?: ReactNode }) => <RefChip refKey={String(node?.properties?.dataRef ?? '')} />,
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components as Components} skipHtml>
        {text}
      </ReactMarkdown>
    </div>
  )
})
