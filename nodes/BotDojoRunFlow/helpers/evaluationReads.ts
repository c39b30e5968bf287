/**
 * Whether n8n's Evaluation node may read this run's `intermediateSteps`: its "Tools Used" metric
 * fails on a missing list ("Intermediate steps missing") where a flow that used no tool should
 * score 0. Elsewhere an empty list is left out, since n8n's table shows it as a red
 * "[empty array]" that reads like an error.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * n8n's Evaluation node (n8n-nodes-base), the one that holds the metrics. n8n-workflow 2.x exports
 * the same name as EVALUATION_NODE_TYPE; an older one may not, hence the copy.
 */
export const EVALUATION_NODE_TYPE = 'n8n-nodes-base.evaluation';

/**
 * True in an evaluation run (the Evaluations tab runs the workflow in mode `evaluation`), and
 * when an enabled Evaluation node follows this node (a manual run of the same workflow). Both
 * methods are feature-detected: an n8n without getChildNodes keeps the list, as before.
 */
export function evaluationReadsSteps(ctx: IExecuteFunctions): boolean {
	if (typeof ctx.getMode === 'function' && ctx.getMode() === 'evaluation') return true;
	if (typeof ctx.getChildNodes !== 'function') return true;
	return ctx
		.getChildNodes(ctx.getNode().name)
		.some((node) => node.type === EVALUATION_NODE_TYPE && !node.disabled);
}
