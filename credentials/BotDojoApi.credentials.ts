import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/** Base URL without trailing slashes, so that both spellings build the same paths. */
const PROJECT_URL =
	"={{$credentials.baseUrl.replace(/\\/+$/, '')}}/accounts/{{encodeURIComponent($credentials.accountId)}}/projects/{{encodeURIComponent($credentials.projectId)}}";

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

	// An export filtered on a flow id that matches nothing: cheap, read-only, and allowed for any project key.
	test: ICredentialTestRequest = {
		request: {
			method: 'POST',
			url: `${PROJECT_URL}/flow_requests/export`,
			body: { params: ['n8n-credential-check', null, 1] },
			json: true,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'BotDojo rejected the API key. Copy it again from Project Settings → API Keys (without "Bearer").',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The key is valid but is a flow key: it can only run the one flow it was made for, so this test cannot pass. It works with BotDojo Run Flow for that flow; every other node needs a project key.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'BotDojo does not know this account ID or project ID. Check both against the address of your project page.',
				},
			},
		],
	};
}
