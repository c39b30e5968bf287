/**
 * The shipped bound of an answer read whole: 128 MiB (README, "Limits"; request.ts READ_BOUNDS).
 * Other tests lower it to 1 MiB to stay quick; this file leaves it as shipped. The server streams
 * a status answer padded with JSON whitespace to an exact size, a chunk at a time as the node
 * reads it, so the test never holds the body: at 128 MiB it is read, one byte more is refused.
 */
import { runNode } from '../helpers/engine';
import { useScriptedServer, type Answer } from './scriptedServer';

const SHIPPED_BOUND = 128 * 1024 * 1024;
const TOO_LARGE =
	"BotDojo's answer is larger than 128 MiB and was refused rather than held in memory (the largest answer read whole)";

const STATUS = JSON.stringify({ results: { id: 'idx_1', status: 'ready' } });
const PADDING = Buffer.alloc(1024 * 1024, ' ');

/** Writes STATUS and then spaces up to `size` bytes in all, as fast as the client reads. */
function answerOfSize(size: number): Answer {
	return (_, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.write(STATUS);
		let left = size - STATUS.length;
		const write = () => {
			while (left > 0 && !res.destroyed) {
				const chunk = PADDING.subarray(0, Math.min(left, PADDING.length));
				left -= chunk.length;
				if (!res.write(chunk)) return;
			}
			if (left === 0) res.end();
		};
		res.on('drain', write);
		write();
	};
}

const botdojo = useScriptedServer();

async function getStatus() {
	return await runNode({
		node: { type: 'botDojoQueryIndex', parameters: { operation: 'getStatus', indexId: 'idx_1' } },
		credentials: botdojo.credentials,
	});
}

describe('the shipped 128 MiB bound of an answer read whole', () => {
	it('an answer of exactly 128 MiB is read', async () => {
		botdojo.answer = answerOfSize(SHIPPED_BOUND);
		const { items, error } = await getStatus();
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([{ id: 'idx_1', status: 'ready' }]);
	});

	it('an answer one byte larger is refused, named', async () => {
		botdojo.answer = answerOfSize(SHIPPED_BOUND + 1);
		const { items, error } = await getStatus();
		expect(items).toEqual([]);
		expect(error?.message).toBe(TOO_LARGE);
	});
});
