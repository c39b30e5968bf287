import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** Errors already shaped for the user: the transport's NodeApiError or a validation error. */
export function isNodeError(value: unknown): value is NodeApiError | NodeOperationError {
	return value instanceof NodeApiError || value instanceof NodeOperationError;
}
