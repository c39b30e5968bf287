/**
 * A Base URL that would send the API key unencrypted to another machine: http:// to any host
 * but this computer's loopback (localhost, 127.0.0.0/8, [::1]). Anything after the host but a
 * port, path, query or fragment (e.g. `http://127.0.0.1@example.com`) counts as remote. A regular
 * expression, not URL parsing, because the credential's declarative Test request (an n8n
 * expression, which cannot import code) checks the same thing with it.
 */
export const REMOTE_HTTP =
	/^http:\/\/(?!(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:[/?#]|$))/i;
