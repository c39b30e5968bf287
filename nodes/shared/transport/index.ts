/**
 * The one module that talks to BotDojo. Nodes import from here; no node builds a URL,
 * an Authorization header, a positional body or an API error message itself.
 */
export * from './request';
export * from './errors';
export * from './documents';
export * from './runFlow';
export * from './ndjson';
export * from './exportPages';
export * from './answers';
