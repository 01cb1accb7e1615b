/**
 * `--record <file>`: appends one JSON line per thing received, written synchronously so a test can read
 * the file the moment it has seen the response. Entries:
 *   {"seq":1,"t":1730000000000,"kind":"message","message":{...}}            a parsed message or batch
 *   {"seq":2,"t":...,"kind":"unparsable","text":"{oops"}                   input that was not JSON
 *   {"seq":3,"t":...,"kind":"http","method":"POST","path":"/mcp","sessionId":"..."|null,
 *    "protocolVersion":"2025-06-18"|null,"origin":null,"accept":"...","contentType":"..."}   HTTP only,
 *    written before the messages of that request
 * HTTP message entries also carry "sessionId".
 */
import { appendFileSync } from 'node:fs';

export type Recorder = (entry: Record<string, unknown>) => void;

export function createRecorder(file: string | undefined): Recorder {
  if (!file) return () => {};
  let seq = 0;
  return (entry) => {
    seq += 1;
    appendFileSync(file, `${JSON.stringify({ seq, t: Date.now(), ...entry })}\n`);
  };
}
