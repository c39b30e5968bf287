/** The emulator as a hostile service: the key quoted back, links elsewhere, early refusals. */
import { params, useRawEmulator } from './http';

const env = useRawEmulator();
const { post, project, streamRun } = env;

const KEY = 'hk_"quoted\\key_0123456789';

/** A POST whose answer is read chunk by chunk, with any key. */
async function rawPost(path: string, body: unknown, key: string, fault: string) {
	const res = await fetch(project() + path, {
		method: 'POST',
		headers: { Authorization: key, 'X-Emulator-Fault': fault },
		body: JSON.stringify(body),
	});
	const chunks: string[] = [];
	for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
		chunks.push(Buffer.from(chunk).toString('utf8'));
	}
	return { status: res.status, chunks, text: chunks.join('') };
}

describe('hostile faults', () => {
	it('echo-key: an error answer quotes the key, raw or JSON-escaped', async () => {
		const raw = await rawPost('/indexes/getStatus', params('idx_docs'), KEY, 'echo-key');
		expect(raw.status).toBe(401);
		expect(JSON.parse(raw.text).error.message).toBe(`Invalid API key. Authorization: ${KEY}`);
		const escaped = await rawPost('/indexes/getStatus', params('x'), KEY, 'echo-key;form=escaped');
		expect(JSON.parse(escaped.text).error.message).toContain(JSON.stringify(KEY));
		const padded = await rawPost('/indexes/getStatus', params('x'), KEY, '500, echo-key;pad=3');
		expect(padded.status).toBe(500);
		expect(JSON.parse(padded.text).error.message).toBe(
			`Internal server error. ...Authorization: ${KEY}`,
		);
	});

	it('echo-key;form=split: the answer comes in two chunks cut inside the key', async () => {
		const split = await rawPost('/indexes/getStatus', params('x'), KEY, 'echo-key;form=split');
		const inJson = JSON.stringify(KEY).slice(1, -1);
		expect(split.text).toContain(inJson);
		expect(split.chunks.length).toBeGreaterThanOrEqual(2);
		expect(split.chunks.some((chunk) => chunk.includes(inJson))).toBe(false);
	});

	it('echo-key-answer: a wrong-shaped 200 quoting the key, before the key is checked', async () => {
		const status = await rawPost('/indexes/getStatus', params('x'), KEY, 'echo-key-answer');
		expect([status.status, JSON.parse(status.text)]).toEqual([
			200,
			[{ echo: `Authorization: ${KEY}` }],
		]);
		const page = await rawPost('/flow_requests/export', params('f'), KEY, 'echo-key-answer');
		expect(JSON.parse(page.text)).toEqual({ echo: `Authorization: ${KEY}` });
		expect(env.emu.records.size).toBe(0);
	});

	it('echo-key-stream: log event and final line (status error) quote the key', async () => {
		const run = await streamRun('flow_echo', {}, {}, { 'X-Emulator-Fault': 'echo-key-stream' });
		const lines = run.lines();
		const key = env.emu.keys.project;
		expect(lines.map((line) => line.tag ?? line.status)).toEqual(['onFlowStart', 'onLog', 'error']);
		expect(lines[1].data.message).toBe(`Authorization: ${key}`);
		expect(lines[2].response.error).toBe(`The flow failed. Authorization: ${key}`);
		const bad = await streamRun(
			'flow_echo',
			{},
			{},
			{
				'X-Emulator-Fault': 'echo-key-stream;line=malformed',
			},
		);
		expect(() => JSON.parse(bad.rawLines[1])).toThrow();
		expect(bad.rawLines[1]).toContain(key);
	});

	it('link-elsewhere and redirect: the signed link, or its download, leads elsewhere', async () => {
		const form = new FormData();
		form.append('document', new Blob(['a']), 'a.txt');
		form.append('fileName', 'a.txt');
		form.append('logicalPath', 'a.txt');
		const uploaded = await fetch(`${project()}/documents/upload-file`, {
			method: 'POST',
			headers: { Authorization: env.emu.keys.project },
			body: form,
		});
		expect(uploaded.status).toBe(200);
		const doc = { logicalPath: 'a.txt' };
		const expires = new Date(Date.now() + 60_000).toISOString();
		const link = async (fault?: string) =>
			(
				await post('/documents/getTemporarySignedUrl', params(doc, expires), {
					headers: fault ? { 'X-Emulator-Fault': fault } : {},
				})
			).json.results;
		expect(await link('link-elsewhere;to=file')).toBe('file:///etc/passwd');
		expect(await link('link-elsewhere')).toMatch(/^http:\/\/files\.example\.invalid\/signed\//);
		const good = await link();
		const redirected = await fetch(good, {
			redirect: 'manual',
			headers: { 'X-Emulator-Fault': 'redirect;status=307;to=file' },
		});
		expect([redirected.status, redirected.headers.get('location')]).toEqual([
			307,
			'file:///etc/passwd',
		]);
	});

	it('400/413/414/431 as status faults, and 431 for a request line over the limit', async () => {
		for (const status of [400, 413, 414, 431]) {
			const answer = await post('/indexes/getStatus', params('idx_docs'), {
				headers: { 'X-Emulator-Fault': String(status) },
			});
			expect(answer.status).toBe(status);
		}
		const long = await fetch(`${project()}/flows/${'f'.repeat(64 * 1024)}/run`, {
			method: 'POST',
			body: '{}',
		});
		expect(long.status).toBe(431);
	});
});
