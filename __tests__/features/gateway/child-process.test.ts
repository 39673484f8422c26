// A stdio child's input: the lines written in one turn of the event loop leave together, whole and in order, and lines written later still go out.

import { startStdioProcess, type StdioProcess } from '../../../lib/features/gateway/stdio/child-process';
import { Signal } from '../../helpers/events';

/** Echoes each chunk it reads after a line `#` that marks one read of its input. */
const ECHO = `process.stdin.on('data', (chunk) => process.stdout.write(Buffer.concat([Buffer.from('#\\n'), chunk])));`;

const started: StdioProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.stop()));
});

/** Starts the echo child; `lines` collects what it writes back, `ended` fires when it has exited. */
async function echo(): Promise<{ child: StdioProcess; lines: string[]; grew: Signal }> {
  const lines: string[] = [];
  const grew = new Signal();
  let held = '';
  const child = startStdioProcess(
    { command: process.execPath, args: ['-e', ECHO] },
    {
      onStdout: (chunk) => {
        const parts = (held + chunk.toString('utf8')).split('\n');
        held = parts.pop() ?? '';
        lines.push(...parts);
        grew.notify();
      },
      onStderr: () => undefined,
      onEnd: () => undefined,
    },
  );
  started.push(child);
  await child.started;
  return { child, lines, grew };
}

describe('stdio child input', () => {
  it('writes 200 lines of one turn whole and in order, in fewer reads than lines', async () => {
    const { child, lines, grew } = await echo();
    const sent = Array.from({ length: 200 }, (_, index) =>
      JSON.stringify({ jsonrpc: '2.0', id: index, method: 'ping' }),
    );
    for (const line of sent) expect(child.writeLine(line)).toBe('written');
    const echoed = (): string[] => lines.filter((line) => line !== '#');
    await grew.when(() => echoed().length === sent.length, 'the 200 lines echoed');
    expect(echoed()).toEqual(sent);
    expect(lines.filter((line) => line === '#').length).toBeLessThan(sent.length);
  });

  it('writes lines of later turns too, each turn after the one before', async () => {
    const { child, lines, grew } = await echo();
    const echoed = (): string[] => lines.filter((line) => line !== '#');
    for (let turn = 0; turn < 5; turn++) {
      child.writeLine(`a${turn}`);
      child.writeLine(`b${turn}`);
      await grew.when(() => echoed().length === 2 * (turn + 1), `turn ${turn}'s lines`);
    }
    expect(echoed()).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4', 'b4']);
  });
});
