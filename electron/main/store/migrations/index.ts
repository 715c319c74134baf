import * as m001 from './001-harness'

/** Ordered schema migrations; entry i brings the database from user_version i to i + 1. */
export const migrations: { name: string; up: string }[] = [{ name: '001-harness', up: m001.up }]
