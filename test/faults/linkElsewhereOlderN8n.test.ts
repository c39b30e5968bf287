/**
 * docs/troubleshooting.md, Links elsewhere, on an n8n without the egress filter for nodes:
 * n8n-core's real request helpers without `getSecureEgressFilter`, as in n8n versions before
 * it. The literal checks alone refuse every address as written (the ranges, the trailing dot).
 * A host name that resolves to this machine is caught only by n8n's own SSRF protection, which
 * the docs tell such an instance to turn on: N8N_SSRF_PROTECTION_ENABLED=true (here, with
 * N8N_SSRF_ALLOWED_HOSTNAMES=localhost so that the local BotDojo emulator stays reachable).
 */
import type { FaultParams } from '../../emulator/types';
import type { BotDojoCredentialData } from '../helpers/engine';
import { whatUserSees } from '../helpers/faults';
import {
	expectNothingFetched,
	getThroughLink,
	nameOfLoopback,
	secretLink,
	setSsrfSettings,
	useLinkScene,
} from '../helpers/internalServer';

const HELPERS =
	'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';
jest.mock(
	'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions',
	() => {
		const actual = jest.requireActual(
			'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions',
		);
		return {
			...actual,
			getRequestHelperFunctions: (...args: unknown[]) => {
				const helpers = actual.getRequestHelperFunctions(...args);
				delete helpers.getSecureEgressFilter;
				return helpers;
			},
		};
	},
);

setSsrfSettings({ enabled: true, allowedHostnames: 'localhost' });

const seen = useLinkScene();
const { env, internal } = seen;

/** The credential at http://localhost:<port>, the name the SSRF allow-list lets through. */
function credentials(): Record<string, BotDojoCredentialData> {
	const main = {
		...env.credentials.main,
		baseUrl: env.emu.baseUrl.replace('127.0.0.1', 'localhost'),
	};
	return { main };
}

interface Row {
	fault: string;
	inject: (port: number, name: string) => { type: 'link-elsewhere' } & FaultParams;
	/** The user's message and description. */
	sees: (port: number, name: string) => RegExp;
}

const rows: Row[] = [
	...[
		'localhost.',
		'[::127.0.0.1]',
		'[64:ff9b::127.0.0.1]',
		'255.255.255.255',
		'[fec0::1]',
		'198.18.0.1',
		'192.0.0.8',
		'224.0.0.1',
	].map(
		(host): Row => ({
			fault: `link to ${host}: refused by the literal checks`,
			inject: (port) => secretLink(host, port),
			sees: () =>
				/^The download link https:\/\/\S+ was not fetched: it points at this machine or a private network address[\s\S]*nothing was downloaded/,
		}),
	),
	{
		fault: "link to a host name that resolves to 127.0.0.1: refused by n8n's SSRF protection",
		inject: (port, name) => secretLink(name, port),
		sees: (port, name) =>
			new RegExp(
				`^Could not download the file from https://${name}:${port}/internal-admin/secret[\\s\\S]*resolves to a restricted IP address`,
			),
	},
];

describe('What happens when… a download link leads elsewhere (n8n without the egress filter)', () => {
	it.each(rows)('$fault', async (row) => {
		const name = await nameOfLoopback();
		const fault = row.inject(internal.port, name);
		const { result, connectionsBefore } = await getThroughLink(fault, seen, credentials());
		expect(whatUserSees(result)).toMatch(row.sees(internal.port, name));
		expectNothingFetched(result, seen, connectionsBefore);
	});

	it('the helper n8n offers nodes is absent here, as on an older n8n', async () => {
		const { getRequestHelperFunctions } = jest.requireMock(HELPERS);
		const helpers = getRequestHelperFunctions({ expression: {} }, { name: 'x' }, {});
		expect(helpers.httpRequest).toEqual(expect.any(Function));
		expect(helpers.getSecureEgressFilter).toBeUndefined();
	});
});
