/**
 * When a signed link stops working: a number of minutes from now, or a date. Either way it
 * must lie in the future; BotDojo gets it as ISO 8601 UTC with milliseconds.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readDateValue } from '../../shared/params/dates';
import { invalidInput, type InputPlace } from '../../shared/validation';

const show = (expiresMode: string) => ({ show: { expiresMode: [expiresMode] } });

const EXPIRES_IN: INodeProperties = {
	displayName: 'Expires In (Minutes)',
	name: 'expiresInMinutes',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 60,
	displayOptions: show('minutes'),
	description: 'Minutes from now until the link stops working, at least 1',
};

const EXPIRES_AT: INodeProperties = {
	displayName: 'Expires At',
	name: 'expiresAt',
	type: 'dateTime',
	default: '',
	displayOptions: show('date'),
	description:
		"When the link stops working; must be in the future. A date without a time zone is read in the workflow's time zone.",
};

export const expiryProperties: INodeProperties[] = [
	{
		displayName: 'Expires',
		name: 'expiresMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'In Minutes', value: 'minutes', description: 'A number of minutes from now' },
			{ name: 'At a Date', value: 'date', description: 'A date and time' },
		],
		default: 'minutes',
		description: 'When the link stops working',
	},
	EXPIRES_IN,
	EXPIRES_AT,
];

/** The latest time a JavaScript date can hold. */
const LATEST_DATE_MS = 8.64e15;

/** The expiry of the current item's link, in epoch milliseconds. */
export function readExpiry(ctx: IExecuteFunctions, place: InputPlace, now: number): number {
	const mode = ctx.getNodeParameter('expiresMode', place.itemIndex, 'minutes') as string;
	if (mode === 'minutes') {
		const value = ctx.getNodeParameter(EXPIRES_IN.name, place.itemIndex, 60) as unknown;
		const minutes = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		const refuse = (why: string) =>
			invalidInput(
				place,
				EXPIRES_IN.displayName,
				`is ${JSON.stringify(value)}, ${why}`,
				'Enter a number of minutes, 1 or more, e.g. 60.',
			);
		// The field's minimum (1) is what is accepted, from an expression too.
		if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes < 1) {
			throw refuse(
				typeof minutes === 'number' && minutes > 0
					? 'less than the shortest link, 1 minute'
					: 'so the link would already have expired',
			);
		}
		// A date holds at most 8.64e15 ms: later, the link's expiry could not even be written.
		if (now + minutes * 60_000 > LATEST_DATE_MS) throw refuse('later than any date can be');
		return now + Math.round(minutes * 60_000);
	}
	const value = ctx.getNodeParameter(EXPIRES_AT.name, place.itemIndex, '') as unknown;
	const reading = readDateValue(value, ctx.getTimezone());
	const at = reading && 'ms' in reading ? reading.ms : undefined;
	const refuse = (problem: string) =>
		invalidInput(
			place,
			EXPIRES_AT.displayName,
			problem,
			'Give a date and time after now, e.g. 2030-01-31T18:00:00Z or {{ $now.plus(1, "day") }}.',
		);
	if (at === undefined) throw refuse(`is not a date (${JSON.stringify(value)})`);
	if (at <= now) {
		throw refuse(
			`is in the past (${new Date(at).toISOString()}, now is ${new Date(now).toISOString()})`,
		);
	}
	return at;
}
