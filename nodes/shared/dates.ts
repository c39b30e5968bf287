/** Moved to the parameter kit; kept so that existing imports still resolve. */
export * from './params/dates';
