/** A logger for tests that keeps every line it is given, for n8n's LoggerProxy or n8n-core's Logger. */
export function lineKeepingLogger(
	lines: string[],
	/** How a line is written: the level, the message and, when given, its metadata. */
	line: (level: string, message: string, meta?: object) => string,
) {
	const keep =
		(level: string) =>
		(message: string, meta?: object): void => {
			lines.push(line(level, message, meta));
		};
	const logger = {
		error: keep('error'),
		warn: keep('warn'),
		info: keep('info'),
		debug: keep('debug'),
		scoped: () => logger,
	};
	return logger;
}
