/**
 * Issue 27 §2: every demo uses the nodes' latest versions, and its sticky note and the lines
 * `npm start` prints say what the demo needs and where to click.
 */
import { PackageDirectoryLoader } from 'n8n-core';
import type { INodeTypeDescription } from 'n8n-workflow';

import '../helpers/engine'; // sets N8N_USER_FOLDER before n8n-core reads its settings

import {
	DATASET_COLUMNS,
	DATASET_NAME,
	DATASET_ROWS,
	demoLines,
} from '../../scripts/lib/demo-setup';
import { atAddress } from '../../scripts/lib/demos';
import { readExamples } from '../../scripts/n8n-local';
import { ROOT } from '../helpers/packageScripts';

type Node = {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
};
type Workflow = { id: string; name: string; file: string; nodes: Node[] };

const examples = readExamples() as Workflow[];
const byId = (id: string) => examples.find((w) => w.id === id) as Workflow;
const noteOf = (id: string) =>
	String(byId(id).nodes.find((n) => n.type === 'n8n-nodes-base.stickyNote')?.parameters.content);
const URL = 'http://127.0.0.1:5678';

describe('the demo workflows', () => {
	let latest: Map<string, number>;
	beforeAll(async () => {
		const loader = new PackageDirectoryLoader(ROOT);
		await loader.loadAll();
		latest = new Map();
		for (const [name, { type }] of Object.entries(loader.nodeTypes)) {
			const { version } = (type as { description: INodeTypeDescription }).description;
			const newest = Math.max(...(Array.isArray(version) ? version : [version]));
			latest.set(`n8n-nodes-botdojo.${name}`, newest);
			latest.set(`n8n-nodes-botdojo.${name}Tool`, newest); // the AI-tool variant n8n derives
		}
	});

	it('use the latest version of every BotDojo node', () => {
		const outdated = examples.flatMap((w) =>
			w.nodes
				.filter((n) => n.type.startsWith('n8n-nodes-botdojo.'))
				.filter((n) => n.typeVersion !== latest.get(n.type))
				.map((n) => `${w.file} › ${n.name}: ${n.typeVersion}, latest ${latest.get(n.type)}`),
		);
		expect(outdated).toEqual([]);
	});

	it('each sticky note says where to click to run the demo', () => {
		const whereToClick =
			/\*\*Execute workflow\*\*|the \*\*Chat\*\* panel|\*\*Press Publish\*\*|^Publish the workflow/m;
		const silent = examples.filter((w) => !whereToClick.test(noteOf(w.id))).map((w) => w.file);
		expect(silent).toEqual([]);
	});

	it('demo 2 says the CSV file is a download, and where to get it', () => {
		const note = noteOf('bdDemoNightlyExport');
		expect(note).toContain('**The file is a download, not a file on disk.**');
		expect(note).toContain('press **Download** on the file in its output');
	});

	it('demo 7 says it needs an OpenAI key, where it goes, and what the chat shows without one', () => {
		const note = noteOf('bdDemoAgent');
		expect(note).toContain('**Needs an OpenAI API key.**');
		expect(note).toContain('**OpenAI Chat Model** › *Credential* › *Create new credential*');
		expect(note).toContain('"[No response received…]"');
	});

	it('demo 8 names the Data table npm start makes, and what the Evaluations tab needs', () => {
		const note = noteOf('bdDemoEvaluation');
		expect(note).toContain(`\`npm start\` makes the Data table *${DATASET_NAME}*`);
		for (const column of DATASET_COLUMNS) expect(note).toContain(`\`${column}\``);
		expect(note).toContain('"Register to enable evaluation"');
		expect(note).toContain('needs the internet');
	});

	it("demo 8 says that Execute runs every row, ends on the last, and where each row's scores are", () => {
		const note = noteOf('bdDemoEvaluation');
		expect(note).toContain(
			`**Execute workflow** runs all ${DATASET_ROWS.length} rows, one after another in one execution, and leaves the editor on the last`,
		);
		expect(note).toContain(`row ${DATASET_ROWS.length}, whose expected answer differs on purpose`);
		expect(note).toContain(
			"Read each row's scores in the output of **Correctness** and **Tools Used**",
		);
		expect(note).not.toContain('first row');
	});

	it('demo 9 says to press Publish, and gives the MCP address', () => {
		const note = noteOf('bdDemoMcp');
		expect(note).toContain('**Press Publish** (top right)');
		expect(note).toContain(`${URL}/mcp/botdojo`);
		expect(note).toContain('it stays published when `npm start` starts again');
	});

	it("npm start gives demo 9's note the port n8n runs on", () => {
		const moved = atAddress(byId('bdDemoMcp'), 'http://127.0.0.1:5690') as Workflow;
		const note = String(
			moved.nodes.find((n) => n.type === 'n8n-nodes-base.stickyNote')?.parameters.content,
		);
		expect(note).toContain('http://127.0.0.1:5690/mcp/botdojo');
		expect(note).not.toContain(':5678');
		expect(noteOf('bdDemoMcp')).toContain(`${URL}/mcp/botdojo`); // the file is left as it is
	});

	it('npm start prints, under each demo, what it needs and where to click', () => {
		const lines = demoLines({
			url: URL,
			examples,
			dataset: { name: DATASET_NAME, created: true },
		});
		for (const workflow of examples) {
			const at = lines.indexOf(`    ${URL}/workflow/${workflow.id}  ${workflow.name}`);
			expect(at).toBeGreaterThan(-1);
			expect(lines[at + 1]).toMatch(/^ {6}\S/);
		}
		const hint = (id: string) => lines[lines.findIndex((l) => l.includes(`/workflow/${id} `)) + 1];
		// The MCP address is the MCP Server Trigger's production URL: /mcp/<its path>.
		const path = byId('bdDemoMcp').nodes.find((n) => n.type.endsWith('.mcpTrigger'))?.parameters
			.path;
		expect(hint('bdDemoMcp')).toBe(
			`      Press Publish (top right), then point an MCP client at ${URL}/mcp/${path}`,
		);
		expect(hint('bdDemoAgent')).toContain('Needs an OpenAI API key');
		expect(hint('bdDemoAgent')).toContain('"[No response received…]"');
		expect(hint('bdDemoEvaluation')).toContain(`Reads the Data table "${DATASET_NAME}" (made now)`);
		expect(hint('bdDemoEvaluation')).toContain('needs the internet');
		expect(hint('bdDemoEvaluation')).toContain('runs all 3 rows and leaves the editor on row 3');
		expect(hint('bdDemoNightlyExport')).toContain('not a file on disk');
		const published = demoLines({ url: URL, examples, published: ['bdDemoMcp'] });
		expect(published[published.findIndex((l) => l.includes('/workflow/bdDemoMcp ')) + 1]).toBe(
			`      Published: point an MCP client at ${URL}/mcp/${path}`,
		);
	});
});
