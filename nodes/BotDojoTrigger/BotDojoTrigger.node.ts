import type {
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import { FLOW_ID, flowIdProperty, requireLocatorId } from '../shared/params/idLocator';
import { nodeHeader } from '../shared/params/nodeHeader';
import {
	simplifyFlowRequest,
	simplifyProperties,
	SIMPLIFY_REQUESTS_DESCRIPTION,
} from '../shared/params/simplify';
import { withoutKey } from '../shared/transport/redaction';
import { checkedOption, placeOf } from '../shared/validation';
import { latestRecord, pollNewRecords, type StatusFilter } from './helpers/newRecords';

/** n8n's name for a trigger's event parameter; `statuses` stays for saved workflows. */
const TRIGGER_ON: INodeProperties = {
	displayName: 'Trigger On',
	name: 'statuses',
	type: 'options',
	options: [
		{
			name: 'Complete or Error',
			value: 'both',
			description: 'Every finished request',
		},
		{
			name: 'Complete Only',
			value: 'complete',
			description: 'Requests that finished successfully',
		},
		{
			name: 'Error Only',
			value: 'error',
			description: 'Requests that ended with an error',
		},
	],
	default: 'both',
	description: 'Which finished requests start the workflow',
};

export class BotDojoTrigger implements INodeType {
	description: INodeTypeDescription = {
		...nodeHeader({
			title: 'Trigger',
			name: 'botDojoTrigger',
			description: 'Starts the workflow when a BotDojo flow finishes a request',
			// 1.1: Simplify is on by default; version 1 keeps the whole records.
			version: [1, 1.1],
			defaultVersion: 1.1,
		}),
		icon: {
			light: 'file:../shared/icons/botdojo.svg',
			dark: 'file:../shared/icons/botdojo.dark.svg',
		},
		group: ['trigger'],
		// What Trigger On holds, in Title Case, whatever Flow ID holds.
		subtitle:
			'={{ $parameter["statuses"] === "complete" ? "On Complete Requests" : $parameter["statuses"] === "error" ? "On Error Requests" : "On Finished Requests" }}',
		polling: true,
		// For n8n's AI Workflow Builder (n8n 2.x); older n8n ignores the field.
		builderHint: {
			searchHint:
				'Starts the workflow for each request a BotDojo flow finished (polling), with its question, answer and status.',
		},
		inputs: [],
		properties: [
			{
				displayName:
					"Emits each request of the flow that finished since the workflow was published (activated, in n8n 1.x), once. A manual run shows the latest request. A request that reaches BotDojo's export more than 10 minutes after its last change is missed; one dated in the future fires once.",
				name: 'notice',
				type: 'notice',
				default: '',
			},
			flowIdProperty(
				"ID of the flow to watch. It is shown in the flow's address in BotDojo and on its API tab.",
			),
			TRIGGER_ON,
			...simplifyProperties(SIMPLIFY_REQUESTS_DESCRIPTION),
		],
	};

	async poll(this: IPollFunctions) {
		// What leaves the node (records, errors) is where a quoted API key is redacted.
		try {
			const place = placeOf(this, 0);
			const flowId = requireLocatorId(place, FLOW_ID, this.getNodeParameter('flowId', ''));
			const statuses = checkedOption(
				place,
				TRIGGER_ON,
				this.getNodeParameter(TRIGGER_ON.name, 'both'),
			) as StatusFilter;

			// The records that start the workflow now.
			const records =
				this.getMode() === 'manual'
					? await latestRecord(this, flowId, statuses)
					: await pollNewRecords(this, flowId, statuses);
			if (records.length === 0) return null;
			const simplify = this.getNodeParameter('simplify', false) === true;
			const items = records.map((record) => ({
				json: simplify ? simplifyFlowRequest(record) : record,
			}));
			return [withoutKey(this, items)];
		} catch (error) {
			throw withoutKey(this, error);
		}
	}
}
