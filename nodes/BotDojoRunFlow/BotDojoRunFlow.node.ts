import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { nodeHeader, subtitleOf } from '../shared/params/nodeHeader';
import { execute, runFlowOperation } from './actions/run.operation';
import { runFlowInputs } from './actions/session';
import { credentialTest } from '../shared/transport';

export class BotDojoRunFlow implements INodeType {
	description: INodeTypeDescription = {
		...nodeHeader({
			title: 'Run Flow',
			name: 'botDojoRunFlow',
			description:
				'Run a BotDojo AI flow and get its answer, streaming tokens live and keeping chat sessions',
			// 1.1: without the settings and output fields kept for saved workflows (LEGACY_FIELDS_UNTIL).
			version: [1, 1.1],
		}),
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		subtitle: subtitleOf('Run', 'flowId', 'flow'),
		usableAsTool: true,
		// A Chat Memory input appears only in the session mode that uses it.
		inputs: runFlowInputs,
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
