import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { execute, runFlowOperation } from './actions/run.operation';
import { runFlowInputs } from './actions/session';
import { credentialTest } from '../shared/transport';

export class BotDojoRunFlow implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'BotDojo Run Flow',
		name: 'botDojoRunFlow',
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: '={{ "Run " + $parameter["flowId"] }}',
		description:
			'Run a BotDojo AI flow and get its answer, streaming tokens live and keeping chat sessions',
		defaults: { name: 'BotDojo Run Flow' },
		usableAsTool: true,
		inputs: runFlowInputs,
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'botDojoApi', required: true, testedBy: 'botDojoApiTest' }],
		properties: [
			{
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				typeOptions: { rows: 3 },
				default:
					'Runs a BotDojo AI flow with a message and returns its answer as text. Replace this with what the flow does and when to use it.',
				required: true,
				displayOptions: { show: { '@tool': [true] } },
				description:
					'Tells the AI Agent what the flow does and when to call it. A specific description makes the agent use the tool well.',
			},
			...runFlowOperation.description,
		],
	};

	methods = { credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await execute.call(this);
	}
}
