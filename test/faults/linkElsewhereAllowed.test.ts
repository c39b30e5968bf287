/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: runs in jest, never in n8n */
/**
 * docs/nodes.md, Download File: an n8n admin allows a private file storage with n8n's own
 * allow-list (N8N_SSRF_ALLOWED_HOSTNAMES), and the egress filter then lets the link through.
 * Here the allowed name is this machine's, so the download does connect to the server inside
 * the network (which speaks no TLS: the download then fails), where without the allow-list
 * nothing connects (linkElsewhereEgress.test.ts). SSRF protection itself stays off.
 * An allowed storage that speaks TLS gets the request at the address checked, by its own name.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

import { whatUserSees } from '../helpers/faults';
import {
	getThroughLink,
	nameOfLoopback,
	secretLink,
	setSsrfSettings,
	useLinkScene,
} from '../helpers/internalServer';

const seen = useLinkScene();
const { internal } = seen;

it("a host name on n8n's allow-list passes the egress filter", async () => {
	const name = await nameOfLoopback();
	// Before the file's first request, which builds n8n's HTTP client and reads its settings.
	setSsrfSettings({ enabled: false, allowedHostnames: name });
	const { result, connectionsBefore } = await getThroughLink(secretLink(name, internal.port), seen);
	expect(whatUserSees(result)).toMatch(
		new RegExp(
			`^Could not download the file from https://${name}:${internal.port}/internal-admin/secret`,
		),
	);
	expect(whatUserSees(result)).not.toMatch(/SSRF|sig=|s3cr3t/);
	expect(internal.connections).toBeGreaterThan(connectionsBefore);
});

it('an allowed storage is asked by its name (Host and TLS server name) at the address checked', async () => {
	const name = await nameOfLoopback();
	setSsrfSettings({ enabled: false, allowedHostnames: name });
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'botdojo-tls-'));
	const [key, cert] = ['key.pem', 'cert.pem'].map((file) => path.join(folder, file));
	execFileSync('openssl', [
		...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
		...[
			'-keyout',
			key,
			'-out',
			cert,
			'-subj',
			`/CN=${name}`,
			'-addext',
			`subjectAltName=DNS:${name}`,
		],
	]);
	const asked: Array<{ host?: string; servername?: unknown }> = [];
	const storage = createServer(
		{ key: fs.readFileSync(key), cert: fs.readFileSync(cert) },
		(req, res) => {
			asked.push({
				host: req.headers.host,
				servername: (req.socket as { servername?: unknown }).servername,
			});
			res.end('the stored file');
		},
	);
	await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
	const { port } = storage.address() as AddressInfo;
	// The storage's own certificate, trusted for this test only: n8n checks it against the name.
	const connect = tls.connect;
	const ca = fs.readFileSync(cert);
	tls.connect = ((options: tls.ConnectionOptions, ...rest: unknown[]) =>
		(connect as (...args: unknown[]) => tls.TLSSocket)(
			{ ...options, ca },
			...rest,
		)) as typeof tls.connect;
	try {
		const link = {
			type: 'link-elsewhere' as const,
			url: `https://${name}:${port}/f.txt?sig=s3cr3t`,
		};
		const { result } = await getThroughLink(link, seen);
		expect(result.error).toBeUndefined();
		const data = result.items[0].binary?.data.data ?? '';
		expect(Buffer.from(data, 'base64').toString()).toBe('the stored file');
		expect(asked).toEqual([{ host: `${name}:${port}`, servername: name }]);
	} finally {
		tls.connect = connect;
		await new Promise((resolve) => storage.close(resolve));
		fs.rmSync(folder, { recursive: true, force: true });
	}
});
