'use strict';
/**
 * What Export Requests › CSV File must hold for an emulator record, read off the record itself
 * (not through the node's code): shared by the engine tests and the real-n8n check.
 */

/**
 * A text cell as a spreadsheet must get it: formula-like text (OWASP: = + - @ tab CR, NUL; also
 * = + - @ after white space, which LibreOffice's "Trim spaces" strips) starts with an apostrophe.
 */
function shownCell(value) {
	if (value === null || value === undefined) return '';
	return typeof value === 'string' && /^(?:[\t\r\0]|\s*[=+\-@])/.test(value)
		? `'${value}`
		: String(value);
}

/** The CSV row (the Simplify columns, in order) of an emulator flow request record. */
function expectedCsvRow(record) {
	const failed = record.status === 'error';
	return [
		record.id,
		record.flow_id,
		record.flow_session_id,
		record.status,
		record.userMessage.content,
		failed ? record.aiMessage.content || null : record.response.text_output,
		failed ? record.response.error : null,
		record.startTime,
		record.endTime,
		record.duration,
		record.modified,
		record.version,
	].map(shownCell);
}

module.exports = { shownCell, expectedCsvRow };
