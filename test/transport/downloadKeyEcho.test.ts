/**
 * The signed link's download never shows the API key, even when the storage names it where the
 * download's own messages quote an address: in a redirect's Location (refused: another host).
 */
import { runNode } from '../helpers/engine';
import { API_KEY, useScriptedServer } from './scriptedServer';

const botdojo = useScriptedServer();

const downloadNode = {
	type: 'botDojoUploadDocument',
	parameters: {
		operation: 'getDownloadLink',
		documentSource: 'record',
		documentRecord: '{"id":"doc_1","logicalPath":"docs/a.txt"}',
		downloadFile: true,
	},
};

describe.each([301, 302, 307])('a download answering %i', (status) => {
	it.each([
		['in the path', `https://files.example.com/${API_KEY}/a.txt`],
		['in the host', `https://${API_KEY}.example.com/a.txt`],
	])('to another host with the key %s: refused, the key shown nowhere', async (_, location) => {
		botdojo.requests.length = 0;
		botdojo.answer = (request, res) => {
			if (request.path.startsWith('/files/')) {
				res.writeHead(status, { location });
				res.end();
				return;
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ results: `${botdojo.origin}/files/a.txt?sig=1` }));
		};
		const { items, error } = await runNode({
			node: downloadNode,
			credentials: botdojo.credentials,
		});

		expect(items).toEqual([]);
		expect(error?.message).toMatch(
			/^The download link redirected to https:\/\/.* was not fetched: it redirects to another host/,
		);
		expect(error?.message).toContain('***');
		expect(JSON.stringify(error)).not.toContain(API_KEY);
		expect(String(error?.stack)).not.toContain(API_KEY);
		// Fetched once, without the key; nothing followed.
		const downloads = botdojo.requests.filter((request) => request.path.startsWith('/files/'));
		expect(downloads.map((request) => request.authorization)).toEqual([undefined]);
	});
});
