import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ApiResponse } from '../../shared/contract'
import { decode, decodeEvent, encode, encodeEvent, refuse, remoteError, respond, unwrap } from '../../shared/wire'

const MALFORMED = 'malformed answer'

describe('wire codec', () => {
  it('round-trips every JSON answer through text and through a structured clone', () => {
    const response = fc.oneof(
      fc.jsonValue().map((v) => respond(v)),
      fc
        .record(
          {
            code: fc.constantFrom('not_found' as const, 'version_conflict' as const),
            message: fc.string(),
            details: fc.option(fc.jsonValue(), { nil: undefined }),
          },
          { requiredKeys: ['code', 'message'] },
        )
        .map((e) => refuse(e)),
    )
    fc.assert(
      fc.property(response, (r: ApiResponse<unknown>) => {
        // JSON drops -0 and undefined the same way on both sides; compare against what JSON makes of r.
        const expected = JSON.parse(JSON.stringify(r)) as unknown
        expect(decode(encode(r), MALFORMED)).toEqual(expected)
        expect(decode(structuredClone(expected), MALFORMED)).toEqual(expected)
      }),
    )
  })

  it('sends undefined as null, so both transports answer the same', () => {
    expect(respond(undefined)).toEqual({ ok: true, value: null })
    expect(decode(encode(respond(undefined)), MALFORMED)).toEqual({ ok: true, value: null })
    expect(respond(0)).toEqual({ ok: true, value: 0 })
    expect(respond(false)).toEqual({ ok: true, value: false })
  })

  it('turns anything that is not an answer into one internal refusal', () => {
    for (const input of [
      '{not json',
      '',
      'null',
      '[]',
      '{"ok":true}',
      '{"ok":"yes","value":1}',
      '{"ok":false}',
      '{"ok":false,"error":{"code":"x"}}',
      '{"ok":false,"error":{"message":"m"}}',
      null,
      undefined,
      42,
      [],
      { ok: 1, value: 2 },
    ]) {
      expect(decode(input, MALFORMED), JSON.stringify(input) ?? 'undefined').toEqual({
        ok: false,
        error: { code: 'internal', message: MALFORMED },
      })
    }
  })

  it('keeps a refusal’s code, message and details and nothing else', () => {
    const text = JSON.stringify({
      ok: false,
      error: { code: 'evidence_stale', message: 'T-1 cannot be accepted', details: { reasons: [1] }, stack: 'leak' },
    })
    expect(decode(text, MALFORMED)).toEqual({
      ok: false,
      error: { code: 'evidence_stale', message: 'T-1 cannot be accepted', details: { reasons: [1] } },
    })
    const bare = decode({ ok: false, error: { code: 'not_found', message: 'no such task' } }, MALFORMED)
    expect(!bare.ok && Object.keys(bare.error)).toEqual(['code', 'message'])
  })

  it('unwraps a value, or throws an error carrying code and details', () => {
    expect(unwrap(respond({ id: 'T-1' }))).toEqual({ id: 'T-1' })
    const err = (() => {
      try {
        unwrap(refuse({ code: 'task_blocked', message: 'T-2 waits for T-1', details: { blockers: ['T-1'] } }))
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(Error)
    expect(err).toMatchObject({ message: 'T-2 waits for T-1', code: 'task_blocked', details: { blockers: ['T-1'] } })
    class Custom extends Error {}
    expect(() => unwrap(refuse({ code: 'busy', message: 'later' }), (e) => new Custom(e.code))).toThrow(Custom)
    expect(remoteError({ code: 'busy', message: 'later' })).toMatchObject({ code: 'busy', message: 'later' })
  })

  it('reads events from text and drops frames that are not events', () => {
    const envelope = { event: 'session.reset' as const, payload: { workspaceId: 'w1', memberId: 'm1' } }
    expect(decodeEvent(encodeEvent(envelope))).toEqual(envelope)
    for (const frame of ['{', '[]', 'null', '{"payload":{}}', '{"event":"x"}', new Uint8Array([1]), undefined])
      expect(decodeEvent(frame)).toBeNull()
  })
})
