import { describe, expect, it } from 'vitest'
import { buildView, cutToolOutput, normalize } from '../../electron/main/runtime/context-view'
import type { StepRow } from '../../electron/main/store/steps-repo'

let next = 1
function step(kind: StepRow['kind'], text: string, extra: Partial<StepRow> = {}): StepRow {
  return {
    id: next++,
    member_id: 1,
    turn_id: null,
    kind,
    status: 'done',
    text,
    tool_calls: '[]',
    tool_call_id: null,
    tool_name: null,
    tool_args: null,
    is_error: 0,
    from_member_id: null,
    task_id: null,
    input_tokens: null,
    output_tokens: null,
    started_at: '',
    ended_at: null,
    approval: null,
    changes: null,
    refs: null,
    ...extra,
  }
}
const options = { maxChars: 1000, toolOutputLimit: 100, stepId: (n: number) => `s${n}`, memberName: () => 'Rev' }

describe('context view', () => {
  it('cuts long tool output in the view with a pointer, keeping head and tail', () => {
    const text = 'A'.repeat(500) + 'MIDDLE' + 'Z'.repeat(500)
    const cut = cutToolOutput(text, 300, 'call read_tool_output')
    expect(cut.length).toBeLessThan(450)
    expect(cut.startsWith('A'.repeat(100))).toBe(true)
    expect(cut.endsWith('Z'.repeat(50))).toBe(true)
    expect(cut).toContain('characters cut here; call read_tool_output')
    expect(cut).not.toContain('MIDDLE')
    expect(cutToolOutput('short', 300, 'x')).toBe('short')
  })

  it('pairs every tool call with a result and merges adjacent user messages', () => {
    const out = normalize([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c1', name: 'x', argumentsText: '{}' },
          { id: 'c2', name: 'y', argumentsText: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'c2', name: 'y', content: 'two' },
      { role: 'tool', toolCallId: 'orphan', name: 'z', content: 'dropped' },
    ])
    expect(out).toEqual([
      { role: 'user', content: 'a\n\nb' },
      { role: 'assistant', content: '', toolCalls: expect.any(Array) },
      { role: 'tool', toolCallId: 'c1', name: 'x', content: expect.stringContaining('no result'), isError: true },
      { role: 'tool', toolCallId: 'c2', name: 'y', content: 'two' },
    ])
  })

  it('keeps the current turn whole, adds older turns while the budget lasts, and shows only the latest plan', () => {
    const steps: StepRow[] = []
    for (let i = 0; i < 20; i++)
      steps.push(step('user', `question ${i} ${'x'.repeat(80)}`), step('model', `answer ${i}`))
    steps.push(step('plan', 'OLD PLAN'))
    steps.push(step('plan', 'NEW PLAN'))
    const start = step('user', 'current question')
    const call = step('model', '', {
      tool_calls: JSON.stringify([{ id: 'k', name: 'read_file', argumentsText: '{}' }]),
    })
    const result = step('tool', 'R'.repeat(5000), { tool_call_id: 'k', tool_name: 'read_file' })
    steps.push(start, call, result)
    const view = buildView(steps, start.id, options)
    const text = JSON.stringify(view)
    expect(text).toContain('current question')
    expect(text).toContain('NEW PLAN')
    expect(text).not.toContain('OLD PLAN')
    expect(text).not.toContain('question 0 ')
    expect(text).toContain('question 19')
    expect(view.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'k' })
    expect((view.at(-1) as { content: string }).content).toContain(`read_tool_output with stepId "s${result.id}"`)
    expect(buildView(steps, start.id, { ...options, omitPlans: true }).some((m) => m.content.includes('PLAN'))).toBe(
      false,
    )
  })

  it("keeps the same older turns through every call of a turn, so each call repeats the previous one (the prompt cache's prefix)", () => {
    const steps: StepRow[] = []
    for (let i = 0; i < 12; i++)
      steps.push(step('user', `question ${i} ${'x'.repeat(80)}`), step('model', `answer ${i} ${'y'.repeat(80)}`))
    const start = step('user', 'read the two files')
    steps.push(start)
    const first = buildView(steps, start.id, options)
    // The turn grows: a call, its (cut) output, another call and output, each near the tool output limit.
    for (let c = 0; c < 2; c++) {
      const id = `c${c}`
      steps.push(
        step('model', '', { tool_calls: JSON.stringify([{ id, name: 'read_file', argumentsText: '{}' }]) }),
        step('tool', 'z'.repeat(300), { tool_call_id: id, tool_name: 'read_file' }),
      )
    }
    const later = buildView(steps, start.id, options)
    expect(later.slice(0, first.length - 1)).toEqual(first.slice(0, -1))
    // The older turns shown are the ones that fit before the turn began, not fewer as it grew.
    expect(later.filter((m) => m.content.startsWith('question')).length).toBe(
      first.filter((m) => m.content.startsWith('question')).length,
    )
    expect(first.filter((m) => m.content.startsWith('question')).length).toBeGreaterThan(2)
  })
})
