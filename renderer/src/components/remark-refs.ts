/**
 * A remark plugin that turns `D-n`, `P-n` and `T-n` in prose into `concord-ref` elements, so a message's
 * references render as live chips. Code spans, code blocks and link texts are left alone.
 */
import { refPattern } from '../stores/steps'

interface MdNode {
  type: string
  value?: string
  children?: MdNode[]
  data?: Record<string, unknown>
}

function split(value: string): MdNode[] {
  const out: MdNode[] = []
  let last = 0
  for (const m of value.matchAll(refPattern())) {
    const at = m.index ?? 0
    if (at > last) out.push({ type: 'text', value: value.slice(last, at) })
    last = at + m[0].length
    // "D-1 v1" names its own version: the chip takes it instead of adding a second one ("D-1 v1 v1").
    const written = m[0].startsWith('D-') ? /^ v(\d+)\b/.exec(value.slice(last)) : null
    const props: Record<string, string> = { dataRef: m[0] }
    if (written) {
      props.dataVersion = written[1]!
      last += written[0].length
    }
    const ref: MdNode = {
      type: 'concordRef',
      data: { hName: 'concord-ref', hProperties: props },
      children: [{ type: 'text', value: m[0] }],
    }
    // Punctuation right after a chip stays on its line ("… against D-1, and" never starts a line with ",").
    const trail = /^[,.;:!?)\]'"’”…]+/.exec(value.slice(last))?.[0]
    if (trail) {
      out.push({
        type: 'concordRefGroup',
        data: { hName: 'span', hProperties: { className: ['ref-nowrap'] } },
        children: [ref, { type: 'text', value: trail }],
      })
      last += trail.length
    } else out.push(ref)
  }
  if (last === 0) return [{ type: 'text', value }]
  if (last < value.length) out.push({ type: 'text', value: value.slice(last) })
  return out
}

function walk(node: MdNode): void {
  if (!node.children || node.type === 'link' || node.type === 'linkReference') return
  const next: MdNode[] = []
  for (const child of node.children) {
    if (child.type === 'text' && child.value) next.push(...split(child.value))
    else {
      walk(child)
      next.push(child)
    }
  }
  node.children = next
}

export default function remarkRefs() {
  return (tree: MdNode) => walk(tree)
}
