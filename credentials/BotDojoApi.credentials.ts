import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/** http:// to a host but this computer's loopback (localhost, 127.0.0.0/8, [::1]) would send the
 *  key unencrypted; anything after the host but a port, path, query or fragment counts as remote
 *  (`http://127.0.0.1@example.com`). Defined here, below every node: the Test (an expression)
 *  and the transport's requests and downloads refuse the same addresses. */
export const REMOTE_HTTP =
	/^http:\/\/(?!(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:[/?#]|$))/i;

/**
 * The Base URL in the Test request: trimmed, without trailing slashes; an http:// address of
 * another machine becomes one that is no URL at all, so that n8n refuses it ("Invalid URL")
 * before sending the key unencrypted (a declarative test has no way to say more).
 */
const BASE_URL = `/${REMOTE_HTTP.source}/i.test($credentials.baseUrl.trim()) ? "(http:// is refused for another machine)" : $credentials.baseUrl.trim().replace(/\\/+$/, "")`;

/** Said by every answer that leaves the credential unchecked. */
const NOT_CHECKED = 'The credential was not checked: test again in a minute.';

/** Every status from 300 to 599 has a rule (the worded ones come first: the tester takes the
 *  first match). It shows an unmatched status's text, which a broken or hostile server may fill
 *  with the key it was sent. */
const EVERY_STATUS = Array.from({ length: 300 }, (_, at) => 300 + at);

/** Said by a redirect, which the Test does not follow: n8n would send the key (and, on 307/308,
 *  the body) again to where it points, another origin and plain http:// included. */
const REDIRECTED =
	"Base URL: BotDojo's address answered with a redirect, which was not followed so that the API key goes nowhere else. Set the Base URL to the address the BotDojo API answers at, ending in /api/v1, e.g. https://api.botdojo.com/api/v1.";

export class BotDojoApi implements ICredentialType {
	name = 'botDojoApi';

	displayName = 'BotDojo API';

	icon: Icon = {
		light: 'file:../nodes/shared/icons/botdojo.svg',
		dark: 'file:../nodes/shared/icons/botdojo.dark.svg',
	};

	documentationUrl = 'https://docs.botdojo.com/docs/api';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api.botdojo.com/api/v1',
			required: true,
			description:
				'Address of the BotDojo API, including /api/v1. Change it only for a self-hosted or regional BotDojo.',
		},
		{
			displayName: 'Account ID',
			name: 'accountId',
			type: 'string',
			default: '',
			required: true,
			description:
				'Your BotDojo account ID. In BotDojo it is part of the address of every project page (…/accounts/<Account ID>/projects/…), and the API tab of a flow shows it in its sample request.',
		},
		{
			displayName: 'Project ID',
			name: 'projectId',
			type: 'string',
			default: '',
			required: true,
			description:
				'The project that holds your flows, documents and indexes. It follows /projects/ in the address of any project page.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				"Create one in BotDojo under Project Settings → API Keys. A project key works with every node; a flow key (made from a flow's API tab) can only run that one flow.",
		},
	];

	// BotDojo expects the raw key, with no "Bearer" prefix.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '={{$credentials.apiKey}}',
			},
		},
	};

	/**
	 * The Test button: a read-only export of a flow that no project has (`n8n-credential-check`),
	 * which a project key gets as an empty page. n8n sends it as a declarative request and
	 * matches `responseCode` rules only when the request fails with that status (so no
	 * `ignoreHttpStatusErrors`: with it, n8n would see a 401 as a success). The messages are
	 * fixed texts: n8n evaluates no expression in them (docs/nodes.md: "What the Test button gave up").
	 * A 200 is judged by its body: without `hasMore` it is not an export page (last rule).
	 */
	test: ICredentialTestRequest = {
		request: {
			method: 'POST',
			url: `={{${BASE_URL}}}/accounts/{{encodeURIComponent($credentials.accountId.trim())}}/projects/{{encodeURIComponent($credentials.projectId.trim())}}/flow_requests/export`,
			body: { params: ['n8n-credential-check', null, 1] },
			json: true,
			disableFollowRedirect: true,
		},
		// n8n's type wants rules of one kind per list; its tester (credentials-tester.service.js)
		// reads both kinds from one list, status rules on a failed request, body rules on a 2xx.
		rules: [
			...(
				[
					[
						400,
						'Base URL: BotDojo refused the test request as invalid (400). Check that the Base URL ends in /api/v1, e.g. https://api.botdojo.com/api/v1.',
					],
					[
						401,
						'API Key: BotDojo rejected it (401). Copy it again from Project Settings → API Keys, exactly as shown and without "Bearer".',
					],
					[
						403,
						'API Key: it is valid but is a flow key (403), which can only run the one flow it was made for, so this test cannot pass. It works with BotDojo Run Flow for that flow; every other node needs a project key.',
					],
					[
						404,
						'Account ID or Project ID: BotDojo does not know this account with this project (404). Check both against the address of your project page, and that the Base URL ends in /api/v1.',
					],
					[429, `BotDojo is limiting the request rate (429). ${NOT_CHECKED}`],
					...[300, 301, 302, 303, 305, 307, 308].map((value) => [value, REDIRECTED]),
					...[500, 502, 503, 504].map((value) => [
						value,
						`BotDojo is temporarily unavailable (${value}). ${NOT_CHECKED}`,
					]),
					...EVERY_STATUS.map((value) => [
						value,
						`BotDojo answered the test request with status ${value}, so the credential was not checked. Check that the Base URL is the address of the BotDojo API, ending in /api/v1, e.g. https://api.botdojo.com/api/v1.`,
					]),
				] as Array<[number, string]>
			).map(([value, message]) => ({ type: 'responseCode', properties: { value, message } })),
			{
				// n8n fails the test when the 2xx body's `key` equals `value`: every export page has
				// `hasMore`, so a 200 without it (a proxy's or login page, another service) fails.
				type: 'responseSuccessBody',
				properties: {
					key: 'hasMore',
					value: undefined,
					message:
						'Base URL: the answer was not a BotDojo export page (it has no hasMore field), so the key was not checked. The Base URL may point at a proxy, a sign-in page or another service: use the BotDojo API address ending in /api/v1, e.g. https://api.botdojo.com/api/v1.',
				},
			},
		] as ICredentialTestRequest['rules'],
	};
}
