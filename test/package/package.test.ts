/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in jest, never in n8n */
/** Loads the built package the way n8n loads an installed community package. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PackageDirectoryLoader } from 'n8n-core';
import type { INodeType } from 'n8n-workflow';

import '../helpers/engine'; // sets N8N_USER_FOLDER before n8n-core reads its settings

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('the built package', () => {
	let loader: PackageDirectoryLoader;

	beforeAll(async () => {
		loader = new PackageDirectoryLoader(root);
		await loader.loadAll();
	});

	it('follows the community package rules in package.json', () => {
		expect(pkg.name).toBe('n8n-nodes-botdojo');
		expect(pkg.license).toBe('MIT');
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.files).toEqual(['dist']);
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(pkg.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
		const core = JSON.parse(
			fs.readFileSync(path.join(root, 'node_modules/n8n-core/package.json'), 'utf8'),
		);
		expect(pkg.devDependencies['n8n-workflow']).toBe(core.dependencies['n8n-workflow']);
	});

	it('finds every node of package.json, each with codex, icons and subtitle', () => {
		const names = pkg.n8n.nodes.map((file: string) => {
			const base = path.basename(file, '.node.js');
			return base.charAt(0).toLowerCase() + base.slice(1);
		});
		expect(Object.keys(loader.nodeTypes).sort()).toEqual([...names].sort());
		for (const name of names) {
			const { type, sourcePath } = loader.nodeTypes[name];
			const description = 'description' in type ? type.description : undefined;
			expect(description?.name).toBe(name);
			expect(description?.subtitle).toBeTruthy();
			expect(description?.codex?.categories?.length).toBeGreaterThan(0);
			expect(description?.codex?.resources?.primaryDocumentation?.[0]?.url).toMatch(/^https:/);
			const icon = description?.iconUrl as { light: string; dark: string };
			expect(icon.light).not.toBe(icon.dark);
			for (const url of [icon.light, icon.dark]) {
				expect(fs.existsSync(path.join(root, url.replace(/^icons\/n8n-nodes-botdojo\//, '')))).toBe(
					true,
				);
			}
			expect(fs.existsSync(sourcePath)).toBe(true);
		}
	});

	it('finds the credential type with its icons and its own declarative test', () => {
		const { type } = loader.credentialTypes.botDojoApi;
		expect(type.displayName).toBe('BotDojo API');
		// The Test button is the credential's declarative test; no node names a test function.
		expect(type.test?.request.url).toMatch(/\/flow_requests\/export$/);
		for (const { type: node } of Object.values(loader.nodeTypes)) {
			const { description } = node as INodeType;
			expect(description?.credentials).toEqual([{ name: 'botDojoApi', required: true }]);
			expect((node as INodeType).methods?.credentialTest).toBeUndefined();
		}
		const icon = type.iconUrl as { light: string; dark: string };
		for (const url of [icon.light, icon.dark]) {
			expect(fs.existsSync(path.join(root, url.replace(/^icons\/n8n-nodes-botdojo\//, '')))).toBe(
				true,
			);
		}
	});
});
