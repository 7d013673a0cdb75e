/**
 * One execute step of the gateway's pipeline: an onExecute plugin, and either what the hot path
 * does at its place (src/hot-path/hot-step.ts, written over the same plugin, so both callers share
 * the step's per-request result) or, written beside it, why the hot path does without it.
 * test/gateway/execute-steps.unit.test.ts fails for an onExecute plugin of the pipeline that is
 * neither.
 */
import type { Plugin } from 'graphql-yoga';
import type { HotStep } from '../hot-path/hot-step';
import type { GatewayContext } from './context';

interface Step {
  /** For tests and reviews: what the step is, in a few words. */
  readonly name: string;
  readonly plugin: Plugin<GatewayContext>;
}

/** A step both callers take: the pipeline through `plugin`, the hot path through `hot`. */
export interface SharedStep extends Step {
  readonly hot: HotStep;
}

/** A step of the pipeline alone. */
export interface PipelineStep extends Step {
  /** Why the hot path does without it: what makes it decide nothing for a request the hot path answers. */
  readonly notOnHotPath: string;
}

export type ExecuteStep = SharedStep | PipelineStep;

// Each plugin is typed for the context it reads; the pipeline's context (GatewayContext) holds all of them.
const asGatewayPlugin = <Context extends object>(plugin: Plugin<Context>) => plugin as Plugin<GatewayContext>;

export function sharedStep<Context extends object>(name: string, plugin: Plugin<Context>, hot: HotStep): SharedStep {
  return { name, plugin: asGatewayPlugin(plugin), hot };
}

export function pipelineStep<Context extends object>(name: string, plugin: Plugin<Context>, notOnHotPath: string): PipelineStep {
  return { name, plugin: asGatewayPlugin(plugin), notOnHotPath };
}

export function isShared(step: ExecuteStep): step is SharedStep {
  return 'hot' in step;
}

/** An entry of a plugin list that is an execute step, not a plugin. */
export function isExecuteStep(entry: object): entry is ExecuteStep {
  return 'plugin' in entry && ('hot' in entry || 'notOnHotPath' in entry);
}
