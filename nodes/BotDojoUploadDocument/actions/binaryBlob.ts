/**
 * An n8n binary as a Blob for a multipart body, holding the file in memory once at most.
 */
import { BINARY_ENCODING, type IBinaryData, type IExecuteFunctions } from 'n8n-workflow';

/** Read size for binaries kept outside the item: a few dozen Blob parts for a large file. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * A binary that n8n keeps outside the item (filesystem, S3, database mode: it has an `id`) is
 * streamed, each chunk becoming a Blob part: a Blob made of Blobs references them without
 * copying, so the file never sits in memory both as one Buffer and as the Blob.
 */
export async function binaryAsBlob(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
	type: string,
): Promise<Blob> {
	if (binary.id) {
		const stream = await ctx.helpers.getBinaryStream(binary.id, CHUNK_BYTES);
		const parts: Blob[] = [];
		for await (const chunk of stream) parts.push(new Blob([chunk as Uint8Array<ArrayBuffer>]));
		return new Blob(parts, { type });
	}
	// Without an id the file is in the item itself, base64-encoded.
	const buffer = Buffer.from(binary.data, BINARY_ENCODING);
	// Node's Buffers are never backed by a SharedArrayBuffer here; the cast only narrows the type.
	return new Blob([buffer as Uint8Array<ArrayBuffer>], { type });
}
