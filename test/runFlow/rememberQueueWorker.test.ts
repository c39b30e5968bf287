/**
 * Remember by Key on a queue-mode worker (`n8n worker`): a worker sees neither the map the
 * other workers saved nor, for a webhook or chat execution, its own saves, so it refuses the
 * mode before any request and names Keep in Chat Memory. The queue e2e suite shows the same
 * in a real main + 2 workers.
 */
import { InstanceSettings } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { BotDojoRunFlow } from '../../nodes/BotDojoRunFlow/BotDojoRunFlow.node';
import { forgetAllSessionStores } from '../../nodes/BotDojoRunFlow/helpers/rememberByKey';
import { coreContainer } from '../helpers/binary';
import { useEmulator } from '../helpers/emulator';
import { message, runFlow } from '../helpers/runFlow';

const env = useEmulator();

/** What `n8n worker` sets: InstanceSettings reads the command when n8n starts. */
function runAs(instanceType: 'worker' | 'main'): void {
	jest.replaceProperty(coreContainer().get(InstanceSettings), 'instanceType', instanceType);
}

afterEach(() => {
	forgetAllSessionStores();
	jest.restoreAllMocks();
});

const remember = message('flow_echo', '={{ $json.text }}', {
	sessionMode: 'remember',
	sessionKey: '={{ $json.chat }}',
});

async function say(chat: string, text: string, staticData: IDataObject, continueOnFail = false) {
	return await runFlow(env, {
		parameters: remember,
		items: [{ json: { chat, text } }],
		staticData,
		mode: 'webhook',
		continueOnFail,
	});
}

describe('BotDojo Run Flow: Remember by Key on a queue-mode worker', () => {
	it('refuses every message before any request, naming Keep in Chat Memory', async () => {
		runAs('worker');
		const staticData: IDataObject = {};
		const first = await say('chat-a', 'Hello', staticData);
		const second = await say('chat-a', 'Again', staticData);
		for (const { error, items } of [first, second]) {
			expect(items).toEqual([]);
			expect(error?.message).toBe(
				'Session: Remember by Key cannot be used on a queue-mode worker. Choose Keep in Chat Memory',
			);
			expect(error?.description).toMatch(/Keep in Chat Memory.*Redis Chat Memory or Postgres/);
			expect(error?.description).toMatch(/Nothing was sent to BotDojo/);
		}
		expect(env.emu.requestsTo('run')).toHaveLength(0);
		expect(env.emu.requestsTo('createSession')).toHaveLength(0);
		expect(staticData).toEqual({});
	});

	it('with Continue On Fail, every item carries the refusal and nothing runs', async () => {
		runAs('worker');
		const { items, error } = await say('chat-b', 'Hello', {}, true);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.error)).toEqual([
			'Session: Remember by Key cannot be used on a queue-mode worker. Choose Keep in Chat Memory',
		]);
		expect(env.emu.requestsTo('run')).toHaveLength(0);
	});

	it('on the main process (regular mode) it still keeps the conversation', async () => {
		runAs('main');
		const staticData: IDataObject = {};
		const first = await say('chat-c', 'Hello', staticData);
		const second = await say('chat-c', 'Again', staticData);
		expect(first.items[0].json).toMatchObject({ session: 'new', text: 'Echo #1: Hello' });
		expect(second.items[0].json).toMatchObject({
			session: 'continued',
			text: 'Echo #2: Again',
			flowSessionId: first.items[0].json.flowSessionId,
		});
	});

	it('the descriptions claim nothing that is false in queue mode, and name the mode that works there', () => {
		const properties = new BotDojoRunFlow().description.properties;
		const sessionKey = properties.find((property) => property.name === 'sessionKey');
		const remember = properties
			.find((property) => property.name === 'sessionMode')
			?.options?.find((option) => 'value' in option && option.value === 'remember');
		const texts = [sessionKey?.description, (remember as { description?: string })?.description];
		for (const text of texts) {
			expect(text).not.toMatch(/survive|kept by this n8n process/i);
			expect(text).toMatch(/queue-mode workers refuse it/i);
		}
		expect(sessionKey?.description).toMatch(/use Keep in Chat Memory there/);
	});
});
