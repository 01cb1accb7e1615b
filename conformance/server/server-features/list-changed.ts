/**
 * `notifications/<feature>/list_changed` only from a server that declared `<feature>.listChanged`,
 * judged over every session of the run (one check per feature, in that feature's section).
 */
import {
  ALL_VERSIONS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  fail,
  LEGACY_ONLY,
  NotApplicable,
  pass,
} from '../check.js';
import { declaredCapabilities, notificationsOf } from '../run/conversation.js';
import { isObject } from '../run/session.js';

const NEGOTIATED =
  'Both parties MUST: Respect the negotiated protocol version; Only use capabilities that were successfully negotiated.';

export function listChangedCheck(feature: 'tools' | 'resources' | 'prompts'): Check {
  const method = `notifications/${feature}/list_changed`;
  return {
    id: `${feature}.list-changed-declared`,
    section: feature,
    versions: ALL_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: LEGACY_ONLY,
    judgesWholeRun: true,
    level: 'MUST',
    title: `${method} only when ${feature}.listChanged was declared`,
    requirement: `${NEGOTIATED} (listChanged indicates whether the server will emit notifications when the list of available ${feature} changes.)`,
    source: `MCP 2025-11-25 basic/lifecycle (Operation); server/${feature} (Capabilities)`,
    async run(ctx) {
      ctx.session();
      let count = 0;
      for (const session of ctx.sessions) {
        const sent = notificationsOf(session.log, method);
        if (sent.length === 0) continue;
        count += sent.length;
        const declared = declaredCapabilities(session.log);
        const capability = declared?.capabilities[feature];
        const early = sent.find((entry) => declared === null || entry.at < declared.at);
        if (early || !isObject(capability) || capability.listChanged !== true)
          return fail(
            `${method} from a server that did not declare ${feature}.listChanged${early ? ' (yet)' : ''}`,
            `capabilities.${feature}.listChanged: true`,
            `${brief(capability)}; ${brief(sent[0]?.message)}`,
          );
      }
      if (count === 0) throw new NotApplicable(`nothing to judge: no ${method} came in this run`);
      return pass(`${count} notification(s)`);
    },
  };
}
