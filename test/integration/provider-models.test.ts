/**
 * providers.models (issue 33, fewer actions in the setup): Concord asks an OpenAI-compatible server for the models it
 * lists, so the setup prefills one; a server that does not answer with a list gives none and says why, a URL that is
 * not http(s) invalid_params.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeCore, type TestCore } from '../fixtures/core'
import { startModelServer, type ModelServer } from '../fixtures/model-server'

let t: TestCore
let models: ModelServer
beforeAll(async () => {
  t = makeCore()
  models = await startModelServer({ models: ['qwen2.5-coder:7b', 'llama3.1:8b'] })
})
afterAll(async () => {
  await models.close()
  await t.cleanup()
})

describe('providers.models', () => {
  it('lists what the server lists, in its order (a trailing slash on the URL is fine)', async () => {
    const listed = await t.core.invoke('providers.models', { baseURL: `${models.openaiBaseURL}/`, apiKey: 'sk-x' })
    expect(listed).toEqual({ models: ['qwen2.5-coder:7b', 'llama3.1:8b'] })
    // Not a model request: nothing recorded, nothing taken from a script.
    expect(models.requests).toEqual([])
  })

  it('answers no models and why for a server without a model list (no failure: many offer none), and invalid_params for a URL that is not http(s)', async () => {
    const gone = models.openaiBaseURL.replace('/v1', '/nothing')
    expect(await t.core.invoke('providers.models', { baseURL: gone })).toEqual({
      models: [],
      unavailable: expect.stringContaining('answered 404'),
    })
    expect(await t.core.invoke('providers.models', { baseURL: 'http://127.0.0.1:1/v1' })).toEqual({
      models: [],
      unavailable: expect.stringContaining('did not answer'),
    })
    await expect(t.core.invoke('providers.models', { baseURL: 'file:///etc/passwd' })).rejects.toMatchObject({
      code: 'invalid_params',
    })
  })
})
