/**
 * What a streamed run holds while it reads (issue 19, memory bounds): with Simplify the output
 * has no `steps`, so the collector keeps none, yet still takes the tool calls they tell.
 */
import { RunCollector } from '../../nodes/BotDojoRunFlow/helpers/collector';

function stepUpdate(index: number) {
	return {
		tag: 'onIntermediateStepUpdate',
		data: {
			stepId: `step_${index}`,
			stepLabel: 'Tool: search',
			toolName: 'search',
			status: 'complete',
			content: 'x'.repeat(1000),
		},
	};
}

describe('BotDojo Run Flow: what a streamed run keeps', () => {
	it.each([
		['raw output', true, 500],
		['Simplify', false, 0],
	])(
		'with %s (steps wanted: %s) keeps %i steps, and the tool calls either way',
		(_, steps, kept) => {
			const collector = new RunCollector({ logs: false, events: false, steps });
			for (let i = 0; i < 500; i++) collector.add(stepUpdate(i));
			expect(collector.steps).toHaveLength(kept);
			expect(collector.stepToolCalls.calls).toHaveLength(500);
		},
	);
});
