'use strict';
/**
 * What `npm start` sets up and prints for the demos beyond importing them: the Data table that the
 * Evaluations demo reads (made through n8n's REST API, as the editor does), and one line per demo
 * on what it needs and where to click, with the MCP demo's address.
 */

const EVALUATION_DEMO = 'bdDemoEvaluation';
const EVALUATION_TRIGGER = 'When fetching a dataset row';
const DATASET_NAME = 'BotDojo eval dataset';
const DATASET_COLUMNS = ['question', 'expected_answer', 'expected_tools'];
/**
 * Rows for the emulator's flow_agent, which calls its `search` tool and answers
 * `Found 2 hits for "<question>".`: one right on both metrics, one that expects a tool it never
 * calls, one whose expected answer differs. The demo then shows both scores moving.
 */
const DATASET_ROWS = [
	{
		question: 'refund policy',
		expected_answer: 'Found 2 hits for "refund policy".',
		expected_tools: 'search',
	},
	{
		question: 'opening hours',
		expected_answer: 'Found 2 hits for "opening hours".',
		expected_tools: 'search, calculator',
	},
	{
		question: 'shipping to Canada',
		expected_answer: 'No hits for "shipping to Canada".',
		expected_tools: 'search',
	},
];

/**
 * Finds the demo's Data table in the owner's personal project, or creates it with the sample rows
 * (n8n 2.40.7: POST/GET /rest/projects/:projectId/data-tables, POST …/:id/insert).
 * Returns { id, name, created }.
 */
async function ensureDataset(session) {
	const project = await session.request('GET', '/rest/projects/personal');
	const base = `/rest/projects/${project.data.id}/data-tables`;
	const filter = encodeURIComponent(JSON.stringify({ name: DATASET_NAME }));
	const found = await session.request('GET', `${base}?filter=${filter}`);
	const existing = (found.data?.data ?? []).find((table) => table.name === DATASET_NAME);
	if (existing) return { id: existing.id, name: DATASET_NAME, created: false };
	const columns = DATASET_COLUMNS.map((name) => ({ name, type: 'string' }));
	const table = await session.request('POST', base, { name: DATASET_NAME, columns });
	await session.request('POST', `${base}/${table.data.id}/insert`, {
		data: DATASET_ROWS,
		returnType: 'count',
	});
	return { id: table.data.id, name: DATASET_NAME, created: true };
}

/** Chooses the table in the demo's Evaluation Trigger, as a user does in its list. */
async function chooseDataset(session, dataset) {
	const { data: workflow } = await session.request('GET', `/rest/workflows/${EVALUATION_DEMO}`);
	const nodes = workflow.nodes.map((node) =>
		node.name === EVALUATION_TRIGGER
			? {
					...node,
					parameters: {
						...node.parameters,
						dataTableId: {
							__rl: true,
							mode: 'list',
							value: dataset.id,
							cachedResultName: dataset.name,
						},
					},
				}
			: node,
	);
	await session.request('PATCH', `/rest/workflows/${EVALUATION_DEMO}`, {
		nodes,
		connections: workflow.connections,
		versionId: workflow.versionId,
	});
}

/**
 * The Evaluations demo's dataset: made if missing, and chosen in the demo when this start
 * imported it (a demo the user edited keeps its own choice). Returns the dataset.
 */
async function setUpEvaluationDataset(session, { imported }) {
	const dataset = await ensureDataset(session);
	if (imported.some((workflow) => workflow.id === EVALUATION_DEMO))
		await chooseDataset(session, dataset);
	return dataset;
}

/** The MCP demo's address: its MCP Server Trigger's production URL (live once published). */
function mcpAddress(url, examples) {
	for (const workflow of examples) {
		const trigger = workflow.nodes.find((node) => node.type.endsWith('.mcpTrigger'));
		if (trigger) return `${url}/mcp/${trigger.parameters.path}`;
	}
	return undefined;
}

/**
 * What each demo needs and where to click, printed under its link.
 * @param {{ url: string, examples: any[], dataset?: { name: string, created: boolean }, published?: string[] }} demos
 */
function demoHints({ url, examples, dataset, published = [] }) {
	const mcp = mcpAddress(url, examples);
	return {
		bdDemoCrmFollowUp: 'Click Execute workflow.',
		bdDemoNightlyExport:
			'Click Execute workflow, then Download on the file in the node’s output: the CSV is a download, not a file on disk.',
		bdDemoChat:
			'Open the Chat panel below the canvas and write a message (published: also on Chat Hub).',
		bdDemoDocuments: 'Click Execute workflow.',
		bdDemoIndex: 'Click Execute workflow.',
		bdDemoTrigger: 'Published: fires when a flow_echo request finishes (run demo 1 to see it).',
		bdDemoAgent:
			'Needs an OpenAI API key: add an OpenAI credential on the OpenAI Chat Model node, then open the Chat panel. Without one the chat shows "[No response received…]".',
		bdDemoEvaluation: dataset
			? `Reads the Data table "${dataset.name}" (${dataset.created ? 'made now' : 'already there'}). Execute workflow runs all 3 rows and leaves the editor on row 3 (Correctness 0 there is right); the run picker (3 of 3) of Correctness and Tools Used shows each row's scores. The Evaluations tab (every row) first asks to register this n8n for free ("Register to enable evaluation"), which needs the internet.`
			: 'Needs a Data table (see the sticky note); the Evaluations tab asks to register this n8n for free, which needs the internet.',
		bdDemoMcp: published.includes('bdDemoMcp')
			? `Published: point an MCP client at ${mcp}`
			: mcp
				? `Press Publish (top right), then point an MCP client at ${mcp}`
				: 'Press Publish (top right), then point an MCP client at the trigger’s Production URL.',
	};
}

/**
 * The lines `npm start` prints for the demos: link, name, and what it needs.
 * @param {{ url: string, examples: any[], dataset?: { name: string, created: boolean }, published?: string[] }} demos
 */
function demoLines({ url, examples, dataset, published }) {
	const hints = demoHints({ url, examples, dataset, published });
	const lines = ['  Demo workflows (what each needs, and where to click):'];
	for (const workflow of examples) {
		lines.push(`    ${url}/workflow/${workflow.id}  ${workflow.name}`);
		if (hints[workflow.id]) lines.push(`      ${hints[workflow.id]}`);
	}
	return lines;
}

module.exports = {
	DATASET_NAME,
	DATASET_COLUMNS,
	DATASET_ROWS,
	EVALUATION_DEMO,
	setUpEvaluationDataset,
	mcpAddress,
	demoLines,
};
