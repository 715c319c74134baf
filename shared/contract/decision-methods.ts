/** The contract's methods for decisions and the proposals members make to change them. */
import { z } from 'zod'
import * as s from '../schemas'
import { method, r, statementText, actor, ws, page, because } from './method'

/** What an edit answers: the decision as it is now and the edit's impact, or the proposal it became (no authority). */
type DecisionEdit = { decision: s.Decision; impact: s.Impact; proposal?: s.Proposal }

export const decisionMethods = {
  'decisions.create': method(
    z.strictObject({
      ...ws,
      title: z.string().trim().min(1, 'must not be empty').max(300),
      statement: statementText,
      rationale: z.string().max(20_000).optional(),
      status: s.DecisionStatus.optional(),
      supersedes: s.Id.optional(),
      sourceMessageId: z.string().max(200).optional(),
      ...actor,
    }),
    r<s.Decision>(),
  ),
  'decisions.get': method(z.strictObject({ decisionId: s.Id }), r<s.Decision>()),
  'decisions.list': method(z.strictObject({ ...ws }), r<s.Decision[]>()),
  'decisions.history': method(z.strictObject({ decisionId: s.Id }), r<s.Revision[]>()),
  'decisions.update': method(
    z.strictObject({
      decisionId: s.Id,
      expectedVersion: z.number().int().min(1),
      title: z.string().trim().min(1, 'must not be empty').max(300).optional(),
      statement: statementText.optional(),
      rationale: z.string().max(20_000).optional(),
      status: s.DecisionStatus.optional(),
      editorial: z.boolean().optional(),
      ...because,
      ...actor,
    }),
    r<DecisionEdit>(),
  ),
  /** A new revision with an earlier revision's content, through the normal edit path (decisions.update). */
  'decisions.revert': method(
    z.strictObject({
      decisionId: s.Id,
      toVersion: z.number().int().min(1),
      expectedVersion: z.number().int().min(1),
      ...because,
      ...actor,
    }),
    r<DecisionEdit>(),
  ),
  /** The whole impact of the edit that produced `version`, paged (tasks and reports each in key order). */
  'decisions.impact': method(
    z.strictObject({
      decisionId: s.Id,
      version: z.number().int().min(1),
      ...page,
    }),
    r<s.ImpactPage>(),
  ),
  'decisions.previewImpact': method(
    z.strictObject({
      decisionId: s.Id,
      statement: statementText.optional(),
      status: s.DecisionStatus.optional(),
      editorial: z.boolean().optional(),
    }),
    r<s.Impact>(),
  ),

  'proposals.create': method(
    z.strictObject({
      decisionId: s.Id,
      title: z.string().trim().min(1).max(300).optional(),
      statement: statementText.optional(),
      rationale: z.string().max(20_000).optional(),
      status: s.DecisionStatus.optional(),
      ...because,
      ...actor,
    }),
    r<s.Proposal>(),
  ),
  'proposals.accept': method(
    z.strictObject({ proposalId: s.Id, ...actor }),
    r<{ proposal: s.Proposal; decision: s.Decision; impact: s.Impact }>(),
  ),
  'proposals.reject': method(
    z.strictObject({ proposalId: s.Id, reason: z.string().max(5_000).optional(), ...actor }),
    r<s.Proposal>(),
  ),
  'proposals.list': method(z.strictObject({ ...ws, state: s.ProposalState.optional() }), r<s.Proposal[]>()),
} as const
