import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Operation } from '../../shared/execution/operation';
import { flowIdProperty, readFlowId } from '../../shared/params/flowId';
import { positionalResults } from '../../shared/transport';
import { readSessionData, sessionDataProperties } from './sessionData';

interface Prepared {
	flowId: string;
	data: IDataObject;
}

export const operation: Operation<Prepared> = {
	description: [
		flowIdProperty(
			"The flow the session is for. Pass the output's ID to BotDojo Run Flow (Session: Continue) to run the flow in this session.",
		),
		...sessionDataProperties,
	],
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
		return {
			flowId: readFlowId(this, itemIndex),
			data: readSessionData(this, itemIndex) ?? {},
		};
	},
	async execute(this: IExecuteFunctions, { flowId, data }: Prepared, itemIndex: number) {
		// Creating a session runs no flow: a retry after 429/503 cannot repeat anything.
		return (await positionalResults.call(
			this,
			['flow_sessions', 'createSession'],
			[flowId, data],
			{ subject: { flowId }, itemIndex },
		)) as IDataObject;
	},
};
