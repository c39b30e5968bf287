/**
 * The API key must never be shown: what a test checks for it in everything a run left behind
 * (outputs, the error with its details, the saved execution, n8n's log lines).
 */
import { LoggerProxy, type Logger } from 'n8n-workflow';

import type { RunResult } from './engine';
import { lineKeepingLogger } from './keptLines';

/** A key with `"` and `\`, which change when the key is put in JSON. */
export const HOSTILE_KEY = 'hk_Zx9Qw7"Lm3\\Rt5Yp1Kc8Vb';

/** The key as text can hold it: raw, JSON-escaped once and twice. */
function keyForms(key: string): string[] {
	const once = JSON.stringify(key).slice(1, -1);
	return [key, once, JSON.stringify(once).slice(1, -1)];
}

/** Every 6-character piece of every form: a key cut off anywhere still shows one. */
function keyPieces(key: string): string[] {
	const pieces = new Set<string>();
	for (const form of keyForms(key)) {
		for (let at = 0; at + 6 <= form.length; at++) pieces.add(form.slice(at, at + 6));
	}
	return [...pieces];
}

/** n8n's log lines of this test file (the engine logs through LoggerProxy). */
export function captureLogs(): string[] {
	const lines: string[] = [];
	const logger = lineKeepingLogger(
		lines,
		(level, message, meta) => `${level} ${message} ${meta ? JSON.stringify(meta) : ''}`,
	);
	LoggerProxy.init(logger as unknown as Logger);
	return lines;
}

/** All text of an error: its own fields (message, description, details, stack), not only JSON's. */
function errorText(error: unknown): string {
	if (!error || typeof error !== 'object') return String(error ?? '');
	const parts = Object.getOwnPropertyNames(error).map((name) => {
		const value = (error as Record<string, unknown>)[name];
		return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
	});
	return parts.join('\n');
}

/**
 * `text` decoded the ways a server or proxy encodes the key (see redaction.ts): `\u`- and
 * URL-escapes undone, line breaks (raw or JSON-escaped) taken out, lower-cased; and the text of
 * every run of base64 characters in it, decoded at each of its 4 alignments.
 */
function decodedForms(text: string): string[] {
	const unescaped = text
		.replace(/\\+u([0-9a-f]{4})/gi, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)))
		.replace(/%(?:25)?([0-9a-f]{2})/gi, (_all, hex: string) =>
			String.fromCharCode(parseInt(hex, 16)),
		)
		.replace(/(?:\r?\n|(?:\\{1,2}r)?\\{1,2}n)[ \t]*/g, '');
	const decoded = [unescaped.toLowerCase()];
	for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
		for (let shift = 0; shift < 4; shift++) {
			const base64 = run.slice(shift).replace(/-/g, '+').replace(/_/g, '/');
			decoded.push(Buffer.from(base64, 'base64').toString('latin1').toLowerCase());
		}
	}
	return decoded;
}

/**
 * The pieces of `key` found anywhere the run left text, raw or encoded (URL, base64, `\u`, any
 * case, wrapped): empty when the key was never shown.
 */
export function keyShown(result: RunResult, logs: readonly string[], key = HOSTILE_KEY): string[] {
	const texts = [
		JSON.stringify(result.items),
		errorText(result.error),
		JSON.stringify(result.run.data),
		...result.items.map((item) => errorText(item.json.error)),
		...logs,
	];
	const decoded = texts.flatMap(decodedForms);
	return keyPieces(key).filter(
		(piece) =>
			texts.some((text) => text.includes(piece)) ||
			decoded.some((text) => text.includes(piece.toLowerCase())),
	);
}
