/** Which remote URLs name a github.com repository, and git's words with URL credentials taken out (issue 33). */
import { describe, expect, it } from 'vitest'
import { ciStateOf, githubRepoOf, withoutCredentials } from '../../electron/main/repo/forge'

describe('forge remote', () => {
  it('reads owner/repo from the ssh and https forms of a github.com URL', () => {
    const shop = { owner: 'acme', repo: 'shop' }
    for (const url of [
      'git@github.com:acme/shop.git',
      'git@github.com:acme/shop',
      'ssh://git@github.com/acme/shop.git',
      'https://github.com/acme/shop.git',
      'https://github.com/acme/shop',
      'https://x-access-token:abc@github.com/acme/shop.git',
      'https://www.github.com/acme/shop/',
    ])
      expect(githubRepoOf(url), url).toEqual(shop)
    expect(githubRepoOf('https://github.com/acme/my.site.git')).toEqual({ owner: 'acme', repo: 'my.site' })
  })

  it('refuses what is not a github.com repository', () => {
    for (const url of [
      'https://gitlab.com/acme/shop.git',
      'git@gitlab.com:acme/shop.git',
      '/tmp/bare.git',
      'https://github.com.evil.example/acme/shop',
      'https://github.com/acme',
    ])
      expect(githubRepoOf(url), url).toBeNull()
  })

  it('takes credentials out of URLs in what git said', () => {
    expect(withoutCredentials("fatal: unable to access 'https://me:ghp_123@github.com/acme/shop.git/': 403")).toBe(
      "fatal: unable to access 'https://github.com/acme/shop.git/': 403",
    )
  })

  it('sums the checks up: any failure fails, any pending waits, none is none', () => {
    const c = (state: 'success' | 'pending' | 'failure') => ({ name: state, state, url: null })
    expect(ciStateOf([])).toBe('none')
    expect(ciStateOf([c('success'), c('pending')])).toBe('pending')
    expect(ciStateOf([c('pending'), c('failure')])).toBe('failure')
    expect(ciStateOf([c('success')])).toBe('success')
  })
})
