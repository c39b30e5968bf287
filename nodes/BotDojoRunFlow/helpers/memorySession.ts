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
import { createHmac, timingSafeEqual } from 'crypto';
import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
} from 'n8n-workflow';

import { asNodeError } from '../../shared/itemErrors';
import { createSession } from '../../shared/transport/api';
import { readCredentials } from '../../shared/transport/project';
import type { RunOutcome } from './flowRun';
import { isSessionRefused, type SessionUse } from './rememberByKey';

/** What the node uses of a langchain chat memory (no langchain import in node code). */
interface ChatHistory {
	getMessages(): Promise<StoredMessage[]>;
	addAIMessage(text: string): Promise<void>;
	/** The conversation, which every marker is signed over (see readHistory). */
	sessionId: string;
}

/**
 * n8n's memories whose chat history names its conversation (`sessionId` of langchain's Redis,
 * Postgres, MongoDB and Xata histories). Simple Memory gives a history without it: a marker
 * copied from one conversation into another would then be read there.
 */
const MEMORIES_THAT_NAME_THEIR_CONVERSATION =
	'Redis Chat Memory, Postgres Chat Memory, MongoDB Chat Memory or Xata';

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

/** Signs and checks the markers of one conversation and flow. */
interface Signer {
	sign(marker: Marker): string;
}

const MARKER = /^\[BotDojo session (\d+)\] (\S+) sig:([A-Za-z0-9_-]{43})$/;

async function signerOf(
	ctx: IExecuteFunctions,
	history: ChatHistory,
	flowId: string,
): Promise<Signer> {
	const { apiKey } = await readCredentials(ctx);
	const conversation = history.sessionId;
	return {
		sign: ({ generation, id }) =>
			createHmac('sha256', apiKey)
				.update(JSON.stringify(['botdojo-chat-marker', conversation, flowId, generation, id]))
				.digest('base64url'),
	};
}

function markerText(signer: Signer, marker: Marker): string {
	return `[BotDojo session ${marker.generation}] ${marker.id} sig:${signer.sign(marker)}`;
}

function isAiMessage(message: StoredMessage): boolean {
	const type =
		typeof message.getType === 'function'
			? message.getType()
			: typeof message._getType === 'function'
				? message._getType()
				: message.type;
	return type === 'ai';
}

/** The marker an AI message carries when this node wrote it for this conversation and flow. */
function markerOf(signer: Signer, message: StoredMessage): Marker | undefined {
	if (typeof message.content !== 'string' || !isAiMessage(message)) return undefined;
	const match = MARKER.exec(message.content);
	if (!match) return undefined;
	const marker = { generation: Number(match[1]), id: match[2] };
	const expected = Buffer.from(signer.sign(marker));
	const given = Buffer.from(match[3]);
	return given.length === expected.length && timingSafeEqual(given, expected) ? marker : undefined;
}

async function readHistory(ctx: IExecuteFunctions, itemIndex: number): Promise<ChatHistory> {
	const memory = (await ctx.getInputConnectionData(NodeConnectionTypes.AiMemory, itemIndex)) as
		| { chatHistory?: Partial<ChatHistory> }
		| undefined;
	const history = memory?.chatHistory;
	if (typeof history?.getMessages !== 'function' || typeof history.addAIMessage !== 'function') {
		throw new NodeOperationError(
			ctx.getNode(),
			'Session: Keep in Chat Memory needs a chat memory connected to the Memory input',
			{
				itemIndex,
				description:
					'Connect a Redis Chat Memory or Postgres Chat Memory node (in queue mode, every worker reaches them), or choose another Session mode. Nothing was sent to BotDojo.',
			},
		);
	}
	if (typeof history.sessionId !== 'string' || history.sessionId === '') {
		throw new NodeOperationError(
			ctx.getNode(),
			'Session: Keep in Chat Memory needs a memory that names its conversation',
			{
				itemIndex,
				description: `The connected memory does not tell the node which conversation it holds (n8n's Simple Memory does not), so one conversation could continue another's BotDojo session. Connect a ${MEMORIES_THAT_NAME_THEIR_CONVERSATION} node, or choose another Session mode. Nothing was sent to BotDojo.`,
			},
		);
	}
	return history as ChatHistory;
}

/** The first marker of the newest generation: the same for every reader of the list. */
async function currentMarker(history: ChatHistory, signer: Signer): Promise<Marker | undefined> {
	let current: Marker | undefined;
	for (const message of await history.getMessages()) {
		const marker = markerOf(signer, message);
		if (marker && (!current || marker.generation > current.generation)) current = marker;
	}
	return current;
}

/** A new session for the flow, or undefined when the key may not create one (a flow key). */
async function newSessionId(
	ctx: IExecuteFunctions,
	flowId: string,
	itemIndex: number,
): Promise<string | undefined> {
	try {
		const session = await createSession(ctx, flowId, {}, itemIndex);
		return typeof session.id === 'string' ? session.id : undefined;
	} catch (error) {
		if ((error as { httpCode?: string }).httpCode === '403') return undefined;
		throw asNodeError(ctx, error, itemIndex);
	}
}

/**
 * Creates a session and appends its marker of the given generation, then returns the marker
 * every racer uses (maybe another's); undefined when the key may not create sessions.
 */
async function startGeneration(
	ctx: IExecuteFunctions,
	history: ChatHistory,
	signer: Signer,
	flowId: string,
	itemIndex: number,
	generation: number,
): Promise<Marker | undefined> {
	const id = await newSessionId(ctx, flowId, itemIndex);
	if (!id) return undefined;
	await history.addAIMessage(markerText(signer, { generation, id }));
	const current = await currentMarker(history, signer);
	return current && current.generation >= generation ? current : { generation, id };
}

export async function runWithMemory(
	ctx: IExecuteFunctions,
	itemIndex: number,
	flowId: string,
	runIn: (sessionId: string | undefined) => Promise<RunOutcome>,
): Promise<IDataObject> {
	const history = await readHistory(ctx, itemIndex);
	const signer = await signerOf(ctx, history, flowId);
	let marker = await currentMarker(history, signer);
	let use: SessionUse = marker ? 'continued' : 'new';
	let generation = marker?.generation ?? 1;
	marker ??= await startGeneration(ctx, history, signer, flowId, itemIndex, generation);
	let outcome: RunOutcome;
	try {
		outcome = await runIn(marker?.id);
	} catch (error) {
		if (!marker || !isSessionRefused(error)) throw asNodeError(ctx, error, itemIndex);
		// BotDojo refused the session while loading the request, before the flow ran.
		use = 'replaced';
		generation = marker.generation + 1;
		marker = await startGeneration(ctx, history, signer, flowId, itemIndex, generation);
		outcome = await runIn(marker?.id);
	}
	// Without a session made ahead (flow key), the run's own session is recorded after it.
	if (!marker && outcome.sessionId) {
		await history.addAIMessage(markerText(signer, { generation, id: outcome.sessionId }));
	}
	if (outcome.failure) throw outcome.failure;
	return { ...outcome.json, session: use };
}
