import type { Principal } from '@gw/contracts';
import { chatContent } from '../content/generation-content.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { PluginPipeline } from '../plugins/plugin-pipeline.service.js';
import type { Charge } from '../pricing/charge.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { PreparedChat } from '../shared-pipeline/chat-preparation.service.js';
import type { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { finishOfCompletion } from '../usage/generation-finish.js';
import { withToolFacts, type ToolFacts } from '../usage/request-facts.js';
import type { ModelStep } from './server-tool-loop.js';

/** Whose step is settled, under which generation id, and whether its front door streams. */
export interface LoopStepOwner {
  accounting: GenerationAccounting;
  /** Absent where the front door runs no plugins. */
  plugins?: PluginPipeline;
  prepared: PreparedChat;
  principal: Principal;
  generationId: string;
  streamed: boolean;
}

/**
 * One model call of the server-tool loop settled as its own generation, the same at every front
 * door: the plugins' searches and fetches are charged on the first call, with the step's tools'
 * cost, and what its tools found is recorded with it. The usage returned is the one charged.
 */
export async function settleLoopStep(
  owner: LoopStepOwner,
  step: ModelStep,
  usage: NormalizedUsage,
  toolCost: Prisma.Decimal,
  found: ToolFacts,
): Promise<{ charge: Charge; usage: NormalizedUsage }> {
  const { prepared } = owner;
  const plugin = owner.plugins ? owner.plugins.takeToolCharges(prepared.plugins, usage) : { usage };
  const charge = await owner.accounting.settle({
    generationId: owner.generationId,
    principal: owner.principal,
    attempt: step.attempt,
    tracker: step.tracker,
    usage: plugin.usage,
    status: 'succeeded',
    sessionId: prepared.sessionId,
    request: withToolFacts(prepared.facts, found),
    toolCost: plugin.toolCost ? toolCost.add(plugin.toolCost) : toolCost,
    ...(owner.streamed ? { streamed: true } : { finish: finishOfCompletion(step.completion) }),
    content: () => chatContent(step.body.messages, step.completion),
  });
  return { charge, usage: plugin.usage };
}
