/**
 * n8n's log as a node writes it (`this.logger`): n8n-core hands nodes the Logger of its own
 * dependency container, which a test replaces with one that keeps the lines.
 */
import { lineKeepingLogger } from '../helpers/keptLines';

/** The modules n8n-core itself loads (it has its own copies of @n8n/di and backend-common). */
function fromN8nCore<T extends object>(name: string): T {
	// Searched upwards from n8n-core's main file, as n8n-core's own imports are.
	const paths = [require.resolve('n8n-core')];
	return jest.requireActual<T>(require.resolve(name, { paths }));
}

/** The lines logged from now on, as `<level> <message>`. */
export function captureNodeLogs(): string[] {
	const { Container } = fromN8nCore<{ Container: { set(type: unknown, value: unknown): void } }>(
		'@n8n/di',
	);
	const { Logger } = fromN8nCore<{ Logger: unknown }>('@n8n/backend-common');
	const lines: string[] = [];
	Container.set(
		Logger,
		lineKeepingLogger(lines, (level, message) => `${level} ${message}`),
	);
	return lines;
}
