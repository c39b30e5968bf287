/**
 * Reads the Options of an item into what is sent (only the options the user set) and how the
 * run is read, checking every value before any request.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { LONGEST_WAIT_MS } from '../helpers/runOptions';
import {
	invalidInput,
	JSON_OR_TEXT_HELP,
	jsonOrText,
	parseJsonObject,
	requireText,
	type InputPlace,
	placeOf,
} from '../../shared/validation';
import { evaluationReadsSteps } from '../helpers/evaluationReads';
import { OPTION_NAMES, type RunOptions } from '../helpers/runOptions';
import { NOTHING_SENT } from './input';
import { readToolOutput } from './toolOutput';
import { EVENT_TAGS, LEGACY_FIELDS_UNTIL, SDK_EVENT_TAGS } from './options';

interface OptionValues {
	version?: string;
	override?: { property?: Array<{ path?: string; value?: unknown }> };
	evalRunMode?: string;
	evalRuns?: { run?: Array<{ flowEvalId?: string; externalInput?: unknown }> };
	streaming?: boolean;
	events?: string[];
	output?: 'simplified' | 'raw';
	includeEvents?: boolean;
	includeLogs?: boolean;
	timeout?: number;
	idleTimeout?: number;
	onFlowError?: 'fail' | 'output';
	forwardTokens?: boolean;
	keepCanvasMarkup?: boolean;
	maxAttempts?: number;
	maxRetryWait?: number;
	maxLineMiB?: number;
	concurrency?: number;
}

/** The longest time a timer can wait, in whole seconds (2^31-1 ms: about 24.8 days). */
const LONGEST_SECONDS = Math.floor(LONGEST_WAIT_MS / 1000);

function seconds(place: InputPlace, parameter: string, value: unknown, fallback: number): number {
	const number = value === undefined || value === '' ? fallback : Number(value);
	if (!Number.isFinite(number) || number < 0 || number > LONGEST_SECONDS) {
		throw invalidInput(
			place,
			`Options › ${parameter}`,
			`must be a number of seconds from 0 to ${LONGEST_SECONDS} (about 24 days), but is ${JSON.stringify(value)}`,
			`Enter e.g. ${fallback}. ${NOTHING_SENT}`,
		);
	}
	return Math.round(number * 1000);
}

/** Reads the options of one item and checks them; nothing is sent before this passed. */
export function readRunOptions(ctx: IExecuteFunctions, itemIndex: number): RunOptions {
	const place: InputPlace = placeOf(ctx, itemIndex);
	const values = ctx.getNodeParameter('options', itemIndex, {}) as OptionValues;
	const request: IDataObject = {};
	const streaming = values.streaming ?? true;
	request.stream = streaming ? 'http' : 'none';

	// None chosen means all (so nothing is sent), as does every one chosen.
	const events = values.events;
	if (
		streaming &&
		Array.isArray(events) &&
		events.length > 0 &&
		events.length !== EVENT_TAGS.length
	) {
		request.stream_events = EVENT_TAGS.filter((tag) => events.includes(tag)).flatMap((tag) =>
			SDK_EVENT_TAGS[tag] ? [tag, SDK_EVENT_TAGS[tag]] : [tag],
		);
	}
	if (typeof values.version === 'string' ? values.version.trim() : values.version) {
		request.version = String(values.version).trim();
	}
	const override = readOverride(place, values.override?.property ?? []);
	if (override) request.override = override;
	const evalOptions = readEvalOptions(place, values);
	if (evalOptions) request.evalOptions = evalOptions;

	const maxAttempts = Math.max(1, Math.floor(Number(values.maxAttempts ?? 4)) || 1);
	const tool = readToolOutput(ctx, itemIndex);
	return {
		request,
		streaming,
		simplify:
			values.output !== undefined
				? values.output === 'simplified'
				: (tool.simplify ?? (ctx.getNodeParameter('simplify', itemIndex, true) as boolean)),
		fields: tool.fields,
		legacyOutput: ctx.getNode().typeVersion < LEGACY_FIELDS_UNTIL,
		keepEmptySteps: evaluationReadsSteps(ctx),
		includeEvents: values.includeEvents ?? false,
		includeLogs: values.includeLogs ?? false,
		timeoutMs: seconds(place, OPTION_NAMES.timeout, values.timeout, 300),
		idleTimeoutMs: seconds(place, OPTION_NAMES.idleTimeout, values.idleTimeout, 60),
		onFlowError: values.onFlowError ?? 'fail',
		forwardTokens: values.forwardTokens ?? true,
		keepCanvasMarkup: values.keepCanvasMarkup ?? false,
		retry: {
			maxAttempts,
			maxTotalWaitMs: seconds(place, OPTION_NAMES.maxRetryWait, values.maxRetryWait, 60),
		},
		maxLineChars: Math.max(1, Number(values.maxLineMiB ?? 16) || 16) * 1024 * 1024,
	};
}

/** The Concurrency option (one value for the whole node, read from the first item). */
export function readConcurrency(ctx: IExecuteFunctions): number {
	const value = ctx.getNodeParameter('options.concurrency', 0, 1) as number;
	return Math.min(50, Math.max(1, Math.floor(Number(value)) || 1));
}

function readOverride(
	place: InputPlace,
	properties: Array<{ path?: string; value?: unknown }>,
): IDataObject | undefined {
	if (properties.length === 0) return undefined;
	// No prototype: a path "__proto__" stays a key of what is sent.
	const override = Object.create(null) as IDataObject;
	properties.forEach((property, index) => {
		const path = requireText(
			place,
			`Options › ${OPTION_NAMES.override} › property ${index + 1} › ${OPTION_NAMES.overridePath}`,
			property.path,
			`Give the node path and the property name, e.g. llm_1.temperature. ${NOTHING_SENT}`,
		);
		override[path] = jsonOrText(
			place,
			`Options › ${OPTION_NAMES.override} › "${path}"`,
			property.value,
			`${JSON_OR_TEXT_HELP} ${NOTHING_SENT}`,
		) as IDataObject[string];
	});
	return override;
}

function readEvalOptions(place: InputPlace, values: OptionValues): IDataObject | undefined {
	const runs = values.evalRuns?.run ?? [];
	if (values.evalRunMode === undefined && runs.length === 0) return undefined;
	const evalOptions: IDataObject = { runMode: values.evalRunMode ?? 'async' };
	if (runs.length > 0) {
		evalOptions.runs = runs.map((run, index) => {
			const label = `Options › ${OPTION_NAMES.evalRuns} › evaluation ${index + 1}`;
			const entry: IDataObject = {
				flowEvalId: requireText(
					place,
					`${label} › ${OPTION_NAMES.flowEvalId}`,
					run.flowEvalId,
					`Enter the flow ID of the evaluation. ${NOTHING_SENT}`,
				),
			};
			const input = run.externalInput;
			if (input !== undefined && input !== null && input !== '') {
				entry.flowEvalExternalInput = parseJsonObject(
					place,
					`${label} › ${OPTION_NAMES.externalInput}`,
					input,
					`Give a JSON object, e.g. {"expected": "a polite answer"}, or leave it empty. ${NOTHING_SENT}`,
				);
			}
			return entry;
		});
	}
	return evalOptions;
}
