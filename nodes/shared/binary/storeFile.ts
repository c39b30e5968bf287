/**
 * Every file a node outputs goes into n8n's binary data here. n8n's database binary mode (queue
 * mode's default in n8n 2.x) keeps at most N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB per file and
 * refuses a larger one before storing anything. Community nodes may not read the environment, so
 * the cap is known from n8n's own refusal, reworded here with the way around it.
 */
import { NodeOperationError, type IBinaryData, type IExecuteFunctions } from 'n8n-workflow';

/** A file body as n8n's helper takes it (a Buffer, or a chunkStream cast to its type). */
export type FileBody = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

/** n8n-core's FileTooLargeError: "…exceeds the max size limit of 512 MB set for `database` mode…". */
const DATABASE_CAP = /exceeds the max size limit of ([\d.]+) MB set for `database` mode/;

interface FileToStore {
	fileName: string;
	mimeType: string;
	itemIndex: number;
	/** What the user can do instead, in the node's own terms. */
	wayAround: string;
}

export async function storeFile(
	ctx: IExecuteFunctions,
	body: FileBody,
	file: FileToStore,
): Promise<IBinaryData> {
	try {
		return await ctx.helpers.prepareBinaryData(body, file.fileName, file.mimeType);
	} catch (error) {
		throw beyondDatabaseCap(ctx, error, file) ?? error;
	}
}

/** n8n's refusal of a file beyond its database cap, reworded; undefined for any other error. */
function beyondDatabaseCap(ctx: IExecuteFunctions, error: unknown, file: FileToStore) {
	const cap = error instanceof Error ? DATABASE_CAP.exec(error.message)?.[1] : undefined;
	if (cap === undefined) return undefined;
	return new NodeOperationError(
		ctx.getNode(),
		`The file "${file.fileName}" is larger than the ${cap} MiB n8n keeps per file`,
		{
			itemIndex: file.itemIndex,
			description: `n8n stores files in its database (queue mode's default binary data mode), at most N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB each (here ${cap}; n8n allows up to 1024). ${file.wayAround} Or ask your n8n admin to raise N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE on every n8n process, or to use S3 binary storage.`,
		},
	);
}
