/**
 * The one parser for every date a user types or maps: n8n DateTime values from expressions, JS
 * Dates, epoch milliseconds, ISO 8601 strings in any zone (the date picker's zone-less strings
 * are read in the workflow's time zone), and SQL, RFC 2822 and HTTP date strings. The result is
 * the ISO 8601 UTC form with milliseconds that BotDojo expects.
 */
import { DateTime } from 'luxon';

import { invalidInput, type InputPlace } from '../validation';

const ISO_PATTERN =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const VALID_DATES =
	"Give an ISO 8601 date such as 2024-05-01T08:30:00Z or 2024-05-01T10:30:00+02:00 (without a zone, the workflow's time zone applies), or a DateTime from an expression such as {{ $now.minus(7, 'days') }}.";

/** The outcome of reading one date: milliseconds since the epoch, or why it is not a date. */
type DateReading = { ms: number } | { problem: string };

function readIsoString(text: string, timeZone: string) {
	const match = ISO_PATTERN.exec(text);
	if (!match) return readOtherFormats(text, timeZone);
	const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part = '0') => +part);
	// The fraction's first three digits.
	const millisecond = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
	const units = { year, month, day, hour, minute, second, millisecond };
	// Without a zone, the workflow's; `Z`, `+02`, `+0200` and `+02:00` as luxon names them.
	const offset = match[8]?.replace(':', '');
	const zoneName =
		offset === undefined
			? timeZone
			: /^z$/i.test(offset)
				? 'utc'
				: `utc${offset.slice(0, 3)}:${offset.slice(3) || '00'}`;
	let date = DateTime.fromObject(units, { zone: zoneName });
	// An unknown zone name: the time is read as UTC.
	if (date.invalidReason === 'unsupported zone') date = DateTime.fromObject(units, { zone: 'utc' });
	// luxon takes 24:00 as the next day's start; a time of day is refused from 24 on.
	return date.isValid && hour < 24
		? { ms: date.toMillis() }
		: { problem: `"${text}" is not a real date and time` };
}

/** Other written forms luxon knows (ISO week and ordinal dates, SQL, RFC 2822, HTTP). */
function readOtherFormats(text: string, timeZone: string) {
	for (const parse of [
		DateTime.fromISO,
		DateTime.fromSQL,
		DateTime.fromRFC2822,
		DateTime.fromHTTP,
	]) {
		const parsed = parse(text, { zone: timeZone });
		if (parsed.isValid) return { ms: parsed.toMillis() };
	}
	return { problem: `"${text}" is not an ISO 8601 date` };
}

/** A luxon DateTime, a moment or a JS Date: each gives its milliseconds as its valueOf(). */
function readDateObject(value: object) {
	const candidate = value as {
		isValid?: boolean | (() => boolean);
		invalidReason?: string | null;
	};
	const valid =
		typeof candidate.isValid === 'function' ? candidate.isValid() : candidate.isValid !== false;
	if (!valid) {
		return {
			problem: `is an invalid date${candidate.invalidReason ? ` (${candidate.invalidReason})` : ''}`,
		};
	}
	const ms = value.valueOf();
	if (typeof ms !== 'number' || !Number.isFinite(ms)) return { problem: 'is not a date' };
	return { ms };
}

/** Reads one date value; `undefined` when the value is empty (the filter is not set). */
export function readDateValue(value: unknown, timeZone: string): DateReading | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string') {
		const text = value.trim();
		return text === '' ? undefined : readIsoString(text, timeZone);
	}
	if (typeof value === 'object') return readDateObject(value);
	// Epoch milliseconds, as `$now.toMillis()` gives them. A smaller number (before 1973 as
	// milliseconds) is most likely seconds: refused rather than guessed.
	if (typeof value === 'number') {
		return Number.isFinite(value) && Math.abs(value) >= 1e11
			? { ms: value }
			: { problem: `is the number ${value}; a number is ambiguous (seconds or milliseconds?)` };
	}
	return { problem: `is a ${typeof value}, not a date` };
}

/** ISO 8601 UTC with milliseconds, e.g. 2024-05-01T08:30:00.000Z. */
export function toUtcIso(ms: number) {
	return new Date(ms).toISOString();
}

/**
 * A date parameter as BotDojo wants it, or `undefined` when empty. Bad input raises an error
 * naming the parameter and the item, before any request.
 */
export function readDateParameter(
	place: InputPlace,
	parameter: string,
	value: unknown,
	timeZone: string,
) {
	const reading = readDateValue(value, timeZone);
	if (reading === undefined) return undefined;
	if ('problem' in reading) throw invalidInput(place, parameter, reading.problem, VALID_DATES);
	if (Math.abs(reading.ms) > 8.64e15) {
		throw invalidInput(place, parameter, 'is out of the range of dates', VALID_DATES);
	}
	return toUtcIso(reading.ms);
}
