import { defineOperation } from '../../shared/execution';
import { flowIdProperty, readFlowId } from '../../shared/params/idLocator';
import {
	simplifyProperties,
	simplifySession,
	SIMPLIFY_SESSION_DESCRIPTION,
} from '../../shared/params/simplify';
import { createSession } from '../../shared/transport/api';
import { readSessionData, sessionDataProperties } from './sessionData';

export const operation = defineOperation({
	option: {
		name: 'Create',
		value: 'create',
		action: 'Create a session',
		description: 'Start a session of the flow, with data the flow can read',
	},
	description: [
		flowIdProperty(
			"The flow the session is for. Pass the output's session ID to BotDojo Run Flow (Session: Continue) to run the flow in this session.",
		),
		...sessionDataProperties,
		...simplifyProperties(SIMPLIFY_SESSION_DESCRIPTION),
	],
	prepare(itemIndex) {
		return {
			flowId: readFlowId(this, itemIndex),
			data: readSessionData(this, itemIndex) ?? {},
			simplify: this.getNodeParameter('simplify', itemIndex, false) === true,
		};
	},
	async execute({ flowId, data, simplify }, itemIndex) {
		const session = await createSession(this, flowId, data, itemIndex);
		return simplify ? simplifySession(session) : session;
	},
});
