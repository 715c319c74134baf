import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Step } from '../../shared/schemas'
import { stepOf } from '../fixtures/app-store'
import { openFence, splitBlocks } from '../../renderer/src/components/markdown-render'
import { diffWords } from '../../renderer/src/lib/diff'
import { appendText, buildRows, mergeSteps, pickNewer, references, upsertStep } from '../../renderer/src/stores/steps'

const step = (seq: number, extra: Partial<Step> = {}): Step =>
  stepOf({ id: `w1-s${seq}`, seq, memberId: 'w1-m1', turnId: 'w1-s1', ...extra })

describe('session steps', () => {
  it('upserts by id and keeps ascending seq', () => {
    let steps = [step(1), step(3)]
    steps = upsertStep(steps, step(2, { text: 'b' }))
    expect(steps.map((s) => s.seq)).toEqual([1, 2, 3])
    steps = upsertStep(steps, step(2, { text: 'b2' }))
    expect(steps).toHaveLength(3)
    expect(steps[1]!.text).toBe('b2')
  })

  it('appends streamed text, and starts a placeholder for a step not seen yet', () => {
    let steps = [step(1, { status: 'streaming', endedAt: null, text: 'Hel' })]
    steps = appendText(steps, 'w1-m1', 'w1-s1', 'lo')
    expect(steps[0]!.text).toBe('Hello')
    steps = appendText(steps, 'w1-m1', 'w1-s9', 'Hi')
    expect(steps[1]).toMatchObject({ id: 'w1-s9', status: 'streaming', text: 'Hi' })
    // The real step replaces the placeholder and moves to its seq.
    steps = upsertStep(steps, step(9, { text: 'Hi there' }))
    expect(steps.map((s) => [s.id, s.seq])).toEqual([
      ['w1-s1', 1],
      ['w1-s9', 9],
    ])
  })

  it('merges a fetched page with steps seen through events, keeping the copy that knows more', () => {
    const streaming = step(2, { status: 'streaming', endedAt: null, text: 'partial text' })
    const done = step(2, { text: 'partial text, finished' })
    expect(pickNewer(done, streaming)).toBe(done)
    expect(pickNewer(streaming, done)).toBe(done)
    const merged = mergeSteps([step(1), done], [streaming, step(3)])
    expect(merged.map((s) => s.seq)).toEqual([1, 2, 3])
    expect(merged[1]).toBe(done)
  })

  it('folds tool steps under the model step that asked for them', () => {
    // Two identical calls: only the model's call id tells their results apart.
    const model = step(2, {
      toolCalls: [
        { id: 'call_a', name: 'read_file', argumentsText: '{"path":"a.ts"}' },
        { id: 'call_b', name: 'read_file', argumentsText: '{"path":"a.ts"}' },
      ],
    })
    const toolB = step(3, {
      kind: 'tool',
      tool: {
        callId: 'w1-s3',
        toolCallId: 'call_b',
        name: 'read_file',
        argumentsText: '{"path":"a.ts"}',
        isError: false,
      },
      text: 'B',
    })
    const toolA = step(4, {
      kind: 'tool',
      tool: {
        callId: 'w1-s4',
        toolCallId: 'call_a',
        name: 'read_file',
        argumentsText: '{"path":"a.ts"}',
        isError: false,
      },
      text: 'A',
    })
    const other = step(5, {
      kind: 'tool',
      turnId: 'w1-s99',
      tool: { callId: 'x', toolCallId: 'call_x', name: 'list_files', argumentsText: '{}', isError: false },
    })
    const rows = buildRows([step(1, { kind: 'user' }), model, toolB, toolA, other, step(6, { text: 'done' })])
    expect(rows.map((r) => r.key)).toEqual(['w1-s1', 'w1-s2', 'w1-s5', 'w1-s6'])
    expect(rows[1]!.results.get('call_a')?.text).toBe('A')
    expect(rows[1]!.results.get('call_b')?.text).toBe('B')
  })

  it('rebuilds only the rows from the first changed step, with the same result as a full build (property)', () => {
    // A session as the runtime writes it: turns of user / model (with tool calls) / tool results / notices.
    const stepsArb = fc
      .array(
        fc.record({
          kind: fc.constantFrom('user', 'model', 'tool', 'notice'),
          calls: fc.integer({ min: 0, max: 2 }),
          turn: fc.integer({ min: 0, max: 3 }),
          name: fc.constantFrom('read_file', 'run_command'),
        }),
        { maxLength: 30 },
      )
      .map((specs) =>
        specs.map((x, i) =>
          step(i + 1, {
            kind: x.kind as Step['kind'],
            turnId: `w1-t${x.turn}`,
            toolCalls:
              x.kind === 'model'
                ? Array.from({ length: x.calls }, (_, c) => ({
                    id: `call_${i}_${c}`,
                    name: x.name,
                    argumentsText: '{}',
                  }))
                : [],
            tool:
              x.kind === 'tool'
                ? {
                    callId: `w1-s${i + 1}`,
                    toolCallId: `call_${i - 1}_0`,
                    name: x.name,
                    argumentsText: '{}',
                    isError: false,
                  }
                : null,
          }),
        ),
      )
    const edit = fc.oneof(
      fc.record({ op: fc.constant('append' as const), text: fc.string({ maxLength: 4 }) }),
      fc.record({ op: fc.constant('replace' as const), at: fc.nat(), kind: fc.constantFrom('user', 'model', 'tool') }),
      fc.record({
        op: fc.constant('push' as const),
        kind: fc.constantFrom('model', 'tool', 'user'),
        turn: fc.integer({ min: 0, max: 3 }),
      }),
      fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('same' as const) }),
    )
    const shape = (rows: ReturnType<typeof buildRows>) =>
      rows.map((r) => [r.key, r.index, r.step, r.tools, [...r.results.entries()]])
    fc.assert(
      fc.property(stepsArb, fc.array(edit, { maxLength: 8 }), (initial, edits) => {
        let steps = initial
        let prev = { steps, rows: buildRows(steps) }
        for (const e of edits) {
          const last = steps[steps.length - 1]
          if (e.op === 'append' && last) steps = appendText(steps, 'w1-m1', last.id, e.text)
          else if (e.op === 'replace' && steps.length) {
            const at = e.at % steps.length
            steps = steps.map((x, i) =>
              i === at
                ? {
                    ...x,
                    kind: e.kind,
                    tool:
                      e.kind === 'tool'
                        ? {
                            callId: x.id,
                            toolCallId: 'call_0_0',
                            name: 'read_file',
                            argumentsText: '{}',
                            isError: false,
                          }
                        : null,
                  }
                : x,
            )
          } else if (e.op === 'push') {
            const seq = (last?.seq ?? 0) + 1
            steps = [
              ...steps,
              step(seq, {
                kind: e.kind as Step['kind'],
                turnId: `w1-t${e.turn}`,
                toolCalls: e.kind === 'model' ? [{ id: `call_${seq}`, name: 'read_file', argumentsText: '{}' }] : [],
                tool:
                  e.kind === 'tool'
                    ? {
                        callId: `w1-s${seq}`,
                        toolCallId: `call_${seq - 1}`,
                        name: 'read_file',
                        argumentsText: '{}',
                        isError: false,
                      }
                    : null,
              }),
            ]
          } else if (e.op === 'drop' && steps.length) steps = steps.filter((_, i) => i !== e.at % steps.length)
          const incremental = buildRows(steps, prev)
          expect(shape(incremental)).toEqual(shape(buildRows(steps)))
          prev = { steps, rows: incremental }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('finds decision, proposal and task references outside code', () => {
    expect(references('See D-1 and T-12, not `D-2`.\n\n```\nD-3\n```\nP-4 too; D-1 again; XD-5 no')).toEqual([
      'D-1',
      'T-12',
      'P-4',
    ])
  })

  it('splits markdown at blank lines, never inside a code fence', () => {
    expect(splitBlocks('a\n\nb\n```\nx\n\ny\n```\n\nc')).toEqual(['a', 'b\n```\nx\n\ny\n```', 'c'])
    expect(splitBlocks('streaming ```ts\nopen fence\n\nstill code')).toEqual([
      'streaming ```ts\nopen fence',
      'still code',
    ])
  })

  it('finds the code fence a growing block is still inside', () => {
    expect(openFence('Here:\n```ts\nconst a = 1\nconst b')).toEqual({
      before: 'Here:',
      lang: 'ts',
      code: 'const a = 1\nconst b',
    })
    expect(openFence('~~~\nx')).toEqual({ before: '', lang: '', code: 'x' })
    // Closed, closed by a longer fence, inline code, and a different fence character inside.
    expect(openFence('```js\nx\n```')).toBeNull()
    expect(openFence('```\nx\n`````')).toBeNull()
    expect(openFence('use ```a``` here')).toBeNull()
    expect(openFence('````md\n```\ninner\n```\nstill open')).toEqual({
      before: '',
      lang: 'md',
      code: '```\ninner\n```\nstill open',
    })
    expect(openFence('~~~\n```\n')).toEqual({ before: '', lang: '', code: '```\n' })
  })
})

describe('revision diffs', () => {
  it('shows old words then new words, grouped', () => {
    expect(diffWords('Use REST with JSON', 'Use GraphQL over HTTP')).toEqual([
      { kind: 'same', text: 'Use ' },
      { kind: 'removed', text: 'REST with JSON' },
      { kind: 'added', text: 'GraphQL over HTTP' },
    ])
    expect(diffWords('same', 'same')).toEqual([{ kind: 'same', text: 'same' }])
  })

  it('always rebuilds both texts (property)', () => {
    const words = fc
      .array(fc.constantFrom('a', 'b', 'c', 'REST', 'JSON', ' ', '  ', '\n', 'D-1'), { maxLength: 40 })
      .map((w) => w.join(''))
    fc.assert(
      fc.property(words, words, (before, after) => {
        const parts = diffWords(before, after)
        expect(
          parts
            .filter((p) => p.kind !== 'added')
            .map((p) => p.text)
            .join(''),
        ).toBe(before)
        expect(
          parts
            .filter((p) => p.kind !== 'removed')
            .map((p) => p.text)
            .join(''),
        ).toBe(after)
      }),
      { numRuns: 300 },
    )
  })
})
