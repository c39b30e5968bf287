/**
 * The Test button of the BotDojo API credential. It is a function (each node names it in
 * `testedBy`) rather than the credential's declarative `test`, because n8n's declarative test
 * can only match a status code: it cannot tell a 404 for the made-up probe flow (a valid key)
 * from a 404 for the project (a wrong id), cannot wait out a 429, and shows a bare
 * ERR_INVALID_URL for a Base URL without its scheme.
 */
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { failureCode, redact, serviceMessage, unreachableReason } from './errors';
import { EXPORT_ENDPOINT } from './exportPages';
import {
	baseUrlProblem,
	header,
	parseRetryAfter,
	projectUrl,
	retryWhileRateLimited,
	unwrapResults,
} from './request';
import { projectFields } from './project';
import type { FullResponse, ProjectCredentials, RetryPolicy } from './types';

/** A flow id no project has: the probe's answer is an empty page, or a 404 naming it. */
export const PROBE_FLOW_ID = 'n8n-credential-check';

/** The shared 429/503 policy with bounds a button can wait for. */
const TEST_RETRY: RetryPolicy = { maxAttempts: 3, maxTotalWaitMs: 15_000 };

const NOTHING_SENT = 'Nothing was sent to BotDojo.';

/** An answer the retry loop does not retry, carried out of it to be described. */
class Refused extends Error {
	constructor(
		readonly response: FullResponse,
		readonly attempts: number,
	) {
		super(`status ${response.statusCode}`);
	}
}

const fail = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

/** What is wrong with the fields before anything could be sent, or undefined. */
function fieldProblem(fields: ProjectCredentials): string | undefined {
	const problem = baseUrlProblem(fields.baseUrl);
	if (problem) {
		return `Base URL: ${problem}. Enter the address of the BotDojo API with its scheme, e.g. https://api.botdojo.com/api/v1. ${NOTHING_SENT}`;
	}
	for (const [label, value] of [
		['Account ID', fields.accountId],
		['Project ID', fields.projectId],
		['API Key', fields.apiKey.trim()],
	]) {
		if (value === '') return `${label}: is empty. ${NOTHING_SENT}`;
	}
	return undefined;
}

/** Tests the credential with a read-only export of a flow that does not exist. */
export async function botDojoApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const fields = projectFields(credential.data ?? {});
	const problem = fieldProblem(fields);
	if (problem) return fail(problem);

	const options = {
		method: 'POST',
		uri: projectUrl(fields, EXPORT_ENDPOINT),
		body: { params: [PROBE_FLOW_ID, null, 1] },
		json: true,
		// BotDojo takes the raw key, as the credential's `authenticate` sends it.
		headers: { Authorization: fields.apiKey },
		resolveWithFullResponse: true,
		simple: false,
		timeout: 30_000,
	};
	try {
		const response = await retryWhileRateLimited({
			// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions -- a credential test function gets only `request` (n8n-core's CredentialTestContext has no httpRequest)
			send: async () => (await this.helpers.request(options)) as FullResponse,
			retry: TEST_RETRY,
			networkError: (error) => error as Error,
			refusal: (refused, attempts) => new Refused(refused, attempts),
		});
		return redacted(acceptedAnswer(response.body, fields), fields);
	} catch (error) {
		if (error instanceof Refused) {
			return redacted(refusedAnswer(error.response, error.attempts, fields), fields);
		}
		return redacted(unreachable(error, fields), fields);
	}
}

function redacted(result: INodeCredentialTestResult, fields: ProjectCredentials) {
	return { ...result, message: redact(result.message, fields.apiKey) };
}

/** A 2xx answer: the key and project are good if it is an export page. */
function acceptedAnswer(body: unknown, fields: ProjectCredentials): INodeCredentialTestResult {
	const page = unwrapResults(body);
	if (Array.isArray(page)) return { status: 'OK', message: 'Connection successful!' };
	const sample = JSON.stringify(body ?? null)?.slice(0, 120);
	return fail(
		`Base URL: ${fields.baseUrl} answered, but not as the BotDojo API does (an export should return a list of records; it sent ${sample}). Check that the Base URL ends in /api/v1.`,
	);
}

function refusedAnswer(
	response: FullResponse,
	attempts: number,
	fields: ProjectCredentials,
): INodeCredentialTestResult {
	const said = serviceMessage(response.body);
	const saidLine = said ? ` BotDojo said: "${said}".` : '';
	switch (response.statusCode) {
		case 401:
			return fail(
				`API Key: BotDojo rejected it (401). Copy it again from Project Settings → API Keys, exactly as shown and without "Bearer".${saidLine}`,
			);
		case 403:
			return fail(
				`API Key: it is valid but is a flow key (403), which can only run the one flow it was made for, so this test cannot pass. It works with BotDojo Run Flow for that flow; every other node needs a project key.${saidLine}`,
			);
		case 404:
			// The probe flow does not exist: a 404 about it means the account and project do.
			if (said?.includes(PROBE_FLOW_ID)) return { status: 'OK', message: 'Connection successful!' };
			return fail(
				`Account ID or Project ID: BotDojo does not know account "${fields.accountId}" with project "${fields.projectId}" (404). Check both against the address of your project page.${saidLine}`,
			);
		case 429:
		case 503: {
			const wait = parseRetryAfter(header(response.headers, 'retry-after'));
			const again =
				wait !== undefined ? `in ${Math.max(1, Math.ceil(wait / 1000))} s` : 'in a minute';
			const what =
				response.statusCode === 429
					? 'BotDojo is limiting the request rate (429)'
					: 'BotDojo is temporarily unavailable (503)';
			return fail(
				`${what}; asked ${attempts === 1 ? 'once' : `${attempts} times`}. The credential was not checked: test again ${again}.${saidLine}`,
			);
		}
		default:
			return fail(
				`BotDojo answered with status ${response.statusCode}, so the credential could not be checked.${saidLine}`,
			);
	}
}

function unreachable(error: unknown, fields: ProjectCredentials): INodeCredentialTestResult {
	const code = failureCode(error);
	const where = `Base URL: could not reach BotDojo at ${fields.baseUrl}`;
	const reason = unreachableReason(code);
	if (reason) return fail(`${where}: ${reason}.`);
	if (code === 'ECONNABORTED' || code === 'ETIMEDOUT')
		return fail(`${where}: it did not answer within 30 s.`);
	const raw = (error as Error)?.message ?? String(error);
	return fail(`${where}: ${raw}${code ? ` (${code})` : ''}.`);
}

/** `methods.credentialTest` of every BotDojo node (each names it in `testedBy`). */
export const credentialTest = { botDojoApiTest };
