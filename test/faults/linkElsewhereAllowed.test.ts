/**
 * docs/nodes.md, Download File: an n8n admin allows a private file storage with n8n's own
 * allow-list (N8N_SSRF_ALLOWED_HOSTNAMES), and the egress filter then lets the link through.
 * Here the allowed name is this machine's, so the download does connect to the server inside
 * the network (which speaks no TLS: the download then fails), where without the allow-list
 * nothing connects (linkElsewhereEgress.test.ts). SSRF protection itself stays off.
 */
import { whatUserSees } from '../helpers/faults';
import {
	getThroughLink,
	nameOfLoopback,
	secretLink,
	setSsrfSettings,
	useLinkScene,
} from '../helpers/internalServer';

const seen = useLinkScene();
const { internal } = seen;

it("a host name on n8n's allow-list passes the egress filter", async () => {
	const name = await nameOfLoopback();
	// Before the file's first request, which builds n8n's HTTP client and reads its settings.
	setSsrfSettings({ enabled: false, allowedHostnames: name });
	const { result, connectionsBefore } = await getThroughLink(secretLink(name, internal.port), seen);
	expect(whatUserSees(result)).toMatch(
		new RegExp(
			`^Could not download the file from https://${name}:${internal.port}/internal-admin/secret`,
		),
	);
	expect(whatUserSees(result)).not.toMatch(/SSRF|sig=|s3cr3t/);
	expect(internal.connections).toBeGreaterThan(connectionsBefore);
});
