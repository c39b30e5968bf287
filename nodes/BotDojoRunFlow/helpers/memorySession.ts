/**
 * Session "Keep in Chat Memory": the BotDojo session of a conversation is written as a marker
 * message into the chat memory connected to the node (n8n's Redis Chat Memory or Postgres Chat
 * Memory, which every queue-mode worker shares). The memory's own session key names the
 * conversation; a memory that does not name it (Simple Memory) is refused.
 *
 * Two first messages at once: each creates a session ahead, appends its marker, reads the list
 * back and uses the first marker of the newest generation. Redis (RPUSH) and Postgres (serial
 * ids) keep one order for every reader, so all racers agree. A session BotDojo no longer knows
 * is replaced by a marker of the next generation, the same way. A flow key may not create
 * sessions: then the run starts without a session and its session is recorded after the run
 * (two first messages at the same moment can then end on two sessions; the first recorded wins).
 *
 * Only markers this node wrote count: an AI message whose text carries a signature (HMAC-SHA256
 * keyed with the credential's API key) over the conversation (the memory's session id), the
 * flow, the generation and the session. A person in the chat writes human messages, and an
 * agent sharing the memory can at most repeat a marker of the same conversation: neither can
 * sign one, so neither can make a conversation continue another's BotDojo session. Unsigned
 * markers (written by earlier versions) are not read: such a conversation starts a new session
 * once. A new API key does the same for every conversation.
 */
import { timingSafeEqual } from 'crypto';
import { NodeConnectionTypes, NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../shared/itemErrors';
import { createSession } from '../../shared/transport/api';
import { keySigner } from '../../shared/transport/project';
import type { RunIn, RunOutcome } from './flowRun';
import { runInSession } from './rememberByKey';

/** What the node uses of a langchain chat memory (no langchain import in node code). */
interface ChatHistory {
	getMessages(): Promise<StoredMessage[]>;
	addAIMessage(text: string): Promise<void>;
	/** The conversation, which every marker is signed over. */
	sessionId: string;
}

/** A langchain message as read back: `getType()` (`_getType()` before langchain 0.3). */
interface StoredMessage {
	content?: unknown;
	type?: unknown;
	getType?: () => unknown;
	_getType?: () => unknown;
}

interface Marker {
	generation: number;
	id: string;
}

const MARKER = /^\[BotDojo session (\d+)\] (\S+) sig:([A-Za-z0-9_-]{43})$/;

/** The chat memory's history, refused (before any request) when it cannot hold markers safely. */
async function readHistory(ctx: IExecuteFunctions, itemIndex: number) {
	const memory = (await ctx.getInputConnectionData(NodeConnectionTypes.AiMemory, itemIndex)) as
		| { chatHistory?: Partial<ChatHistory> }
		| undefined;
	const history = memory?.chatHistory;
	const refuse = (needs: string, description: string) =>
		new NodeOperationError(ctx.getNode(), `Session: Keep in Chat Memory needs ${needs}`, {
			itemIndex,
			description: `${description}, or choose another Session mode. Nothing was sent to BotDojo.`,
		});
	if (typeof history?.getMessages !== 'function' || typeof history.addAIMessage !== 'function') {
		throw refuse(
			'a chat memory connected to the Memory input',
			'Connect a Redis Chat Memory or Postgres Chat Memory node (in queue mode, every worker reaches them)',
		);
	}
	// n8n's memories whose chat history names its conversation (`sessionId` of langchain's Redis,
	// Postgres, MongoDB and Xata histories). Simple Memory gives a history without it: a marker
	// copied from one conversation into another would then be read there.
	if (typeof history.sessionId !== 'string' || history.sessionId === '') {
		throw refuse(
			'a memory that names its conversation',
			"The connected memory does not tell the node which conversation it holds (n8n's Simple Memory does not), so one conversation could continue another's BotDojo session. Connect a Redis Chat Memory, Postgres Chat Memory, MongoDB Chat Memory or Xata node",
		);
	}
	return history as ChatHistory;
}

export async function runWithMemory(
	ctx: IExecuteFunctions,
	itemIndex: number,
	flowId: string,
	runIn: RunIn,
): Promise<RunOutcome> {
	const history = await readHistory(ctx, itemIndex);
	const signed = await keySigner(ctx);
	const sign = ({ generation, id }: Marker) =>
		signed(['botdojo-chat-marker', history.sessionId, flowId, generation, id]);
	const write = (marker: Marker) =>
		history.addAIMessage(`[BotDojo session ${marker.generation}] ${marker.id} sig:${sign(marker)}`);
	/** The first marker of the newest generation (the same for every reader of the list) that
	 *  this node signed, in an AI message. */
	const current = async () => {
		let found: Marker | undefined;
		for (const message of await history.getMessages()) {
			const type = message.getType?.() ?? message._getType?.() ?? message.type;
			if (type !== 'ai' || typeof message.content !== 'string') continue;
			const match = MARKER.exec(message.content);
			if (!match) continue;
			const marker = { generation: Number(match[1]), id: match[2] };
			const [given, expected] = [Buffer.from(match[3]), Buffer.from(sign(marker))];
			const signed = given.length === expected.length && timingSafeEqual(given, expected);
			if (signed && (!found || marker.generation > found.generation)) found = marker;
		}
		return found;
	};
	/** Creates a session and appends its marker of the generation, then returns the marker every
	 *  racer uses (maybe another's); undefined when the key may not create sessions (a flow key). */
	const start = async (generation: number) => {
		let id: unknown;
		try {
			id = (await createSession(ctx, flowId, {}, itemIndex)).id;
		} catch (error) {
			if ((error as { httpCode?: string }).httpCode === '403') return undefined;
			throw asNodeError(ctx, error, itemIndex);
		}
		if (typeof id !== 'string') return undefined;
		await write({ generation, id });
		const marker = await current();
		return marker && marker.generation >= generation ? marker : { generation, id };
	};

	let marker = await current();
	const use = marker ? 'continued' : 'new';
	let generation = marker?.generation ?? 1;
	marker ??= await start(generation);
	const outcome = await runInSession(ctx, itemIndex, { id: marker?.id, use }, runIn, async () => {
		generation = (marker?.generation ?? generation) + 1;
		marker = await start(generation);
		return marker?.id;
	});
	// Without a session made ahead (flow key), the run's own session is recorded after it.
	if (!marker && outcome.sessionId) await write({ generation, id: outcome.sessionId });
	return outcome;
}
