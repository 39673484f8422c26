// Types of leftovers.js (plain JavaScript: jest's globalTeardown loads it without ts-jest).

export interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** /proc's state letter: 'Z' for a zombie. */
  readonly state: string;
  /** Clock ticks since boot: with the pid, tells a process from a later one given the same pid. */
  readonly start: number;
  readonly command: string;
}
export function processTable(): Proc[];
export function snapshot(table?: Proc[]): string[];
export function groupAlive(pgid: number, table?: Proc[]): boolean;
export function recordGroup(runDir: string, pgid: number, command: string): void;
export function recordedGroups(runDir: string): number[];
export function leftovers(options?: {
  self?: number;
  before?: readonly string[];
  groups?: readonly number[];
  table?: Proc[];
}): Proc[];
export function kill(procs: readonly Proc[], timeoutMs?: number): Promise<Proc[]>;
export function describe(proc: Proc): string;
