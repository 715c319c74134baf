/** parseJsonSliced gives exactly what JSON.parse gives, and throws exactly what it throws. */
import { describe, expect, it } from 'vitest'
import { parseJsonSliced, Slicer } from '../../electron/main/export/sliced'

const parse = (text: string) => parseJsonSliced(Buffer.from(text, 'utf8'), new Slicer(0))
const whole = (text: string) => {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch (err) {
    return { error: (err as Error).message }
  }
}
const sliced = async (text: string) => {
  try {
    return { value: await parse(text) }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

describe('parseJsonSliced', () => {
  const cases = [
    '{}',
    ' \n{ "a" : [ ] , "b":[1,2 ,3], "c": {"x": [1, {"y": "]}"}]}, "d": "q\\"uote\\\\", "e": null, "f": true, "g": -1.5e3 }\n',
    '{"decisions":[{"id":"D-1","title":"Ünïcödé — 使用 \\u00e9 😀","revisions":[{"v":1}]},{"id":"D-2"}],"counters":{"a":1}}',
    '{"a":1,"a":[2]}',
    '{"__proto__":{"polluted":true},"x":[{"__proto__":1}]}',
    '[1,2,3]',
    '"just a string"',
    '{"a":[1,2,}',
    '{"a":[1 2]}',
    '{"a":1} trailing',
    '{"a":"unterminated}',
    '{"a":[{"b":1}]',
    '\ufeff{"a":1}',
    '',
    '{"a":tru}',
    '{"a":[01]}',
  ]
  it('matches JSON.parse on values, repeated keys, __proto__ and every kind of error', async () => {
    for (const text of cases) {
      const got = await sliced(text)
      expect({ text, ...got }).toEqual({ text, ...whole(text) })
      if ('value' in got && got.value && typeof got.value === 'object') {
        expect(Object.getPrototypeOf(got.value)).toBe(Object.getPrototypeOf(whole(text).value))
      }
    }
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined()
  })

  it('yields to the event loop between elements', async () => {
    const slicer = new Slicer(0)
    const doc = { decisions: Array.from({ length: 50 }, (_, i) => ({ id: `D-${i}` })) }
    expect(await parseJsonSliced(Buffer.from(JSON.stringify(doc)), slicer)).toEqual(doc)
    expect(slicer.pauses).toBeGreaterThanOrEqual(50)
  })
})
