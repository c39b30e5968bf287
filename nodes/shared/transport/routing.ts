/**
 * Declarative nodes: the routing engine sends the request, these hooks give it the same
 * URL, positional body and error mapping as the programmatic nodes.
 */
import {
	type IDataObject,
	type IExecuteSingleFunctions,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type INodeExecutionData,
} from 'n8n-workflow';

import { apiError } from './errors';
import {
	header,
	positionalBody,
	projectUrl,
	readCredentials,
	unwrapResults,
	type Endpoint,
	type FullResponse,
	type RequestSubject,
} from './request';

/** preSend hook: POST to `endpoint` with the positional body built from the node's parameters. */
export function positionalPreSend(
	endpoint: Endpoint,
	buildParams: (this: IExecuteSingleFunctions) => unknown[] | Promise<unknown[]>,
): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const credentials = await readCredentials(this);
		return {
			...requestOptions,
			method: 'POST',
			url: projectUrl(credentials, endpoint),
			baseURL: undefined,
			body: positionalBody(await buildParams.call(this)),
			json: true,
			ignoreHttpStatusErrors: true,
		};
	};
}

type PreSendAction = (
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
) => Promise<IHttpRequestOptions>;

/**
 * postReceive hook: a failed answer becomes the same NodeApiError the programmatic nodes raise;
 * a good one is unwrapped from `{ results }` into one item per array element (or one item).
 */
export function positionalPostReceive(
	subjectOf: (this: IExecuteSingleFunctions) => RequestSubject,
) {
	return async function (
		this: IExecuteSingleFunctions,
		_items: INodeExecutionData[],
		response: IN8nHttpFullResponse,
	): Promise<INodeExecutionData[]> {
		if (response.statusCode >= 400) {
			const credentials = await readCredentials(this);
			throw apiError(
				this,
				response.statusCode,
				response.body,
				credentials,
				{ subject: subjectOf.call(this), itemIndex: this.getItemIndex() },
				{
					attempts: 1,
					retryAfter: header(response.headers as FullResponse['headers'], 'retry-after'),
				},
			);
		}
		const answer = unwrapResults(response.body);
		const list = Array.isArray(answer) ? answer : [answer];
		return list.map((json) => ({
			json:
				json !== null && typeof json === 'object'
					? (json as IDataObject)
					: { value: json as string },
		}));
	};
}
