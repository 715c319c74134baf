/**
 * Markdown → React through one unified processor built once (building a processor per render, as
 * react-markdown does, cost more than the rendering itself on long sessions). Raw HTML is dropped
 * (remark-rehype without allowDangerousHtml), code blocks are highlighted with one shared lowlight,
 * rendered trees are cached by text so rows scrolled back into view are not parsed again. The highlighter is
 * loaded after the first screen (loadHighlighter): until it is there, code shows plain, then every block
 * that subscribed renders again, highlighted.
 */
import type { Element, ElementContent, Root } from 'hast'
import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime'
import type { ReactNode } from 'react'
import { Fragment, jsx, jsxs } from 'react/jsx-runtime'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import remarkRehype from 'remark-rehype'
import { unified } from 'unified'
import remarkRefs from './remark-refs'

let lowlight: (typeof import('./highlighter'))['lowlight'] | null = null
let loading: Promise<void> | null = null
let version = 0
const waiting = new Set<() => void>()

/**
 * Loads the highlighter once; the rendered trees are dropped and the subscribed blocks render again. A load that
 * fails (the server restarted mid-download) is tried again by the next code block; code shows plain meanwhile.
 */
export function loadHighlighter(): Promise<void> {
  return (loading ??= import('./highlighter').then(
    (m) => {
      lowlight = m.lowlight
      version++
      cache.clear()
      for (const f of waiting) f()
    },
    (err: unknown) => {
      loading = null
      throw err
    },
  ))
}

/** For useSyncExternalStore: a block renders again once the highlighter is loaded. */
export function subscribeHighlighter(f: () => void): () => void {
  waiting.add(f)
  return () => waiting.delete(f)
}
export const highlighterVersion = () => version

/** The text of a hast node (a code block's code, whatever highlighting wrapped it in). */
export function textOf(node: ElementContent): string {
  if (node.type === 'text') return node.value
  if (node.type === 'element') return node.children.map(textOf).join('')
  return ''
}

function highlightCode(tree: Root): void {
  const visit = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type !== 'element') continue
      if (child.tagName === 'pre') {
        const code = child.children.find((c): c is Element => c.type === 'element' && c.tagName === 'code')
        const classes = code?.properties.className ?? []
        const lang = classes.find((c) => c.startsWith('language-'))?.slice('language-'.length)
        if (code && lang && !lowlight) loadHighlighter().catch(() => undefined)
        else if (code && lang && lowlight?.registered(lang)) {
          const result = lowlight.highlight(lang, code.children.map(textOf).join(''))
          code.children = result.children as ElementContent[]
          code.properties.className = [...classes, 'hljs']
        }
        continue
      }
      visit(child)
    }
  }
  visit(tree)
}

const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRefs)
  .use(remarkRehype)
  .use(() => highlightCode)
  .freeze()

const CACHE_SIZE = 400
const cache = new Map<string, ReactNode>()

export function renderMarkdown(text: string, components: Partial<Components>, keep = true): ReactNode {
  const hit = cache.get(text)
  if (hit !== undefined) {
    cache.delete(text)
    cache.set(text, hit)
    return hit
  }
  const tree = processor.runSync(processor.parse(text))
  // The renderer's JSX types reach hast-util-to-jsx-runtime only through its jsx option: say what it returns.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- tsc types this ReactNode; the lint's type service cannot resolve the package's JSX types
  const node: ReactNode = toJsxRuntime(tree, {
    Fragment,
    jsx,
    jsxs,
    components,
    ignoreInvalidStyle: true,
    passKeys: true,
    passNode: true,
  })
  if (!keep) return node
  cache.set(text, node)
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!)
  return node
}

/**
 * Splits text into blocks at blank lines outside code fences, so a streaming reply re-parses only its
 * last, growing block.
 */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = []
  let current: string[] = []
  let fence: string | null = null
  for (const line of text.split('\n')) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    const mark = m?.[1]?.[0]
    if (mark) fence = fence === null ? mark : mark === fence ? null : fence
    if (fence === null && line.trim() === '' && current.length) {
      blocks.push(current.join('\n'))
      current = []
      continue
    }
    current.push(line)
  }
  if (current.length) blocks.push(current.join('\n'))
  return blocks
}

/** A growing block that ends inside a code fence: the markdown before the fence and the code so far. */
export interface OpenFence {
  before: string
  lang: string
  code: string
}

/**
 * The still-open code fence at the end of a growing block, if any. Its code is shown as it arrives,
 * without parsing or highlighting (both happen once the block is complete), so a long code block
 * costs the same per frame at line 10 as at line 1,000.
 */
export function openFence(block: string): OpenFence | null {
  const lines = block.split('\n')
  let opener = -1
  let fence = ''
  for (const [i, line] of lines.entries()) {
    const m = /^\s{0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (!m) continue
    const [, marks = '', rest = ''] = m // both groups always take part in a match
    if (opener < 0) {
      // A backtick fence's info string may not contain backticks; otherwise it is inline code.
      if (marks[0] === '`' && rest.includes('`')) continue
      opener = i
      fence = marks
    } else if (marks[0] === fence[0] && marks.length >= fence.length && rest.trim() === '') {
      opener = -1
    }
  }
  const openerLine = lines[opener]
  if (openerLine === undefined) return null
  const info = openerLine.trim().slice(fence.length).trim()
  return {
    before: lines.slice(0, opener).join('\n'),
    lang: info.split(/\s+/)[0] ?? '',
    code: lines.slice(opener + 1).join('\n'),
  }
}

/**
 * Compiles the parser and the highlighter while the app is idle, so the first session opened does not
 * pay for it (creating the highlighter alone takes tens of milliseconds).
 */
/** Warms the processor now; resolves once the highlighter is loaded and warm too (or could not be loaded). */
export function prewarmMarkdown(): Promise<void> {
  processor.runSync(
    processor.parse(
      'Warm **up** `D-1`, [link](https://example.com)\n\n- a\n- b\n\n```ts\nconst a: number = 1\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |',
    ),
  )
  return loadHighlighter().then(
    () => void lowlight?.highlight('typescript', 'export function f(a: string): number { return a.length }'),
    (err: unknown) => console.warn('Concord could not load the code highlighter yet; code shows plain:', err),
  )
}
