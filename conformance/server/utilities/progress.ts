/**
 * Progress (basic/utilities/progress), judged over the whole run: every notifications/progress the
 * server sent, session by session, against the progress tokens the suite sent. The suite asks for
 * progress on every tool call it makes (--call-tools); without calls there is usually nothing to judge.
 */
import {
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  EVERY_VERSION,
  fail,
  NotApplicable,
  pass,
} from '../check.js';
import type { CheckContext } from '../run/context.js';
import { type Inbound, idKey, notificationsOf, progressTokens, responseAt } from '../run/conversation.js';
import { isObject } from '../run/session.js';

/** The page moved (2026-07-28: basic/patterns); its rules did not, so each check runs in both eras. */
function progressSource(section: string): string {
  return `MCP 2025-11-25 basic/utilities/progress (${section}); MCP 2026-07-28 basic/patterns/progress (${section})`;
}
const base = {
  section: 'progress',
  versions: EVERY_VERSION,
  eras: BOTH_ERAS,
  transports: BOTH_TRANSPORTS,
  judgesWholeRun: true,
} as const;

interface SessionProgress {
  notifications: Inbound[];
  tokens: ReturnType<typeof progressTokens>;
  log: CheckContext['sessions'][number]['log'];
}

function progressBySession(ctx: CheckContext): SessionProgress[] {
  ctx.session();
  const sessions = ctx.sessions.map((session) => ({
    notifications: notificationsOf(session.log, 'notifications/progress'),
    tokens: progressTokens(session.log),
    log: session.log,
  }));
  const count = sessions.reduce((sum, s) => sum + s.notifications.length, 0);
  if (count === 0)
    throw new NotApplicable(
      'nothing to judge: no notifications/progress came in this run (a server MAY send none)',
    );
  return sessions;
}

/**
 * A task-augmented request (2025-11-25 tasks) answered with a result that is no ordinary one (no
 * `content`): a task was created, whatever the shape of its CreateTaskResult (tasks.create-result judges
 * that).
 */
function createsTask(request: unknown, response: unknown): boolean {
  if (!isObject(request) || !isObject(request.params) || !isObject(request.params.task)) return false;
  return isObject(response) && isObject(response.result) && !Array.isArray(response.result.content);
}

function tokenOf(entry: Inbound): unknown {
  return isObject(entry.message.params) ? entry.message.params.progressToken : undefined;
}

/** Notifications whose token the suite sent (earlier, in the same session). */
function known(session: SessionProgress): Inbound[] {
  return session.notifications.filter((entry) => {
    const request = session.tokens.get(idKey(tokenOf(entry)));
    return request !== undefined && request.at < entry.at;
  });
}

export const progressChecks: Check[] = [
  {
    ...base,
    id: 'progress.known-tokens',
    level: 'MUST',
    title: 'progress notifications name only tokens the client sent',
    requirement:
      'Progress notifications MUST only reference tokens that: Were provided in an active request; Are associated with an in-progress operation.',
    source: progressSource('Behavior Requirements'),
    async run(ctx) {
      let count = 0;
      for (const session of progressBySession(ctx)) {
        const foreign = session.notifications.filter((entry) => !known(session).includes(entry));
        if (foreign[0])
          return fail(
            `${foreign.length} progress notification(s) name a token the client never sent in that session`,
            `one of ${session.tokens.size} token(s) the client sent`,
            brief(foreign[0].message),
          );
        count += session.notifications.length;
      }
      return pass(`${count} notification(s)`);
    },
  },
  {
    ...base,
    id: 'progress.increasing',
    level: 'MUST',
    title: 'the progress value increases with each notification of a token',
    requirement: 'The progress value MUST increase with each notification, even if the total is unknown.',
    source: progressSource('Progress Flow'),
    async run(ctx) {
      let tokens = 0;
      for (const session of progressBySession(ctx)) {
        const last = new Map<string, number>();
        for (const entry of known(session)) {
          const params = isObject(entry.message.params) ? entry.message.params : {};
          const key = idKey(params.progressToken);
          const value = params.progress;
          if (typeof value !== 'number') continue; // not a number: the schema checks say so
          const before = last.get(key);
          if (before !== undefined && !(value > before))
            return fail(
              `progress for token ${String(params.progressToken)} went from ${before} to ${value}`,
              `a value above ${before}`,
              brief(entry.message),
            );
          last.set(key, value);
        }
        tokens += last.size;
      }
      return pass(`${tokens} token(s) with progress`);
    },
  },
  {
    ...base,
    id: 'progress.stops-after-completion',
    level: 'MUST',
    title: 'no progress notification for a request after its response',
    requirement: 'Progress notifications MUST stop after completion.',
    source: progressSource('Implementation Notes'),
    async run(ctx) {
      for (const session of progressBySession(ctx)) {
        for (const entry of known(session)) {
          const request = session.tokens.get(idKey(tokenOf(entry)));
          const answered = request ? responseAt(session.log, request.id) : null;
          // A task-augmented request is answered with a CreateTaskResult and goes on as a task: its
          // progress rightly continues, until the task is terminal (tasks.progress-stops judges that).
          const sent = request ? session.log[request.at]?.message : undefined;
          if (answered !== null && createsTask(sent, session.log[answered]?.message)) continue;
          if (answered !== null && answered < entry.at)
            return fail(
              `progress for token ${String(tokenOf(entry))} came after the response to its request`,
              'progress only before the response',
              brief(entry.message),
            );
        }
      }
      return pass();
    },
  },
];
