/** The shared harness of the in-engine benchmarks (`npm run bench`). */
export { alternate, measure, spread, type Pair, type Probe, type Run, type Sample } from './rounds';
export { machine, report } from './report';
export { startChildEmulator, type ChildEmulator } from './childEmulator';
