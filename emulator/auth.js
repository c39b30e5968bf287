'use strict';
/** Authentication: the raw key in `Authorization`, and what each of the three keys may call. */
const { HttpError } = require('./util');

/**
 * @param {import('./types').Context} ctx
 * @param {import('node:http').IncomingMessage} req
 * @param {string} endpoint
 * @param {string|undefined} flowId
 */
function authenticate(ctx, req, endpoint, flowId) {
	const auth = req.headers.authorization;
	if (auth === undefined || auth.trim() === '') {
		throw new HttpError(
			401,
			'Missing API key: send it as the raw value of the Authorization header',
		);
	}
	if (/^bearer\s/i.test(auth.trim())) {
		throw new HttpError(
			401,
			'Invalid API key: the key must be sent as the raw Authorization value, without "Bearer"',
		);
	}
	const key = auth.trim();
	if (key === ctx.keys.project) return;
	if (key === ctx.keys.flow) {
		if (endpoint === 'run' && flowId === 'flow_echo') return;
		const what = endpoint === 'run' ? `flow '${flowId}'` : `the ${endpoint} endpoint`;
		throw new HttpError(
			403,
			`This API key is a flow key limited to flow 'flow_echo'; it cannot call ${what}`,
		);
	}
	if (key === ctx.keys.noUpload) {
		if (endpoint === 'uploadFile')
			throw new HttpError(403, 'This API key lacks the permission to upload files');
		return;
	}
	throw new HttpError(401, 'Invalid API key');
}

module.exports = { authenticate };
