import type { Reporter, TestModule } from 'vitest/node'

/**
 * Prints one plain closing line after vitest's own summary: "vitest: N passed, N failed, N skipped", preceded by one
 * line per reason tests were skipped for (ctx.skip(note), e.g. test/fixtures/sandbox-gate.ts), with how many and in
 * which files, so that nothing is skipped silently.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    const reasons = new Map<string, { count: number; files: Set<string> }>()
    for (const m of modules) {
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++
      for (const t of m.children.allTests()) {
        const r = t.result()
        if (r.state === 'passed') passed++
        else if (r.state === 'failed') failed++
        else {
          skipped++
          if (r.state === 'skipped' && r.note) {
            const entry = reasons.get(r.note) ?? { count: 0, files: new Set<string>() }
            entry.count++
            entry.files.add(m.relativeModuleId)
            reasons.set(r.note, entry)
          }
        }
      }
    }
    failed += unhandledErrors.length
    let out = '\n'
    for (const [note, { count, files }] of reasons) out += `skipped ${count}: ${note} [${[...files].join(', ')}]\n`
    process.stdout.write(`${out}vitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
