import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Operation } from '../../shared/execution/operation';
import { flowIdProperty, readFlowId } from '../../shared/params/flowId';
import {
	simplifyProperties,
	simplifySession,
	SIMPLIFY_SESSION_DESCRIPTION,
} from '../../shared/params/simplify';
import { positionalResults } from '../../shared/transport';
import { readSessionData, sessionDataProperties } from './sessionData';

interface Prepared {
	flowId: string;
	data: IDataObject;
	simplify: boolean;
}

export const operation: Operation<Prepared> = {
	description: [
		flowIdProperty(
			"The flow the session is for. Pass the output's session ID to BotDojo Run Flow (Session: Continue) to run the flow in this session.",
		),
		...sessionDataProperties,
		...simplifyProperties(SIMPLIFY_SESSION_DESCRIPTION),
	],
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
		return {
			flowId: readFlowId(this, itemIndex),
			data: readSessionData(this, itemIndex) ?? {},
			simplify: this.getNodeParameter('simplify', itemIndex, false) === true,
		};
	},
	async execute(this: IExecuteFunctions, { flowId, data, simplify }: Prepared, itemIndex: number) {
		// Creating a session runs no flow: a retry after 429/503 cannot repeat anything.
		const session = (await positionalResults.call(
			this,
			['flow_sessions', 'createSession'],
			[flowId, data],
			{ subject: { flowId }, itemIndex },
		)) as IDataObject;
		return simplify ? simplifySession(session) : session;
	},
};
