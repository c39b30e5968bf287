/**
 * A chat memory sub-node for engine tests: langchain's own chat message history, one list per
 * session key, shared by every execution of the process, kept in order as Redis' RPUSH keeps it
 * (n8n's Redis and Postgres Chat Memory sub-nodes supply the same `chatHistory` interface).
 */
import { InMemoryChatMessageHistory } from '@langchain/core/chat_history';
import {
	NodeConnectionTypes,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';

import { nodeTypes } from './engine';

export const chatLists = new Map<string, InMemoryChatMessageHistory>();

export class TestChatMemory implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Chat Memory',
		name: 'chatMemory',
		group: ['transform'],
		version: 1,
		description: 'Test memory',
		defaults: { name: 'Memory' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiMemory],
		properties: [{ displayName: 'Session Key', name: 'sessionKey', type: 'string', default: '' }],
	};

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const key = this.getNodeParameter('sessionKey', itemIndex) as string;
		let chatHistory = chatLists.get(key);
		if (!chatHistory) {
			chatHistory = conversationHistory(key);
			chatLists.set(key, chatHistory);
		}
		return { response: { chatHistory } };
	}
}

/** A list of one conversation that, like n8n's Redis and Postgres histories, names its session. */
export function conversationHistory(key: string): InMemoryChatMessageHistory {
	return Object.assign(new InMemoryChatMessageHistory(), { sessionId: key });
}

nodeTypes.register('test.chatMemory', new TestChatMemory());

/** The memory sub-node of a run, keyed by the item's `chat` field. */
export const memoryOfChat = {
	name: 'Memory',
	type: 'test.chatMemory',
	parameters: { sessionKey: '={{ $json.chat }}' },
	connection: NodeConnectionTypes.AiMemory,
};
