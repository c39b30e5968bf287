/** Moved to the shared execution module; kept so that existing imports still resolve. */
export { runPool } from '../../shared/execution/pool';
