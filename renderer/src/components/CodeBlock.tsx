import type { Element } from 'hast'
import { useEffect, useState, type ReactNode } from 'react'
import { textOf } from './markdown-render'
import './markdown.css'

/** A fenced code block with a Copy button (the code as written, without the highlighting). */
export function CodeBlock({ node, children }: { node?: Element; children?: ReactNode }) {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const t = setTimeout(() => setCopied(false), 1500)
    return () => clearTimeout(t)
  }, [copied])
  const copy = () => {
    const code = node?.children.find((c): c is Element => c.type === 'element' && c.tagName === 'code')
    const text = code ? textOf(code) : node ? textOf(node) : ''
    navigator.clipboard?.writeText(text.replace(/\n$/, '')).then(
      () => setCopied(true),
      () => setCopied(false),
    )
  }
  return (
    <div className="md-code">
      <pre>{children}</pre>
      <button
        type="button"
        className={`md-copy${copied ? ' copied' : ''}`}
        onClick={copy}
        aria-label={copied ? 'Copied' : 'Copy code'}
        data-testid="code-copy"
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  )
}
