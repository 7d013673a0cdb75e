/**
 * MONITOR on one Redis server over a plain socket: every command the server runs (scripts' own
 * included), as its arguments. Not ioredis's monitor(): when a MONITOR line arrives in the same
 * read as the command's `+OK`, ioredis takes it for a reply to nothing and emits "Command queue
 * state error" (seen on a loaded CI run with gateways busy on the same server).
 */
import { connect } from 'node:net';

export interface RedisMonitor {
  /** Each command seen so far, as its arguments (`['evalsha', sha, '2', ...]`), in order. */
  readonly commands: (readonly string[])[];
  close(): void;
}

/** The quoted arguments of one MONITOR line: `+1700000000.123 [0 127.0.0.1:1234] "get" "a\"b"`. */
function argumentsOf(line: string): string[] {
  const args: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"/g)) args.push((match[1] ?? '').replace(/\\(.)/g, '$1'));
  return args;
}

/** `seen` is called with each command as it arrives (several monitors may share one ordered log). */
export function monitorRedis(port: number, seen?: (args: readonly string[]) => void, host = '127.0.0.1'): Promise<RedisMonitor> {
  return new Promise((resolve, reject) => {
    const commands: string[][] = [];
    const socket = connect(port, host);
    let buffered = '';
    let started = false;
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.on('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!started) {
          if (line !== '+OK') return reject(new Error(`MONITOR on ${port} answered ${line}`));
          started = true;
          resolve({ commands, close: () => socket.destroy() });
          continue;
        }
        const args = argumentsOf(line);
        if (!args.length) continue;
        commands.push(args);
        seen?.(args);
      }
    });
  });
}
