/**
 * n8n's *Docs* link on each node opens that node's own page of the package's docs. n8n 2.40.7's
 * editor (n8n-editor-ui NodeSettingsTabs, `docsUrl`) builds it from the codex:
 * `${codex.resources.primaryDocumentation[0].url}?utm_source=n8n_app&…`; the page must therefore
 * have no #fragment (the query would end up inside it). The codex's nodeVersion is the node's.
 */
import { PackageDirectoryLoader } from 'n8n-core';
import type { INodeTypeDescription } from 'n8n-workflow';

import '../helpers/engine'; // sets N8N_USER_FOLDER before n8n-core reads its settings

import { headingAnchors } from '../../scripts/lib/markdown-links';
import { readRepository } from '../../scripts/lib/repository';
import { ROOT as root, codexOfLocalPack, readFile } from '../helpers/packageScripts';

const pkg = JSON.parse(readFile(root, 'package.json'));
const BOTDOJO_API = 'https://docs.botdojo.com/docs/api';

/** What n8n's editor opens for the Docs link of a node with this codex (NodeSettingsTabs). */
function editorDocsUrl(description: INodeTypeDescription) {
	const query = new URLSearchParams({
		utm_source: 'n8n_app',
		utm_medium: 'node_settings_modal-credential_link',
		utm_campaign: description.name,
	});
	return `${description.codex?.resources?.primaryDocumentation?.[0]?.url}?${query.toString()}`;
}

describe('each node’s Docs link', () => {
	let loader: PackageDirectoryLoader;
	beforeAll(async () => {
		loader = new PackageDirectoryLoader(root);
		await loader.loadAll();
	});

	const nodes: Array<{ folder: string; name: string; codexFile: string }> = pkg.n8n.nodes.map(
		(file: string) => {
			// dist/nodes/<Folder>/<Folder>.node.js; the node's name is <folder> in camel case.
			const folder = file.split('/').slice(-2)[0];
			const name = folder.charAt(0).toLowerCase() + folder.slice(1);
			return { folder, name, codexFile: file.replace(/\.js$/, '.json') };
		},
	);

	it.each(nodes)('$folder opens its own page, beside BotDojo’s API page', ({ folder, name }) => {
		const { type } = loader.nodeTypes[name];
		const description = (type as { description: INodeTypeDescription }).description;
		const page = `nodes/${folder}/README.md`;
		const docs = description.codex?.resources?.primaryDocumentation?.map((d) => d.url);
		expect(docs).toEqual([readRepository(root)?.fileUrl(page), BOTDOJO_API]);
		const opened = new URL(editorDocsUrl(description));
		expect(opened.hash).toBe('');
		expect(opened.pathname.endsWith(`/blob/HEAD/${page}`)).toBe(true);

		// The page is about this node and leads to its section of the node reference.
		const text = readFile(root, page);
		expect(text.split('\n')[0]).toBe(`# ${description.displayName}`);
		const anchor = [...headingAnchors(`## ${description.displayName}`)][0];
		expect(text).toContain(`(../../docs/nodes.md#${anchor})`);
		expect(headingAnchors(readFile(root, 'docs/nodes.md'))).toContain(anchor);
		expect(text).toContain(BOTDOJO_API);
	});

	it.each(nodes)('$folder’s codex names the node’s latest version', ({ name, codexFile }) => {
		const { type } = loader.nodeTypes[name];
		const { version } = (type as { description: INodeTypeDescription }).description;
		const latest = Math.max(...(Array.isArray(version) ? version : [version]));
		const codex = JSON.parse(readFile(root, codexFile));
		expect(codex.nodeVersion).toBe(latest.toFixed(1));
	});

	it('is the same in the package npm start and the e2e suites pack and install', () => {
		const packed = codexOfLocalPack();
		expect(Object.keys(packed).sort()).toEqual(nodes.map((n) => n.folder).sort());
		for (const { folder } of nodes)
			expect(packed[folder].resources.primaryDocumentation[0].url).toBe(
				readRepository(root)?.fileUrl(`nodes/${folder}/README.md`),
			);
	}, 180_000);
});
