/**
 * P1: one normative edit of a decision with 1,000 dependent tasks and 10,000 reports (3 claims each),
 * median over several edits, against the bare SQL updates of the same rows in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import { median, ms, time, verdict } from './util'

const TASKS = 1_000
const REPORTS = 10_000
const CLAIMS = 3
const RUNS = 9

export async function p1(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-p1-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: root })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'A' })
    const other = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'DB', statement: 'SQLite' })
    const ctx = core.harness.ctx(ws.id)
    const { store } = ctx
    const statuses = ['todo', 'in_progress', 'delivered', 'accepted'] as const
    const dn = Number(d.id.split('-d')[1])
    const on = Number(other.id.split('-d')[1])
    // Seed in bulk through the repositories (the API path per row would only slow the setup).
    store.transaction(() => {
      const at = new Date().toISOString()
      for (let i = 0; i < TASKS; i++) {
        const id = store.tasks.insert({ title: `task ${i}`, spec: '', acceptance_criteria: '', assignee_id: (i % 3) + 1 > 1 ? 1 : null, required_reports: '["test"]', created_at: at })
        store.tasks.replaceLinks(id, [
          { decisionId: dn, version: 1, fingerprint: d.fingerprint },
          { decisionId: on, version: 1, fingerprint: other.fingerprint },
        ])
        const row = store.tasks.get(id)!
        store.tasks.update({ ...row, status: statuses[i % 4], updated_at: at })
      }
      for (let r = 0; r < REPORTS; r++) {
        const taskId = (r % TASKS) + 1
        const rid = store.reports.insert({
          task_id: taskId,
          author_id: 1,
          kind: 'test',
          verdict: 'pass',
          summary: '',
          artifact_commit: 'abcdef1',
          artifact_digest: null,
          claim_count: CLAIMS,
          created_at: at,
        })
        store.reports.insertBasis(rid, dn, 1, d.fingerprint)
        for (let c = 0; c < CLAIMS; c++) {
          const cid = store.reports.insertClaim(rid, c, `claim ${c}`)
          store.reports.insertClaimLink(cid, rid, dn, d.fingerprint)
        }
      }
    })

    // Timed: A → B (every link leaves the pinned content). Untimed: B → A puts the evidence back.
    const edit: number[] = []
    const editCpu: number[] = []
    const bare: number[] = []
    const bareCpu: number[] = []
    // CPU time beside wall time: on a shared machine the wall clock also counts waiting for a core.
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const d = process.cpuUsage(since)
      return (d.user + d.system) / 1000
    }
    let version = 1
    let impactTasks = 0
    let staleClaims = 0
    for (let i = 0; i < RUNS; i++) {
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const result = await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: version, statement: 'B' })
      edit.push(performance.now() - t0)
      editCpu.push(cpuMs(c0))
      impactTasks = result.impact.tasks.length
      staleClaims = result.impact.reports.reduce((n, r) => n + r.staleClaimIds.length, 0)
      version++
      await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: version++, statement: 'A' })

      // The bare SQL updates of the same rows: the dependent tasks and the claims of the stale reports.
      const flagTasks = store.db.prepare("UPDATE tasks SET flag = 'needs_adjustment', version = version + 1 WHERE id IN (SELECT task_id FROM task_links WHERE decision_id = ?)")
      const touchClaims = store.db.prepare('UPDATE claims SET ordinal = ordinal WHERE id IN (SELECT claim_id FROM claim_links WHERE decision_id = ?)')
      const c1 = process.cpuUsage()
      bare.push(
        time(() =>
          store.db
            .transaction(() => {
              flagTasks.run(dn)
              touchClaims.run(dn)
            })
            .immediate(),
        ),
      )
      bareCpu.push(cpuMs(c1))
    }
    const e = median(edit)
    const b = median(bare)
    const ec = median(editCpu)
    const bc = median(bareCpu)
    console.log(`P1  normative edit, ${TASKS} dependent tasks, ${REPORTS} reports x ${CLAIMS} claims (impact: ${impactTasks} tasks, ${staleClaims} stale claims)`)
    console.log(`    wall: median edit ${ms(e)} (target ≤ 25 ms: ${verdict(e <= 25)}); bare SQL updates of the same rows ${ms(b)}; ratio ${(e / b).toFixed(2)}x (target ≤ 3x: ${verdict(e / b <= 3)})`)
    console.log(`    cpu:  median edit ${ms(ec)}; bare SQL ${ms(bc)}; ratio ${(ec / bc).toFixed(2)}x   (load average ${loadavg()[0].toFixed(2)} on ${cpus().length} cores)`)
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}
