/**
 * What a check gets to work with: the negotiated version, the shared initialized session, fresh
 * sessions of its own, validators, and a memo for facts several checks share (the tool list).
 *
 * Sessions a check opens are closed when the check ends; memoised scenarios live until the suite ends.
 */

import { type ProtocolValidators, validatorsFor } from '../../../src/protocol/validate.js';
import {
  featuresOf,
  isProtocolVersion,
  type KnownProtocolVersion,
  type ProtocolEra,
  type ProtocolVersion,
} from '../../../src/protocol/versions.js';
import { errorText } from '../../../src/util/error-text.js';
import { NotApplicable } from '../check-errors.js';
import { type Channel, HttpChannel, openChannel, StdioChannel } from '../probe/channel.js';
import type { RawProcess } from '../probe/stdio.js';
import { CLIENT_INFO } from './client-info.js';
import { ModernSession, stampModern } from './modern-client.js';
import { isObject, type JsonObject, type LoggedMessage, type Reply, Session } from './session.js';
import type { Target, TransportKind } from './target.js';
import { type Waits, waitsFor } from './timing.js';
import { recordingWire, WireRecorder } from './wire.js';

export interface SuiteSettings {
  target: Target;
  /**
   * The version to vet against; when absent, the newest the server accepts in each era it speaks. A
   * legacy version vets the legacy era only, a modern one (2026-07-28) the modern era only.
   */
  specVersion?: KnownProtocolVersion;
  timeoutMs: number;
  callTools: boolean;
  fuzz: number;
}

/** The outcome of an initialize handshake, successful or not. */
export interface InitInfo {
  proposed: string;
  reply: Reply | null;
  /** Why there is no result: timeout, closed connection, error response. */
  error: string | null;
  result: JsonObject | null;
  protocolVersion: string | null;
  /** Replies that arrived to `notifications/initialized` (there must be none). */
  initializedReplies: JsonObject[];
}

// In a module of its own, so the modern session (which the context creates) can name it without a circle.
export { CLIENT_INFO };

/** initialize → notifications/initialized → a sentinel ping that proves the notification was processed. */
export async function initialize(
  session: Session,
  proposed: string,
  capabilities: JsonObject = {},
): Promise<InitInfo> {
  const info: InitInfo = {
    proposed,
    reply: null,
    error: null,
    result: null,
    protocolVersion: null,
    initializedReplies: [],
  };
  try {
    info.reply = await session.request('initialize', {
      protocolVersion: proposed,
      capabilities,
      clientInfo: CLIENT_INFO,
    });
  } catch (error) {
    info.error = errorText(error);
    return info;
  }
  const message = info.reply.message;
  if (!isObject(message.result)) {
    info.error = `initialize answered with an error: ${JSON.stringify(message.error ?? null).slice(0, 200)}`;
    return info;
  }
  info.result = message.result;
  const version = message.result.protocolVersion;
  info.protocolVersion = typeof version === 'string' ? version : null;
  if (isProtocolVersion(version) && featuresOf(version).protocolVersionHeader) {
    session.channel.setProtocolVersion(version);
  }
  const before = session.orphans.length;
  await session.notify('notifications/initialized');
  try {
    await session.ping();
  } catch {
    // Judged by the ping checks; here we only needed the ordering.
  }
  // A late reply to an earlier request (its id is one we sent) is no reply to the notification.
  info.initializedReplies = session.unsolicited(session.orphans.slice(before));
  return info;
}

