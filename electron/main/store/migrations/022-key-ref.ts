/**
 * Schema v24 (issue 31: "Use the team of <workspace>"): members.api_key_ref, the secret-store entry a member's key
 * is read from when it is not its own. A member copied from another workspace's team refers to the key of the member
 * it was copied from; the key itself stays once in the secret store, never copied. NULL (every existing member): the
 * member's own entry, `member:<its id>:apiKey`.
 */
export const up = `
ALTER TABLE members ADD COLUMN api_key_ref TEXT;
`
