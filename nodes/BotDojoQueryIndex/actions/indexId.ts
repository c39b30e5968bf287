/**
 * Index ID as a resource locator with one mode, By ID. There is no By URL mode: neither the
 * API spec nor the facts about BotDojo give the address of an index page, and guessing one would
 * refuse real addresses. As a locator, the parameter can gain a mode later (By URL, or a list)
 * without changing its type again. Workflows saved with the plain string keep working.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { idLocatorProperty, requireLocatorId, type IdLocator } from '../../shared/params/idLocator';
import { placeOf } from '../../shared/validation';

const INDEX_ID: IdLocator = {
	displayName: 'Index ID',
	inSentence: 'an index ID',
	name: 'indexId',
	help: 'Enter the ID of an index of this project, e.g. idx_docs.',
};

export const indexIdField: INodeProperties = idLocatorProperty(
	INDEX_ID,
	'ID of the vector index in your BotDojo project. Open the index under Indexes in BotDojo; its ID is shown on the index page.',
	'e.g. idx_docs',
);

export function readIndexId(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = ctx.getNodeParameter('indexId', itemIndex, '');
	return requireLocatorId(placeOf(ctx, itemIndex), INDEX_ID, value);
}
