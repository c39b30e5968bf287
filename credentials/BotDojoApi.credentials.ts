import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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

	// The Test button is `botDojoApiTest` (nodes/shared/transport/credentialTest.ts), named in each
	// node's `testedBy`: a declarative `test` here would win over it and can only match status codes.
}
