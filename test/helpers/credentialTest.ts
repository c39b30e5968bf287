/**
 * Presses the credential's Test button the way n8n's CLI does (n8n 2.40.7,
 * `n8n/dist/services/credentials-tester.service.js`): a credential's own `test` would win; without
 * one, the first node that lists the credential with a `testedBy` name supplies the function
 * from its `methods.credentialTest`, and it is called on n8n-core's real CredentialTestContext
 * (whose only HTTP helper is the legacy `request`, sent through n8n's outbound HTTP client).
 */
import { CredentialTestContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	INodeCredentialTestResult,
	INodeType,
} from 'n8n-workflow';

import { additionalData, nodeTypes, type BotDojoCredentialData } from './engine';
import { credentialType, NODE_NAMES, PACKAGE } from './nodeTypes';

/** The test function n8n picks for the credential, with the node it came from. */
export function credentialTestFunction(): { node: string; test: ICredentialTestFunction } {
	if ('test' in credentialType)
		throw new Error('the credential has its own declarative test, which n8n would use');
	for (const name of NODE_NAMES) {
		const nodeType = nodeTypes.getByNameAndVersion(`${PACKAGE}.${name}`) as INodeType;
		for (const { name: credential, testedBy } of nodeType.description.credentials ?? []) {
			if (credential !== credentialType.name || typeof testedBy !== 'string') continue;
			const test = nodeType.methods?.credentialTest?.[testedBy];
			if (!test) throw new Error(`${name} names testedBy "${testedBy}" but has no such method`);
			return { node: name, test };
		}
	}
	throw new Error('No testing function found for this credential.');
}

export async function testCredential(
	data: BotDojoCredentialData,
): Promise<INodeCredentialTestResult> {
	const { test } = credentialTestFunction();
	const context = new CredentialTestContext(additionalData({}));
	return await test.call(context, {
		id: 'tested',
		name: 'tested',
		type: credentialType.name,
		data: data as unknown as ICredentialDataDecryptedObject,
	});
}
