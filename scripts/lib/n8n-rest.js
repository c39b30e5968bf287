'use strict';
/**
 * The few calls of n8n's internal REST API that a script needs: owner setup, login (keeping the
 * auth cookie), and JSON requests as that user.
 */
const crypto = require('node:crypto');

/** A password that satisfies n8n's rules (8–64 characters, a digit, an upper-case letter). */
function newPassword() {
	return `Demo-${crypto.randomBytes(9).toString('base64url')}-7Q`;
}

class N8nSession {
	constructor(url) {
		this.url = url;
		this.cookie = '';
		// n8n binds the auth cookie to the browser id sent at login; keep one per session.
		this.browserId = crypto.randomUUID();
	}

	async request(method, path, body, { expectOk = true } = {}) {
		const response = await fetch(`${this.url}${path}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': this.browserId,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = response.headers.getSetCookie?.() ?? [];
		const auth = setCookie.find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		const text = await response.text();
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		if (expectOk && !response.ok)
			throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
		return { status: response.status, json, text, data: json?.data };
	}

	/** Creates the owner account; on an instance that already has one, logs in instead. */
	async setupOwnerOrLogin(owner) {
		const setup = await this.request(
			'POST',
			'/rest/owner/setup',
			{
				email: owner.email,
				firstName: owner.firstName,
				lastName: owner.lastName,
				password: owner.password,
			},
			{ expectOk: false },
		);
		if (setup.status === 200 && setup.data?.email === owner.email) return 'created';
		await this.login(owner);
		return 'existing';
	}

	async login({ email, password }) {
		await this.request('POST', '/rest/login', { emailOrLdapLoginId: email, password });
	}
}

module.exports = { N8nSession, newPassword };
