#!/usr/bin/env node
// Runs the TypeScript command line under tsx, so `npx concord …` works from a checkout without a build.
import { register } from 'tsx/esm/api'

register()
await import('../electron/cli/concord.ts')