/** Protocol versions are dates (YYYY-MM-DD); any such string may be a version some server speaks. */
export function isVersionShaped(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** What the `server/discover` probe found (modern era). */
export interface DiscoverInfo {
  reply: Reply | null;
  /** The DiscoverResult, when the server answered with one. */
  result: JsonObject | null;
  /** Why there is no result (a modern error such as -32020, a timeout). */
  error: string | null;
}

/**
 * The modern era's stand-in for the handshake's outcome, from `server/discover`: checks written for both
 * eras read the server's capabilities, info and instructions from `ctx.init.result` in either era.
 */
export function initFromDiscover(version: string, discover: DiscoverInfo): InitInfo {
  const found = discover.result;
  const result: JsonObject | null = found
    ? {
        protocolVersion: version,
        capabilities: isObject(found.capabilities) ? found.capabilities : {},
        ...(found.serverInfo === undefined ? {} : { serverInfo: found.serverInfo }),
        ...(found.instructions === undefined ? {} : { instructions: found.instructions }),
      }
    : null;
  return {
    proposed: version,
    reply: discover.reply,
    error: found ? null : (discover.error ?? 'server/discover gave no result'),
    result,
    protocolVersion: found ? version : null,
    initializedReplies: [],
  };
}

/** The era a context vets, and the version it vets it at. */
export interface EraSettings {
  era: ProtocolEra;
  protocolVersion: KnownProtocolVersion;
  /** Modern era: the probe's outcome, on the shared modern session. */
  discover?: DiscoverInfo;
  /** Every era the server speaks (a modern-only server owes the modern HTTP answers to legacy traffic). */
  serverEras?: readonly ProtocolEra[];
}

export class CheckContext {
  readonly runLog: LoggedMessage[] = [];
  /** Every stdio process this run started, for checks over stdout hygiene. */
  readonly probes: RawProcess[] = [];
  /** Every HTTP channel this run opened, for checks over how each exchange was answered. */
  readonly httpChannels: HttpChannel[] = [];
  readonly metrics: Record<string, number | string | null> = {};
  /** Every session of the run (the shared one first), for checks that judge each conversation apart. */
  readonly sessions: Session[] = [];
  readonly validators: ProtocolValidators;
  /** Sessions opened with scope 'check'; each check's view (`forCheck`) has a list of its own. */
  private checkSessions: Session[] = [];
  private readonly suiteSessions: Session[] = [];
  private readonly memos = new Map<string, Promise<unknown>>();
  /** The era this context vets (one context per era the server speaks). */
  readonly era: ProtocolEra;
  /** The version checks run at: `version` in the legacy era, the modern version in the modern era. */
  readonly protocolVersion: KnownProtocolVersion;
  readonly discover: DiscoverInfo | null;
  readonly serverEras: readonly ProtocolEra[];

  constructor(
    readonly settings: SuiteSettings,
    /**
     * The negotiated legacy version. In the modern era: the newest legacy version, whose shapes (JSON
     * Schema dialect, tool names, content blocks) 2026-07-28 keeps; modern checks use `protocolVersion`.
     */
    readonly version: ProtocolVersion,
    private readonly shared: Session,
    readonly init: InitInfo,
    eraSettings: EraSettings = { era: 'legacy', protocolVersion: version },
  ) {
    this.era = eraSettings.era;
    this.protocolVersion = eraSettings.protocolVersion;
    this.discover = eraSettings.discover ?? null;
    this.serverEras = eraSettings.serverEras ?? [this.era];
    // Checks written for both eras send plain requests; in the modern era those carry the `_meta`.
    if (this.era === 'modern') stampModern(shared, this.protocolVersion);
    this.suiteSessions.push(shared);
    this.sessions.push(shared);
    shared.joinRunLog(this.runLog);
    this.trackProbe(shared.channel);
    this.validators = validatorsFor(this.protocolVersion);
  }

  /** Modern era: the shared session the probe opened, sending the per-request `_meta`. */
  modern(): ModernSession {
    if (this.era !== 'modern') throw new NotApplicable('not a modern-era run');
    const gone = this.sharedGone();
    if (gone !== null) throw new NotApplicable(`the shared session is gone (${gone})`);
    return new ModernSession(this.shared, this.protocolVersion);
  }

  /** Modern era: the server's capabilities from `server/discover` (empty when it gave none). */
  get modernCapabilities(): JsonObject {
    const caps = this.discover?.result?.capabilities;
    return isObject(caps) ? caps : {};
  }

  /** Modern era: a fresh connection (its own process on stdio), closed at the end of the check. */
  async openModern(scope: 'check' | 'suite' = 'check'): Promise<ModernSession> {
    return new ModernSession(await this.open(scope), this.protocolVersion);
  }

  get transport(): TransportKind {
    return this.settings.target.transport;
  }

  get timeoutMs(): number {
    return this.settings.timeoutMs;
  }

  /** Grace periods and other internal waits, derived from the step timeout. */
  get waits(): Waits {
    return waitsFor(this.settings.timeoutMs);
  }

  get capabilities(): JsonObject {
    const caps = this.era === 'modern' ? this.discover?.result?.capabilities : this.init.result?.capabilities;
    return isObject(caps) ? caps : {};
  }

  /**
   * The shared initialized session. Checks that need it do not apply when initialize failed. In the
   * modern era: the shared session, stamped with the per-request `_meta` (there is no handshake; it is
   * usable when `server/discover` answered).
   */
  session(): Session {
    if (this.era === 'modern' && !this.discover?.result)
      throw new NotApplicable(`server/discover gave no result (${this.discover?.error ?? 'unknown'})`);
    if (!this.init.result)
      throw new NotApplicable(`no initialized session (${this.init.error ?? 'unknown'})`);
    const gone = this.sharedGone();
    if (gone !== null) throw new NotApplicable(`the shared session is gone (${gone})`);
    return this.shared;
  }

  /** Why the shared session is gone right now, or null while it lives (for the scheduler). */
  sharedClosedReason(): string | null {
    return this.shared.closedReason;
  }

  /**
   * Why the shared session is gone, or null while it lives. A view for a check that runs beside others
   * (`forCheck`) answers as the session stood at that check's place in the sequential order instead.
   */
  private sharedGone(): string | null {
    return this.shared.closedReason;
  }

  /**
   * A view of this context for one check. Everything of the run is shared with it (logs, memos, sessions,
   * metrics, the shared session); what is per check is its own: the sessions it opens with scope 'check'
   * (closed by its `endCheck`, never a neighbour's) and the memos it used. `sharedGone`, when given,
   * replaces how the view tells whether the shared session is gone (scheduling.ts: SharedGate).
   */
  forCheck(sharedGone?: () => string | null): CheckContext {
    const view = Object.create(this) as CheckContext;
    view.checkSessions = [];
    view.memosUsed = new Set();
    if (sharedGone) view.sharedGone = sharedGone;
    return view;
  }

  /** The shared session's process, on stdio. */
  sharedProbe(): RawProcess | null {
    return this.shared.channel instanceof StdioChannel ? this.shared.channel.probe : null;
  }

  sharedHttp(): HttpChannel | null {
    return this.shared.channel instanceof HttpChannel ? this.shared.channel : null;
  }

  requireCapability(name: string): JsonObject {
    this.session();
    const capability = this.capabilities[name];
    if (!isObject(capability)) throw new NotApplicable(`the server does not declare the ${name} capability`);
    return capability;
  }

  /**
   * A new, uninitialized session: its own process on stdio, a new HTTP session otherwise.
   * `scope: 'check'` closes it when the current check ends; `'suite'` at the end of the run.
   */
  async open(scope: 'check' | 'suite' = 'check'): Promise<Session> {
    const channel = await openChannel(this.settings.target, this.timeoutMs);
    this.trackProbe(channel);
    const session = new Session(channel, this.timeoutMs, this.runLog);
    if (this.era === 'modern') stampModern(session, this.protocolVersion);
    (scope === 'check' ? this.checkSessions : this.suiteSessions).push(session);
    this.sessions.push(session);
    return session;
  }

  /** A new session, initialized at the run's version. */
  async openInitialized(scope: 'check' | 'suite' = 'check'): Promise<{ session: Session; init: InitInfo }> {
    const session = await this.open(scope);
    // The modern era has no handshake: a fresh stamped connection is ready as it is.
    if (this.era === 'modern') return { session, init: this.init };
    const init = await initialize(session, this.version);
    if (!init.result) throw new NotApplicable(`a fresh session did not initialize (${init.error})`);
    return { session, init };
  }

  /**
   * `--verbose`: the wire transcript of each memoised scenario, and the scenarios the current check used,
   * so a check that fails on a scenario an earlier check ran still shows the exchange it judged.
   */
  readonly memoWire = new Map<string, { http: WireRecorder; from: number; to: number }>();
  memosUsed = new Set<string>();

  /** Runs `compute` once per suite; later callers get the same promise (and the same failure). */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    this.memosUsed.add(key);
    let value = this.memos.get(key) as Promise<T> | undefined;
    if (!value) {
      const wire = { http: new WireRecorder(), from: this.runLog.length, to: this.runLog.length };
      this.memoWire.set(key, wire);
      value = recordingWire(wire.http, compute).finally(() => {
        wire.to = this.runLog.length;
      });
      // The caller that awaits handles a failure; an unobserved memo must not crash the process.
      value.catch(() => {});
      this.memos.set(key, value);
    }
    return value;
  }

  async endCheck(): Promise<void> {
    const sessions = this.checkSessions.splice(0);
    await Promise.all(sessions.map((session) => session.close()));
  }

  async endSuite(): Promise<void> {
    await this.endCheck();
    const sessions = this.suiteSessions.splice(0);
    await Promise.all(sessions.map((session) => session.close()));
  }

  private trackProbe(channel: Channel): void {
    if (channel instanceof StdioChannel) this.probes.push(channel.probe);
    if (channel instanceof HttpChannel) this.httpChannels.push(channel);
  }
}
